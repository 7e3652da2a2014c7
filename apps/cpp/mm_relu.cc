// Builds the course's mm_relu PrimFunc (matmul + ReLU, section 2.4.1) with
// the C++ API, prints it as TVMScript, then compiles it for the CPU and
// checks one output element. Shows the compiler used without Python.
#include <cmath>
#include <iostream>
#include <vector>

#include "codegen/build_module.h"
#include "runtime/ndarray.h"
#include "script/printer/script_printer.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"

using namespace tessera;       // NOLINT
using namespace tessera::tir;  // NOLINT

namespace {

// A block over iteration variables bound to loop variables, with its
// reads/writes inferred as the TVMScript parser does.
Stmt MakeBlock(const std::string& name, const std::vector<std::pair<Var, int>>& iters,
               const std::vector<Var>& loop_vars, const Range& dom, Stmt body, std::optional<Stmt> init = std::nullopt) {
  std::vector<IterVar> ivs;
  for (const auto& [v, kind] : iters) ivs.push_back(IterVar(dom, v, kind));
  Block block(Array<IterVar>(ivs), {}, {}, name, body, init);
  auto [reads, writes] = InferBlockAccessRegions(block);
  block.CopyOnWrite()->reads = reads;
  block.CopyOnWrite()->writes = writes;
  std::vector<PrimExpr> values(loop_vars.begin(), loop_vars.end());
  return BlockRealize(Array<PrimExpr>(values), IntImm(DataType::Bool(), 1), block);
}

Stmt Loops(const std::vector<Var>& vars, int extent, Stmt body) {
  for (size_t i = vars.size(); i-- > 0;) body = For(vars[i], 0, extent, ForKind::kSerial, body);
  return body;
}

}  // namespace

int main() {
  const int n = 128;
  DataType f32 = DataType::Float(32);
  Buffer A = decl_buffer({n, n}, f32, "A"), B = decl_buffer({n, n}, f32, "B"), C = decl_buffer({n, n}, f32, "C");
  Buffer Y = decl_buffer({n, n}, f32, "Y");
  Range dom = Range::FromMinExtent(0, n);

  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt y_block = MakeBlock("Y", {{vi, kDataPar}, {vj, kDataPar}, {vk, kCommReduce}}, {i, j, k}, dom,
                           BufferStore(Y, BufferLoad(Y, {vi, vj}) + BufferLoad(A, {vi, vk}) * BufferLoad(B, {vk, vj}),
                                       {vi, vj}),
                           BufferStore(Y, FloatImm(f32, 0), {vi, vj}));
  Var i2("i"), j2("j"), ci("vi"), cj("vj");
  Stmt c_block = MakeBlock("C", {{ci, kDataPar}, {cj, kDataPar}}, {i2, j2}, dom,
                           BufferStore(C, max(BufferLoad(Y, {ci, cj}), FloatImm(f32, 0)), {ci, cj}));
  Stmt body = SeqStmt::Flatten({Loops({i, j, k}, n, y_block), Loops({i2, j2}, n, c_block)});
  Block root({}, {}, {}, "root", body, std::nullopt, {Y});
  Var a("A", DataType::Handle()), b("B", DataType::Handle()), c("C", DataType::Handle());
  PrimFunc func({a, b, c}, BlockRealize({}, IntImm(DataType::Bool(), 1), root), {{a, A}, {b, B}, {c, C}},
                {{"global_symbol", String("mm_relu")}, {"tir.noalias", true}});
  IRModule mod = IRModule::FromExpr(func);
  std::string text = script::printer::AsTVMScript(mod);
  std::cout << text << "\n";
  if (text.find("def mm_relu(") == std::string::npos || text.find("T.block(\"Y\")") == std::string::npos) return 2;

  // Compile and run it once.
  Module lib = codegen::Build(mod, Target("llvm"));
  std::vector<float> av(n * n), bv(n * n), cv(n * n);
  for (int x = 0; x < n * n; ++x) {
    av[x] = static_cast<float>(x % 7) - 1.0f;
    bv[x] = static_cast<float>(x % 5) - 1.0f;
  }
  NDArray an = NDArray::Empty({n, n}, f32, CPU()), bn = NDArray::Empty({n, n}, f32, CPU());
  NDArray cn = NDArray::Empty({n, n}, f32, CPU());
  an.CopyFromBytes(av.data(), av.size() * 4);
  bn.CopyFromBytes(bv.data(), bv.size() * 4);
  lib.GetFunctionOrThrow("mm_relu")(an, bn, cn);
  cn.CopyToBytes(cv.data(), cv.size() * 4);
  float expect = 0;
  for (int x = 0; x < n; ++x) expect += av[5 * n + x] * bv[x * n + 9];
  expect = std::max(expect, 0.0f);
  std::cout << "C[5, 9] = " << cv[5 * n + 9] << " (expected " << expect << ")\n";
  return std::fabs(cv[5 * n + 9] - expect) < 1e-3 ? 0 : 1;
}
