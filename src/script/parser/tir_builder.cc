// The TIR builder: expressions, statements, functions and modules (see
// tir_builder.h). The T.* builtins it calls live in tir_builtins.cc.
#include "script/parser/tir_builder.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/registry.h"
#include "script/parser/linear_form.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace tir {
// Provided by the block access-region analysis; weak so that the parser
// links (and leaves regions to be filled later) while it is absent.
PrimFunc CompleteBlockAccessRegions(const PrimFunc& func) __attribute__((weak));
}  // namespace tir

namespace script {

using namespace tir;
using ast::ExprKind;
using ast::StmtKind;

TESSERA_REGISTER_OBJECT_TYPE(NamespaceObj);
TESSERA_REGISTER_OBJECT_TYPE(SliceObj);
TESSERA_REGISTER_OBJECT_TYPE(BufferSliceObj);
TESSERA_REGISTER_OBJECT_TYPE(LoopSpecObj);
TESSERA_REGISTER_OBJECT_TYPE(BoundMethodObj);
TESSERA_REGISTER_OBJECT_TYPE(StmtValueObj);

namespace {

constexpr const char* kInferRegionsKey = "tir.script_infer_regions";
constexpr const char* kNamespaceTag = "__tessera_ns__:";
constexpr const char* kUnsupportedTag = "__tessera_unsupported__:";

bool IsPyNumber(const Any& v) {
  return v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kFloat || v.kind() == Any::Kind::kBool;
}
bool IsPyIntLike(const Any& v) { return v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool; }

// Canonical spelling of a namespace path: tvm.script.tir.X -> T.X, ...
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

std::string TypeName(const Any& v) {
  if (const auto* ns = v.as<NamespaceObj>()) return ns->path;
  if (v.as<SliceObj>()) return "slice";
  if (v.as<BufferSliceObj>()) return "buffer region";
  if (v.as<LoopSpecObj>()) return "loop range";
  if (v.as<BoundMethodObj>()) return "method";
  if (v.as<ArrayObj>()) return "tuple";
  if (v.as<MapObj>()) return "dict";
  if (v.as<BufferNode>()) return "buffer";
  return v.type_name();
}

bool Truthy(const Any& v) {
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

std::string IndexCountMessage(const std::string& name, size_t ndim, size_t count) {
  return "buffer '" + name + "' has " + std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s") +
         " but is indexed with " + std::to_string(count) + " ind" + (count == 1 ? "ex" : "ices");
}

double PyFloat(const Any& v) { return v.kind() == Any::Kind::kFloat ? v.raw_float() : static_cast<double>(v.raw_int()); }

Stmt MakeSeq(const std::vector<Stmt>& stmts) {
  if (stmts.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
  return SeqStmt::Flatten(stmts);
}

}  // namespace

// ---- scopes and frames ------------------------------------------------------
struct TIRBuilder::ScopeGuard {
  TIRBuilder* b;
  explicit ScopeGuard(TIRBuilder* builder) : b(builder) { b->scopes_.emplace_back(); }
  ~ScopeGuard() { b->scopes_.pop_back(); }
};
struct TIRBuilder::FrameGuard {
  TIRBuilder* b;
  FrameGuard(TIRBuilder* builder, FrameKind kind) : b(builder) { b->frames_.push_back(kind); }
  ~FrameGuard() { b->frames_.pop_back(); }
};

TIRBuilder::TIRBuilder(const SourceFile& source, NameResolver resolver)
    : src_(source), resolver_(std::move(resolver)) {}

std::optional<Any> TIRBuilder::Lookup(const std::string& name) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return found->second;
  }
  if (name == "range") return Any(AsRef(make_object<NamespaceObj>("range")));
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
  if (name == "T" || name == "I" || name == "R" || name == "tvm") {
    return Any(AsRef(make_object<NamespaceObj>(name)));
  }
  return std::nullopt;
}

std::optional<Range> TIRBuilder::LoopDomain(const Var& v) const {
  auto it = loop_doms_.find(v.get());
  if (it == loop_doms_.end()) return std::nullopt;
  return it->second;
}

// ---- conversions ------------------------------------------------------------
PrimExpr TIRBuilder::ToPrimExpr(const Any& v, const Pos& pos, const std::string& what) {
  switch (v.kind()) {
    case Any::Kind::kInt: return PrimExpr(v.raw_int());
    case Any::Kind::kFloat: return PrimExpr(v.raw_float());
    case Any::Kind::kBool: return IntImm(DataType::Bool(), v.raw_int() != 0);
    default: break;
  }
  if (const auto* e = v.as<PrimExprNode>()) return GetRef<PrimExpr>(e);
  if (const auto* s = v.as<BufferSliceObj>()) {
    // A slice used as a value: a vector load (constant extents only).
    Array<PrimExpr> indices;
    for (size_t d = 0; d < s->starts.size(); ++d) {
      if (!s->extents[d].defined()) {
        indices.push_back(s->starts[d]);
        continue;
      }
      const int64_t* n = AsConstInt(s->extents[d]);
      if (n == nullptr || *n <= 0) Error(pos, "a buffer slice used as a value needs a constant positive extent");
      int64_t lanes = (*n + s->steps[d] - 1) / s->steps[d];
      if (lanes == 1) {
        indices.push_back(s->starts[d]);
      } else {
        PrimExpr start = s->starts[d];
        indices.push_back(Guard(pos, [&] {
          return PrimExpr(Ramp(start, IntImm(start.dtype(), s->steps[d]), static_cast<int>(lanes)));
        }));
      }
    }
    return Guard(pos, [&] { return PrimExpr(BufferLoad(s->buffer, indices)); });
  }
  if (const auto* b = v.as<BufferNode>()) {
    Error(pos, "buffer '" + b->name + "' cannot be used as a value here; index it, e.g. " + b->name + "[i]");
  }
  Error(pos, "expected " + what + " but got a " + TypeName(v));
}

int64_t TIRBuilder::ToInt(const Any& v, const Pos& pos, const std::string& what) {
  if (IsPyIntLike(v)) return v.raw_int();
  if (const auto* imm = v.as<IntImmNode>()) return imm->value;
  Error(pos, "expected " + what + " (an integer constant) but got a " + TypeName(v));
}

std::string TIRBuilder::ToStr(const Any& v, const Pos& pos, const std::string& what) {
  if (const auto* s = v.as<StringObj>()) return s->data;
  if (const auto* s = v.as<StringImmNode>()) return s->value;
  Error(pos, "expected " + what + " (a string) but got a " + TypeName(v));
}

DataType TIRBuilder::ToDType(const Any& v, const Pos& pos) {
  if (v.kind() == Any::Kind::kDataType) return v.raw_dtype();
  std::string s;
  if (const auto* str = v.as<StringObj>()) {
    s = str->data;
  } else if (const auto* ns = v.as<NamespaceObj>()) {
    if (ns->path.rfind("T.", 0) == 0) s = ns->path.substr(2);
  }
  if (s.empty()) Error(pos, "expected a dtype such as \"float32\" but got a " + TypeName(v));
  if (s == "void") return DataType::Void();
  return Guard(pos, [&] { return DataType(s); });
}

bool TIRBuilder::ToBool(const Any& v, const Pos& pos, const std::string& what) {
  if (IsPyIntLike(v)) return v.raw_int() != 0;
  if (const auto* imm = v.as<IntImmNode>()) return imm->value != 0;
  Error(pos, "expected " + what + " (True or False) but got a " + TypeName(v));
}

Array<PrimExpr> TIRBuilder::ToShape(const Any& v, const Pos& pos) {
  Array<PrimExpr> shape;
  auto add = [&](const Any& x) {
    PrimExpr e = ToPrimExpr(x, pos, "a shape dimension");
    if (!(e.dtype().is_int() || e.dtype().is_uint()) || !e.dtype().is_scalar()) {
      Error(pos, "shape dimensions must be integers, got dtype " + e.dtype().str());
    }
    shape.push_back(e);
  };
  if (const auto* arr = v.as<ArrayObj>()) {
    for (const Any& x : arr->data) add(x);
  } else {
    add(v);
  }
  return shape;
}

Any TIRBuilder::ToAttrValue(const Any& v, const Pos& pos) {
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
  if (v.as<NamespaceObj>() || v.as<SliceObj>() || v.as<BufferSliceObj>() || v.as<LoopSpecObj>() ||
      v.as<BoundMethodObj>() || v.as<StmtValueObj>()) {
    Error(pos, "a " + TypeName(v) + " cannot be used as an attribute value");
  }
  return v;
}

BufferRegion TIRBuilder::ToBufferRegion(const Any& v, const Pos& pos) {
  if (const auto* load = v.as<BufferLoadNode>()) {
    for (PrimExpr idx : load->indices) {
      if (!idx.dtype().is_scalar()) Error(pos, "vector indices are not allowed in a buffer region");
    }
    return BufferRegion::FromPoint(load->buffer, load->indices);
  }
  if (const auto* s = v.as<BufferSliceObj>()) {
    Array<Range> region;
    for (size_t d = 0; d < s->starts.size(); ++d) {
      if (s->steps[d] != 1) Error(pos, "buffer regions cannot have a step");
      if (s->extents[d].defined()) {
        region.push_back(Range::FromMinExtent(s->starts[d], s->extents[d]));
      } else {
        region.push_back(Range::FromMinExtent(s->starts[d], IntImm(s->starts[d].dtype(), 1)));
      }
    }
    return Guard(pos, [&] { return BufferRegion(s->buffer, region); });
  }
  if (const auto* b = v.as<BufferNode>()) return BufferRegion::FullRegion(GetRef<Buffer>(b));
  Error(pos, "expected a buffer region such as A[i, j], A[0:16, k] or A, but got a " + TypeName(v));
}

Buffer TIRBuilder::MakeBuffer(const std::string& name, Array<PrimExpr> shape, DataType dtype, Array<PrimExpr> strides,
                              std::optional<PrimExpr> elem_offset, std::string scope, int align, int offset_factor,
                              const Pos& pos) {
  std::string buffer_name = name.empty() ? "buffer" : name;
  return Guard(pos, [&] {
    PrimExpr offset;
    if (elem_offset.has_value()) {
      offset = *elem_offset;
    } else if (offset_factor > 0) {
      // A buffer whose offset is only known to be a multiple of offset_factor.
      offset = Var("elem_offset", shape.empty() ? DataType::Int(32) : shape[0].dtype());
    }
    return Buffer(Var(buffer_name, DataType::Handle()), dtype, shape, strides, offset, buffer_name,
                  scope.empty() ? "global" : scope, align > 0 ? align : 64, offset_factor > 0 ? offset_factor : 1);
  });
}

// ---- expressions --------------------------------------------------------------
Any TIRBuilder::EvalNamed(const ast::Expr& e, std::vector<std::string> names) {
  if (e.kind == ExprKind::kCall || e.kind == ExprKind::kSubscript) pending_names_ = std::move(names);
  Any v = Eval(e);
  pending_names_.clear();
  return v;
}

Any TIRBuilder::Eval(const ast::Expr& e) {
  CheckStack("expression");
  switch (e.kind) {
    case ExprKind::kName: {
      std::optional<Any> v = Lookup(e.str);
      if (!v) Error(e.pos, "undefined name '" + e.str + "'");
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
        if (!key.as<StringObj>() && !IsPyNumber(key)) Error(e.items[i]->pos, "dictionary keys must be strings or numbers");
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
      if (!cond.as<PrimExprNode>()) return Truthy(cond) ? Eval(*e.b) : Eval(*e.c);
      PrimExpr c = ToPrimExpr(cond, e.a->pos);
      PrimExpr t = ToPrimExpr(Eval(*e.b), e.b->pos);
      PrimExpr f = ToPrimExpr(Eval(*e.c), e.c->pos);
      return Guard(e.pos, [&] { return if_then_else(c, t, f); });
    }
    case ExprKind::kSlice: Error(e.pos, "a slice is only allowed inside [...]");
    case ExprKind::kStarred: Error(e.pos, "'*' is only allowed in call arguments and tuples");
  }
  Error(e.pos, "unsupported expression");
}

Any TIRBuilder::EvalAttribute(const ast::Expr& e) {
  Any base = Eval(*e.a);
  const std::string& attr = e.str;
  if (const auto* ns = base.as<NamespaceObj>()) {
    return Any(AsRef(make_object<NamespaceObj>(CanonicalPath(ns->path + "." + attr))));
  }
  if (const auto* b = base.as<BufferNode>()) {
    if (attr == "data") return b->data;
    if (attr == "shape") return b->shape;
    if (attr == "strides") return b->strides;
    if (attr == "elem_offset") return b->elem_offset;
    if (attr == "dtype") return String(b->dtype.str());
    if (attr == "name") return String(b->name);
    if (attr == "offset_factor") return Any(static_cast<int64_t>(b->offset_factor));
    if (attr == "data_alignment") return Any(static_cast<int64_t>(b->data_alignment));
    if (attr == "ndim") return Any(static_cast<int64_t>(b->shape.size()));
    if (attr == "access_ptr" || attr == "scope") {
      auto m = make_object<BoundMethodObj>();
      m->self = base;
      m->name = attr;
      return Any(AsRef(m));
    }
    Error(e.pos, "buffer '" + b->name + "' has no attribute '" + attr + "'");
  }
  if (const auto* p = base.as<PrimExprNode>()) {
    if (attr == "dtype") return String(p->dtype.str());
    if (const auto* imm = base.as<IntImmNode>(); imm && attr == "value") return Any(imm->value);
    if (const auto* fimm = base.as<FloatImmNode>(); fimm && attr == "value") return Any(fimm->value);
    if (const auto* var = base.as<VarNode>(); var && attr == "name") return String(var->name_hint);
  }
  Error(e.pos, "a " + TypeName(base) + " has no attribute '" + attr + "'");
}

Any TIRBuilder::EvalSubscript(const ast::Expr& e) {
  std::vector<std::string> names = std::move(pending_names_);
  pending_names_.clear();
  Any base = Eval(*e.a);
  if (const auto* ns = base.as<NamespaceObj>()) {
    // Old spelling of buffer annotations: T.Buffer[(128, 128), "float32"].
    CallArgs call;
    call.node = &e;
    call.func = ns->path;
    call.names = std::move(names);
    for (const ast::ExprPtr& item : e.items) {
      call.args.push_back(Eval(*item));
      call.arg_pos.push_back(item->pos);
    }
    if (ns->path != "T.Buffer") Error(e.a->pos, "'" + ns->path + "' cannot be subscripted");
    return CallBuiltin(call);
  }
  if (const auto* b = base.as<BufferNode>()) {
    Buffer buffer = GetRef<Buffer>(b);
    if (e.items.size() != b->shape.size()) {
      Error(e.pos, IndexCountMessage(b->name, b->shape.size(), e.items.size()));
    }
    bool any_slice = false;
    auto slice = make_object<BufferSliceObj>();
    slice->buffer = buffer;
    Array<PrimExpr> points;
    for (size_t d = 0; d < e.items.size(); ++d) {
      const ast::Expr& item = *e.items[d];
      if (item.kind == ExprKind::kSlice) {
        any_slice = true;
        DataType index_type = b->shape[d].dtype();
        PrimExpr start = item.a ? ToPrimExpr(Eval(*item.a), item.a->pos, "a slice start")
                                : PrimExpr(IntImm(index_type, 0));
        PrimExpr stop = item.b ? ToPrimExpr(Eval(*item.b), item.b->pos, "a slice stop") : b->shape[d];
        int64_t step = item.c ? ToInt(Eval(*item.c), item.c->pos, "a slice step") : 1;
        if (step <= 0) Error(item.c->pos, "slice steps must be positive");
        if (!start.dtype().is_int() && !start.dtype().is_uint()) Error(item.pos, "slice bounds must be integers");
        if (!stop.dtype().is_int() && !stop.dtype().is_uint()) Error(item.pos, "slice bounds must be integers");
        slice->starts.push_back(start);
        slice->extents.push_back(Guard(item.pos, [&] { return SimplifiedDifference(stop, start); }));
        slice->steps.push_back(step);
      } else {
        PrimExpr idx = ToPrimExpr(Eval(item), item.pos, "an index");
        if (!idx.dtype().is_int() && !idx.dtype().is_uint()) {
          Error(item.pos, "buffer indices must be integers, got dtype " + idx.dtype().str());
        }
        slice->starts.push_back(idx);
        slice->extents.push_back(PrimExpr());
        slice->steps.push_back(1);
        points.push_back(idx);
      }
    }
    if (any_slice) return Any(AsRef(slice));
    return Guard(e.pos, [&] { return PrimExpr(BufferLoad(buffer, points)); });
  }
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

Any TIRBuilder::EvalCall(const ast::Expr& e) {
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
    return CallBuiltin(call);
  }
  if (const auto* m = callee.as<BoundMethodObj>()) return CallMethod(m, call);
  Error(e.a->pos, "a " + TypeName(callee) + " is not callable");
}

Any TIRBuilder::EvalUnary(const ast::Expr& e) {
  Any v = Eval(*e.a);
  const std::string& op = e.op;
  if (op == "not") {
    if (!v.as<PrimExprNode>()) return Any(!Truthy(v));
    PrimExpr x = ToPrimExpr(v, e.a->pos);
    return Guard(e.pos, [&] { return logical_not(x); });
  }
  if (IsPyNumber(v)) {
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
  PrimExpr x = ToPrimExpr(v, e.a->pos, "a numeric operand");
  return Guard(e.pos, [&]() -> PrimExpr {
    if (op == "-") return neg(x);
    if (op == "~") return bitwise_not(x);
    return x;
  });
}

Any TIRBuilder::EvalBinary(const std::string& op, const Any& a, const Any& b, const Pos& pos) {
  if (IsPyNumber(a) && IsPyNumber(b)) {
    if (IsPyIntLike(a) && IsPyIntLike(b)) {
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
  if (op == "+") {
    if (a.as<StringObj>() && b.as<StringObj>()) return String(a.as<StringObj>()->data + b.as<StringObj>()->data);
    if (a.as<ArrayObj>() && b.as<ArrayObj>()) {
      Array<Any> out(std::vector<Any>(a.as<ArrayObj>()->data));
      for (const Any& x : b.as<ArrayObj>()->data) out.push_back(x);
      return out;
    }
  }
  if (op == "@") Error(pos, "the '@' operator is not supported in TensorIR");
  PrimExpr x = ToPrimExpr(a, pos, "a numeric operand of '" + op + "'");
  PrimExpr y = ToPrimExpr(b, pos, "a numeric operand of '" + op + "'");
  return Guard(pos, [&]() -> PrimExpr {
    if (op == "+") return add(x, y);
    if (op == "-") return sub(x, y);
    if (op == "*") return mul(x, y);
    if (op == "/") return div(x, y);
    if (op == "//") return floordiv(x, y);
    if (op == "%") return floormod(x, y);
    if (op == "**") return pow(x, y);
    if (op == "<<") return left_shift(x, y);
    if (op == ">>") return right_shift(x, y);
    if (op == "&") return bitwise_and(x, y);
    if (op == "|") return bitwise_or(x, y);
    if (op == "^") return bitwise_xor(x, y);
    TESSERA_THROW(ValueError) << "unsupported operator '" << op << "'";
  });
}

Any TIRBuilder::EvalCompare(const ast::Expr& e) {
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
      if (arr == nullptr || !IsPyNumber(left)) Error(pos, "'in' is only supported for constants in tuples");
      bool found = false;
      for (const Any& x : arr->data) found = found || (IsPyNumber(x) && PyFloat(x) == PyFloat(left));
      r = Any(op == "in" ? found : !found);
    } else if (IsPyNumber(left) && IsPyNumber(right)) {
      double x = PyFloat(left), y = PyFloat(right);
      bool v = op == "<" ? x < y : op == ">" ? x > y : op == "<=" ? x <= y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
      if (IsPyIntLike(left) && IsPyIntLike(right)) {
        int64_t a = left.raw_int(), b = right.raw_int();
        v = op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : op == ">=" ? a >= b : op == "==" ? a == b : a != b;
      }
      r = Any(v);
    } else if ((op == "==" || op == "!=") && (left.as<StringObj>() || right.as<StringObj>() || left.is_none() ||
                                              right.is_none())) {
      bool same = left.same_as(right) || (left.is_none() && right.is_none());
      r = Any(op == "==" ? same : !same);
    } else {
      PrimExpr x = ToPrimExpr(left, e.items[i]->pos, "a comparable value");
      PrimExpr y = ToPrimExpr(right, e.items[i + 1]->pos, "a comparable value");
      r = Guard(pos, [&]() -> PrimExpr {
        if (op == "<") return less(x, y);
        if (op == ">") return greater(x, y);
        if (op == "<=") return less_equal(x, y);
        if (op == ">=") return greater_equal(x, y);
        if (op == "==") return equal(x, y);
        return not_equal(x, y);
      });
    }
    if (!have_result) {
      result = r;
      have_result = true;
    } else if (!result.as<PrimExprNode>() && !r.as<PrimExprNode>()) {
      result = Any(Truthy(result) && Truthy(r));
    } else {
      PrimExpr x = ToPrimExpr(result, e.pos), y = ToPrimExpr(r, e.pos);
      result = Guard(e.pos, [&] { return logical_and(x, y); });
    }
    left = right;
  }
  return result;
}

Any TIRBuilder::EvalBoolOp(const ast::Expr& e) {
  bool is_and = e.op == "and";
  std::vector<Any> values;
  for (const ast::ExprPtr& x : e.items) {
    Any v = Eval(*x);
    if (!v.as<PrimExprNode>() && values.empty()) {
      // Python short-circuit while everything so far is a Python value.
      bool t = Truthy(v);
      if (is_and ? !t : t) return v;
      if (&x == &e.items.back()) return v;
      continue;
    }
    values.push_back(v);
  }
  PrimExpr acc;
  for (size_t i = 0; i < values.size(); ++i) {
    PrimExpr x = ToPrimExpr(values[i], e.pos, "a boolean operand");
    if (!acc.defined()) {
      acc = x;
    } else {
      acc = Guard(e.pos, [&] { return is_and ? logical_and(acc, x) : logical_or(acc, x); });
    }
  }
  return acc;
}

// ---- statements ---------------------------------------------------------------
Stmt TIRBuilder::VisitBody(const std::vector<ast::StmtPtr>& body) {
  ScopeGuard scope(this);
  struct Segment {
    std::vector<Stmt> prefix;
    LetBinding let;
  };
  std::vector<Segment> lets;
  std::vector<Stmt> out;
  for (const ast::StmtPtr& s : body) {
    std::optional<LetBinding> let = VisitStmt(*s, &out);
    if (let) {
      lets.push_back({std::move(out), *let});
      out.clear();
    }
  }
  Stmt result = MakeSeq(out);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    Stmt rest = result;
    const LetBinding& let = it->let;
    it->prefix.push_back(Guard(let.pos, [&] { return Stmt(LetStmt(let.var, let.value, rest)); }));
    result = MakeSeq(it->prefix);
  }
  return result;
}

std::optional<TIRBuilder::LetBinding> TIRBuilder::VisitStmt(const ast::Stmt& s, std::vector<Stmt>* out) {
  // Any error not already located (a failed IR invariant) is reported at
  // the innermost statement being built.
  return Guard(s.pos, [&] { return VisitStmtImpl(s, out); });
}

std::optional<TIRBuilder::LetBinding> TIRBuilder::VisitStmtImpl(const ast::Stmt& s, std::vector<Stmt>* out) {
  CheckStack("statement");
  switch (s.kind) {
    case StmtKind::kExpr: VisitExprStmt(s, out); return std::nullopt;
    case StmtKind::kAssign: return VisitAssign(s, out);
    case StmtKind::kAnnAssign: {
      if (s.target->kind != ExprKind::kName) Error(s.target->pos, "only a name can be declared with a type");
      if (!s.value) Error(s.pos, "a declared variable needs a value: " + s.target->str + ": T.int32 = ...");
      DataType dtype = ToDType(Eval(*s.annotation), s.annotation->pos);
      Any v = Eval(*s.value);
      PrimExpr value = ToPrimExpr(v, s.value->pos, "a value");
      if (IsPyNumber(v)) value = Guard(s.value->pos, [&] { return cast(dtype, value); });
      if (value.dtype() != dtype) {
        Error(s.value->pos, "value of dtype " + value.dtype().str() + " does not match the declared dtype " + dtype.str());
      }
      Var var(s.target->str, dtype);
      Bind(s.target->str, var);
      return LetBinding{var, value, s.pos};
    }
    case StmtKind::kAugAssign: {
      const ast::Expr& target = *s.target;
      if (target.kind == ExprKind::kSubscript) {
        Any base = Eval(*target.a);
        if (!base.as<BufferNode>()) Error(target.a->pos, "only buffer elements can be updated with '" + s.op + "='");
        Any current = Eval(target);
        Any rhs = Eval(*s.value);
        Any updated = EvalBinary(s.op, current, rhs, s.pos);
        out->push_back(MakeStore(target, base, updated, s.value->pos));
        return std::nullopt;
      }
      if (target.kind == ExprKind::kName) {
        Any current = Eval(target);
        if (!IsPyNumber(current)) {
          Error(target.pos, "'" + target.str + "' cannot be updated in place; TIR variables are immutable");
        }
        Any updated = EvalBinary(s.op, current, Eval(*s.value), s.pos);
        Bind(target.str, updated);
        return std::nullopt;
      }
      Error(target.pos, "illegal target for augmented assignment");
    }
    case StmtKind::kFor: VisitFor(s, out); return std::nullopt;
    case StmtKind::kWith: VisitWith(s, out); return std::nullopt;
    case StmtKind::kIf: VisitIf(s, out); return std::nullopt;
    case StmtKind::kWhile: {
      PrimExpr cond = ToPrimExpr(Eval(*s.value), s.value->pos, "a loop condition");
      Stmt body;
      {
        FrameGuard frame(this, FrameKind::kWhile);
        body = VisitBody(s.body);
      }
      out->push_back(Guard(s.pos, [&] { return Stmt(While(cond, body)); }));
      return std::nullopt;
    }
    case StmtKind::kPass: return std::nullopt;
    case StmtKind::kReturn: Error(s.pos, "'return' is not supported in a T.prim_func body");
    case StmtKind::kBreak:
    case StmtKind::kContinue: Error(s.pos, "'break' and 'continue' are not supported in TensorIR");
    case StmtKind::kFunctionDef:
    case StmtKind::kClassDef: Error(s.pos, "nested definitions are not supported in a T.prim_func body");
    case StmtKind::kImport: Error(s.pos, "import statements are not allowed in a T.prim_func body");
    case StmtKind::kAssert: Error(s.pos, "'assert' is not supported in a T.prim_func body");
  }
  Error(s.pos, "unsupported statement");
}

void TIRBuilder::VisitExprStmt(const ast::Stmt& s, std::vector<Stmt>* out) {
  if (s.value->kind == ExprKind::kStr) return;  // docstring
  Any v = Eval(*s.value);
  if (v.is_none()) return;
  if (const auto* st = v.as<StmtValueObj>()) {
    out->push_back(st->stmt);
    return;
  }
  if (const auto* e = v.as<PrimExprNode>()) {
    out->push_back(Guard(s.pos, [&] { return Stmt(Evaluate(GetRef<PrimExpr>(e))); }));
    return;
  }
  Error(s.value->pos, "this expression statement has no effect in TensorIR (a " + TypeName(v) + ")");
}

std::optional<TIRBuilder::LetBinding> TIRBuilder::VisitAssign(const ast::Stmt& s, std::vector<Stmt>* out) {
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
  std::optional<LetBinding> let;
  for (const ast::ExprPtr& target : s.targets) {
    std::optional<LetBinding> l = BindTarget(*target, value, value_expr.pos, out);
    if (l) {
      if (let) Error(target->pos, "only one variable can be bound to an expression per statement");
      let = l;
    }
  }
  return let;
}

std::optional<TIRBuilder::LetBinding> TIRBuilder::BindTarget(const ast::Expr& target, const Any& value,
                                                             const Pos& value_pos, std::vector<Stmt>* out) {
  switch (target.kind) {
    case ExprKind::kName: {
      if (value.as<BufferNode>()) {
        Bind(target.str, value);
        return std::nullopt;
      }
      if (const auto* e = value.as<PrimExprNode>()) {
        if (value.as<VarNode>() && fresh_.count(value.raw_object().get())) {
          fresh_.erase(value.raw_object().get());
          Bind(target.str, value);
          return std::nullopt;
        }
        if (e->dtype.is_void()) Error(value_pos, "cannot bind a value of type void to '" + target.str + "'");
        Var var(target.str, e->dtype);
        Bind(target.str, var);
        return LetBinding{var, GetRef<PrimExpr>(e), target.pos};
      }
      if (value.as<StmtValueObj>() || value.as<BufferSliceObj>()) {
        Error(value_pos, "a " + TypeName(value) + " cannot be assigned to a name");
      }
      Bind(target.str, value);
      return std::nullopt;
    }
    case ExprKind::kTuple:
    case ExprKind::kList: {
      const auto* arr = value.as<ArrayObj>();
      if (arr == nullptr) Error(value_pos, "cannot unpack a " + TypeName(value) + " into " + std::to_string(target.items.size()) + " names");
      if (arr->data.size() != target.items.size()) {
        Error(target.pos, "cannot unpack " + std::to_string(arr->data.size()) + " values into " +
                              std::to_string(target.items.size()) + " targets");
      }
      std::optional<LetBinding> let;
      for (size_t i = 0; i < target.items.size(); ++i) {
        std::optional<LetBinding> l = BindTarget(*target.items[i], arr->data[i], value_pos, out);
        if (l) {
          if (let) Error(target.items[i]->pos, "only one variable can be bound to an expression per statement");
          let = l;
        }
      }
      return let;
    }
    case ExprKind::kSubscript: {
      Any base = Eval(*target.a);
      if (!base.as<BufferNode>()) {
        Error(target.a->pos, "only buffer elements can be assigned to, but this is a " + TypeName(base));
      }
      out->push_back(MakeStore(target, base, value, value_pos));
      return std::nullopt;
    }
    default: Error(target.pos, "cannot assign to this expression in TVMScript");
  }
}

Stmt TIRBuilder::MakeStore(const ast::Expr& target, const Any& buffer_value, const Any& value, const Pos& value_pos) {
  Buffer buffer = buffer_value.cast<Buffer>();
  if (target.items.size() != buffer->shape.size()) {
    Error(target.pos, IndexCountMessage(buffer->name, buffer->shape.size(), target.items.size()));
  }
  Array<PrimExpr> indices;
  int lanes = 1;
  for (size_t d = 0; d < target.items.size(); ++d) {
    const ast::Expr& item = *target.items[d];
    PrimExpr idx;
    if (item.kind == ExprKind::kSlice) {
      PrimExpr start = item.a ? ToPrimExpr(Eval(*item.a), item.a->pos) : PrimExpr(IntImm(buffer->shape[d].dtype(), 0));
      PrimExpr stop = item.b ? ToPrimExpr(Eval(*item.b), item.b->pos) : buffer->shape[d];
      int64_t step = item.c ? ToInt(Eval(*item.c), item.c->pos, "a slice step") : 1;
      PrimExpr extent = Guard(item.pos, [&] { return SimplifiedDifference(stop, start); });
      const int64_t* n = AsConstInt(extent);
      if (n == nullptr || *n <= 0 || step <= 0) Error(item.pos, "a vector store needs a constant positive extent and step");
      int64_t count = (*n + step - 1) / step;
      if (count > 65535) Error(item.pos, "vector store is too wide");
      idx = count == 1 ? start : Guard(item.pos, [&] { return PrimExpr(Ramp(start, IntImm(start.dtype(), step), static_cast<int>(count))); });
    } else {
      idx = ToPrimExpr(Eval(item), item.pos, "an index");
    }
    if (!idx.dtype().is_int() && !idx.dtype().is_uint()) {
      Error(item.pos, "buffer indices must be integers, got dtype " + idx.dtype().str());
    }
    lanes = std::max(lanes, idx.dtype().lanes());
    indices.push_back(idx);
  }
  PrimExpr v = ToPrimExpr(value, value_pos, "a value to store");
  if (v.dtype().is_handle() && !buffer->dtype.is_handle()) {
    Error(value_pos, "cannot store a value of dtype handle into buffer '" + buffer->name + "' (" +
                         buffer->dtype.str() + ")");
  }
  DataType want = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  if (v.dtype() != want) {
    if (v.dtype().lanes() == want.lanes()) {
      v = Guard(value_pos, [&] { return cast(want, v); });
    } else if (v.dtype().lanes() == 1) {
      v = Guard(value_pos, [&] { return cast(want, cast(want.element_of(), v)); });
    } else {
      Error(value_pos, "cannot store a value of dtype " + v.dtype().str() + " into buffer '" + buffer->name +
                           "' (" + want.str() + ")");
    }
  }
  return Guard(target.pos, [&] { return Stmt(BufferStore(buffer, v, indices)); });
}

void TIRBuilder::VisitFor(const ast::Stmt& s, std::vector<Stmt>* out) {
  if (!s.orelse.empty()) Error(s.pos, "'for ... else' is not supported in TVMScript");
  Any iter = Eval(*s.value);
  const auto* spec = iter.as<LoopSpecObj>();
  if (spec == nullptr) {
    Error(s.value->pos, "a for loop must iterate over range(), T.grid(), T.serial(), T.parallel(), "
                        "T.vectorized(), T.unroll() or T.thread_binding(), not a " + TypeName(iter));
  }
  std::vector<const ast::Expr*> targets;
  if (s.target->kind == ExprKind::kTuple || s.target->kind == ExprKind::kList) {
    for (const ast::ExprPtr& t : s.target->items) targets.push_back(t.get());
  } else {
    targets.push_back(s.target.get());
  }
  for (const ast::Expr* t : targets) {
    if (t->kind != ExprKind::kName) Error(t->pos, "loop variables must be plain names");
  }
  if (targets.size() != spec->extents.size()) {
    Error(s.target->pos, "the loop iterates over " + std::to_string(spec->extents.size()) + " range" +
                             (spec->extents.size() == 1 ? "" : "s") + " but names " + std::to_string(targets.size()) +
                             " variable" + (targets.size() == 1 ? "" : "s"));
  }
  ScopeGuard scope(this);
  FrameGuard frame(this, FrameKind::kLoop);
  std::vector<Var> vars;
  for (size_t i = 0; i < targets.size(); ++i) {
    DataType t = spec->extents[i].dtype();
    DataType m = spec->mins[i].dtype();
    DataType dtype = DataType(m.code(), std::max(m.bits(), t.bits()), 1);
    if (!(dtype.is_int() || dtype.is_uint()) || !t.is_scalar()) {
      Error(s.value->pos, "loop bounds must be integers, got dtype " + t.str());
    }
    Var v(targets[i]->str, dtype);
    vars.push_back(v);
    Bind(targets[i]->str, v);
    loop_doms_[v.get()] = Range::FromMinExtent(spec->mins[i], spec->extents[i]);
  }
  Stmt body = VisitBody(s.body);
  for (const Var& v : vars) loop_doms_.erase(v.get());
  for (size_t k = vars.size(); k-- > 0;) {
    PrimExpr min = spec->mins[k];
    if (min.dtype() != vars[k].dtype()) min = cast(vars[k].dtype(), min);
    PrimExpr extent = spec->extents[k];
    if (extent.dtype() != vars[k].dtype()) extent = Guard(s.value->pos, [&] { return cast(vars[k].dtype(), extent); });
    std::optional<IterVar> thread;
    if (spec->kind == ForKind::kThreadBinding) {
      // The thread IterVar carries the loop's range, as Schedule.bind makes it.
      thread = IterVar(Range::FromMinExtent(min, extent), Var(spec->thread, vars[k].dtype()), kThreadIndex,
                       spec->thread);
    }
    body = Guard(s.pos, [&] { return Stmt(For(vars[k], min, extent, spec->kind, body, thread, spec->annotations)); });
  }
  out->push_back(body);
}

void TIRBuilder::VisitIf(const ast::Stmt& s, std::vector<Stmt>* out) {
  Any cond = Eval(*s.value);
  if (!cond.as<PrimExprNode>()) {
    if (!IsPyNumber(cond) && !cond.is_none()) {
      Error(s.value->pos, "an if condition must be a boolean expression, not a " + TypeName(cond));
    }
    const auto& branch = Truthy(cond) ? s.body : s.orelse;
    if (!branch.empty()) out->push_back(VisitBody(branch));
    return;
  }
  PrimExpr c = ToPrimExpr(cond, s.value->pos);
  FrameGuard frame(this, FrameKind::kIf);
  Stmt then_case = VisitBody(s.body);
  std::optional<Stmt> else_case;
  if (!s.orelse.empty()) else_case = VisitBody(s.orelse);
  out->push_back(Guard(s.value->pos, [&] { return Stmt(IfThenElse(c, then_case, else_case)); }));
}

void TIRBuilder::VisitWith(const ast::Stmt& s, std::vector<Stmt>* out) {
  if (s.items.size() != 1) Error(s.pos, "a with statement in TVMScript takes exactly one context");
  const ast::WithItem& item = s.items[0];
  if (item.target) Error(item.target->pos, "'with ... as' is not supported in TensorIR");
  const ast::Expr& ctx = *item.context;
  if (ctx.kind != ExprKind::kCall) {
    Error(ctx.pos, "expected T.block(...) or T.init() after 'with'");
  }
  Any callee = Eval(*ctx.a);
  const auto* ns = callee.as<NamespaceObj>();
  std::string path = ns ? ns->path : "";
  if (path != "T.block" && path != "T.init") {
    Error(ctx.a->pos, "unsupported context '" + (ns ? path : TypeName(callee)) + "'; expected T.block(...) or T.init()");
  }
  CallArgs call;
  call.node = &ctx;
  call.func = path;
  for (const ast::ExprPtr& x : ctx.items) {
    if (x->kind == ExprKind::kStarred) Error(x->pos, "'*' is not supported here");
    call.args.push_back(Eval(*x));
    call.arg_pos.push_back(x->pos);
  }
  for (const ast::Keyword& kw : ctx.kwargs) {
    call.kwargs.emplace_back(kw.name, Eval(*kw.value));
    call.kwarg_pos.push_back(kw.value->pos);
  }
  if (path == "T.init") {
    if (!call.args.empty() || !call.kwargs.empty()) Error(ctx.pos, "T.init() takes no arguments");
    BlockFrame* block = current_block();
    if (block == nullptr || frames_.back() != FrameKind::kBlock) {
      Error(ctx.pos, "T.init() must be directly inside a T.block");
    }
    if (block->init) Error(ctx.pos, "block '" + block->name + "' already has a T.init()");
    FrameGuard frame(this, FrameKind::kInit);
    block->init = VisitBody(s.body);
    return;
  }
  out->push_back(BuildBlock(s, call));
}

Stmt TIRBuilder::BuildBlock(const ast::Stmt& s, const CallArgs& call) {
  const ast::Expr& ctx = *s.items[0].context;
  std::string name;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (i > 0) Error(call.arg_pos[i], "T.block() takes one positional argument, the block name");
    name = ToStr(call.args[i], call.arg_pos[i], "the block name");
  }
  for (size_t i = 0; i < call.kwargs.size(); ++i) {
    if (call.kwargs[i].first == "name_hint") {
      name = ToStr(call.kwargs[i].second, call.kwarg_pos[i], "the block name");
    } else if (call.kwargs[i].first == "no_realize") {
      if (ToBool(call.kwargs[i].second, call.kwarg_pos[i], "no_realize")) {
        Error(call.kwarg_pos[i], "T.block(no_realize=True) is not supported");
      }
    } else {
      Error(call.kwarg_pos[i], "T.block() got an unexpected keyword argument '" + call.kwargs[i].first + "'");
    }
  }
  BlockFrame frame;
  frame.name = name;
  frame.pos = ctx.pos;
  blocks_.push_back(&frame);
  Stmt body;
  {
    FrameGuard guard(this, FrameKind::kBlock);
    struct PopBlock {
      std::vector<BlockFrame*>* v;
      ~PopBlock() { v->pop_back(); }
    } pop{&blocks_};
    body = VisitBody(s.body);
  }
  ++num_blocks_;
  Map<String, Any> annotations = frame.annotations.value_or(Map<String, Any>());
  if (!frame.reads.has_value() || !frame.writes.has_value()) {
    annotations.Set(kInferRegionsKey, Any(int64_t{1}));
    any_inferred_ = true;
  }
  return Guard(ctx.pos, [&] {
    Block block(frame.iter_vars, frame.reads.value_or(Array<BufferRegion>()), frame.writes.value_or(Array<BufferRegion>()),
                frame.name, body, frame.init, frame.alloc_buffers, frame.match_buffers, annotations);
    PrimExpr predicate = frame.predicate.value_or(PrimExpr(IntImm(DataType::Bool(), 1)));
    return Stmt(BlockRealize(frame.iter_values, predicate, block));
  });
}

