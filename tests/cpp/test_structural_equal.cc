// Structural equality and hashing of TIR: alpha-equivalent programs (other
// variable and buffer names) are equal and hash alike; every single-field
// change makes them unequal, reported at the expected path; free variables
// follow map_free_vars. The programs are built with the C++ API.
#include <gtest/gtest.h>

#include <set>

#include "ir/module.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "runtime/registry.h"
#include "tir/function.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

// One knob per field a test changes; the default is the base program, the
// mm_relu of the course (Y = A @ B with a reduction block, C = relu(Y)).
struct Variant {
  std::string suffix;  // appended to every variable and buffer name
  DataType dtype = DataType::Float(32);
  double init_value = 0.0;
  int64_t k_extent = 128;
  std::string block_name = "Y";
  int64_t y_rows = 128;
  bool noalias = true;
  ForKind j_kind = ForKind::kSerial;
  int vk_iter_type = kCommReduce;
  std::string y_scope = "global";
  bool swap_load_indices = false;  // A[vk, vi] instead of A[vi, vk]
};

Buffer MakeBuffer(const std::string& name, Array<PrimExpr> shape, DataType dtype, const std::string& scope = "global") {
  return Buffer(Var(name, DataType::Handle()), dtype, shape, {}, PrimExpr(), name, scope);
}

PrimExpr Pred() { return IntImm(DataType::Bool(), 1); }

PrimFunc MakeMatmulRelu(const Variant& v = Variant()) {
  const std::string& s = v.suffix;
  Var a("A" + s, DataType::Handle()), b("B" + s, DataType::Handle()), c("C" + s, DataType::Handle());
  Buffer A = MakeBuffer("A" + s, {128, 128}, v.dtype);
  Buffer B = MakeBuffer("B" + s, {128, 128}, v.dtype);
  Buffer C = MakeBuffer("C" + s, {128, 128}, v.dtype);
  Buffer Y = MakeBuffer("Y" + s, {PrimExpr(v.y_rows), 128}, v.dtype, v.y_scope);

  // Block Y: Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj], with init.
  Var i("i" + s), j("j" + s), k("k" + s);
  Var vi("vi" + s), vj("vj" + s), vk("vk" + s);
  Array<PrimExpr> a_idx = v.swap_load_indices ? Array<PrimExpr>{vk, vi} : Array<PrimExpr>{vi, vk};
  Stmt update = BufferStore(Y, BufferLoad(Y, {vi, vj}) + BufferLoad(A, a_idx) * BufferLoad(B, {vk, vj}), {vi, vj});
  Stmt init = BufferStore(Y, MakeConst(v.dtype, v.init_value), {vi, vj});
  Block block_y({IterVar(Range::FromMinExtent(0, 128), vi, kDataPar), IterVar(Range::FromMinExtent(0, 128), vj, kDataPar),
                 IterVar(Range::FromMinExtent(0, 128), vk, v.vk_iter_type)},
                {BufferRegion::FromPoint(A, {vi, vk}), BufferRegion::FromPoint(B, {vk, vj})},
                {BufferRegion::FromPoint(Y, {vi, vj})}, v.block_name, update, init);
  Stmt nest_y = For(i, 0, 128, ForKind::kSerial,
                    For(j, 0, 128, v.j_kind, For(k, 0, PrimExpr(v.k_extent), ForKind::kSerial, BlockRealize({i, j, k}, Pred(), block_y))));

  // Block C: C[vi, vj] = max(Y[vi, vj], 0).
  Var i2("i" + s), j2("j" + s), vi2("vi" + s), vj2("vj" + s);
  Stmt relu = BufferStore(C, max(BufferLoad(Y, {vi2, vj2}), MakeConst(v.dtype, 0)), {vi2, vj2});
  Block block_c({IterVar(Range::FromMinExtent(0, 128), vi2, kDataPar), IterVar(Range::FromMinExtent(0, 128), vj2, kDataPar)},
                {BufferRegion::FromPoint(Y, {vi2, vj2})}, {BufferRegion::FromPoint(C, {vi2, vj2})}, "C", relu);
  Stmt nest_c = For(i2, 0, 128, ForKind::kSerial, For(j2, 0, 128, ForKind::kSerial, BlockRealize({i2, j2}, Pred(), block_c)));

  Block root({}, {}, {}, "root", SeqStmt({nest_y, nest_c}), std::nullopt, {Y});
  Attrs attrs;
  attrs.Set("global_symbol", String("mm_relu"));
  attrs.Set("tir.noalias", v.noalias);
  return PrimFunc({a, b, c}, BlockRealize({}, Pred(), root), Map<Var, Buffer>{{a, A}, {b, B}, {c, C}}, attrs);
}

