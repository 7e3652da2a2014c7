// The TIR dialect's registration: the namespace "T", the values it owns
// (PrimExprs, buffers and the helper values of tir_values.h), and the
// @T.prim_func decorator. Every hook forwards to the evaluator's TIRBuilder
// (tir_builder.h), which holds the state of the function being built.
#include "ir/module.h"
#include "script/parser/tir/tir_builder.h"
#include "tir/comm_reducer.h"

namespace tessera {
namespace script {

namespace {

class TIRDialect : public Dialect {
 public:
  std::string name() const override { return "T"; }

  bool Owns(const Any& v) const override {
    return v.as<PrimExprNode>() || v.as<tir::BufferNode>() || v.as<BufferSliceObj>() || v.as<LoopSpecObj>() ||
           v.as<BoundMethodObj>() || v.as<StmtValueObj>() || v.as<AllocValueObj>() ||
           v.as<ScopeStmtValueObj>() || v.as<tir::CommReducerNode>();
  }
  bool IsSymbolic(const Any& v) const override { return v.as<PrimExprNode>() != nullptr; }
  std::string TypeName(const Any& v) const override {
    if (v.as<BufferSliceObj>()) return "buffer region";
    if (v.as<LoopSpecObj>()) return "loop range";
    if (v.as<BoundMethodObj>()) return "method";
    if (v.as<tir::BufferNode>()) return "buffer";
    if (const auto* a = v.as<AllocValueObj>()) return a->buffer ? "T.decl_buffer()" : "T.allocate()";
    if (const auto* s = v.as<ScopeStmtValueObj>()) return s->what;
    if (v.as<tir::CommReducerNode>()) return "T.comm_reducer()";
    return v.type_name();
  }

  Any CallMember(Evaluator& ev, CallArgs& call) override { return TIRBuilder::Of(ev).CallBuiltin(call); }
  Any SubscriptMember(Evaluator& ev, const std::string& path, const ast::Expr& e,
                      std::vector<std::string> names) override {
    return TIRBuilder::Of(ev).SubscriptNamespace(path, e, std::move(names));
  }
  Any Attribute(Evaluator& ev, const Any& base, const ast::Expr& e) override {
    return TIRBuilder::Of(ev).Attribute(base, e);
  }
  Any Subscript(Evaluator& ev, const Any& base, const ast::Expr& e, std::vector<std::string>) override {
    return TIRBuilder::Of(ev).Subscript(base, e);
  }
  Any CallValue(Evaluator& ev, const Any& callee, CallArgs& call) override {
    if (const auto* m = callee.as<BoundMethodObj>()) return TIRBuilder::Of(ev).CallMethod(m, call);
    return Dialect::CallValue(ev, callee, call);
  }
  Any Unary(Evaluator& ev, const std::string& op, const Any& v, const ast::Expr& e) override {
    return TIRBuilder::Of(ev).Unary(op, v, e);
  }
  Any Binary(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& pos) override {
    return TIRBuilder::Of(ev).Binary(op, a, b, pos);
  }
  Any Compare(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& a_pos, const Pos& b_pos,
              const Pos& pos) override {
    return TIRBuilder::Of(ev).Compare(op, a, b, a_pos, b_pos, pos);
  }
  Any BoolOp(Evaluator& ev, bool is_and, const std::vector<Any>& values, const Pos& pos) override {
    return TIRBuilder::Of(ev).BoolOp(is_and, values, pos);
  }
  Any IfExp(Evaluator& ev, const Any& cond, const ast::Expr& e) override { return TIRBuilder::Of(ev).IfExp(cond, e); }
  Any CallFunction(Evaluator& ev, const ObjectRef& gv, const FunctionSignature& sig, CallArgs& call) override {
    return TIRBuilder::Of(ev).CallFunction(Downcast<GlobalVar>(gv), sig, call);
  }

  bool IsFunctionDecorator(const std::string& path) const override { return path == "T.prim_func"; }
  FunctionSignature DeclareFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec) override {
    return TIRBuilder::Of(ev).Declare(def, dec);
  }
  ObjectRef BuildFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec) override {
    return TIRBuilder::Of(ev).BuildPrimFunc(def, dec);
  }
};

TESSERA_REGISTER_SCRIPT_DIALECT(TIRDialect);

}  // namespace

}  // namespace script
}  // namespace tessera