// ---- functions and modules ------------------------------------------------------
TIRBuilder::DecoratorInfo TIRBuilder::EvalDecorator(const ast::Expr& e) {
  DecoratorInfo info;
  info.pos = e.pos;
  const ast::Expr* callee = &e;
  if (e.kind == ExprKind::kCall) callee = e.a.get();
  Any v = Eval(*callee);
  const auto* ns = v.as<NamespaceObj>();
  if (ns == nullptr) Error(callee->pos, "unsupported decorator: expected @T.prim_func or @I.ir_module");
  info.path = ns->path;
  if (e.kind == ExprKind::kCall) {
    if (!e.items.empty()) Error(e.items[0]->pos, "the decorator takes keyword arguments only");
    for (const ast::Keyword& kw : e.kwargs) {
      Any value = Eval(*kw.value);
      if (kw.name == "private") {
        info.is_private = ToBool(value, kw.value->pos, "private");
      } else if (kw.name == "check_well_formed") {
        ToBool(value, kw.value->pos, "check_well_formed");
      } else {
        Error(kw.pos, "unexpected decorator argument '" + kw.name + "'");
      }
    }
  }
  return info;
}

void TIRBuilder::BindParam(const ast::Arg& arg) {
  if (!arg.annotation) {
    Error(arg.pos, "parameter '" + arg.name + "' needs a type annotation, e.g. T.Buffer((128,), \"float32\"), "
                   "T.handle or T.int32");
  }
  if (arg.default_value) Error(arg.default_value->pos, "default values are not supported for T.prim_func parameters");
  Any v = EvalNamed(*arg.annotation, {arg.name});
  FuncFrame* f = func_;
  if (const auto* b = v.as<BufferNode>()) {
    Var handle(arg.name + "_handle", DataType::Handle());
    f->params.push_back(handle);
    f->buffer_map.Set(handle, GetRef<Buffer>(b));
    Bind(arg.name, v);
    return;
  }
  if (const auto* ns = v.as<NamespaceObj>()) {
    DataType dtype;
    if (ns->path == "T.handle" || ns->path == "T.Ptr") {
      dtype = DataType::Handle();
    } else {
      dtype = ToDType(v, arg.annotation->pos);
    }
    Var var(arg.name, dtype);
    f->params.push_back(var);
    Bind(arg.name, var);
    return;
  }
  if (const auto* var = v.as<VarNode>()) {
    fresh_.erase(var);
    Var renamed(arg.name, var->dtype);
    f->params.push_back(renamed);
    Bind(arg.name, renamed);
    return;
  }
  Error(arg.annotation->pos, "unsupported parameter annotation (a " + TypeName(v) +
                                 "); expected T.Buffer(...), T.handle or a scalar type such as T.int32");
}