template <typename F>
Variant Change(F f) {
  Variant v;
  f(v);
  return v;
}

IRModule ModuleOf(const PrimFunc& f) { return IRModule::FromExpr(f); }

std::string MismatchPath(const Any& lhs, const Any& rhs, bool map_free_vars = false) {
  auto m = GetFirstStructuralMismatch(lhs, rhs, map_free_vars);
  return m ? m->path : std::string("<equal>");
}

TEST(StructuralEqual, AlphaEquivalentFunctionsAreEqual) {
  PrimFunc f = MakeMatmulRelu();
  PrimFunc g = MakeMatmulRelu(Change([](Variant& v) { v.suffix = "_other"; }));
  EXPECT_FALSE(f.same_as(g));
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_TRUE(StructuralEqual(g, f));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
  EXPECT_TRUE(StructuralEqual(ModuleOf(f), ModuleOf(g)));
  EXPECT_EQ(StructuralHash(ModuleOf(f)), StructuralHash(ModuleOf(g)));
  EXPECT_FALSE(GetFirstStructuralMismatch(f, g).has_value());
}

TEST(StructuralEqual, ObjectIsEqualToItself) {
  PrimFunc f = MakeMatmulRelu();
  EXPECT_TRUE(StructuralEqual(f, f));
  EXPECT_TRUE(StructuralEqual(f->body, f->body));
}

struct FieldChange {
  const char* what;
  Variant variant;
  const char* path;  // inside the module's function
};

class StructuralFieldChange : public ::testing::TestWithParam<FieldChange> {};

TEST_P(StructuralFieldChange, IsUnequalAtTheExpectedPath) {
  const FieldChange& change = GetParam();
  PrimFunc base = MakeMatmulRelu();
  PrimFunc changed = MakeMatmulRelu(change.variant);
  EXPECT_FALSE(StructuralEqual(base, changed)) << change.what;
  EXPECT_FALSE(StructuralEqual(changed, base)) << change.what;
  EXPECT_NE(StructuralHash(base), StructuralHash(changed)) << change.what;
  EXPECT_EQ(MismatchPath(ModuleOf(base), ModuleOf(changed)), std::string("root.functions[\"mm_relu\"]") + change.path)
      << change.what;
}

// Paths: the root block realize is `body`; its block's body is the sequence
// of the two loop nests; nest 0 is i > j > k > BlockRealize(Y).
INSTANTIATE_TEST_SUITE_P(
    Structural, StructuralFieldChange,
    ::testing::Values(
        FieldChange{"buffer dtype", Change([](Variant& v) { v.dtype = DataType::Float(16); }), ".buffer_map[A].dtype"},
        FieldChange{"constant", Change([](Variant& v) { v.init_value = 1.0; }), ".body.block.body.seq[0].body.body.body.block.init.value"},
        FieldChange{"extent", Change([](Variant& v) { v.k_extent = 64; }), ".body.block.body.seq[0].body.body.extent"},
        FieldChange{"buffer shape", Change([](Variant& v) { v.y_rows = 64; }), ".body.block.alloc_buffers[0].shape[0]"},
        FieldChange{"attr value", Change([](Variant& v) { v.noalias = false; }), ".attrs[\"tir.noalias\"]"},
        FieldChange{"for kind", Change([](Variant& v) { v.j_kind = ForKind::kParallel; }), ".body.block.body.seq[0].body.kind"},
        FieldChange{"iter type", Change([](Variant& v) { v.vk_iter_type = kDataPar; }), ".body.block.body.seq[0].body.body.body.block.iter_vars[2].iter_type"},
        FieldChange{"buffer scope", Change([](Variant& v) { v.y_scope = "shared"; }), ".body.block.alloc_buffers[0].scope"},
        FieldChange{"variable use", Change([](Variant& v) { v.swap_load_indices = true; }),
                    ".body.block.body.seq[0].body.body.body.block.body.value.b.a.indices[0]"}));

