// The dialect-neutral evaluator (see evaluator.h): Python semantics on
// Python values, dispatch to dialects for everything else.
#include "script/parser/core/evaluator.h"

#include "runtime/packed_func.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/expr.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace script {

using ast::ExprKind;
using ast::StmtKind;

TESSERA_REGISTER_OBJECT_TYPE(NamespaceObj);
TESSERA_REGISTER_OBJECT_TYPE(SliceObj);
TESSERA_REGISTER_OBJECT_TYPE(LambdaObj);

namespace {

constexpr const char* kNamespaceTag = "__tessera_ns__:";
constexpr const char* kUnsupportedTag = "__tessera_unsupported__:";

double PyFloat(const Any& v) { return v.kind() == Any::Kind::kFloat ? v.raw_float() : static_cast<double>(v.raw_int()); }

// Answers every hook with the Dialect defaults (generic errors): used when
// neither an operand's owner nor an enclosing function gives meaning.
class NoDialect : public Dialect {
 public:
  std::string name() const override { return ""; }
};

Dialect* Fallback() {
  static NoDialect d;
  return &d;
}

}  // namespace

std::string CanonicalPath(const std::string& path) {
  if (path.size() < 3 || (path[0] != 't')) return path;  // fast path: already canonical
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"tvm.script.ir_module", "I.ir_module"}, {"tvm.script.tir", "T"}, {"tvm.script.ir", "I"},
      {"tvm.script.relax", "R"},               {"tvm.tir", "T"},        {"tvm.relax", "R"},
      {"tessera.script.tir", "T"},             {"tessera.script.ir", "I"}, {"tessera.script.relax", "R"},
      {"tessera", "tvm"}};
  for (const auto& [from, to] : kPrefixes) {
    size_t n = std::strlen(from);
    if (path.compare(0, n, from) == 0 && (path.size() == n || path[n] == '.')) return to + path.substr(n);
  }
  return path;
}

Evaluator::Evaluator(const SourceFile& source, NameResolver resolver)
    : src_(source), resolver_(std::move(resolver)) {
  scopes_.Push();  // the file's scope
}

Evaluator::~Evaluator() = default;

// ---- names ------------------------------------------------------------------
std::optional<Any> Evaluator::Lookup(const std::string& name) const {
  if (std::optional<Any> v = scopes_.Find(name)) return v;
  if (name == "range") return Any(AsRef(make_object<NamespaceObj>("range")));
  if (name == "float") return Any(AsRef(make_object<NamespaceObj>("float")));
  if (resolver_) {
    if (std::optional<Any> v = resolver_(name)) {
      if (const auto* s = v->as<StringObj>()) {
        if (s->data.rfind(kNamespaceTag, 0) == 0) {
          return Any(AsRef(make_object<NamespaceObj>(CanonicalPath(s->data.substr(std::strlen(kNamespaceTag))))));
        }
        if (s->data.rfind(kUnsupportedTag, 0) == 0) {
          return Any(AsRef(make_object<NamespaceObj>("<python " + s->data.substr(std::strlen(kUnsupportedTag)) + ">")));
        }
      }
      return v;
    }
  }
  if (name == "T" || name == "I" || name == "R" || name == "tvm" || DialectRegistry::Global().Find(name)) {
    return Any(AsRef(make_object<NamespaceObj>(name)));
  }
  return std::nullopt;
}

// ---- Python values ------------------------------------------------------------
bool Evaluator::IsNumber(const Any& v) {
  return v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kFloat || v.kind() == Any::Kind::kBool;
}
bool Evaluator::IsIntLike(const Any& v) { return v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool; }

bool Evaluator::Truthy(const Any& v) {
  switch (v.kind()) {
    case Any::Kind::kNone: return false;
    case Any::Kind::kInt:
    case Any::Kind::kBool: return v.raw_int() != 0;
    case Any::Kind::kFloat: return v.raw_float() != 0.0;
    default: break;
  }
  if (const auto* s = v.as<StringObj>()) return !s->data.empty();
  if (const auto* a = v.as<ArrayObj>()) return !a->data.empty();
  return true;
}

