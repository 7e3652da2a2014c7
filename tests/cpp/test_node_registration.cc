// One registration per node: a small test node registers its fields once
// (TESSERA_REGISTER_NODE) and reflection, structural equality/hash and JSON
// all see them with their roles. Also the IR bases ready for Relax: the
// typed op attribute map, RelaxExpr inheritance, NodeDispatchTable in ir/.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "ir/module.h"
#include "ir/node_functor.h"
#include "ir/node_repr.h"
#include "ir/op.h"
#include "ir/serialization.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "runtime/reflection.h"
#include "tir/expr.h"
#include "tir/op.h"

namespace tessera {
namespace {

// A binder: `var` is defined, `value` and `body` use it, `note` is ignored.
class TestBindNode : public Object {
 public:
  tir::Var var;
  PrimExpr value;
  PrimExpr body;
  std::string note;
  int64_t count = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TestBindNode, Object, "test.Bind");
};
class TestBind : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(TestBind, ObjectRef, TestBindNode);
};
TESSERA_REGISTER_OBJECT_TYPE(TestBindNode);
TESSERA_REGISTER_NODE(TestBindNode)
    .def("var", &TestBindNode::var)
    .field("value", &TestBindNode::value)
    .field("body", &TestBindNode::body)
    .ignore("note", &TestBindNode::note)
    .field("count", &TestBindNode::count);

TestBind MakeBind(const std::string& name, int64_t value, const std::string& note, int64_t count = 1) {
  auto n = make_object<TestBindNode>();
  n->var = tir::Var(name, DataType::Int(32));
  n->value = IntImm(DataType::Int(32), value);
  n->body = tir::add(n->var, n->var);
  n->note = note;
  n->count = count;
  return TestBind(ObjectPtr<Object>(std::move(n)));
}

TEST(NodeRegistration, FieldsVisibleToReflectionInOrderWithRoles) {
  TestBind b = MakeBind("x", 3, "hello");
  std::vector<const FieldInfo*> fields = Reflection::ListFields(TestBindNode::RuntimeTypeIndex());
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0]->name, "var");
  EXPECT_EQ(fields[0]->role, FieldRole::kDef);
  EXPECT_EQ(fields[3]->name, "note");
  EXPECT_EQ(fields[3]->role, FieldRole::kIgnored);
  EXPECT_EQ(Reflection::GetField(b.get(), "note")->cast<std::string>(), "hello");
  EXPECT_EQ(Reflection::GetField(b.get(), "count")->cast<int64_t>(), 1);
  EXPECT_TRUE(Reflection::GetField(b.get(), "var")->as<tir::VarNode>() == b->var.get());
  EXPECT_FALSE(Reflection::GetField(b.get(), "missing").has_value());
}

TEST(NodeRegistration, StructuralEqualityFollowsRoles) {
  // The defined variable maps (other name, other object), the ignored field
  // does not matter, the compared ones do.
  TestBind a = MakeBind("x", 3, "one");
  TestBind b = MakeBind("y", 3, "two");
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_FALSE(StructuralEqual(a, MakeBind("x", 4, "one")));
  EXPECT_FALSE(StructuralEqual(a, MakeBind("x", 3, "one", 2)));
  auto mismatch = GetFirstStructuralMismatch(a, MakeBind("x", 3, "one", 2));
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->path, "root.count");
}

TEST(NodeRegistration, ReprShowsComparedFields) {
  std::string text = ReprByFields(MakeBind("x", 3, "secret", 7));
  EXPECT_EQ(text.rfind("test.Bind(var=tir.Var(x), value=3, body=", 0), 0u) << text;
  EXPECT_NE(text.find("count=7"), std::string::npos) << text;
  EXPECT_EQ(text.find("secret"), std::string::npos) << text;  // ignored field
  EXPECT_NE(ReprByFields(MakeBind("x", 3, "n"), 0).find("test.Bind(...)"), std::string::npos);
}

TEST(NodeRegistration, JSONRoundTripKeepsFieldsAndSharing) {
  TestBind a = MakeBind("x", 3, "note text", 7);
  std::string text = SaveJSON(a);
  Any back = LoadJSON(text);
  const auto* n = back.as<TestBindNode>();
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->note, "note text");  // ignored by equality, still saved
  EXPECT_EQ(n->count, 7);
  EXPECT_EQ(n->var->name_hint, "x");
  // The variable is one object, used by `var` and twice in `body`.
  const auto* add = n->body.as<tir::AddNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->a.get(), n->var.get());
  EXPECT_EQ(add->b.get(), n->var.get());
  EXPECT_TRUE(StructuralEqual(a, back));
  EXPECT_EQ(SaveJSON(back), text);
}

TEST(NodeRegistration, JSONRejectsBadInputNamingTheCulprit) {
  std::string good = SaveJSON(MakeBind("x", 3, "n"));
  auto expect_value_error = [](const std::string& text, const std::string& needle) {
    try {
      LoadJSON(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_value_error("{\"root\": ", "malformed JSON");
  expect_value_error("[1, 2]", "not an IR document");
  expect_value_error(R"({"root": {"node": 0}, "nodes": [{"type_key": "test.NoSuchType", "fields": {}}]})",
                     "unknown type key 'test.NoSuchType'");
  expect_value_error(R"({"root": {"node": 3}, "nodes": []})", "not defined before it");
  std::string wrong = good;
  size_t at = wrong.find("\"count\":1");
  ASSERT_NE(at, std::string::npos) << good;
  wrong.replace(at, 9, "\"count\":\"many\"");
  expect_value_error(wrong, "field 'count'");
  std::string missing = good;
  missing.replace(missing.find("\"count\":1,"), 10, "");
  expect_value_error(missing, "missing field 'count'");
  // Raw handles cannot be written.
  EXPECT_THROW(SaveJSON(Any(static_cast<void*>(nullptr))), ValueError);
}

TEST(NodeRegistration, OpsLoadAsTheRegisteredSingleton) {
  Op exp = Op::Get("tir.exp");
  Any back = LoadJSON(SaveJSON(exp));
  EXPECT_TRUE(back.raw_object().same_as(exp));
  EXPECT_THROW(LoadJSON(R"({"root": {"node": 0}, "nodes": [{"type_key": "ir.Op", "fields": {"name": "tir.nope",
      "description": "", "num_inputs": 1, "span": null, "struct_info_": null}}]})"),
               ValueError);
}