// As TVM, block names are neither compared nor hashed.
TEST(StructuralEqual, BlockNamesAreNotCompared) {
  PrimFunc base = MakeMatmulRelu();
  PrimFunc renamed = MakeMatmulRelu(Change([](Variant& v) { v.block_name = "Z"; }));
  EXPECT_TRUE(StructuralEqual(base, renamed));
  EXPECT_EQ(StructuralHash(base), StructuralHash(renamed));
}

TEST(StructuralEqual, ConstantMismatchIsReportedWithBothSides) {
  PrimFunc base = MakeMatmulRelu();
  PrimFunc changed = MakeMatmulRelu(Change([](Variant& v) { v.k_extent = 64; }));
  auto m = GetFirstStructuralMismatch(base, changed);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, "root.body.block.body.seq[0].body.body.extent");
  EXPECT_NE(m->lhs.find("128"), std::string::npos) << m->lhs;
  EXPECT_NE(m->rhs.find("64"), std::string::npos) << m->rhs;
}

TEST(StructuralEqual, FreeVariablesNeedTheSameObjectUnlessMapped) {
  Var x("x"), y("x"), z("z", DataType::Int(64));
  PrimExpr ex = x + 1, ey = y + 1;
  EXPECT_TRUE(StructuralEqual(ex, x + 1));  // same free variable
  EXPECT_FALSE(StructuralEqual(ex, ey));    // same name, different object
  EXPECT_TRUE(StructuralEqual(ex, ey, /*map_free_vars=*/true));
  EXPECT_EQ(StructuralHash(ex, true), StructuralHash(ey, true));
  EXPECT_FALSE(StructuralEqual(x, z, true));  // dtypes still compared
  auto m = GetFirstStructuralMismatch(ex, ey);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, "root.a");
  EXPECT_NE(m->reason.find("free"), std::string::npos) << m->reason;
  // A free variable mapped once stays mapped: x + x vs y + w is unequal.
  Var w("w");
  EXPECT_FALSE(StructuralEqual(x + x, y + w, true));
  EXPECT_TRUE(StructuralEqual(x + w, y + x, true));  // x->y, w->x is a consistent renaming
}

TEST(StructuralEqual, FreeVariableInsideFunctionsIsIdentityChecked) {
  // A function whose body uses a variable it does not define.
  Var n("n");
  auto make = [](Var free) {
    Var p("p");
    return PrimFunc({p}, Evaluate(p + free));
  };
  PrimFunc f = make(n), g = make(n), h = make(Var("n"));
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
  EXPECT_FALSE(StructuralEqual(f, h));
  EXPECT_TRUE(StructuralEqual(f, h, true));
  EXPECT_EQ(StructuralHash(f, true), StructuralHash(h, true));
}

TEST(StructuralEqual, SwappedParametersAreNotARenaming) {
  // fn(x, y) { x - y } vs fn(y, x) { x - y } sharing the same variables.
  Var x("x"), y("y");
  PrimFunc f({x, y}, Evaluate(x - y));
  PrimFunc g({y, x}, Evaluate(x - y));
  EXPECT_FALSE(StructuralEqual(f, g));
  EXPECT_EQ(MismatchPath(f, g), "root.body.value.a");
  PrimFunc h({y, x}, Evaluate(y - x));  // a true renaming
  EXPECT_TRUE(StructuralEqual(f, h));
  EXPECT_EQ(StructuralHash(f), StructuralHash(h));
}

TEST(StructuralEqual, SymbolicShapesAreDefinedByTheBufferMap) {
  auto make = [](const std::string& name) {
    Var n(name), p("p", DataType::Handle()), q("q", DataType::Handle());
    Buffer X = MakeBuffer("X", {1, n}, DataType::Float(32));
    Buffer Y = MakeBuffer("Y", {1, n}, DataType::Float(32));
    Var i("i");
    Stmt body = For(i, 0, n, ForKind::kSerial, BufferStore(Y, BufferLoad(X, {0, i}), {0, i}));
    return PrimFunc({p, q}, body, Map<Var, Buffer>{{p, X}, {q, Y}});
  };
  PrimFunc f = make("n"), g = make("m");
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
  // Y with its own size variable is a different program (shapes no longer tied).
  Var n("n"), m("m"), p("p", DataType::Handle()), q("q", DataType::Handle()), i("i");
  Buffer X = MakeBuffer("X", {1, n}, DataType::Float(32));
  Buffer Y = MakeBuffer("Y", {1, m}, DataType::Float(32));
  PrimFunc h({p, q}, For(i, 0, n, ForKind::kSerial, BufferStore(Y, BufferLoad(X, {0, i}), {0, i})),
             Map<Var, Buffer>{{p, X}, {q, Y}});
  EXPECT_FALSE(StructuralEqual(f, h));
  EXPECT_EQ(MismatchPath(f, h), "root.buffer_map[q].shape[1]");
}

