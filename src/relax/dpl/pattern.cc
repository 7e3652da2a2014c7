// Node registrations of the dataflow patterns (pattern.h), their
// "relax.dpl.<Kind>" constructor globals for Python (each operand checked:
// a non-pattern operand is a TypeError naming the constructor and the
// argument) and PatternText for messages.
#include "relax/dpl/pattern.h"

#include <sstream>

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace relax {
namespace dpl {

TESSERA_REGISTER_OBJECT_TYPE(DFPatternNode);
TESSERA_REGISTER_NODE(ExprPatternNode).field("expr", &ExprPatternNode::expr);
TESSERA_REGISTER_NODE(VarPatternNode).field("name", &VarPatternNode::name);
TESSERA_REGISTER_NODE(DataflowVarPatternNode);
TESSERA_REGISTER_NODE(GlobalVarPatternNode).field("name", &GlobalVarPatternNode::name);
TESSERA_REGISTER_NODE(ExternFuncPatternNode).field("global_symbol", &ExternFuncPatternNode::global_symbol);
TESSERA_REGISTER_NODE(ConstantPatternNode);
TESSERA_REGISTER_NODE(WildcardPatternNode);
TESSERA_REGISTER_NODE(CallPatternNode)
    .field("op", &CallPatternNode::op)
    .field("args", &CallPatternNode::args)
    .field("varg_default_wildcard", &CallPatternNode::varg_default_wildcard);
TESSERA_REGISTER_NODE(FunctionPatternNode).field("params", &FunctionPatternNode::params).field("body", &FunctionPatternNode::body);
TESSERA_REGISTER_NODE(TuplePatternNode).field("fields", &TuplePatternNode::fields);
TESSERA_REGISTER_NODE(UnorderedTuplePatternNode).field("fields", &UnorderedTuplePatternNode::fields);
TESSERA_REGISTER_NODE(TupleGetItemPatternNode).field("tuple", &TupleGetItemPatternNode::tuple).field("index", &TupleGetItemPatternNode::index);
TESSERA_REGISTER_NODE(AndPatternNode).field("left", &AndPatternNode::left).field("right", &AndPatternNode::right);
TESSERA_REGISTER_NODE(OrPatternNode).field("left", &OrPatternNode::left).field("right", &OrPatternNode::right);
TESSERA_REGISTER_NODE(NotPatternNode).field("reject", &NotPatternNode::reject);
TESSERA_REGISTER_NODE(AttrPatternNode).field("pattern", &AttrPatternNode::pattern).field("attrs", &AttrPatternNode::attrs);
TESSERA_REGISTER_NODE(DataTypePatternNode).field("pattern", &DataTypePatternNode::pattern).field("dtype", &DataTypePatternNode::dtype);
TESSERA_REGISTER_NODE(ShapePatternNode).field("pattern", &ShapePatternNode::pattern).field("shape", &ShapePatternNode::shape);
TESSERA_REGISTER_NODE(StructInfoPatternNode)
    .field("pattern", &StructInfoPatternNode::pattern)
    .field("struct_info", &StructInfoPatternNode::struct_info);
TESSERA_REGISTER_NODE(TypePatternNode).field("pattern", &TypePatternNode::pattern).field("type", &TypePatternNode::type);
TESSERA_REGISTER_NODE(PrimArrPatternNode).field("fields", &PrimArrPatternNode::fields);

namespace {

std::string Describe(const Any& a) { return a.is_none() ? "None" : a.type_name(); }

// Operand `i` of `ctor`, named `what`, which must be of type T (a pattern unless said otherwise).
template <typename T = DFPattern>
T Need(const PackedArgs& args, size_t i, const char* ctor, const char* what) {
  TESSERA_CHECK_OR_THROW(static_cast<int>(i) < args.size(), TypeError) << "relax.dpl." << ctor << ": missing argument '" << what << "'";
  auto v = args[static_cast<int>(i)].is_none() ? std::nullopt : args[static_cast<int>(i)].try_cast<T>();
  TESSERA_CHECK_OR_THROW(v.has_value(), TypeError)
      << "relax.dpl." << ctor << ": argument '" << what << "' must be a "
      << (std::is_same_v<T, DFPattern> ? "DFPattern" : "valid value") << ", got " << Describe(args[static_cast<int>(i)]);
  return *v;
}

// A list operand whose every element must be a pattern.
Array<DFPattern> NeedPatterns(const PackedArgs& args, size_t i, const char* ctor, const char* what) {
  auto list = Need<Array<Any>>(args, i, ctor, what);
  Array<DFPattern> out;
  for (size_t k = 0; k < list.size(); ++k) {
    auto p = list[k].is_none() ? std::nullopt : list[k].try_cast<DFPattern>();
    TESSERA_CHECK_OR_THROW(p.has_value(), TypeError)
        << "relax.dpl." << ctor << ": argument '" << what << "[" << k << "]' must be a DFPattern, got "
        << Describe(list[k]);
    out.push_back(*p);
  }
  return out;
}

template <typename N, typename F>
void Ctor(const char* name, F fill) {
  Registry::Entry::Create(std::string("relax.dpl.") + name).set_body([name, fill](PackedArgs args) -> Any {
    auto n = make_object<N>();
    fill(n.get(), args, name);
    return DFPattern(std::move(n));
  });
}

using A = const PackedArgs&;
using C = const char*;

// And/Or: two pattern operands, left and right.
template <typename N>
void BinaryCtor(const char* name) {
  Ctor<N>(name, [](N* n, A a, C c) {
    n->left = Need(a, 0, c, "left");
    n->right = Need(a, 1, c, "right");
  });
}

[[maybe_unused]] const bool registered = [] {
  Ctor<ExprPatternNode>("ExprPattern", [](ExprPatternNode* n, A a, C c) { n->expr = Need<RelaxExpr>(a, 0, c, "expr"); });
  Ctor<VarPatternNode>("VarPattern", [](VarPatternNode* n, A a, C c) { n->name = Need<std::string>(a, 0, c, "name_hint"); });
  Ctor<DataflowVarPatternNode>("DataflowVarPattern",
                               [](DataflowVarPatternNode* n, A a, C c) { n->name = Need<std::string>(a, 0, c, "name_hint"); });
  Ctor<GlobalVarPatternNode>("GlobalVarPattern",
                             [](GlobalVarPatternNode* n, A a, C c) { n->name = Need<std::string>(a, 0, c, "name_hint"); });
  Ctor<ExternFuncPatternNode>("ExternFuncPattern", [](ExternFuncPatternNode* n, A a, C c) {
    n->global_symbol = Need<std::string>(a, 0, c, "global_symbol");
  });
  Ctor<ConstantPatternNode>("ConstantPattern", [](ConstantPatternNode*, A, C) {});
  Ctor<WildcardPatternNode>("WildcardPattern", [](WildcardPatternNode*, A, C) {});
  Ctor<CallPatternNode>("CallPattern", [](CallPatternNode* n, A a, C c) {
    n->op = Need(a, 0, c, "op");
    n->args = NeedPatterns(a, 1, c, "args");
    n->varg_default_wildcard = Need<bool>(a, 2, c, "varg_default_wildcard");
  });
  Ctor<FunctionPatternNode>("FunctionPattern", [](FunctionPatternNode* n, A a, C c) {
    n->params = NeedPatterns(a, 0, c, "params");
    n->body = Need(a, 1, c, "body");
  });
  Ctor<TuplePatternNode>("TuplePattern", [](TuplePatternNode* n, A a, C c) { n->fields = NeedPatterns(a, 0, c, "fields"); });
  Ctor<UnorderedTuplePatternNode>("UnorderedTuplePattern", [](UnorderedTuplePatternNode* n, A a, C c) {
    n->fields = NeedPatterns(a, 0, c, "fields");
  });
  Ctor<TupleGetItemPatternNode>("TupleGetItemPattern", [](TupleGetItemPatternNode* n, A a, C c) {
    n->tuple = Need(a, 0, c, "tuple");
    n->index = Need<int>(a, 1, c, "index");
    TESSERA_CHECK_OR_THROW(n->index >= -1, IndexError)
        << "relax.dpl.TupleGetItemPattern: index must be >= 0 (or None for any), got " << n->index;
  });
  BinaryCtor<AndPatternNode>("AndPattern");
  BinaryCtor<OrPatternNode>("OrPattern");
  Ctor<NotPatternNode>("NotPattern", [](NotPatternNode* n, A a, C c) { n->reject = Need(a, 0, c, "reject"); });
  Ctor<AttrPatternNode>("AttrPattern", [](AttrPatternNode* n, A a, C c) {
    n->pattern = Need(a, 0, c, "pattern");
    n->attrs = Need<Map<String, Any>>(a, 1, c, "attrs");
  });
  Ctor<DataTypePatternNode>("DataTypePattern", [](DataTypePatternNode* n, A a, C c) {
    n->pattern = Need(a, 0, c, "pattern");
    n->dtype = Need<DataType>(a, 1, c, "dtype");
  });
  Ctor<ShapePatternNode>("ShapePattern", [](ShapePatternNode* n, A a, C c) {
    n->pattern = Need(a, 0, c, "pattern");
    n->shape = Need<Array<PrimExpr>>(a, 1, c, "shape");
  });
  Ctor<StructInfoPatternNode>("StructInfoPattern", [](StructInfoPatternNode* n, A a, C c) {
    n->pattern = Need(a, 0, c, "pattern");
    n->struct_info = Need<StructInfo>(a, 1, c, "struct_info");
  });
  Ctor<TypePatternNode>("TypePattern", [](TypePatternNode* n, A a, C c) {
    n->pattern = Need(a, 0, c, "pattern");
    n->type = Need<ObjectRef>(a, 1, c, "type");
  });
  Ctor<PrimArrPatternNode>("PrimArrPattern",
                           [](PrimArrPatternNode* n, A a, C c) { n->fields = Need<Array<PrimExpr>>(a, 0, c, "shape"); });
  return true;
}();

void Render(std::ostream& os, const DFPattern& p) {
  CheckStack("dataflow pattern printer");
  auto list = [&os](const Array<DFPattern>& ps) {
    for (size_t i = 0; i < ps.size(); ++i) Render(os << (i ? ", " : ""), ps[i]);
  };
  if (const auto* e = p.as<ExprPatternNode>()) {
    if (const auto* op = e->expr.as<OpNode>()) {
      os << op->name;
    } else {
      os << "Expr(" << ExprKindName(e->expr) << ")";
    }
  } else if (p.as<WildcardPatternNode>()) {
    os << "*";
  } else if (const auto* c = p.as<CallPatternNode>()) {
    Render(os, c->op);
    os << "(";
    list(c->args);
    os << (c->varg_default_wildcard ? (c->args.empty() ? "..." : ", ...") : "") << ")";
  } else if (const auto* o = p.as<OrPatternNode>()) {
    Render(os << "(", o->left);
    Render(os << " | ", o->right);
    os << ")";
  } else if (const auto* a = p.as<AndPatternNode>()) {
    Render(os << "(", a->left);
    Render(os << " & ", a->right);
    os << ")";
  } else if (const auto* t = p.as<TuplePatternNode>()) {
    os << "(";
    list(t->fields);
    os << ")";
  } else {
    std::string key = p.defined() ? p->GetTypeKey() : "None";
    os << (key.rfind("relax.dpl.", 0) == 0 ? key.substr(10) : key);
  }
}

}  // namespace

std::string PatternText(const DFPattern& p) {
  std::ostringstream os;
  Render(os, p);
  return os.str();
}

// A new node with the same fields (children shared): another node for graph matching.
TESSERA_REGISTER_GLOBAL("relax.dpl.dup").set_body_typed([](DFPattern p) {
  return DFPattern(ObjectPtr<Object>(p->CloneImpl()));
});
TESSERA_REGISTER_GLOBAL("relax.dpl.PatternText").set_body_typed([](DFPattern p) { return PatternText(p); });

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