int64_t Evaluator::ToInt(const Any& v, const Pos& pos, const std::string& what) const {
  if (IsIntLike(v)) return v.raw_int();
  if (const auto* imm = v.as<IntImmNode>()) return imm->value;
  Error(pos, "expected " + what + " (an integer constant) but got a " + TypeName(v));
}

std::string Evaluator::ToStr(const Any& v, const Pos& pos, const std::string& what) const {
  if (const auto* s = v.as<StringObj>()) return s->data;
  Error(pos, "expected " + what + " (a string) but got a " + TypeName(v));
}

bool Evaluator::ToBool(const Any& v, const Pos& pos, const std::string& what) const {
  if (IsIntLike(v)) return v.raw_int() != 0;
  if (const auto* imm = v.as<IntImmNode>()) return imm->value != 0;
  Error(pos, "expected " + what + " (True or False) but got a " + TypeName(v));
}

std::string Evaluator::TypeName(const Any& v) const {
  if (const auto* ns = v.as<NamespaceObj>()) return ns->path;
  if (v.as<SliceObj>()) return "slice";
  if (v.as<LambdaObj>()) return "lambda";
  if (Dialect* d = DialectRegistry::Global().Owner(v)) return d->TypeName(v);
  if (v.as<ArrayObj>()) return "tuple";
  if (v.as<MapObj>()) return "dict";
  return v.type_name();
}

bool Evaluator::IsSymbolic(const Any& v) const {
  if (v.kind() != Any::Kind::kObject) return false;
  Dialect* d = DialectRegistry::Global().Owner(v);
  return d != nullptr && d->IsSymbolic(v);
}

// ---- dispatch ----------------------------------------------------------------
Dialect* Evaluator::DialectFor(const Any& a, const Any* b) const {
  const DialectRegistry& reg = DialectRegistry::Global();
  if (Dialect* d = reg.Owner(a)) return d;
  if (b != nullptr) {
    if (Dialect* d = reg.Owner(*b)) return d;
  }
  if (frame_ != nullptr) return frame_->dialect();
  return Fallback();
}

Dialect* Evaluator::DialectForNamespace(const std::string& path) const {
  if (Dialect* d = DialectRegistry::Global().Find(NamespaceRoot(path))) return d;
  if (frame_ != nullptr) return frame_->dialect();
  return Fallback();
}

// ---- expressions --------------------------------------------------------------
Any Evaluator::EvalNamed(const ast::Expr& e, std::vector<std::string> names) {
  if (e.kind == ExprKind::kCall || e.kind == ExprKind::kSubscript) pending_names_ = std::move(names);
  Any v = Eval(e);
  pending_names_.clear();
  return v;
}

Any Evaluator::ToAttrValue(const Any& v, const Pos& pos) const {
  switch (v.kind()) {
    case Any::Kind::kNone: return v;
    case Any::Kind::kBool: return IntImm(DataType::Bool(), v.raw_int() != 0);
    case Any::Kind::kInt: return PrimExpr(v.raw_int());
    case Any::Kind::kFloat: return PrimExpr(v.raw_float());
    default: break;
  }
  if (const auto* arr = v.as<ArrayObj>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(ToAttrValue(x, pos));
    return out;
  }
  if (const auto* map = v.as<MapObj>()) {
    Map<Any, Any> out;
    for (const auto& kv : map->data) out.Set(kv.first, ToAttrValue(kv.second, pos));
    return out;
  }
  if (v.is_object() && v.raw_object()->GetTypeKey().rfind("script.", 0) == 0) {
    Error(pos, "a " + TypeName(v) + " cannot be used as an attribute value");
  }
  return v;
}


Any Evaluator::CallLambda(const LambdaObj& lam, const std::vector<Any>& args, const Pos& pos) {
  if (args.size() != lam.params.size()) {
    Error(pos, "the lambda takes " + std::to_string(lam.params.size()) + " parameter" +
                   (lam.params.size() == 1 ? "" : "s") + " but is called with " + std::to_string(args.size()));
  }
  ScopeGuard scope(this);
  for (size_t i = 0; i < args.size(); ++i) Bind(lam.params[i], args[i]);
  return Eval(*lam.node->a);
}

