// The TIR dialect's builder (see tir_builder.h): conversions to PrimExprs,
// the PrimExpr side of operators, buffer indexing, TIR statements and
// PrimFunc construction. The T.* builtins live in builtins.cc, the Dialect
// adapter the evaluator calls in tir_dialect.cc.
#include "script/parser/tir/tir_builder.h"

#include "ir/type.h"
#include "runtime/registry.h"
#include "script/parser/tir/linear_form.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"

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

TESSERA_REGISTER_OBJECT_TYPE(BufferSliceObj);
TESSERA_REGISTER_OBJECT_TYPE(LoopSpecObj);
TESSERA_REGISTER_OBJECT_TYPE(BoundMethodObj);
TESSERA_REGISTER_OBJECT_TYPE(StmtValueObj);
TESSERA_REGISTER_OBJECT_TYPE(AllocValueObj);
TESSERA_REGISTER_OBJECT_TYPE(ScopeStmtValueObj);

namespace {

constexpr const char* kInferRegionsKey = "tir.script_infer_regions";

std::string IndexCountMessage(const std::string& name, size_t ndim, size_t count) {
  return "buffer '" + name + "' has " + std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s") +
         " but is indexed with " + std::to_string(count) + " ind" + (count == 1 ? "ex" : "ices");
}

// The index expressions of A[...]: A[i, j], or one tuple A[(i, j)] / A[()] (TVM's printer writes A[()] for a 0-d buffer).
const std::vector<ast::ExprPtr>& IndexItems(const ast::Expr& e) {
  if (e.items.size() == 1 && e.items[0]->kind == ast::ExprKind::kTuple) return e.items[0]->items;
  return e.items;
}

// The variable an allocation defines: a handle, pointing to `dtype` in
// `scope` (PointerType) unless the scope is "global".
Var DataVar(const std::string& name, DataType dtype, const std::string& scope) {
  if (!scope.empty() && scope != "global") return AnnotatedVar(name, DataType::Handle(), PointerType(PrimType(dtype), scope));
  return Var(name, DataType::Handle());
}

Stmt MakeSeq(const std::vector<Stmt>& stmts) {
  if (stmts.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
  return SeqStmt::Flatten(stmts);
}

}  // namespace

struct TIRBuilder::FrameGuard {
  TIRBuilder* b;
  FrameGuard(TIRBuilder* builder, FrameKind kind) : b(builder) { b->frames_.push_back(kind); }
  ~FrameGuard() { b->frames_.pop_back(); }
};

TIRBuilder& TIRBuilder::Of(Evaluator& ev) {
  static Dialect* const dialect = DialectRegistry::Global().Find("T");
  return ev.State<TIRBuilder>(dialect, [&] { return std::make_unique<TIRBuilder>(ev, dialect); });
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
  Error(pos, "expected " + what + " but got a " + ev_.TypeName(v));
}

DataType TIRBuilder::ToDType(const Any& v, const Pos& pos) {
  if (v.kind() == Any::Kind::kDataType) return v.raw_dtype();
  std::string s;
  if (const auto* str = v.as<StringObj>()) {
    s = str->data;
  } else if (const auto* ns = v.as<NamespaceObj>()) {
    if (ns->path.rfind("T.", 0) == 0) s = ns->path.substr(2);
  }
  if (s.empty()) Error(pos, "expected a dtype such as \"float32\" but got a " + ev_.TypeName(v));
  if (s == "void") return DataType::Void();
  return Guard(pos, [&] { return DataType(s); });
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

Any TIRBuilder::ToAttrValue(const Any& v, const Pos& pos) { return ev_.ToAttrValue(v, pos); }

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
  Error(pos, "expected a buffer region such as A[i, j], A[0:16, k] or A, but got a " + ev_.TypeName(v));
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
Any TIRBuilder::Attribute(const Any& base, const ast::Expr& e) {
  const std::string& attr = e.str;
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
  Error(e.pos, "a " + ev_.TypeName(base) + " has no attribute '" + attr + "'");
}

Any TIRBuilder::SubscriptNamespace(const std::string& path, const ast::Expr& e, std::vector<std::string> names) {
  // Old spelling of buffer annotations: T.Buffer[(128, 128), "float32"].
  CallArgs call;
  call.node = &e;
  call.func = path;
  call.names = std::move(names);
  for (const ast::ExprPtr& item : e.items) {
    call.args.push_back(ev_.Eval(*item));
    call.arg_pos.push_back(item->pos);
  }
  if (path != "T.Buffer") Error(e.a->pos, "'" + path + "' cannot be subscripted");
  return CallBuiltin(call);
}

PrimExpr TIRBuilder::ToIndex(const ast::Expr& item, const Buffer& buffer, size_t dim) {
  PrimExpr idx = ToPrimExpr(ev_.Eval(item), item.pos, "an index");
  if (!idx.dtype().is_int() && !idx.dtype().is_uint()) {
    Error(item.pos, "buffer indices must be integers, got dtype " + idx.dtype().str());
  }
  const DataType index_type = buffer->shape[dim].dtype();
  if (const int64_t* v = AsConstInt(idx); v != nullptr && index_type.is_int() && index_type.bits() < 64) {
    const int64_t hi = (int64_t{1} << (index_type.bits() - 1)) - 1;
    if (*v > hi || *v < -hi - 1) {
      Error(item.pos, "index " + std::to_string(*v) + " of buffer '" + buffer->name + "' (dimension " +
                          std::to_string(dim) + ") does not fit its index dtype " + index_type.str());
    }
  }
  return idx;
}

Any TIRBuilder::Subscript(const Any& base, const ast::Expr& e) {
  if (const auto* b = base.as<BufferNode>()) {
    Buffer buffer = GetRef<Buffer>(b);
    const std::vector<ast::ExprPtr>& items = IndexItems(e);
    if (items.size() != b->shape.size()) {
      Error(e.pos, IndexCountMessage(b->name, b->shape.size(), items.size()));
    }
    bool any_slice = false;
    auto slice = make_object<BufferSliceObj>();
    slice->buffer = buffer;
    Array<PrimExpr> points;
    for (size_t d = 0; d < items.size(); ++d) {
      const ast::Expr& item = *items[d];
      if (item.kind == ExprKind::kSlice) {
        any_slice = true;
        DataType index_type = b->shape[d].dtype();
        PrimExpr start = item.a ? ToPrimExpr(ev_.Eval(*item.a), item.a->pos, "a slice start")
                                : PrimExpr(IntImm(index_type, 0));
        PrimExpr stop = item.b ? ToPrimExpr(ev_.Eval(*item.b), item.b->pos, "a slice stop") : b->shape[d];
        int64_t step = item.c ? ToInt(ev_.Eval(*item.c), item.c->pos, "a slice step") : 1;
        if (step <= 0) Error(item.c->pos, "slice steps must be positive");
        if (!start.dtype().is_int() && !start.dtype().is_uint()) Error(item.pos, "slice bounds must be integers");
        if (!stop.dtype().is_int() && !stop.dtype().is_uint()) Error(item.pos, "slice bounds must be integers");
        slice->starts.push_back(start);
        slice->extents.push_back(Guard(item.pos, [&] { return SimplifiedDifference(stop, start); }));
        slice->steps.push_back(step);
      } else {
        PrimExpr idx = ToIndex(item, buffer, d);
        slice->starts.push_back(idx);
        slice->extents.push_back(PrimExpr());
        slice->steps.push_back(1);
        points.push_back(idx);
      }
    }
    if (any_slice) return Any(AsRef(slice));
    return Guard(e.pos, [&] { return PrimExpr(BufferLoad(buffer, points)); });
  }
  Error(e.a->pos, "a " + ev_.TypeName(base) + " cannot be subscripted");
}

Any TIRBuilder::Unary(const std::string& op, const Any& v, const ast::Expr& e) {
  if (op == "not") {
    if (!v.as<PrimExprNode>()) return Any(!Evaluator::Truthy(v));
    PrimExpr x = ToPrimExpr(v, e.a->pos);
    return Guard(e.pos, [&] { return logical_not(x); });
  }
  PrimExpr x = ToPrimExpr(v, e.a->pos, "a numeric operand");
  return Guard(e.pos, [&]() -> PrimExpr {
    if (op == "-") return neg(x);
    if (op == "~") return bitwise_not(x);
    return x;
  });
}

Any TIRBuilder::Binary(const std::string& op, const Any& a, const Any& b, const Pos& pos) {
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

Any TIRBuilder::Compare(const std::string& op, const Any& left, const Any& right, const Pos& a_pos,
                        const Pos& b_pos, const Pos& pos) {
  PrimExpr x = ToPrimExpr(left, a_pos, "a comparable value");
  PrimExpr y = ToPrimExpr(right, b_pos, "a comparable value");
  return Guard(pos, [&]() -> PrimExpr {
    if (op == "<") return less(x, y);
    if (op == ">") return greater(x, y);
    if (op == "<=") return less_equal(x, y);
    if (op == ">=") return greater_equal(x, y);
    if (op == "==") return equal(x, y);
    if (op == "!=") return not_equal(x, y);
    TESSERA_THROW(ValueError) << "unsupported comparison '" << op << "'";
  });
}

Any TIRBuilder::BoolOp(bool is_and, const std::vector<Any>& values, const Pos& pos) {
  PrimExpr acc;
  for (size_t i = 0; i < values.size(); ++i) {
    PrimExpr x = ToPrimExpr(values[i], pos, "a boolean operand");
    if (!acc.defined()) {
      acc = x;
    } else {
      acc = Guard(pos, [&] { return is_and ? logical_and(acc, x) : logical_or(acc, x); });
    }
  }
  return acc;
}

Any TIRBuilder::IfExp(const Any& cond, const ast::Expr& e) {
  PrimExpr c = ToPrimExpr(cond, e.a->pos);
  PrimExpr t = ToPrimExpr(ev_.Eval(*e.b), e.b->pos);
  PrimExpr f = ToPrimExpr(ev_.Eval(*e.c), e.c->pos);
  return Guard(e.pos, [&] { return if_then_else(c, t, f); });
}

// ---- statements ---------------------------------------------------------------
void TIRBuilder::Emit(Stmt s) {
  if (out_ == nullptr) TESSERA_THROW(InternalError) << "TIR statement outside a prim_func body";
  out_->push_back(std::move(s));
}

void TIRBuilder::SetLet(LetBinding let, const Pos& pos) {
  if (pending_let_) Error(pos, "only one variable can be bound to an expression per statement");
  pending_let_ = std::move(let);
}

Stmt TIRBuilder::VisitBody(const std::vector<ast::StmtPtr>& body) {
  Evaluator::ScopeGuard scope(&ev_);
  struct Segment {
    std::vector<Stmt> prefix;
    LetBinding let;
  };
  std::vector<Segment> lets;
  std::vector<Stmt> out;
  std::vector<Stmt>* saved_out = out_;
  std::optional<LetBinding> saved_let = std::move(pending_let_);
  struct Restore {
    TIRBuilder* b;
    std::vector<Stmt>* out;
    std::optional<LetBinding>* let;
    ~Restore() {
      b->out_ = out;
      b->pending_let_ = std::move(*let);
    }
  } restore{this, saved_out, &saved_let};
  out_ = &out;
  for (const ast::StmtPtr& s : body) {
    pending_let_.reset();
    ev_.ExecStmt(*s);
    if (pending_let_) {
      lets.push_back({std::move(out), *pending_let_});
      out.clear();
      pending_let_.reset();
    }
  }
  Stmt result = MakeSeq(out);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    Stmt rest = result;
    const LetBinding& let = it->let;
    it->prefix.push_back(Guard(let.pos, [&] { return let.wrap ? let.wrap(rest) : Stmt(LetStmt(let.var, let.value, rest)); }));
    result = MakeSeq(it->prefix);
  }
  return result;
}

void TIRBuilder::ExprStmt(Evaluator&, const ast::Stmt& s, const Any& v) {
  if (const auto* st = v.as<StmtValueObj>()) {
    Emit(st->stmt);
    return;
  }
  if (const auto* e = v.as<PrimExprNode>()) {
    Emit(Guard(s.pos, [&] { return Stmt(Evaluate(GetRef<PrimExpr>(e))); }));
    return;
  }
  if (const auto* scope = v.as<ScopeStmtValueObj>()) {
    // T.attr(...) / T.launch_thread(...) as a statement: it encloses the rest of the body.
    SetLet(LetBinding{Var(), PrimExpr(), s.pos, scope->wrap}, s.pos);
    return;
  }
  Error(s.value->pos, "this expression statement has no effect in TensorIR (a " + ev_.TypeName(v) + ")");
}

void TIRBuilder::AssignName(Evaluator&, const ast::Expr& target, const Any& value, const Pos& value_pos) {
  if (value.as<BufferNode>()) {
    ev_.Bind(target.str, value);
    return;
  }
  if (const auto* e = value.as<PrimExprNode>()) {
    if (value.as<VarNode>() && fresh_.count(value.raw_object().get())) {
      fresh_.erase(value.raw_object().get());
      ev_.Bind(target.str, value);
      return;
    }
    if (e->dtype.is_void()) Error(value_pos, "cannot bind a value of type void to '" + target.str + "'");
    Var var(target.str, e->dtype);
    ev_.Bind(target.str, var);
    SetLet(LetBinding{var, GetRef<PrimExpr>(e), target.pos, nullptr}, target.pos);
    return;
  }
  if (const auto* ns = value.as<NamespaceObj>()) {
    // x = T.axis.spat (a typo, or a source cut short) would bind silently.
    if (!IsKnownName(ns->path)) Error(value_pos, "unknown TVMScript name '" + ns->path + "'");
  }
  if (const auto* alloc = value.as<AllocValueObj>()) {
    LetBinding let{Var(), PrimExpr(), target.pos, BindAlloc(*alloc, target.str, value_pos)};
    SetLet(std::move(let), target.pos);
    return;
  }
  if (const auto* scope = value.as<ScopeStmtValueObj>()) {
    if (scope->bound.is_none()) Error(value_pos, scope->what + " defines no value to assign to '" + target.str + "'");
    ev_.Bind(target.str, scope->bound);
    SetLet(LetBinding{Var(), PrimExpr(), target.pos, scope->wrap}, target.pos);
    return;
  }
  if (value.as<StmtValueObj>() || value.as<BufferSliceObj>()) {
    Error(value_pos, "a " + ev_.TypeName(value) + " cannot be assigned to a name");
  }
  ev_.Bind(target.str, value);
}

void TIRBuilder::AssignSubscript(Evaluator&, const ast::Expr& target, const Any& value, const Pos& value_pos) {
  Any base = ev_.Eval(*target.a);
  if (!base.as<BufferNode>()) {
    Error(target.a->pos, "only buffer elements can be assigned to, but this is a " + ev_.TypeName(base));
  }
  Emit(MakeStore(target, base, value, value_pos));
}

void TIRBuilder::AnnAssign(Evaluator&, const ast::Stmt& s) {
  if (s.target->kind != ExprKind::kName) Error(s.target->pos, "only a name can be declared with a type");
  if (!s.value) Error(s.pos, "a declared variable needs a value: " + s.target->str + ": T.int32 = ...");
  Any annotation = ev_.Eval(*s.annotation);
  DataType dtype;
  ObjectRef pointer_type;  // x: T.handle("float32") = ...: a typed handle
  if (const auto* typed = annotation.as<VarNode>()) {
    fresh_.erase(typed);
    dtype = typed->dtype;
    pointer_type = typed->type_annotation;
  } else {
    dtype = ToDType(annotation, s.annotation->pos);
  }
  Any v = ev_.Eval(*s.value);
  PrimExpr value = ToPrimExpr(v, s.value->pos, "a value");
  if (Evaluator::IsNumber(v)) value = Guard(s.value->pos, [&] { return cast(dtype, value); });
  if (value.dtype() != dtype) {
    Error(s.value->pos, "value of dtype " + value.dtype().str() + " does not match the declared dtype " + dtype.str());
  }
  Var var = AnnotatedVar(s.target->str, dtype, pointer_type);
  ev_.Bind(s.target->str, var);
  SetLet(LetBinding{var, value, s.pos, nullptr}, s.pos);
}

void TIRBuilder::AugAssign(Evaluator&, const ast::Stmt& s) {
  const ast::Expr& target = *s.target;
  if (target.kind == ExprKind::kSubscript) {
    Any base = ev_.Eval(*target.a);
    if (!base.as<BufferNode>()) Error(target.a->pos, "only buffer elements can be updated with '" + s.op + "='");
    Any current = ev_.Eval(target);
    Any rhs = ev_.Eval(*s.value);
    Any updated = ev_.Binary(s.op, current, rhs, s.pos);
    Emit(MakeStore(target, base, updated, s.value->pos));
    return;
  }
  if (target.kind == ExprKind::kName) {
    ev_.Eval(target);  // reports an undefined name
    Error(target.pos, "'" + target.str + "' cannot be updated in place; TIR variables are immutable");
  }
  Error(target.pos, "illegal target for augmented assignment");
}

void TIRBuilder::While(Evaluator&, const ast::Stmt& s) {
  PrimExpr cond = ToPrimExpr(ev_.Eval(*s.value), s.value->pos, "a loop condition");
  Stmt body;
  {
    FrameGuard frame(this, FrameKind::kWhile);
    body = VisitBody(s.body);
  }
  Emit(Guard(s.pos, [&] { return Stmt(tir::While(cond, body)); }));
}

void TIRBuilder::LoopControl(Evaluator&, const ast::Stmt& s) {
  Error(s.pos, "'break' and 'continue' are not supported in TensorIR");
}

Stmt TIRBuilder::MakeStore(const ast::Expr& target, const Any& buffer_value, const Any& value, const Pos& value_pos) {
  Buffer buffer = buffer_value.cast<Buffer>();
  const std::vector<ast::ExprPtr>& items = IndexItems(target);
  if (items.size() != buffer->shape.size()) {
    Error(target.pos, IndexCountMessage(buffer->name, buffer->shape.size(), items.size()));
  }
  Array<PrimExpr> indices;
  int lanes = 1;
  for (size_t d = 0; d < items.size(); ++d) {
    const ast::Expr& item = *items[d];
    PrimExpr idx;
    if (item.kind == ExprKind::kSlice) {
      PrimExpr start = item.a ? ToPrimExpr(ev_.Eval(*item.a), item.a->pos) : PrimExpr(IntImm(buffer->shape[d].dtype(), 0));
      PrimExpr stop = item.b ? ToPrimExpr(ev_.Eval(*item.b), item.b->pos) : buffer->shape[d];
      int64_t step = item.c ? ToInt(ev_.Eval(*item.c), item.c->pos, "a slice step") : 1;
      PrimExpr extent = Guard(item.pos, [&] { return SimplifiedDifference(stop, start); });
      const int64_t* n = AsConstInt(extent);
      if (n == nullptr || *n <= 0 || step <= 0) Error(item.pos, "a vector store needs a constant positive extent and step");
      int64_t count = (*n + step - 1) / step;
      if (count > 65535) Error(item.pos, "vector store is too wide");
      idx = count == 1 ? start : Guard(item.pos, [&] { return PrimExpr(Ramp(start, IntImm(start.dtype(), step), static_cast<int>(count))); });
      if (!idx.dtype().is_int() && !idx.dtype().is_uint()) {
        Error(item.pos, "buffer indices must be integers, got dtype " + idx.dtype().str());
      }
    } else {
      idx = ToIndex(item, buffer, d);
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

void TIRBuilder::For(Evaluator&, const ast::Stmt& s, const Any& iter) {
  if (!s.orelse.empty()) Error(s.pos, "'for ... else' is not supported in TVMScript");
  const auto* spec = iter.as<LoopSpecObj>();
  if (spec == nullptr) {
    Error(s.value->pos, "a for loop must iterate over range(), T.grid(), T.serial(), T.parallel(), "
                        "T.vectorized(), T.unroll() or T.thread_binding(), not a " + ev_.TypeName(iter));
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
  // `for iters in T.grid(m, n)`: one name for several ranges binds the tuple
  // of the loop variables (named iters_0, iters_1, ... as TVM names them).
  const bool packed = targets.size() == 1 && spec->extents.size() > 1 && s.target->kind == ExprKind::kName;
  if (targets.size() != spec->extents.size() && !packed) {
    Error(s.target->pos, "the loop iterates over " + std::to_string(spec->extents.size()) + " range" +
                             (spec->extents.size() == 1 ? "" : "s") + " but names " + std::to_string(targets.size()) +
                             " variable" + (targets.size() == 1 ? "" : "s"));
  }
  Evaluator::ScopeGuard scope(&ev_);
  FrameGuard frame(this, FrameKind::kLoop);
  std::vector<Var> vars;
  for (size_t i = 0; i < spec->extents.size(); ++i) {
    DataType t = spec->extents[i].dtype();
    DataType m = spec->mins[i].dtype();
    DataType dtype = DataType(m.code(), std::max(m.bits(), t.bits()), 1);
    if (!(dtype.is_int() || dtype.is_uint()) || !t.is_scalar()) {
      Error(s.value->pos, "loop bounds must be integers, got dtype " + t.str());
    }
    Var v(packed ? targets[0]->str + "_" + std::to_string(i) : targets[i]->str, dtype);
    vars.push_back(v);
    if (!packed) ev_.Bind(targets[i]->str, v);
    loop_doms_[v.get()] = Range::FromMinExtent(spec->mins[i], spec->extents[i]);
  }
  if (packed) {
    Array<Any> items;
    for (const Var& v : vars) items.push_back(Any(v));
    ev_.Bind(targets[0]->str, Any(items));
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
    body = Guard(s.pos, [&] { return Stmt(tir::For(vars[k], min, extent, spec->kind, body, thread, spec->annotations)); });
  }
  Emit(body);
}

void TIRBuilder::If(Evaluator&, const ast::Stmt& s, const Any& cond) {
  if (!cond.as<PrimExprNode>()) {
    if (!Evaluator::IsNumber(cond) && !cond.is_none()) {
      Error(s.value->pos, "an if condition must be a boolean expression, not a " + ev_.TypeName(cond));
    }
    const auto& branch = Evaluator::Truthy(cond) ? s.body : s.orelse;
    if (!branch.empty()) Emit(VisitBody(branch));
    return;
  }
  PrimExpr c = ToPrimExpr(cond, s.value->pos);
  if (!c.dtype().is_bool() && c.dtype().is_scalar() && (c.dtype().is_int() || c.dtype().is_uint())) {
    // `if i:` on an integer, with Python's meaning: i != 0.
    c = Guard(s.value->pos, [&] { return not_equal(c, IntImm(c.dtype(), 0)); });
  }
  FrameGuard frame(this, FrameKind::kIf);
  Stmt then_case = VisitBody(s.body);
  std::optional<Stmt> else_case;
  if (!s.orelse.empty()) else_case = VisitBody(s.orelse);
  Emit(Guard(s.value->pos, [&] { return Stmt(IfThenElse(c, then_case, else_case)); }));
}

void TIRBuilder::With(Evaluator&, const ast::Stmt& s) {
  if (s.items.size() != 1) Error(s.pos, "a with statement in TVMScript takes exactly one context");
  const ast::WithItem& item = s.items[0];
  const ast::Expr& ctx = *item.context;
  std::string path;
  if (ctx.kind == ExprKind::kCall) {
    Any callee = ev_.Eval(*ctx.a);
    if (const auto* ns = callee.as<NamespaceObj>()) path = ns->path;
  }
  if (path != "T.block" && path != "T.init") {
    Any v = ev_.Eval(ctx);
    if (v.as<AllocValueObj>()) return WithAlloc(s, v);
    if (const auto* scope = v.as<ScopeStmtValueObj>()) return WithScope(s, *scope);
    Error(ctx.pos, "unsupported context (a " + ev_.TypeName(v) + "); expected T.block(...), T.init(), T.attr(...), "
                   "T.launch_thread(...), T.LetStmt(...), T.allocate(...) or T.decl_buffer(...)");
  }
  if (item.target) Error(item.target->pos, path + "() does not define a value for 'as'");
  CallArgs call;
  call.node = &ctx;
  call.func = path;
  for (const ast::ExprPtr& x : ctx.items) {
    if (x->kind == ExprKind::kStarred) Error(x->pos, "'*' is not supported here");
    call.args.push_back(ev_.Eval(*x));
    call.arg_pos.push_back(x->pos);
  }
  for (const ast::Keyword& kw : ctx.kwargs) {
    call.kwargs.emplace_back(kw.name, ev_.Eval(*kw.value));
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
  Emit(BuildBlock(s, call));
}

std::function<Stmt(Stmt)> TIRBuilder::BindAlloc(const AllocValueObj& alloc, const std::string& name, const Pos& pos) {
  if (frames_.empty()) Error(pos, "T.allocate() / T.decl_buffer() must be inside a T.prim_func body");
  if (alloc.buffer) {
    // The buffer (and its data, when it allocates) takes the bound name.
    Buffer buffer = *alloc.buffer;
    BufferNode* n = buffer.CopyOnWrite();
    n->name = name;
    if (alloc.allocates) n->data = DataVar(name, n->dtype, n->scope);
    ev_.Bind(name, buffer);
    bool allocates = alloc.allocates;
    return [buffer, allocates](Stmt body) {
      Stmt s = DeclBuffer(buffer, body);
      if (allocates) s = Allocate(buffer->data, buffer->dtype, buffer->shape, IntImm(DataType::Bool(), 1), s);
      return s;
    };
  }
  Var data = DataVar(name, alloc.dtype, alloc.scope);
  ev_.Bind(name, data);
  return [data, dtype = alloc.dtype, extents = alloc.extents, cond = alloc.condition, ann = alloc.annotations](Stmt body) {
    return Stmt(Allocate(data, dtype, extents, cond, body, ann));
  };
}

// with T.allocate(...) as x: / with T.decl_buffer(...) as B:
void TIRBuilder::WithAlloc(const ast::Stmt& s, const Any& v) {
  const ast::WithItem& item = s.items[0];
  const auto* alloc = v.as<AllocValueObj>();
  if (!item.target) Error(item.context->pos, "'with " + ev_.TypeName(v) + "' needs 'as name'");
  if (item.target->kind != ExprKind::kName) Error(item.target->pos, "'with ... as' binds a single name");
  Evaluator::ScopeGuard scope(&ev_);
  auto wrap = BindAlloc(*alloc, item.target->str, item.context->pos);
  Stmt body = VisitBody(s.body);
  Emit(Guard(s.pos, [&] { return wrap(body); }));
}

// with T.attr(...): / with T.launch_thread(...) as x: / with T.LetStmt(v) as x:
void TIRBuilder::WithScope(const ast::Stmt& s, const ScopeStmtValueObj& scope_value) {
  const ast::WithItem& item = s.items[0];
  Evaluator::ScopeGuard scope(&ev_);
  if (item.target) {
    if (item.target->kind != ExprKind::kName) Error(item.target->pos, "'with ... as' binds a single name");
    if (scope_value.bound.is_none()) Error(item.target->pos, scope_value.what + " defines no value for 'as'");
    ev_.Bind(item.target->str, scope_value.bound);
  }
  Stmt body = VisitBody(s.body);
  Emit(Guard(s.pos, [&] { return scope_value.wrap(body); }));
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

// ---- functions ------------------------------------------------------------------
void TIRBuilder::BindParam(const ast::Arg& arg) {
  if (!arg.annotation) {
    Error(arg.pos, "parameter '" + arg.name + "' needs a type annotation, e.g. T.Buffer((128,), \"float32\"), "
                   "T.handle or T.int32");
  }
  if (arg.default_value) Error(arg.default_value->pos, "default values are not supported for T.prim_func parameters");
  Any v = ev_.EvalNamed(*arg.annotation, {arg.name});
  FuncFrame* f = func_;
  if (const auto* b = v.as<BufferNode>()) {
    Var handle(arg.name + "_handle", DataType::Handle());
    f->params.push_back(handle);
    f->buffer_map.Set(handle, GetRef<Buffer>(b));
    ev_.Bind(arg.name, v);
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
    ev_.Bind(arg.name, var);
    return;
  }
  if (const auto* var = v.as<VarNode>()) {
    fresh_.erase(var);
    Var renamed = AnnotatedVar(arg.name, var->dtype, var->type_annotation);  // T.handle("float32", "shared")
    f->params.push_back(renamed);
    ev_.Bind(arg.name, renamed);
    return;
  }
  Error(arg.annotation->pos, "unsupported parameter annotation (a " + ev_.TypeName(v) +
                                 "); expected T.Buffer(...), T.handle or a scalar type such as T.int32");
}

namespace {
// The keyword arguments of @T.prim_func(...): private=, check_well_formed=.
bool IsPrivate(TIRBuilder& b, const Decorator& dec) {
  bool is_private = false;
  for (size_t i = 0; i < dec.call.kwargs.size(); ++i) {
    const auto& [name, value] = dec.call.kwargs[i];
    if (name == "private") {
      is_private = b.ToBool(value, dec.call.kwarg_pos[i], "private");
    } else if (name == "check_well_formed") {
      b.ToBool(value, dec.call.kwarg_pos[i], "check_well_formed");
    } else {
      b.Error(dec.kwarg_name_pos[i], "unexpected decorator argument '" + name + "'");
    }
  }
  return is_private;
}

// The dtype of a `-> T.int32` return annotation (void when absent or None).
DataType ReturnType(TIRBuilder& b, const Any& ret, const Pos& pos) {
  if (ret.is_none()) return DataType::Void();
  return b.ToDType(ret, pos);
}
}  // namespace

FunctionSignature TIRBuilder::Declare(const ast::Stmt& def, const Decorator& dec) {
  IsPrivate(*this, dec);
  FunctionSignature sig;
  sig.dialect = dialect_->name();
  sig.num_params = static_cast<int>(def.args.size());
  if (def.returns) {
    sig.ret = ev_.Eval(*def.returns);
    ReturnType(*this, sig.ret, def.returns->pos);
  }
  return sig;
}

Any TIRBuilder::CallFunction(const GlobalVar& gv, const FunctionSignature& sig, CallArgs& call) {
  const std::string& name = gv->name_hint;
  if (!call.kwargs.empty()) Error(call.kwarg_pos[0], name + "() takes no keyword arguments");
  if (sig.num_params >= 0 && static_cast<int>(call.args.size()) != sig.num_params) {
    Error(call.node->pos, name + "() takes " + std::to_string(sig.num_params) + " argument" +
                              (sig.num_params == 1 ? "" : "s") + " but " + std::to_string(call.args.size()) +
                              (call.args.size() == 1 ? " was" : " were") + " given");
  }
  if (sig.dialect != dialect_->name()) {
    Error(call.node->a->pos, "'" + name + "' is not a T.prim_func and cannot be called from one");
  }
  Array<PrimExpr> args;
  for (size_t i = 0; i < call.args.size(); ++i) args.push_back(ToPrimExpr(call.args[i], call.arg_pos[i], "an argument"));
  DataType dtype = ReturnType(*this, sig.ret, call.node->pos);
  return Guard(call.node->pos, [&] { return PrimExpr(Call(dtype, gv, args)); });
}

PrimFunc TIRBuilder::BuildPrimFunc(const ast::Stmt& def, const Decorator& dec) {
  bool is_private = IsPrivate(*this, dec);
  DataType ret_type = def.returns ? ReturnType(*this, ev_.Eval(*def.returns), def.returns->pos) : DataType::Void();
  frames_.clear();
  blocks_.clear();
  loop_doms_.clear();
  fresh_.clear();
  env_thread_tags_.clear();
  launched_threads_.clear();
  out_ = nullptr;
  pending_let_.reset();
  num_blocks_ = 0;
  any_inferred_ = false;
  FuncFrame frame;
  frame.is_private = is_private;
  func_ = &frame;
  struct ResetFunc {
    FuncFrame** f;
    ~ResetFunc() { *f = nullptr; }
  } reset{&func_};
  Evaluator::FrameGuard body_frame(&ev_, this);
  Evaluator::ScopeGuard scope(&ev_);
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
  if (!is_private && !frame.attrs.count("global_symbol")) {
    frame.attrs.Set("global_symbol", String(dec.global_name.empty() ? def.name : dec.global_name));
  }
  PrimFunc func = Guard(def.pos, [&] { return PrimFunc(frame.params, body, frame.buffer_map, frame.attrs, ret_type); });
  if (any_inferred_) {
    func = Guard(def.pos, [&]() -> PrimFunc {
      if (&tir::CompleteBlockAccessRegions != nullptr) return tir::CompleteBlockAccessRegions(func);
      if (auto f = Registry::Get("tir.analysis.CompleteBlockAccessRegions")) return (*f)(func).cast<PrimFunc>();
      return func;
    });
  }
  return func;
}


}  // namespace script
}  // namespace tessera