TEST(StructuralEqual, BuffersCorrespondOneToOne) {
  // Two stores into one buffer vs into two distinct (identically shaped) buffers.
  Var i("i");
  Buffer A = MakeBuffer("A", {4}, DataType::Float(32));
  Buffer B = MakeBuffer("B", {4}, DataType::Float(32));
  Buffer C = MakeBuffer("C", {4}, DataType::Float(32));
  Stmt same = SeqStmt({BufferStore(A, PrimExpr(1.0), {0}), BufferStore(A, PrimExpr(1.0), {1})});
  Stmt distinct = SeqStmt({BufferStore(B, PrimExpr(1.0), {0}), BufferStore(C, PrimExpr(1.0), {1})});
  EXPECT_FALSE(StructuralEqual(same, distinct));
  EXPECT_EQ(MismatchPath(same, distinct), "root.seq[1].buffer");
  // Buffer names are not compared (as TVM): a renamed buffer is the same program.
  Buffer D = MakeBuffer("D", {4}, DataType::Float(32));
  Stmt renamed = SeqStmt({BufferStore(D, PrimExpr(1.0), {0}), BufferStore(D, PrimExpr(1.0), {1})});
  EXPECT_TRUE(StructuralEqual(same, renamed));
  EXPECT_EQ(StructuralHash(same), StructuralHash(renamed));
}

TEST(StructuralEqual, AttributeMapsIgnoreInsertionOrder) {
  Attrs a, b;
  a.Set("x", 1);
  a.Set("y", String("s"));
  b.Set("y", String("s"));
  b.Set("x", 1);
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  b.Set("z", 2.5);
  EXPECT_FALSE(StructuralEqual(a, b));
  EXPECT_EQ(MismatchPath(a, b), "root[\"z\"]");
  EXPECT_NE(StructuralHash(a), StructuralHash(b));
}

TEST(StructuralEqual, RuntimeValuesCompareByValue) {
  EXPECT_TRUE(StructuralEqual(Any(3), Any(3)));
  EXPECT_FALSE(StructuralEqual(Any(3), Any(4)));
  EXPECT_FALSE(StructuralEqual(Any(1), Any(true)));
  EXPECT_TRUE(StructuralEqual(Any(DataType::Float(32)), Any(DataType::Float(32))));
  EXPECT_FALSE(StructuralEqual(Any(DataType::Float(32)), Any(DataType::Float(16))));
  EXPECT_TRUE(StructuralEqual(Any(String("abc")), Any(String("abc"))));
  EXPECT_TRUE(StructuralEqual(Array<Any>({1, 2.0, String("x")}), Array<Any>({1, 2.0, String("x")})));
  EXPECT_FALSE(StructuralEqual(Array<Any>({1, 2}), Array<Any>({1, 2, 3})));
  EXPECT_EQ(MismatchPath(Array<Any>({1, 2}), Array<Any>({1, 2, 3})), "root");
  EXPECT_EQ(MismatchPath(Array<Any>({1, 2}), Array<Any>({1, 5})), "root[1]");
  EXPECT_EQ(StructuralHash(Any(0.0)), StructuralHash(Any(-0.0)));
  // Plain numbers equal constant nodes of the same value (as TVM, which
  // converts them), and hash alike.
  EXPECT_TRUE(StructuralEqual(Any(16), IntImm(DataType::Int(32), 16)));
  EXPECT_TRUE(StructuralEqual(IntImm(DataType::Int(64), 16), Any(16)));
  EXPECT_FALSE(StructuralEqual(Any(17), IntImm(DataType::Int(32), 16)));
  EXPECT_TRUE(StructuralEqual(Any(true), IntImm(DataType::Bool(), 1)));
  EXPECT_TRUE(StructuralEqual(Any(2.5), FloatImm(DataType::Float(32), 2.5)));
  EXPECT_FALSE(StructuralEqual(Any(2), FloatImm(DataType::Float(32), 2.0)));
  EXPECT_EQ(StructuralHash(Any(16)), StructuralHash(IntImm(DataType::Int(32), 16)));
  EXPECT_EQ(StructuralHash(Any(2.5)), StructuralHash(FloatImm(DataType::Float(32), 2.5)));
  Map<String, Any> ann1, ann2;
  ann1.Set("meta_schedule.unroll_explicit", 16);
  ann2.Set("meta_schedule.unroll_explicit", IntImm(DataType::Int(32), 16));
  EXPECT_TRUE(StructuralEqual(ann1, ann2));
  EXPECT_EQ(StructuralHash(ann1), StructuralHash(ann2));
  EXPECT_TRUE(StructuralEqual(Any(), Any()));
}

