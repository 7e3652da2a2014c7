// Builds a small VM program with the compiler and exports it as one shared
// library for apps/cpp/vm_run.cc: a TIR kernel (y = 2 * x + 1, parsed from
// TVMScript and compiled with LLVM) called from bytecode written with
// ExecBuilder, with parameter checks and pooled storage. Usage: vm_export OUT.so
#include <iostream>

#include "codegen/build_module.h"
#include "ir/module.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"
#include "runtime/vm/exec_builder.h"
#include "script/parser/parser.h"
#include "tir/function.h"

using namespace tessera;               // NOLINT
using namespace tessera::runtime::vm;  // NOLINT

static const char* kKernel = R"(
@T.prim_func
def affine(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2) + T.float32(1)
)";

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vm_export OUT.so\n";
    return 2;
  }
  try {
    auto func = Downcast<tir::PrimFunc>(script::ParseTVMScript(kKernel));
    Module lib = codegen::Build(IRModule::FromExpr(func), Target("llvm"));

    auto b = make_object<ExecBuilderNode>();
    auto c = [&](Any v) { return Arg::ConstIdx(b->ConvertConstant(v)); };
    // main(x: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32")
    b->EmitFunction("main", 1, {"x"});
    const std::string ctx = "ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((16,), dtype=\"float32\"))";
    b->EmitCall("vm.builtin.check_tensor_info", {Arg::Register(0), Arg::Immediate(1), c(DataType::Float(32)), c(String(ctx))},
                kVoidRegister);
    b->EmitCall("vm.builtin.match_shape", {Arg::Register(0), Arg::Register(kVoidRegister), Arg::Immediate(1),
                                           Arg::Immediate(1), Arg::Immediate(16), c(String(ctx))},
                kVoidRegister);
    b->EmitCall("vm.builtin.alloc_storage", {Arg::Register(kVMRegister), c(ShapeTuple({64})), Arg::Immediate(0),
                                             c(DataType::UInt(8)), c(String("global"))},
                1);
    b->EmitCall("vm.builtin.alloc_tensor", {Arg::Register(1), Arg::Immediate(0), c(ShapeTuple({16})), c(DataType::Float(32))}, 2);
    b->EmitCall("affine", {Arg::Register(0), Arg::Register(2)}, kVoidRegister);
    b->EmitRet(Arg::Register(2));
    b->EndFunction("main");
    // noop(x) = x: measures the VM's dispatch cost.
    b->EmitFunction("noop", 1, {"x"});
    b->EmitRet(Arg::Register(0));
    b->EndFunction("noop");

    Module exec(ObjectPtr<Object>(b->Get()));
    Module linked = Registry::GetOrThrow("relax.ExecutableLinkLibrary")(exec, lib).cast<Module>();
    Registry::GetOrThrow("relax.ExecutableExportLibrary")(linked, std::string(argv[1]));
    std::cout << "exported " << argv[1] << "\n";
  } catch (const std::exception& e) {
    std::cerr << "vm_export failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
