// Defaults of the Dialect and BodyFrame hooks (generic ParseErrors naming
// the value or statement that no dialect gave a meaning to) and the
// registry of dialects by namespace (see dialect.h). Part of parser/core.
#include "script/parser/core/dialect.h"

#include "script/parser/core/evaluator.h"

namespace tessera {
namespace script {

using ast::ExprKind;

// ---- dialect and frame defaults -----------------------------------------------------
std::string Dialect::TypeName(const Any& v) const { return v.type_name(); }

Any Dialect::CallMember(Evaluator& ev, CallArgs& call) {
  const Pos& callee_pos = call.node->kind == ExprKind::kCall ? call.node->a->pos : call.node->pos;
  ev.Error(callee_pos, "unknown TVMScript function '" + call.func + "'");
}
Any Dialect::SubscriptMember(Evaluator& ev, const std::string& path, const ast::Expr& e, std::vector<std::string>) {
  ev.Error(e.a->pos, "'" + path + "' cannot be subscripted");
}
Any Dialect::Attribute(Evaluator& ev, const Any& base, const ast::Expr& e) {
  ev.Error(e.pos, "a " + ev.TypeName(base) + " has no attribute '" + e.str + "'");
}
Any Dialect::Subscript(Evaluator& ev, const Any& base, const ast::Expr& e, std::vector<std::string>) {
  ev.Error(e.a->pos, "a " + ev.TypeName(base) + " cannot be subscripted");
}
Any Dialect::CallValue(Evaluator& ev, const Any& callee, CallArgs& call) {
  ev.Error(call.node->a->pos, "a " + ev.TypeName(callee) + " is not callable");
}
Any Dialect::Unary(Evaluator& ev, const std::string& op, const Any& v, const ast::Expr& e) {
  ev.Error(e.pos, "bad operand type for unary '" + op + "': " + ev.TypeName(v));
}
Any Dialect::Binary(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& pos) {
  ev.Error(pos, "unsupported operand types for '" + op + "': " + ev.TypeName(a) + " and " + ev.TypeName(b));
}
Any Dialect::Compare(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos&, const Pos&,
                     const Pos& pos) {
  ev.Error(pos, "'" + op + "' is not supported between a " + ev.TypeName(a) + " and a " + ev.TypeName(b));
}
Any Dialect::BoolOp(Evaluator& ev, bool is_and, const std::vector<Any>& values, const Pos& pos) {
  ev.Error(pos, std::string("'") + (is_and ? "and" : "or") + "' is not supported on a " + ev.TypeName(values[0]));
}
Any Dialect::IfExp(Evaluator& ev, const Any& cond, const ast::Expr& e) {
  ev.Error(e.a->pos, "a " + ev.TypeName(cond) + " cannot be used as a condition");
}
Any Dialect::CallFunction(Evaluator& ev, const ObjectRef&, const FunctionSignature&, CallArgs& call) {
  ev.Error(call.node->pos, "module functions cannot be called here");
}
FunctionSignature Dialect::DeclareFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec) {
  ev.Error(dec.pos, "'" + dec.path + "' does not define functions");
}
ObjectRef Dialect::BuildFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec) {
  ev.Error(dec.pos, "'" + dec.path + "' does not define functions");
}

namespace {
[[noreturn]] void Unsupported(Evaluator& ev, const BodyFrame& f, const Pos& pos, const std::string& what) {
  ev.Error(pos, what + " is not supported in " + f.Where());
}
}  // namespace

void BodyFrame::ExprStmt(Evaluator& ev, const ast::Stmt& s, const Any& value) {
  ev.Error(s.value->pos, "this expression statement has no effect in " + Where() + " (a " + ev.TypeName(value) + ")");
}
void BodyFrame::AssignName(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos&) {
  ev.Bind(target.str, value);
}
void BodyFrame::AssignSubscript(Evaluator& ev, const ast::Expr& target, const Any&, const Pos&) {
  Unsupported(ev, *this, target.pos, "assigning to a subscript");
}
void BodyFrame::AnnAssign(Evaluator& ev, const ast::Stmt& s) { Unsupported(ev, *this, s.pos, "an annotated assignment"); }
void BodyFrame::AugAssign(Evaluator& ev, const ast::Stmt& s) { Unsupported(ev, *this, s.pos, "this augmented assignment"); }
void BodyFrame::For(Evaluator& ev, const ast::Stmt& s, const Any&) { Unsupported(ev, *this, s.pos, "'for'"); }
void BodyFrame::With(Evaluator& ev, const ast::Stmt& s) { Unsupported(ev, *this, s.pos, "'with'"); }
void BodyFrame::If(Evaluator& ev, const ast::Stmt& s, const Any&) { Unsupported(ev, *this, s.pos, "'if'"); }
void BodyFrame::While(Evaluator& ev, const ast::Stmt& s) { Unsupported(ev, *this, s.pos, "'while'"); }
void BodyFrame::Return(Evaluator& ev, const ast::Stmt& s) { Unsupported(ev, *this, s.pos, "'return'"); }
void BodyFrame::Assert(Evaluator& ev, const ast::Stmt& s) { Unsupported(ev, *this, s.pos, "'assert'"); }
void BodyFrame::LoopControl(Evaluator& ev, const ast::Stmt& s) {
  Unsupported(ev, *this, s.pos, "'break' and 'continue' are");
}
void BodyFrame::Definition(Evaluator& ev, const ast::Stmt& s) {
  ev.Error(s.pos, "nested definitions are not supported in " + Where());
}
void BodyFrame::Import(Evaluator& ev, const ast::Stmt& s) {
  ev.Error(s.pos, "import statements are not allowed in " + Where());
}

// ---- registry --------------------------------------------------------------------------------
DialectRegistry& DialectRegistry::Global() {
  static DialectRegistry registry;
  return registry;
}

Dialect* DialectRegistry::Register(std::unique_ptr<Dialect> d) {
  for (const auto& existing : dialects_) {
    TESSERA_CHECK_OR_THROW(existing->name() != d->name(), InternalError)
        << "a TVMScript dialect for namespace '" << d->name() << "' is already registered";
  }
  dialects_.push_back(std::move(d));
  return dialects_.back().get();
}

Dialect* DialectRegistry::Find(const std::string& name) const {
  for (const auto& d : dialects_) {
    if (d->name() == name) return d.get();
  }
  return nullptr;
}

Dialect* DialectRegistry::FindByDecorator(const std::string& path) const {
  for (const auto& d : dialects_) {
    if (d->IsFunctionDecorator(path)) return d.get();
  }
  return nullptr;
}

Dialect* DialectRegistry::Owner(const Any& v) const {
  if (v.kind() != Any::Kind::kObject) return nullptr;
  for (const auto& d : dialects_) {
    if (d->Owns(v)) return d.get();
  }
  return nullptr;
}

}  // namespace script
}  // namespace tessera