TEST(StructuralEqual, ExpressionTypesAndDtypesAreCompared) {
  Var x("x");
  EXPECT_FALSE(StructuralEqual(Add(x, 1), Sub(x, 1)));
  EXPECT_NE(StructuralHash(Add(x, 1)), StructuralHash(Sub(x, 1)));
  EXPECT_FALSE(StructuralEqual(IntImm(DataType::Int(32), 1), IntImm(DataType::Int(64), 1)));
  EXPECT_EQ(MismatchPath(IntImm(DataType::Int(32), 1), IntImm(DataType::Int(64), 1)), "root.dtype");
  EXPECT_FALSE(StructuralEqual(FloatImm(DataType::Float(32), 1.5), FloatImm(DataType::Float(32), 2.5)));
  EXPECT_TRUE(StructuralEqual(FloatImm(DataType::Float(32), 1.5), FloatImm(DataType::Float(32), 1.5)));
  EXPECT_FALSE(StructuralEqual(Var("v"), SizeVar("v"), true));
  PrimExpr e1 = UnaryMath("exp", FloatImm(DataType::Float(32), 1.0));
  PrimExpr e2 = UnaryMath("log", FloatImm(DataType::Float(32), 1.0));
  EXPECT_FALSE(StructuralEqual(e1, e2));
  EXPECT_EQ(MismatchPath(e1, e2), "root.op.name");
}

TEST(StructuralEqual, LetAndLoopVariablesAreDefinitions) {
  auto make_let = [](const std::string& name) {
    Var v(name);
    return Let(v, 3, v * 2);
  };
  EXPECT_TRUE(StructuralEqual(make_let("a"), make_let("b")));
  EXPECT_EQ(StructuralHash(make_let("a")), StructuralHash(make_let("b")));
  auto make_loop = [](const std::string& name, int64_t extent) {
    Var v(name);
    Buffer A = MakeBuffer("A", {16}, DataType::Int(32));
    return For(v, 0, PrimExpr(extent), ForKind::kSerial, BufferStore(A, v, {v}));
  };
  EXPECT_TRUE(StructuralEqual(make_loop("i", 16), make_loop("j", 16)));
  EXPECT_FALSE(StructuralEqual(make_loop("i", 16), make_loop("i", 8)));
  Var t("t");
  Buffer A = MakeBuffer("A", {16}, DataType::Int(32));
  Stmt alloc1 = LetStmt(t, 4, BufferStore(A, t, {t}));
  Var u("u");
  Stmt alloc2 = LetStmt(u, 4, BufferStore(A, u, {u}));
  EXPECT_TRUE(StructuralEqual(alloc1, alloc2));
}

TEST(StructuralEqual, ThreadBindingsAndAnnotationsAreCompared) {
  auto make = [](const std::string& tag, int64_t unroll) {
    Var v("i"), tv("threadIdx.x");
    Buffer A = MakeBuffer("A", {32}, DataType::Int(32));
    Map<String, Any> ann;
    ann.Set("pragma_unroll", unroll);
    return For(v, 0, 32, ForKind::kThreadBinding, BufferStore(A, v, {v}),
               IterVar(Range::FromMinExtent(0, 32), tv, kThreadIndex, tag), ann);
  };
  EXPECT_TRUE(StructuralEqual(make("threadIdx.x", 1), make("threadIdx.x", 1)));
  EXPECT_EQ(MismatchPath(make("threadIdx.x", 1), make("threadIdx.y", 1)), "root.thread_binding.thread_tag");
  EXPECT_EQ(MismatchPath(make("threadIdx.x", 1), make("threadIdx.x", 2)), "root.annotations[\"pragma_unroll\"]");
}