PrimFunc TIRBuilder::BuildPrimFunc(const ast::Stmt& def, bool is_private) {
  scopes_.clear();
  frames_.clear();
  blocks_.clear();
  loop_doms_.clear();
  fresh_.clear();
  num_blocks_ = 0;
  any_inferred_ = false;
  FuncFrame frame;
  frame.is_private = is_private;
  func_ = &frame;
  struct ResetFunc {
    FuncFrame** f;
    ~ResetFunc() { *f = nullptr; }
  } reset{&func_};
  ScopeGuard scope(this);
  FrameGuard guard(this, FrameKind::kFunc);
  frame.in_params = true;
  for (const ast::Arg& arg : def.args) Guard(arg.pos, [&] { BindParam(arg); });
  frame.in_params = false;
  Stmt body = VisitBody(def.body);

  // The implicit root block, as TVM's parser inserts it.
  const auto* realize = body.as<BlockRealizeNode>();
  bool insert_root = !frame.root_allocs.empty() || (realize && !realize->block->iter_vars.empty()) ||
                     (!realize && num_blocks_ > 0);
  if (insert_root) {
    Block root(Array<IterVar>(), Array<BufferRegion>(), Array<BufferRegion>(), "root", body, std::nullopt,
               frame.root_allocs);
    body = BlockRealize(Array<PrimExpr>(), IntImm(DataType::Bool(), 1), root);
  } else if (realize && realize->block->annotations.count(kInferRegionsKey)) {
    // A root block written by hand: its regions are never inferred.
    BlockRealize r = GetRef<BlockRealize>(realize);
    Block block = r->block;
    block.CopyOnWrite()->annotations.erase(kInferRegionsKey);
    r.CopyOnWrite()->block = block;
    body = r;
  }
  if (frame.attrs.count("global_symbol") && is_private) {
    Error(def.pos, "a private function (T.prim_func(private=True)) cannot have a global_symbol attribute");
  }
  if (!is_private && !frame.attrs.count("global_symbol")) frame.attrs.Set("global_symbol", String(def.name));
  PrimFunc func = Guard(def.pos, [&] { return PrimFunc(frame.params, body, frame.buffer_map, frame.attrs); });
  if (any_inferred_) {
    func = Guard(def.pos, [&]() -> PrimFunc {
      if (&tir::CompleteBlockAccessRegions != nullptr) return tir::CompleteBlockAccessRegions(func);
      if (auto f = Registry::Get("tir.analysis.CompleteBlockAccessRegions")) return (*f)(func).cast<PrimFunc>();
      return func;
    });
  }
  return func;
}