Any Evaluator::Eval(const ast::Expr& e) {
  CheckStack("expression");
  switch (e.kind) {
    case ExprKind::kName: {
      std::optional<Any> v = Lookup(e.str);
      if (!v) {
        Error(e.pos, "undefined name '" + e.str + "'" +
                         (e.str == "metadata" ? std::string(" (a printout without its metadata: print it with "
                                                            "script(show_meta=True) to parse it back)")
                                              : std::string()));
      }
      if (const auto* ns = v->as<NamespaceObj>()) {
        if (ns->path.rfind("<python ", 0) == 0) {
          Error(e.pos, "name '" + e.str + "' refers to a " + ns->path.substr(1, ns->path.size() - 2) +
                           " object, which TVMScript cannot use");
        }
      }
      return *v;
    }
    case ExprKind::kInt: return Any(e.ival);
    case ExprKind::kFloat: return Any(e.fval);
    case ExprKind::kStr: return Any(String(e.str));
    case ExprKind::kBool: return Any(e.ival != 0);
    case ExprKind::kNone: return Any();
    case ExprKind::kAttribute: return EvalAttribute(e);
    case ExprKind::kSubscript: return EvalSubscript(e);
    case ExprKind::kCall: return EvalCall(e);
    case ExprKind::kTuple:
    case ExprKind::kList: {
      Array<Any> items;
      for (const ast::ExprPtr& x : e.items) {
        if (x->kind == ExprKind::kStarred) {
          Any inner = Eval(*x->a);
          const auto* arr = inner.as<ArrayObj>();
          if (arr == nullptr) Error(x->pos, "only tuples and lists can be unpacked with '*'");
          for (const Any& y : arr->data) items.push_back(y);
        } else {
          items.push_back(Eval(*x));
        }
      }
      return items;
    }
    case ExprKind::kDict: {
      Map<Any, Any> m;
      for (size_t i = 0; i < e.items.size(); ++i) {
        Any key = Eval(*e.items[i]);
        if (!key.as<StringObj>() && !IsNumber(key) && !IsSymbolic(key)) {
          Error(e.items[i]->pos, "dictionary keys must be strings, numbers or variables");
        }
        m.Set(key, Eval(*e.values[i]));
      }
      return m;
    }
    case ExprKind::kUnary: return EvalUnary(e);
    case ExprKind::kBinary: {
      Any a = Eval(*e.a);
      Any b = Eval(*e.b);
      return EvalBinary(e.op, a, b, e.pos);
    }
    case ExprKind::kCompare: return EvalCompare(e);
    case ExprKind::kBoolOp: return EvalBoolOp(e);
    case ExprKind::kIfExp: {
      Any cond = Eval(*e.a);
      if (!IsSymbolic(cond)) return Truthy(cond) ? Eval(*e.b) : Eval(*e.c);
      return DialectFor(cond)->IfExp(*this, cond, e);
    }
    case ExprKind::kSlice: Error(e.pos, "a slice is only allowed inside [...]");
    case ExprKind::kStarred: Error(e.pos, "'*' is only allowed in call arguments and tuples");
    case ExprKind::kLambda: {
      auto lam = make_object<LambdaObj>();
      lam->node = &e;
      for (const ast::ExprPtr& p : e.items) lam->params.push_back(p->str);
      return Any(AsRef(lam));
    }
  }
  Error(e.pos, "unsupported expression");
}

Any Evaluator::EvalAttribute(const ast::Expr& e) {
  Any base = Eval(*e.a);
  if (const auto* ns = base.as<NamespaceObj>()) {
    return Any(AsRef(make_object<NamespaceObj>(CanonicalPath(ns->path + "." + e.str))));
  }
  if (Dialect* d = DialectRegistry::Global().Owner(base)) return d->Attribute(*this, base, e);
  Error(e.pos, "a " + TypeName(base) + " has no attribute '" + e.str + "'");
}

