// The Relax dialect's registration: the namespace "R", the values it owns
// (Relax expressions other than GlobalVars and Ops, struct infos, and the
// helper values of relax_builder.h), and the @R.function decorator. Every
// hook forwards to the evaluator's RelaxBuilder (relax_builder.h).
#include "script/parser/relax/relax_builder.h"

namespace tessera {
namespace script {

namespace {

// Python operators on Relax values, as TVM's relax.Expr operators: the
// registered operator of that name (relax.add for `+`, ...).
std::string BinaryOpName(const std::string& op) {
  if (op == "+") return "add";
  if (op == "-") return "subtract";
  if (op == "*") return "multiply";
  if (op == "/") return "divide";
  if (op == "//") return "floor_divide";
  if (op == "**") return "power";
  if (op == "%") return "floor_mod";
  return "";
}
std::string CompareOpName(const std::string& op) {
  if (op == "<") return "less";
  if (op == "<=") return "less_equal";
  if (op == ">") return "greater";
  if (op == ">=") return "greater_equal";
  if (op == "==") return "equal";
  if (op == "!=") return "not_equal";
  return "";
}

class RelaxDialect : public Dialect {
 public:
  std::string name() const override { return "R"; }

  bool Owns(const Any& v) const override {
    if (v.as<GlobalVarNode>() || v.as<OpNode>()) return false;  // the I dialect's, and plain names
    return v.as<RelaxExprNode>() || v.as<relax::StructInfoNode>() || v.as<MatchCastValueObj>() ||
           v.as<DataflowScopeObj>();
  }
  std::string TypeName(const Any& v) const override {
    if (v.as<relax::DataflowVarNode>()) return "Relax dataflow variable '" + v.as<relax::VarNode>()->name_hint + "'";
    if (const auto* var = v.as<relax::VarNode>()) return "Relax variable '" + var->name_hint + "'";
    if (v.as<relax::StructInfoNode>()) return "struct info annotation";
    if (v.as<MatchCastValueObj>()) return "R.match_cast(...)";
    if (v.as<DataflowScopeObj>()) return "R.dataflow()";
    if (const auto* e = v.as<RelaxExprNode>()) return relax::ExprKindName(GetRef<ObjectRef>(e));
    return v.type_name();
  }

  Any CallMember(Evaluator& ev, CallArgs& call) override { return RelaxBuilder::Of(ev).CallBuiltin(call); }
  Any Attribute(Evaluator& ev, const Any& base, const ast::Expr& e) override {
    return RelaxBuilder::Of(ev).Attribute(base, e);
  }
  Any Subscript(Evaluator& ev, const Any& base, const ast::Expr& e, std::vector<std::string>) override {
    return RelaxBuilder::Of(ev).Subscript(base, e);
  }
  Any CallValue(Evaluator& ev, const Any& callee, CallArgs& call) override {
    return RelaxBuilder::Of(ev).CallValue(callee, call);
  }
  Any Unary(Evaluator& ev, const std::string& op, const Any& v, const ast::Expr& e) override {
    return RelaxBuilder::Of(ev).Operator(op == "-" ? "negative" : op == "not" ? "logical_not" : "", op, {v}, e.pos);
  }
  Any Binary(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& pos) override {
    return RelaxBuilder::Of(ev).Operator(BinaryOpName(op), op, {a, b}, pos);
  }
  Any Compare(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos&, const Pos&,
              const Pos& pos) override {
    return RelaxBuilder::Of(ev).Operator(CompareOpName(op), op, {a, b}, pos);
  }
  Any CallFunction(Evaluator& ev, const ObjectRef& gv, const FunctionSignature& sig, CallArgs& call) override {
    return RelaxBuilder::Of(ev).CallFunction(Downcast<GlobalVar>(gv), sig, call);
  }

  bool IsFunctionDecorator(const std::string& path) const override { return path == "R.function"; }
  FunctionSignature DeclareFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec) override {
    return RelaxBuilder::Of(ev).Declare(def, dec);
  }
  ObjectRef BuildFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec) override {
    return RelaxBuilder::Of(ev).BuildFunction(def, dec);
  }
};

TESSERA_REGISTER_SCRIPT_DIALECT(RelaxDialect);

}  // namespace

}  // namespace script
}  // namespace tessera