IRModule TIRBuilder::BuildModule(const ast::Stmt& cls) {
  Map<GlobalVar, BaseFunc> functions;
  Attrs attrs;
  std::unordered_set<std::string> names;
  for (const ast::StmtPtr& s : cls.body) {
    switch (s->kind) {
      case StmtKind::kPass: continue;
      case StmtKind::kExpr: {
        if (s->value->kind == ExprKind::kStr) continue;
        // I.module_attrs({...})
        const ast::Expr& e = *s->value;
        if (e.kind == ExprKind::kCall) {
          Any callee = Eval(*e.a);
          const auto* ns = callee.as<NamespaceObj>();
          if (ns && ns->path == "I.module_attrs" && e.items.size() == 1 && e.kwargs.empty()) {
            Any m = Eval(*e.items[0]);
            const auto* map = m.as<MapObj>();
            if (map == nullptr) Error(e.items[0]->pos, "I.module_attrs expects a dict");
            for (const auto& kv : map->data) {
              attrs.Set(ToStr(kv.first, e.items[0]->pos, "an attribute name"), ToAttrValue(kv.second, e.items[0]->pos));
            }
            continue;
          }
        }
        Error(s->pos, "unsupported statement in an ir_module class; expected decorated functions");
      }
      case StmtKind::kFunctionDef: {
        if (s->decorators.size() != 1) {
          Error(s->pos, "function '" + s->name + "' in an ir_module needs exactly one decorator, @T.prim_func or @R.function");
        }
        DecoratorInfo info = EvalDecorator(*s->decorators[0]);
        if (info.path == "R.function") {
          TESSERA_THROW(NotImplementedError)
              << source().Render(info.pos, "Relax functions (@R.function) are not supported by the TVMScript parser yet");
        }
        if (info.path != "T.prim_func") {
          Error(info.pos, "unsupported decorator '" + info.path + "'; expected @T.prim_func or @R.function");
        }
        if (!names.insert(s->name).second) Error(s->pos, "function '" + s->name + "' is defined twice in the module");
        PrimFunc f = BuildPrimFunc(*s, info.is_private);
        functions.Set(GlobalVar(s->name), f);
        continue;
      }
      default: Error(s->pos, "unsupported statement in an ir_module class; expected decorated functions");
    }
  }
  return IRModule(functions, attrs);
}