// ---- IR bases ready for Relax -----------------------------------------------------

TEST(RelaxExprBase, GlobalVarFunctionsAndOpsAreRelaxExprs) {
  GlobalVar gv("main");
  EXPECT_TRUE(gv->IsInstance<RelaxExprNode>());
  EXPECT_TRUE(Op::Get("tir.exp")->IsInstance<RelaxExprNode>());
  EXPECT_TRUE(TypeRegistry::IsDerivedFrom(BaseFuncNode::RuntimeTypeIndex(), RelaxExprNode::RuntimeTypeIndex()));
  EXPECT_FALSE(TypeRegistry::IsDerivedFrom(PrimExprNode::RuntimeTypeIndex(), RelaxExprNode::RuntimeTypeIndex()));
  RelaxExpr as_relax = gv;  // implicit upcast of the reference
  EXPECT_FALSE(as_relax->struct_info_.defined());
  // struct info is derived data: not compared.
  GlobalVar other("main");
  other->struct_info_ = IntImm(DataType::Int(32), 1);
  EXPECT_TRUE(StructuralEqual(gv, other, /*map_free_vars=*/true));
}

TEST(OpAttrMap, TypedReadsCountAndDefaults) {
  static const OpAttrMap<int> effect = Op::GetAttrMap<int>("TCallEffectKind");
  Op exp = Op::Get("tir.exp");
  ASSERT_TRUE(effect.count(exp));
  EXPECT_EQ(effect[exp], 0);
  EXPECT_EQ(effect.get(exp, 5), 0);
  // An attribute no op has: an empty map, defaults apply, [] names the op.
  OpAttrMap<int> none = Op::GetAttrMap<int>("test.NoSuchAttr");
  EXPECT_FALSE(none.count(exp));
  EXPECT_EQ(none.get(exp, 42), 42);
  EXPECT_FALSE(Op::HasAttrMap("test.NoSuchAttr"));
  try {
    (void)none[exp];
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("tir.exp"), std::string::npos);
  }
  // Asking for the wrong type raises TypeError naming the attribute.
  OpAttrMap<std::string> as_string = Op::GetAttrMap<std::string>("TCallEffectKind");
  EXPECT_THROW((void)as_string[exp], TypeError);
  // The untyped API still answers the same.
  EXPECT_EQ(exp.GetAttr("TCallEffectKind")->cast<int>(), 0);
}

TEST(OpAttrMap, LaterRegistrationsShowThroughAndPlevelWins) {
  OpAttrMap<int> map = Op::GetAttrMap<int>("test.Level");
  OpRegEntry& entry = OpRegEntry::RegisterOrGet("test.op_attr_map_op");
  EXPECT_FALSE(map.count(entry.op()));
  entry.set_attr("test.Level", 1, 10);
  EXPECT_EQ(map[entry.op()], 1);
  entry.set_attr("test.Level", 2, 5);  // lower plevel: kept at 1
  EXPECT_EQ(map[entry.op()], 1);
  entry.set_attr("test.Level", 3, 20);
  EXPECT_EQ(map[entry.op()], 3);
  EXPECT_TRUE(Op::HasAttrMap("test.Level"));
}

TEST(OpAttrMap, ConcurrentReadsAgree) {
  const OpAttrMap<int> effect = Op::GetAttrMap<int>("TCallEffectKind");
  std::vector<Op> ops;
  for (const std::string& name : Op::ListNames()) ops.push_back(Op::Get(name));
  std::atomic<int> seen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      int local = 0;
      for (int rep = 0; rep < 200; ++rep) {
        for (const Op& op : ops) local += effect.count(op) ? 1 : 0;
      }
      seen += local;
    });
  }
  for (auto& th : threads) th.join();
  int once = 0;
  for (const Op& op : ops) once += op.GetAttr("TCallEffectKind").has_value() ? 1 : 0;
  EXPECT_EQ(seen.load(), once * 200 * 4);
}

// ---- NodeDispatchTable lives in ir/ -------------------------------------------------

TEST(NodeDispatchTable, FallsBackToNearestRegisteredAncestor) {
  using F = std::function<std::string()>;
  NodeDispatchTable<F> table;
  table.Set(RelaxExprNode::RuntimeTypeIndex(), [] { return std::string("relax"); });
  table.Set(PrimExprNode::RuntimeTypeIndex(), [] { return std::string("prim"); });
  table.Set(tir::AddNode::RuntimeTypeIndex(), [] { return std::string("add"); });
  ASSERT_NE(table.Find(GlobalVarNode::RuntimeTypeIndex()), nullptr);
  EXPECT_EQ((*table.Find(GlobalVarNode::RuntimeTypeIndex()))(), "relax");
  EXPECT_EQ((*table.Find(tir::AddNode::RuntimeTypeIndex()))(), "add");
  EXPECT_EQ((*table.Find(tir::SubNode::RuntimeTypeIndex()))(), "prim");
  EXPECT_EQ(table.Find(SpanNode::RuntimeTypeIndex()), nullptr);
}

}  // namespace
}  // namespace tessera