Any Evaluator::EvalSubscript(const ast::Expr& e) {
  std::vector<std::string> names = std::move(pending_names_);
  pending_names_.clear();
  Any base = Eval(*e.a);
  if (const auto* ns = base.as<NamespaceObj>()) {
    return DialectForNamespace(ns->path)->SubscriptMember(*this, ns->path, e, std::move(names));
  }
  if (Dialect* d = DialectRegistry::Global().Owner(base)) return d->Subscript(*this, base, e, std::move(names));
  if (const auto* arr = base.as<ArrayObj>()) {
    if (e.items.size() != 1 || e.items[0]->kind == ExprKind::kSlice) Error(e.pos, "tuples take a single integer index");
    int64_t i = ToInt(Eval(*e.items[0]), e.items[0]->pos, "a tuple index");
    int64_t n = static_cast<int64_t>(arr->data.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) Error(e.items[0]->pos, "tuple index out of range");
    return arr->data[static_cast<size_t>(i)];
  }
  if (const auto* map = base.as<MapObj>()) {
    if (e.items.size() != 1) Error(e.pos, "dictionaries take a single key");
    Any key = Eval(*e.items[0]);
    if (const Any* v = map->Find(key)) return *v;
    Error(e.items[0]->pos, "key " + key.repr() + " is not in the dictionary");
  }
  Error(e.a->pos, "a " + TypeName(base) + " cannot be subscripted");
}

// Python's float(x) of a number or of the strings the printer writes for
// values without a literal: float("inf"), float("-inf"), float("nan").
static Any PythonFloat(const Evaluator& ev, const CallArgs& call) {
  const Pos& pos = call.node->pos;
  if (call.args.size() != 1 || !call.kwargs.empty()) ev.Error(pos, "float() takes exactly one argument");
  const Any& v = call.args[0];
  if (Evaluator::IsNumber(v)) return v.kind() == Any::Kind::kFloat ? v : Any(static_cast<double>(v.raw_int()));
  if (const auto* s = v.as<StringObj>()) {
    std::string t;
    for (char c : s->data) {
      if (c != ' ') t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    bool neg = !t.empty() && t[0] == '-';
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.erase(0, 1);
    if (t == "inf" || t == "infinity") return Any(neg ? -std::numeric_limits<double>::infinity()
                                                      : std::numeric_limits<double>::infinity());
    if (t == "nan") return Any(neg ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN());
  }
  ev.Error(call.arg_pos[0], "float() accepts a number or one of \"inf\", \"-inf\", \"nan\" here");
}

Any Evaluator::EvalCall(const ast::Expr& e) {
  CallArgs call;
  call.node = &e;
  call.names = std::move(pending_names_);
  pending_names_.clear();
  Any callee = Eval(*e.a);
  for (const ast::ExprPtr& x : e.items) {
    if (x->kind == ExprKind::kStarred) {
      Any inner = Eval(*x->a);
      const auto* arr = inner.as<ArrayObj>();
      if (arr == nullptr) Error(x->pos, "only tuples and lists can be unpacked with '*'");
      for (const Any& y : arr->data) {
        call.args.push_back(y);
        call.arg_pos.push_back(x->pos);
      }
      continue;
    }
    call.args.push_back(Eval(*x));
    call.arg_pos.push_back(x->pos);
  }
  for (const ast::Keyword& kw : e.kwargs) {
    call.kwargs.emplace_back(kw.name, Eval(*kw.value));
    call.kwarg_pos.push_back(kw.value->pos);
  }
  if (const auto* ns = callee.as<NamespaceObj>()) {
    call.func = ns->path;
    if (ns->path == "float") return PythonFloat(*this, call);
    return DialectForNamespace(ns->path)->CallMember(*this, call);
  }
  if (Dialect* d = DialectRegistry::Global().Owner(callee)) return d->CallValue(*this, callee, call);
  if (const auto* f = callee.as<PackedFuncObj>()) {
    // A function of the caller's (a Python function in scope): called while
    // parsing, as TVM's parser does, with the evaluated arguments; keyword
    // arguments follow a tag as name, value pairs (script/_parser.py unpacks them).
    std::vector<Any> args = call.args;
    if (!call.kwargs.empty()) {
      args.push_back(Any(String("__tessera_kwargs__")));
      for (const auto& [name, value] : call.kwargs) {
        args.push_back(Any(String(name)));
        args.push_back(value);
      }
    }
    PackedFunc func = GetRef<PackedFunc>(f);
    return Guard(e.pos, [&] { return func.CallPacked(PackedArgs(args.data(), static_cast<int>(args.size()))); });
  }
  Error(e.a->pos, "a " + TypeName(callee) + " is not callable");
}

Any Evaluator::EvalUnary(const ast::Expr& e) {
  Any v = Eval(*e.a);
  const std::string& op = e.op;
  if (DialectRegistry::Global().Owner(v) == nullptr) {
    if (op == "not") return Any(!Truthy(v));
    if (IsNumber(v)) {
      if (op == "+") return v.kind() == Any::Kind::kBool ? Any(v.raw_int()) : v;
      if (op == "-") {
        if (v.kind() == Any::Kind::kFloat) return Any(-v.raw_float());
        if (v.raw_int() == std::numeric_limits<int64_t>::min()) Error(e.pos, "integer overflow");
        return Any(-v.raw_int());
      }
      if (op == "~") {
        if (v.kind() == Any::Kind::kFloat) Error(e.pos, "'~' needs an integer operand");
        return Any(~v.raw_int());
      }
    }
  }
  return DialectFor(v)->Unary(*this, op, v, e);
}

Any Evaluator::PythonBinary(const std::string& op, const Any& a, const Any& b, const Pos& pos) const {
  if (IsIntLike(a) && IsIntLike(b)) {
    int64_t x = a.raw_int(), y = b.raw_int(), r = 0;
    auto overflow = [&] { Error(pos, "integer overflow in constant expression"); };
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &r)) overflow();
      return Any(r);
    }
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r)) overflow();
      return Any(r);
    }
    if (op == "*") {
      if (__builtin_mul_overflow(x, y, &r)) overflow();
      return Any(r);
    }
    if (op == "//" || op == "%") {
      if (y == 0) Error(pos, "integer division or modulo by zero");
      if (x == std::numeric_limits<int64_t>::min() && y == -1) overflow();
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      return op == "//" ? Any(q) : Any(x - q * y);
    }
    if (op == "/") {
      if (y == 0) Error(pos, "division by zero");
      return Any(static_cast<double>(x) / static_cast<double>(y));
    }
    if (op == "**") {
      if (y < 0) return Any(std::pow(static_cast<double>(x), static_cast<double>(y)));
      r = 1;
      int64_t base = x;
      for (int64_t e = y; e > 0; e >>= 1) {  // exponentiation by squaring
        if ((e & 1) && __builtin_mul_overflow(r, base, &r)) overflow();
        if (e > 1 && __builtin_mul_overflow(base, base, &base)) overflow();
      }
      return Any(r);
    }
    if (op == "<<" || op == ">>") {
      if (y < 0 || y >= 63) Error(pos, "shift count out of range");
      if (op == ">>") return Any(x >> y);
      if (x != 0 && (x > (std::numeric_limits<int64_t>::max() >> y) || x < (std::numeric_limits<int64_t>::min() >> y))) overflow();
      return Any(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
    }
    if (op == "&") return Any(x & y);
    if (op == "|") return Any(x | y);
    if (op == "^") return Any(x ^ y);
  } else {
    double x = PyFloat(a), y = PyFloat(b);
    if (op == "+") return Any(x + y);
    if (op == "-") return Any(x - y);
    if (op == "*") return Any(x * y);
    if (op == "/" || op == "//" || op == "%") {
      if (y == 0.0) Error(pos, "float division by zero");
      if (op == "/") return Any(x / y);
      double q = std::floor(x / y);
      return op == "//" ? Any(q) : Any(x - q * y);
    }
    if (op == "**") return Any(std::pow(x, y));
  }
  Error(pos, "unsupported operand types for '" + op + "'");
}