TEST(StructuralEqual, ModulesMatchFunctionsByName) {
  // Two functions, one calling the other through its GlobalVar.
  auto make = [](bool reversed) {
    GlobalVar callee("callee"), caller("caller");
    Var p("p"), q("q");
    PrimFunc f_callee({p}, Evaluate(p + 1));
    PrimFunc f_caller({q}, Evaluate(Call(DataType::Int(32), callee, {q})));
    Map<GlobalVar, BaseFunc> funcs;
    if (reversed) {
      funcs.Set(caller, f_caller);
      funcs.Set(callee, f_callee);
    } else {
      funcs.Set(callee, f_callee);
      funcs.Set(caller, f_caller);
    }
    return IRModule(funcs);
  };
  IRModule m1 = make(false), m2 = make(true);
  EXPECT_TRUE(StructuralEqual(m1, m2));
  EXPECT_EQ(StructuralHash(m1), StructuralHash(m2));
  // A module missing a function.
  IRModule m3 = IRModule::FromExpr(PrimFunc({Var("p")}, Evaluate(PrimExpr(0))));
  EXPECT_FALSE(StructuralEqual(m1, m3));
  EXPECT_EQ(MismatchPath(m1, m3), "root.functions[\"callee\"]");
}

TEST(StructuralHash, IndependentOfObjectAddressesAndStable) {
  std::vector<PrimFunc> keep;  // allocations in between move later objects elsewhere
  uint64_t h1 = StructuralHash(MakeMatmulRelu());
  for (int i = 0; i < 10; ++i) keep.push_back(MakeMatmulRelu(Change([i](Variant& v) { v.suffix = std::to_string(i); })));
  uint64_t h2 = StructuralHash(MakeMatmulRelu(Change([](Variant& v) { v.suffix = "_z"; })));
  EXPECT_EQ(h1, h2);
  for (const PrimFunc& f : keep) EXPECT_EQ(StructuralHash(f), h1);
}

TEST(StructuralHash, DistinguishesSmallPrograms) {
  // Many distinct small expressions: no collisions among them.
  Var x("x");
  std::vector<PrimExpr> exprs;
  for (int c = 0; c < 50; ++c) {
    exprs.push_back(Add(x, c));
    exprs.push_back(Mul(x, c));
    exprs.push_back(Sub(x, c));
  }
  std::set<uint64_t> hashes;
  for (const PrimExpr& e : exprs) hashes.insert(StructuralHash(e));
  EXPECT_EQ(hashes.size(), exprs.size());
}

TEST(StructuralEqual, GlobalsAreRegistered) {
  PrimFunc f = MakeMatmulRelu(), g = MakeMatmulRelu(Change([](Variant& v) { v.suffix = "2"; })), h = MakeMatmulRelu(Change([](Variant& v) { v.k_extent = 3; }));
  PackedFunc eq = Registry::GetOrThrow("ir.StructuralEqual");
  PackedFunc hash = Registry::GetOrThrow("ir.StructuralHash");
  PackedFunc first = Registry::GetOrThrow("ir.GetFirstStructuralMismatch");
  EXPECT_TRUE(eq(f, g, false).cast<bool>());
  EXPECT_FALSE(eq(f, h).cast<bool>());
  EXPECT_EQ(hash(f).cast<int64_t>(), hash(g, false).cast<int64_t>());
  EXPECT_TRUE(first(f, g, false).is_none());
  Array<Any> m = first(f, h, false).cast<Array<Any>>();
  ASSERT_EQ(m.size(), 6u);  // path, reason, both sides rendered, the innermost mismatching nodes
  EXPECT_EQ(m[0].cast<std::string>(), "root.body.block.body.seq[0].body.body.extent");
  ASSERT_NE(m[4].as<IntImmNode>(), nullptr);
  EXPECT_EQ(m[5].as<IntImmNode>()->value, 3);
  EXPECT_THROW(eq(f), TypeError);
}

}  // namespace
}  // namespace tir
}  // namespace tessera