ObjectRef TIRBuilder::BuildFile(const ast::Module& module) {
  const ast::Stmt* def = nullptr;
  for (const ast::StmtPtr& s : module.body) {
    switch (s->kind) {
      case StmtKind::kImport:
      case StmtKind::kPass: continue;
      case StmtKind::kExpr:
        if (s->value->kind == ExprKind::kStr) continue;
        Error(s->pos, "expected a @T.prim_func function or an @I.ir_module class");
      case StmtKind::kFunctionDef:
      case StmtKind::kClassDef:
        if (def != nullptr) Error(s->pos, "expected a single @T.prim_func function or @I.ir_module class");
        def = s.get();
        continue;
      default: Error(s->pos, "expected a @T.prim_func function or an @I.ir_module class");
    }
  }
  if (def == nullptr) {
    Pos end;
    end.line = src_.num_lines();
    end.col = 1;
    Error(end, "no @T.prim_func function or @I.ir_module class found");
  }
  if (def->decorators.size() > 1) Error(def->decorators[1]->pos, "only one decorator is supported");
  DecoratorInfo info;
  if (!def->decorators.empty()) {
    info = EvalDecorator(*def->decorators[0]);
  } else {
    info.path = def->kind == StmtKind::kClassDef ? "I.ir_module" : "T.prim_func";
    info.pos = def->pos;
  }
  if (def->kind == StmtKind::kClassDef) {
    if (info.path != "I.ir_module") Error(info.pos, "a class must be decorated with @I.ir_module");
    return BuildModule(*def);
  }
  if (info.path == "R.function") {
    TESSERA_THROW(NotImplementedError)
        << source().Render(info.pos, "Relax functions (@R.function) are not supported by the TVMScript parser yet");
  }
  if (info.path != "T.prim_func") Error(info.pos, "a function must be decorated with @T.prim_func");
  return BuildPrimFunc(*def, info.is_private);
}

}  // namespace script
}  // namespace tessera