Any Evaluator::EvalBinary(const std::string& op, const Any& a, const Any& b, const Pos& pos) {
  if (IsNumber(a) && IsNumber(b)) return PythonBinary(op, a, b, pos);
  if (op == "+") {
    if (a.as<StringObj>() && b.as<StringObj>()) return String(a.as<StringObj>()->data + b.as<StringObj>()->data);
    if (a.as<ArrayObj>() && b.as<ArrayObj>()) {
      Array<Any> out(std::vector<Any>(a.as<ArrayObj>()->data));
      for (const Any& x : b.as<ArrayObj>()->data) out.push_back(x);
      return out;
    }
  }
  return DialectFor(a, &b)->Binary(*this, op, a, b, pos);
}

Any Evaluator::EvalCompare(const ast::Expr& e) {
  Any left = Eval(*e.items[0]);
  Any result;
  bool have_result = false;
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const std::string& op = e.ops[i];
    Any right = Eval(*e.items[i + 1]);
    Pos pos = e.items[i]->pos;
    pos.end_line = e.items[i + 1]->pos.end_line;
    pos.end_col = e.items[i + 1]->pos.end_col;
    Any r;
    if (op == "is" || op == "is not") {
      bool same = (left.is_none() && right.is_none()) || left.same_as(right);
      r = Any(op == "is" ? same : !same);
    } else if (op == "in" || op == "not in") {
      const auto* arr = right.as<ArrayObj>();
      if (arr == nullptr || !IsNumber(left)) Error(pos, "'in' is only supported for constants in tuples");
      bool found = false;
      for (const Any& x : arr->data) found = found || (IsNumber(x) && PyFloat(x) == PyFloat(left));
      r = Any(op == "in" ? found : !found);
    } else if (IsNumber(left) && IsNumber(right)) {
      double x = PyFloat(left), y = PyFloat(right);
      bool v = op == "<" ? x < y : op == ">" ? x > y : op == "<=" ? x <= y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
      if (IsIntLike(left) && IsIntLike(right)) {
        int64_t a = left.raw_int(), b = right.raw_int();
        v = op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : op == ">=" ? a >= b : op == "==" ? a == b : a != b;
      }
      r = Any(v);
    } else if ((op == "==" || op == "!=") && (left.as<StringObj>() || right.as<StringObj>() || left.is_none() ||
                                              right.is_none())) {
      bool same = left.same_as(right) || (left.is_none() && right.is_none());
      r = Any(op == "==" ? same : !same);
    } else {
      r = DialectFor(left, &right)->Compare(*this, op, left, right, e.items[i]->pos, e.items[i + 1]->pos, pos);
    }
    if (!have_result) {
      result = r;
      have_result = true;
    } else if (!IsSymbolic(result) && !IsSymbolic(r)) {
      result = Any(Truthy(result) && Truthy(r));
    } else {
      result = DialectFor(result, &r)->BoolOp(*this, true, {result, r}, e.pos);
    }
    left = right;
  }
  return result;
}

Any Evaluator::EvalBoolOp(const ast::Expr& e) {
  bool is_and = e.op == "and";
  std::vector<Any> values;
  for (const ast::ExprPtr& x : e.items) {
    Any v = Eval(*x);
    if (!IsSymbolic(v) && values.empty()) {
      // Python short-circuit while everything so far is a Python value.
      bool t = Truthy(v);
      if (is_and ? !t : t) return v;
      if (&x == &e.items.back()) return v;
      continue;
    }
    values.push_back(v);
  }
  return DialectFor(values[0])->BoolOp(*this, is_and, values, e.pos);
}

Decorator Evaluator::EvalDecorator(const ast::Expr& e) {
  Decorator dec;
  dec.pos = e.pos;
  const ast::Expr* callee = &e;
  if (e.kind == ExprKind::kCall) callee = e.a.get();
  Any v = Eval(*callee);
  const auto* ns = v.as<NamespaceObj>();
  if (ns == nullptr) Error(callee->pos, "unsupported decorator: expected @T.prim_func or @I.ir_module");
  dec.path = ns->path;
  dec.call.node = &e;
  dec.call.func = ns->path;
  if (e.kind == ExprKind::kCall) {
    if (!e.items.empty()) Error(e.items[0]->pos, "the decorator takes keyword arguments only");
    for (const ast::Keyword& kw : e.kwargs) {
      dec.call.kwargs.emplace_back(kw.name, Eval(*kw.value));
      dec.call.kwarg_pos.push_back(kw.value->pos);
      dec.kwarg_name_pos.push_back(kw.pos);
    }
  }
  return dec;
}

// ---- statements -------------------------------------------------------------------
void Evaluator::ExecStmt(const ast::Stmt& s) {
  // Any error not already located (a failed IR invariant) is reported at
  // the innermost statement being built.
  Guard(s.pos, [&] { ExecStmtImpl(s); });
}

void Evaluator::ExecStmtImpl(const ast::Stmt& s) {
  CheckStack("statement");
  if (frame_ == nullptr) Error(s.pos, "statements are only allowed inside a function body");
  BodyFrame& f = *frame_;
  switch (s.kind) {
    case StmtKind::kPass: return;
    case StmtKind::kExpr: {
      if (s.value->kind == ExprKind::kStr) return;  // docstring
      Any v = Eval(*s.value);
      if (!v.is_none()) f.ExprStmt(*this, s, v);
      return;
    }
    case StmtKind::kAssign: ExecAssign(s); return;
    case StmtKind::kAnnAssign: f.AnnAssign(*this, s); return;
    case StmtKind::kAugAssign: ExecAugAssign(s); return;
    case StmtKind::kFor: f.For(*this, s, Eval(*s.value)); return;
    case StmtKind::kWith: f.With(*this, s); return;
    case StmtKind::kIf: f.If(*this, s, Eval(*s.value)); return;
    case StmtKind::kWhile: f.While(*this, s); return;
    case StmtKind::kReturn: f.Return(*this, s); return;
    case StmtKind::kBreak:
    case StmtKind::kContinue: f.LoopControl(*this, s); return;
    case StmtKind::kFunctionDef:
    case StmtKind::kClassDef: f.Definition(*this, s); return;
    case StmtKind::kImport: f.Import(*this, s); return;
    case StmtKind::kAssert: f.Assert(*this, s); return;
  }
  Error(s.pos, "unsupported statement");
}

void Evaluator::ExecAssign(const ast::Stmt& s) {
  const ast::Expr& value_expr = *s.value;
  Any value;
  if (s.targets.size() == 1) {
    const ast::Expr& target = *s.targets[0];
    if (target.kind == ExprKind::kName) {
      value = EvalNamed(value_expr, {target.str});
    } else if ((target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) &&
               (value_expr.kind == ExprKind::kTuple || value_expr.kind == ExprKind::kList) &&
               target.items.size() == value_expr.items.size()) {
      Array<Any> items;
      for (size_t i = 0; i < target.items.size(); ++i) {
        const ast::Expr& t = *target.items[i];
        std::vector<std::string> names;
        if (t.kind == ExprKind::kName) names.push_back(t.str);
        if (value_expr.items[i]->kind == ExprKind::kStarred) Error(value_expr.items[i]->pos, "'*' is not supported here");
        items.push_back(EvalNamed(*value_expr.items[i], names));
      }
      value = items;
    } else if (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) {
      std::vector<std::string> names;
      for (const ast::ExprPtr& t : target.items) names.push_back(t->kind == ExprKind::kName ? t->str : "");
      value = EvalNamed(value_expr, names);
    } else {
      value = Eval(value_expr);
    }
  } else {
    value = Eval(value_expr);
  }
  for (const ast::ExprPtr& target : s.targets) AssignTarget(*target, value, value_expr.pos);
}

void Evaluator::AssignTarget(const ast::Expr& target, const Any& value, const Pos& value_pos) {
  switch (target.kind) {
    case ExprKind::kName: frame_->AssignName(*this, target, value, value_pos); return;
    case ExprKind::kTuple:
    case ExprKind::kList: {
      const auto* arr = value.as<ArrayObj>();
      if (arr == nullptr) {
        Error(value_pos, "cannot unpack a " + TypeName(value) + " into " + std::to_string(target.items.size()) + " names");
      }
      if (arr->data.size() != target.items.size()) {
        Error(target.pos, "cannot unpack " + std::to_string(arr->data.size()) + " values into " +
                              std::to_string(target.items.size()) + " targets");
      }
      for (size_t i = 0; i < target.items.size(); ++i) AssignTarget(*target.items[i], arr->data[i], value_pos);
      return;
    }
    case ExprKind::kSubscript: frame_->AssignSubscript(*this, target, value, value_pos); return;
    default: Error(target.pos, "cannot assign to this expression in TVMScript");
  }
}

void Evaluator::ExecAugAssign(const ast::Stmt& s) {
  const ast::Expr& target = *s.target;
  if (target.kind == ExprKind::kName) {
    std::optional<Any> current = Lookup(target.str);
    if (current && IsNumber(*current)) {  // a Python number: updated at parse time
      Any rhs = Eval(*s.value);
      Bind(target.str, EvalBinary(s.op, *current, rhs, s.pos));
      return;
    }
  }
  frame_->AugAssign(*this, s);
}

}  // namespace script
}  // namespace tessera
