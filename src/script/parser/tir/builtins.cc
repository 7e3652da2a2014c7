// The T.* functions of TVMScript's TIR dialect as the parser evaluates them:
// declarations (T.Buffer, T.match_buffer, T.alloc_buffer, T.axis.*,
// T.reads/writes, T.func_attr...), loop ranges (range, T.grid, T.serial,
// T.thread_binding...), scalar types (T.float32(0), T.int64()) and
// operators (T.max, T.exp, T.call_extern...), looked up by name. Part of
// the TIR dialect (parser/tir, tir_builder.h); every argument error is a
// ParseError at the argument.
#include <cctype>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/op.h"
#include "script/parser/core/arg_binder.h"
#include "ir/type.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "script/parser/tir/linear_form.h"
#include "script/parser/tir/tir_builder.h"
#include "tir/comm_reducer.h"
#include "tir/op.h"

namespace tessera {
namespace script {

using namespace tir;

// A 0-argument intrinsic carrying a dtype (the first argument of
// tvm_access_ptr), registered here if no one else does.
TESSERA_REGISTER_OP("tir.type_annotation").set_num_inputs(0).describe("a value standing for its dtype");

namespace {

using TirArgs = ArgBinder<TIRBuilder>;

using Handler = Any (*)(TIRBuilder&, CallArgs&);

std::string NameOf(const CallArgs& c, size_t i = 0) { return i < c.names.size() ? c.names[i] : ""; }

Any Fresh(TIRBuilder& b, Var v) {
  b.MarkFresh(v);
  return v;
}

TIRBuilder::BlockFrame* RequireBlock(TIRBuilder& b, const CallArgs& c) {
  TIRBuilder::BlockFrame* block = b.current_block();
  if (block == nullptr || b.innermost_frame() != TIRBuilder::FrameKind::kBlock) {
    b.Error(c.node->pos, c.func + "() must be used directly inside a T.block");
  }
  return block;
}

// ---- buffers ---------------------------------------------------------------
const std::vector<std::string> kBufferParams = {"shape",  "dtype", "data",          "strides",     "elem_offset",
                                                "scope",  "align", "offset_factor", "buffer_type", "axis_separators"};

Buffer DeclareBuffer(TIRBuilder& b, const CallArgs& c, const TirArgs& a, const std::string& name) {
  Array<PrimExpr> shape = b.ToShape(a.get("shape"), a.pos("shape"));
  DataType dtype = a.has("dtype") ? b.ToDType(a.get("dtype"), a.pos("dtype")) : DataType::Float(32);
  Array<PrimExpr> strides;
  if (a.has("strides")) {
    strides = b.ToShape(a.get("strides"), a.pos("strides"));
    if (strides.size() != shape.size()) b.Error(a.pos("strides"), "strides must have one entry per dimension");
  }
  std::optional<PrimExpr> elem_offset;
  if (a.has("elem_offset")) elem_offset = b.ToPrimExpr(a.get("elem_offset"), a.pos("elem_offset"), "an element offset");
  std::string scope = a.has("scope") ? b.ToStr(a.get("scope"), a.pos("scope"), "the storage scope") : "global";
  int64_t align = a.has("align") ? b.ToInt(a.get("align"), a.pos("align"), "the alignment") : 0;
  int64_t offset_factor = a.has("offset_factor") ? b.ToInt(a.get("offset_factor"), a.pos("offset_factor"), "the offset factor") : 0;
  if (align < -1 || align > (1 << 30)) b.Error(a.pos("align"), "invalid alignment");
  if (offset_factor < 0 || offset_factor > (1 << 30)) b.Error(a.pos("offset_factor"), "invalid offset factor");
  if (a.has("buffer_type")) {
    std::string t = b.ToStr(a.get("buffer_type"), a.pos("buffer_type"), "the buffer type");
    if (t != "default" && t != "auto" && !t.empty()) b.Error(a.pos("buffer_type"), "buffer_type must be \"default\" or \"auto\"");
  }
  Array<IntImm> axis_separators;
  if (a.has("axis_separators")) {
    const auto* seps = a.get("axis_separators").as<ArrayObj>();
    if (seps == nullptr) b.Error(a.pos("axis_separators"), "axis_separators must be a list of ints");
    int64_t last = 0;
    for (const Any& x : seps->data) {
      int64_t k = b.ToInt(x, a.pos("axis_separators"), "an axis separator");
      if (k < last || k > static_cast<int64_t>(shape.size())) {
        b.Error(a.pos("axis_separators"), "axis_separators must be non-decreasing positions in [0, " +
                                              std::to_string(shape.size()) + "], got " + std::to_string(k));
      }
      last = k;
      axis_separators.push_back(IntImm(DataType::Int(32), k));
    }
  }
  Buffer buffer = b.MakeBuffer(name, shape, dtype, strides, elem_offset, scope, static_cast<int>(align),
                               static_cast<int>(offset_factor), c.node->pos);
  if (!axis_separators.empty()) buffer.CopyOnWrite()->axis_separators = axis_separators;
  if (a.has("data")) {
    const Any& data = a.get("data");
    const auto* var = data.as<VarNode>();
    if (var == nullptr || !var->dtype.is_handle()) b.Error(a.pos("data"), "data must be a handle variable such as A.data");
    buffer.CopyOnWrite()->data = GetRef<Var>(var);
  }
  return buffer;
}

Any BufferDecl(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, kBufferParams, 1);
  return DeclareBuffer(b, c, a, NameOf(c));
}

Any MatchBuffer(TIRBuilder& b, CallArgs& c) {
  std::vector<std::string> params = {"param"};
  params.insert(params.end(), kBufferParams.begin(), kBufferParams.end());
  TirArgs a(b, c, params, 2);
  Buffer buffer = DeclareBuffer(b, c, a, NameOf(c));
  const Any& param = a.get("param");
  if (const auto* var = param.as<VarNode>()) {
    TIRBuilder::FuncFrame* f = b.current_func();
    if (f == nullptr || b.innermost_frame() != TIRBuilder::FrameKind::kFunc) {
      b.Error(c.node->pos, "T.match_buffer of a parameter must be at the top of the function body");
    }
    bool is_param = false;
    for (Var p : f->params) is_param = is_param || p.get() == var;
    if (!is_param || !var->dtype.is_handle()) b.Error(a.pos("param"), "T.match_buffer expects a T.handle parameter");
    Var v = GetRef<Var>(var);
    if (f->buffer_map.count(v)) b.Error(a.pos("param"), "parameter '" + var->name_hint + "' is already matched to a buffer");
    f->buffer_map.Set(v, buffer);
    return buffer;
  }
  if (b.innermost_frame() == TIRBuilder::FrameKind::kFunc) {
    b.Error(a.pos("param"), "T.match_buffer expects a T.handle parameter of the function");
  }
  if (param.as<BufferLoadNode>() || param.as<BufferSliceObj>() || param.as<BufferNode>()) {
    TIRBuilder::BlockFrame* block = RequireBlock(b, c);
    BufferRegion region = b.ToBufferRegion(param, a.pos("param"));
    block->match_buffers.push_back(b.Guard(c.node->pos, [&] { return MatchBufferRegion(buffer, region); }));
    return buffer;
  }
  b.Error(a.pos("param"), "T.match_buffer expects a T.handle parameter or a buffer region");
}

Any AllocBuffer(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, kBufferParams, 1);
  Buffer buffer = DeclareBuffer(b, c, a, NameOf(c));
  if (b.innermost_frame() == TIRBuilder::FrameKind::kFunc) {
    b.current_func()->root_allocs.push_back(buffer);
  } else if (b.innermost_frame() == TIRBuilder::FrameKind::kBlock) {
    b.current_block()->alloc_buffers.push_back(buffer);
  } else {
    b.Error(c.node->pos, "T.alloc_buffer() must be at the top of the function or directly inside a T.block");
  }
  return buffer;
}

// ---- function and block declarations --------------------------------------------
Map<String, Any> ToAttrMap(TIRBuilder& b, const Any& v, const Pos& pos) {
  const auto* map = v.as<MapObj>();
  if (map == nullptr) b.Error(pos, "expected a dict of attributes");
  Map<String, Any> out;
  for (const auto& kv : map->data) out.Set(b.ToStr(kv.first, pos, "an attribute name"), b.ToAttrValue(kv.second, pos));
  return out;
}

// T.allocate(extents, dtype, scope="global", condition=True, annotations=None):
// a raw allocation, named by `x = ...` / `with ... as x` (TIRBuilder::BindAlloc).
// The storage scope, as TVM, is the data variable's PointerType (other than "global").
Any AllocateDecl(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"extents", "dtype", "scope", "condition", "annotations"}, 2);
  auto alloc = make_object<AllocValueObj>();
  alloc->extents = b.ToShape(a.get("extents"), a.pos("extents"));
  alloc->dtype = b.ToDType(a.get("dtype"), a.pos("dtype"));
  if (a.has("scope")) {
    alloc->scope = b.ToStr(a.get("scope"), a.pos("scope"), "the storage scope");
    if (alloc->scope.empty()) b.Error(a.pos("scope"), "the storage scope cannot be empty");
  }
  alloc->condition = IntImm(DataType::Bool(), 1);
  if (a.has("condition")) {
    PrimExpr cond = b.ToPrimExpr(a.get("condition"), a.pos("condition"), "a condition");
    if (!cond.dtype().is_bool() || !cond.dtype().is_scalar()) {
      b.Error(a.pos("condition"), "the allocation condition must be a boolean, got dtype " + cond.dtype().str());
    }
    alloc->condition = cond;
  }
  if (a.has("annotations")) alloc->annotations = ToAttrMap(b, a.get("annotations"), a.pos("annotations"));
  return Any(AsRef(alloc));
}

// T.decl_buffer(shape, dtype, data=None, ...): a buffer declared for the rest
// of the body (DeclBuffer), over new memory (an Allocate) unless data= is given.
Any DeclBufferDecl(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, kBufferParams, 1);
  auto alloc = make_object<AllocValueObj>();
  alloc->buffer = DeclareBuffer(b, c, a, NameOf(c));
  alloc->allocates = !a.has("data");
  return Any(AsRef(alloc));
}

Any FuncAttr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"attrs"}, 1);
  TIRBuilder::FuncFrame* f = b.current_func();
  if (f == nullptr || b.innermost_frame() != TIRBuilder::FrameKind::kFunc) {
    b.Error(c.node->pos, "T.func_attr() must be at the top of the function body");
  }
  for (const auto& [key, value] : ToAttrMap(b, a.get("attrs"), a.pos("attrs")).items()) {
    if (f->attrs.count(key)) b.Error(a.pos("attrs"), "duplicate function attribute '" + key.str() + "'");
    if (key == "global_symbol" && f->is_private) {
      b.Error(a.pos("attrs"), "a private function (T.prim_func(private=True)) cannot have a global_symbol attribute");
    }
    f->attrs.Set(key, value);
  }
  return Any();
}

Any BlockAttr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"attrs"}, 1);
  TIRBuilder::BlockFrame* block = RequireBlock(b, c);
  if (block->annotations) b.Error(c.node->pos, "block '" + block->name + "' already has T.block_attr()");
  block->annotations = ToAttrMap(b, a.get("attrs"), a.pos("attrs"));
  return Any();
}

Any ReadsWrites(TIRBuilder& b, CallArgs& c) {
  TIRBuilder::BlockFrame* block = RequireBlock(b, c);
  if (!c.kwargs.empty()) b.Error(c.kwarg_pos[0], c.func + "() takes no keyword arguments");
  Array<BufferRegion> regions;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (const auto* arr = c.args[i].as<ArrayObj>()) {
      for (const Any& x : arr->data) regions.push_back(b.ToBufferRegion(x, c.arg_pos[i]));
    } else {
      regions.push_back(b.ToBufferRegion(c.args[i], c.arg_pos[i]));
    }
  }
  auto& slot = c.func == "T.reads" ? block->reads : block->writes;
  if (slot) b.Error(c.node->pos, "duplicate " + c.func + "() in block '" + block->name + "'");
  slot = regions;
  return Any();
}

Any Where(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"predicate"}, 1);
  TIRBuilder::BlockFrame* block = RequireBlock(b, c);
  if (block->predicate) b.Error(c.node->pos, "duplicate T.where() in block '" + block->name + "'");
  PrimExpr p = b.ToPrimExpr(a.get("predicate"), a.pos("predicate"), "a condition");
  if (!p.dtype().is_bool()) b.Error(a.pos("predicate"), "T.where() expects a boolean condition, got dtype " + p.dtype().str());
  block->predicate = p;
  return Any();
}

Range ToDomain(TIRBuilder& b, const Any& v, const Pos& pos) {
  if (const auto* arr = v.as<ArrayObj>()) {
    if (arr->data.size() != 2) b.Error(pos, "an axis domain is an extent or a (begin, end) pair");
    PrimExpr lo = b.ToPrimExpr(arr->data[0], pos, "a domain bound");
    PrimExpr hi = b.ToPrimExpr(arr->data[1], pos, "a domain bound");
    return b.Guard(pos, [&] {
      PrimExpr extent = SimplifiedDifference(hi, lo);
      if (lo.dtype() != extent.dtype()) lo = cast(extent.dtype(), lo);
      return Range::FromMinExtent(lo, extent);
    });
  }
  if (const auto* spec = v.as<LoopSpecObj>()) {
    if (spec->extents.size() != 1 || spec->kind != ForKind::kSerial) b.Error(pos, "an axis domain must be a single range");
    return Range::FromMinExtent(spec->mins[0], spec->extents[0]);
  }
  if (const auto* r = v.as<RangeNode>()) return GetRef<Range>(r);
  PrimExpr extent = b.ToPrimExpr(v, pos, "an axis extent");
  return Range::FromMinExtent(IntImm(extent.dtype(), 0), extent);
}

template <int kKind>
Any Axis(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"dom", "binding", "dtype"}, 2);
  TIRBuilder::BlockFrame* block = RequireBlock(b, c);
  Range dom = ToDomain(b, a.get("dom"), a.pos("dom"));
  DataType dtype = a.has("dtype") ? b.ToDType(a.get("dtype"), a.pos("dtype")) : DataType::Int(32);
  if (!dom->min.dtype().is_int() && !dom->min.dtype().is_uint()) b.Error(a.pos("dom"), "axis domains must be integers");
  if (!dom->extent.dtype().is_int() && !dom->extent.dtype().is_uint()) b.Error(a.pos("dom"), "axis domains must be integers");
  PrimExpr binding = b.ToPrimExpr(a.get("binding"), a.pos("binding"), "the axis binding");
  if (!binding.dtype().is_int() && !binding.dtype().is_uint()) {
    b.Error(a.pos("binding"), "an axis binding must be an integer expression, got dtype " + binding.dtype().str());
  }
  int bits = std::max({dom->min.dtype().bits(), dom->extent.dtype().bits(), dtype.bits()});
  Var var(NameOf(c).empty() ? "v" : NameOf(c), dtype.with_bits(bits));
  block->iter_vars.push_back(b.Guard(c.node->pos, [&] { return IterVar(dom, var, kKind); }));
  if (binding.dtype() != var.dtype()) binding = b.Guard(a.pos("binding"), [&] { return cast(var.dtype(), binding); });
  block->iter_values.push_back(binding);
  return Fresh(b, var);
}

Any AxisRemap(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"kinds", "bindings", "dtype"}, 2);
  TIRBuilder::BlockFrame* block = RequireBlock(b, c);
  std::string kinds = b.ToStr(a.get("kinds"), a.pos("kinds"), "the axis kinds");
  const auto* bindings = a.get("bindings").as<ArrayObj>();
  if (bindings == nullptr) b.Error(a.pos("bindings"), "T.axis.remap() expects a list of loop variables");
  if (kinds.size() != bindings->data.size()) {
    b.Error(a.pos("kinds"), "T.axis.remap() got " + std::to_string(kinds.size()) + " axis kinds for " +
                                std::to_string(bindings->data.size()) + " loop variables");
  }
  if (!c.names.empty() && c.names.size() != kinds.size()) {
    b.Error(c.node->pos, "T.axis.remap() defines " + std::to_string(kinds.size()) + " axes but " +
                             std::to_string(c.names.size()) + " names are assigned");
  }
  for (char k : kinds) {
    if (k != 'S' && k != 'R') {
      b.Error(a.pos("kinds"), std::string("unknown axis kind '") + k + "'; use 'S' (spatial) or 'R' (reduce)");
    }
  }
  Array<Any> result;
  for (size_t i = 0; i < kinds.size(); ++i) {
    int kind = kinds[i] == 'S' ? kDataPar : kCommReduce;
    const auto* loop_var = bindings->data[i].as<VarNode>();
    std::optional<Range> dom;
    if (loop_var) dom = b.LoopDomain(GetRef<Var>(loop_var));
    if (!dom) b.Error(a.pos("bindings"), "T.axis.remap() binds block axes to loop variables of enclosing loops only");
    std::string name = NameOf(c, i).empty() ? "v" + loop_var->name_hint : NameOf(c, i);
    Var var(name, loop_var->dtype);
    block->iter_vars.push_back(IterVar(*dom, var, kind));
    block->iter_values.push_back(GetRef<Var>(loop_var));
    b.MarkFresh(var);
    result.push_back(var);
  }
  if (result.size() == 1) return result[0];  // vi = T.axis.remap("S", [i])
  return result;
}

// ---- loops -------------------------------------------------------------------
Any LoopRange(TIRBuilder& b, CallArgs& c, ForKind kind) {
  bool is_thread = kind == ForKind::kThreadBinding;
  bool is_range = c.func == "range";
  std::vector<std::string> params = {"start", "stop"};
  if (is_thread) params.push_back("thread");
  if (is_range) params.push_back("step");
  params.push_back("annotations");
  std::optional<TirArgs> binder;
  // T.thread_binding(128, "blockIdx.x"): the second positional is the thread.
  CallArgs adjusted = c;
  if (is_thread && c.args.size() == 2 && c.args[1].as<StringObj>()) {
    adjusted.kwargs.insert(adjusted.kwargs.begin(), {"thread", c.args[1]});
    adjusted.kwarg_pos.insert(adjusted.kwarg_pos.begin(), c.arg_pos[1]);
    adjusted.args.pop_back();
    adjusted.arg_pos.pop_back();
  }
  binder.emplace(b, adjusted, params, 1);
  const TirArgs& a = *binder;
  PrimExpr start = b.ToPrimExpr(a.get("start"), a.pos("start"), "a loop bound");
  PrimExpr min, extent;
  if (a.has("stop")) {
    PrimExpr stop = b.ToPrimExpr(a.get("stop"), a.pos("stop"), "a loop bound");
    min = start;
    extent = b.Guard(c.node->pos, [&] { return SimplifiedDifference(stop, start); });
  } else {
    extent = start;
    if (!extent.dtype().is_int() && !extent.dtype().is_uint()) b.Error(a.pos("start"), "loop extents must be integers");
    min = IntImm(extent.dtype(), 0);
  }
  if (!min.dtype().is_int() && !min.dtype().is_uint()) b.Error(a.pos("start"), "loop bounds must be integers");
  if (!extent.dtype().is_int() && !extent.dtype().is_uint()) b.Error(a.pos("stop"), "loop bounds must be integers");
  if (is_range && a.has("step") && b.ToInt(a.get("step"), a.pos("step"), "the step") != 1) {
    b.Error(a.pos("step"), "range() steps other than 1 are not supported in TensorIR");
  }
  auto spec = make_object<LoopSpecObj>();
  spec->kind = kind;
  spec->mins.push_back(min);
  spec->extents.push_back(extent);
  if (is_thread) {
    if (!a.has("thread")) b.Error(c.node->pos, "T.thread_binding() needs thread=\"threadIdx.x\" (or another thread axis)");
    spec->thread = b.ToStr(a.get("thread"), a.pos("thread"), "the thread axis");
  }
  if (a.has("annotations")) spec->annotations = ToAttrMap(b, a.get("annotations"), a.pos("annotations"));
  return Any(AsRef(spec));
}

Any Grid(TIRBuilder& b, CallArgs& c) {
  if (!c.kwargs.empty()) b.Error(c.kwarg_pos[0], "T.grid() takes no keyword arguments");
  if (c.args.empty()) b.Error(c.node->pos, "T.grid() needs at least one extent");
  auto spec = make_object<LoopSpecObj>();
  for (size_t i = 0; i < c.args.size(); ++i) {
    PrimExpr extent = b.ToPrimExpr(c.args[i], c.arg_pos[i], "a loop extent");
    if (!extent.dtype().is_int() && !extent.dtype().is_uint()) b.Error(c.arg_pos[i], "loop extents must be integers");
    spec->mins.push_back(IntImm(extent.dtype(), 0));
    spec->extents.push_back(extent);
  }
  return Any(AsRef(spec));
}

// ---- scalars and operators ------------------------------------------------------
// T.float32(0), T.int64(1), T.bool(True); T.int64() declares a symbolic variable.
Any ScalarOfType(TIRBuilder& b, CallArgs& c, DataType dtype) {
  TirArgs a(b, c, {"value", "is_size_var"}, 0);
  if (!a.has("value")) return Fresh(b, Var(NameOf(c).empty() ? "v" : NameOf(c), dtype));
  const Any& v = a.get("value");
  Pos pos = a.pos("value");
  if (const auto* s = v.as<StringObj>()) {
    if (!dtype.is_float()) b.Error(pos, "only float types accept the strings \"inf\", \"-inf\" and \"nan\"");
    double x = s->data == "inf" ? std::numeric_limits<double>::infinity()
               : s->data == "-inf" ? -std::numeric_limits<double>::infinity()
               : s->data == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                  : (b.Error(pos, "unknown float constant \"" + s->data + "\""), 0.0);
    return PrimExpr(FloatImm(dtype, x));
  }
  return b.Guard(pos, [&]() -> PrimExpr {
    switch (v.kind()) {
      case Any::Kind::kInt:
      case Any::Kind::kBool:
        if (dtype.is_float() || dtype.is_bfloat16()) return FloatImm(dtype, static_cast<double>(v.raw_int()));
        if (dtype.is_bool()) return IntImm(dtype, v.raw_int() != 0);
        return IntImm(dtype, v.raw_int());
      case Any::Kind::kFloat:
        if (dtype.is_float() || dtype.is_bfloat16()) return FloatImm(dtype, v.raw_float());
        // Truncated toward zero; NaN or out of the type's range is an error (cast).
        return cast(dtype, FloatImm(DataType::Float(64), v.raw_float()));
      default: return cast(dtype, b.ToPrimExpr(v, pos, "a value"));
    }
  });
}

// T.handle(dtype=None, storage_scope="global", is_size_var=False): a handle
// variable; with a dtype it points to that type in that scope (PointerType).
Any HandleDecl(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"dtype", "storage_scope", "is_size_var"}, 0);
  if (a.has("is_size_var") && b.ToBool(a.get("is_size_var"), a.pos("is_size_var"), "is_size_var")) {
    b.Error(a.pos("is_size_var"), "a handle cannot be a size variable");
  }
  std::string name = NameOf(c).empty() ? "handle" : NameOf(c);
  Var v(name, DataType::Handle());
  if (a.has("dtype") || a.has("storage_scope")) {
    std::string scope = a.has("storage_scope") ? b.ToStr(a.get("storage_scope"), a.pos("storage_scope"), "the storage scope")
                                               : std::string("global");
    if (scope.empty()) b.Error(a.pos("storage_scope"), "the storage scope cannot be empty");
    ObjectRef element;
    if (a.has("dtype")) element = PrimType(b.ToDType(a.get("dtype"), a.pos("dtype")));
    v = AnnotatedVar(name, DataType::Handle(), PointerType(element, scope));
  }
  return Fresh(b, v);
}

Any VarDecl(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"dtype"}, 1);
  return Fresh(b, Var(NameOf(c).empty() ? "v" : NameOf(c), b.ToDType(a.get("dtype"), a.pos("dtype"))));
}

std::vector<PrimExpr> Exprs(TIRBuilder& b, const CallArgs& c, size_t n) {
  if (!c.kwargs.empty()) b.Error(c.kwarg_pos[0], c.func + "() takes no keyword arguments");
  if (c.args.size() != n) {
    b.Error(c.node->pos, c.func + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
                             std::to_string(c.args.size()) + (c.args.size() == 1 ? " was" : " were") + " given");
  }
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < n; ++i) out.push_back(b.ToPrimExpr(c.args[i], c.arg_pos[i], "an expression"));
  return out;
}

template <PrimExpr (*F)(PrimExpr, PrimExpr, Span)>
Any Binary(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 2);
  return b.Guard(c.node->pos, [&] { return F(x[0], x[1], Span()); });
}

Any Abs(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 1);
  return b.Guard(c.node->pos, [&] { return tir::abs(x[0]); });
}

Any SelectExpr(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 3);
  return b.Guard(c.node->pos, [&]() -> PrimExpr {
    PrimExpr t = x[1], f = x[2];
    BinaryOpMatchTypes(t, f, "Select");
    return Select(x[0], t, f);
  });
}

Any IfThenElseExpr(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 3);
  return b.Guard(c.node->pos, [&] { return if_then_else(x[0], x[1], x[2]); });
}

Any CastNodeExpr(TIRBuilder& b, CallArgs& c) {  // T.Cast(dtype, value)
  TirArgs a(b, c, {"dtype", "value"}, 2);
  DataType t = b.ToDType(a.get("dtype"), a.pos("dtype"));
  PrimExpr v = b.ToPrimExpr(a.get("value"), a.pos("value"));
  return b.Guard(c.node->pos, [&] { return PrimExpr(Cast(t, v)); });
}

Any CastExpr(TIRBuilder& b, CallArgs& c) {  // T.cast(value, dtype)
  TirArgs a(b, c, {"value", "dtype"}, 2);
  PrimExpr v = b.ToPrimExpr(a.get("value"), a.pos("value"));
  DataType t = b.ToDType(a.get("dtype"), a.pos("dtype"));
  return b.Guard(c.node->pos, [&] { return cast(t, v); });
}

// T.call_extern(dtype, name, args...) or T.call_extern(name, args..., dtype=...);
// T.call_packed(name, args...) returns int32.
Any CallExtern(TIRBuilder& b, CallArgs& c) {
  bool packed = c.func == "T.call_packed";
  std::optional<DataType> kw_dtype;
  for (size_t k = 0; k < c.kwargs.size(); ++k) {
    if (c.kwargs[k].first != "dtype" || packed) {
      b.Error(c.kwarg_pos[k], c.func + "() got an unexpected keyword argument '" + c.kwargs[k].first + "'");
    }
    kw_dtype = b.ToCallDType(c.kwargs[k].second, c.kwarg_pos[k]);
  }
  size_t fixed = packed || kw_dtype ? 1 : 2;
  if (c.args.size() < fixed) b.Error(c.node->pos, c.func + "() needs " + std::string(fixed == 1 ? "a function name" : "a dtype and a function name"));
  DataType dtype = packed ? DataType::Int(32) : kw_dtype ? *kw_dtype : b.ToCallDType(c.args[0], c.arg_pos[0]);
  std::string name = b.ToStr(c.args[fixed - 1], c.arg_pos[fixed - 1], "the function name");
  Array<PrimExpr> args;
  args.push_back(StringImm(name));
  for (size_t i = fixed; i < c.args.size(); ++i) {
    if (const auto* s = c.args[i].as<StringObj>()) {
      args.push_back(StringImm(s->data));
    } else {
      args.push_back(b.ToPrimExpr(c.args[i], c.arg_pos[i], "an argument"));
    }
  }
  std::string op = c.func == "T.call_extern" ? "tir.call_extern" : c.func == "T.call_pure_extern" ? "tir.call_pure_extern" : "tir.call_packed";
  return b.Guard(c.node->pos, [&] { return CallIntrin(dtype, op, args); });
}

Any EvaluateStmt(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 1);
  auto s = make_object<StmtValueObj>();
  s->stmt = b.Guard(c.node->pos, [&] { return Stmt(Evaluate(x[0])); });
  return Any(AsRef(s));
}

Any ExtremeValue(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"dtype"}, 1);
  DataType t = b.ToDType(a.get("dtype"), a.pos("dtype"));
  return b.Guard(c.node->pos, [&] { return c.func == "T.max_value" ? max_value(t) : min_value(t); });
}

Any RampExpr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"base", "stride", "lanes"}, 3);
  PrimExpr base = b.ToPrimExpr(a.get("base"), a.pos("base"));
  PrimExpr stride = b.ToPrimExpr(a.get("stride"), a.pos("stride"));
  int64_t lanes = b.ToInt(a.get("lanes"), a.pos("lanes"), "the lane count");
  if (lanes < 1 || lanes > 65535) b.Error(a.pos("lanes"), "invalid lane count");
  return b.Guard(c.node->pos, [&] { return PrimExpr(Ramp(base, stride, static_cast<int>(lanes))); });
}

Any BroadcastExpr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"value", "lanes"}, 2);
  PrimExpr value = b.ToPrimExpr(a.get("value"), a.pos("value"));
  int64_t lanes = b.ToInt(a.get("lanes"), a.pos("lanes"), "the lane count");
  if (lanes < 1 || lanes > 65535) b.Error(a.pos("lanes"), "invalid lane count");
  return b.Guard(c.node->pos, [&] { return PrimExpr(Broadcast(value, static_cast<int>(lanes))); });
}

Any Likely(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 1);
  return b.Guard(c.node->pos, [&] { return CallIntrin(DataType::Bool(x[0].dtype().lanes()), "tir.likely", {x[0]}); });
}

// T.ceildiv(a, b): floordiv(a + b - 1, b), as TVM builds it.
Any CeilDiv(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 2);
  return b.Guard(c.node->pos, [&]() -> PrimExpr {
    if (!x[0].dtype().is_int() && !x[0].dtype().is_uint()) {
      TESSERA_THROW(TypeError) << "T.ceildiv expects integer operands, got " << x[0].dtype().str();
    }
    PrimExpr a = x[0], d = x[1];
    BinaryOpMatchTypes(a, d, "ceildiv");
    return floordiv(sub(add(a, d), IntImm(a.dtype(), 1)), d);
  });
}

// T.comm_reducer(lambda x, y: x + y, [T.float32(0)]): 2n parameters, n identities.
Any CommReducerExpr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"combiner", "identity"}, 2);
  const auto* lam = a.get("combiner").as<LambdaObj>();
  if (lam == nullptr) b.Error(a.pos("combiner"), "T.comm_reducer() expects a lambda such as lambda x, y: x + y");
  std::vector<PrimExpr> identity;
  if (const auto* arr = a.get("identity").as<ArrayObj>()) {
    for (const Any& v : arr->data) identity.push_back(b.ToPrimExpr(v, a.pos("identity"), "an identity element"));
  } else {
    b.Error(a.pos("identity"), "T.comm_reducer() expects a list of identity elements, one per reduced value");
  }
  if (identity.empty() || lam->params.size() != 2 * identity.size()) {
    b.Error(a.pos("combiner"), "the combiner of T.comm_reducer() takes " + std::to_string(2 * identity.size()) +
                                   " parameters for " + std::to_string(identity.size()) + " identity element" +
                                   (identity.size() == 1 ? "" : "s") + ", got " + std::to_string(lam->params.size()));
  }
  Array<Var> lhs, rhs;
  std::vector<Any> args;
  for (size_t i = 0; i < lam->params.size(); ++i) {
    Var v(lam->params[i], identity[i % identity.size()].dtype());
    (i < identity.size() ? lhs : rhs).push_back(v);
    args.push_back(v);
  }
  Any res = b.ev().CallLambda(*lam, args, a.pos("combiner"));
  Array<PrimExpr> result;
  if (const auto* arr = res.as<ArrayObj>()) {
    for (const Any& v : arr->data) result.push_back(b.ToPrimExpr(v, lam->node->a->pos, "a combined value"));
  } else {
    result.push_back(b.ToPrimExpr(res, lam->node->a->pos, "a combined value"));
  }
  if (result.size() != identity.size()) {
    b.Error(lam->node->a->pos, "the combiner returns " + std::to_string(result.size()) + " value" +
                                   (result.size() == 1 ? "" : "s") + " for " + std::to_string(identity.size()) +
                                   " identity element" + (identity.size() == 1 ? "" : "s"));
  }
  return b.Guard(c.node->pos, [&] { return CommReducer(lhs, rhs, result, Array<PrimExpr>(identity)); });
}

// The node of T.attr(node, key, value): an IR object, or a Python number / string as TVM converts them.
Any AttrNodeValue(TIRBuilder& b, const Any& v, const Pos& pos) {
  if (Evaluator::IsNumber(v)) return b.ToPrimExpr(v, pos);
  if (v.as<StringObj>() || v.as<PrimExprNode>() || v.as<BufferNode>() || v.as<CommReducerNode>() ||
      v.as<IterVarNode>()) {
    return v;
  }
  if (const auto* arr = v.as<ArrayObj>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(AttrNodeValue(b, x, pos));
    return out;
  }
  b.Error(pos, "T.attr() cannot annotate a " + b.TypeName(v));
}

// T.attr(node, attr_key, value): an AttrStmt over the rest of the body (or the with body).
Any AttrScope(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"node", "attr_key", "value"}, 3);
  Any node = AttrNodeValue(b, a.get("node"), a.pos("node"));
  std::string key = b.ToStr(a.get("attr_key"), a.pos("attr_key"), "the attribute key");
  PrimExpr value;
  if (const auto* s = a.get("value").as<StringObj>()) {
    value = StringImm(s->data);
  } else {
    value = b.ToPrimExpr(a.get("value"), a.pos("value"), "the attribute value");
  }
  auto scope = make_object<ScopeStmtValueObj>();
  scope->what = "T.attr()";
  Pos pos = c.node->pos;
  scope->wrap = [&b, node, key, value, pos](Stmt body) {
    return b.Guard(pos, [&] { return Stmt(AttrStmt(node, key, value, body)); });
  };
  return Any(AsRef(scope));
}

// T.env_thread("threadIdx.x", dtype="int32"): a thread variable, launched by T.launch_thread.
Any EnvThread(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"thread_tag", "dtype"}, 1);
  std::string tag = b.ToStr(a.get("thread_tag"), a.pos("thread_tag"), "the thread tag");
  if (tag.empty()) b.Error(a.pos("thread_tag"), "the thread tag cannot be empty");
  DataType t = a.has("dtype") ? b.ToDType(a.get("dtype"), a.pos("dtype")) : DataType::Int(32);
  if (!t.is_int() || !t.is_scalar()) b.Error(a.pos("dtype"), "a thread variable must be a scalar integer, got " + t.str());
  Var v(NameOf(c).empty() ? tag : NameOf(c), t);
  b.env_thread_tags()[v.get()] = tag;
  return Fresh(b, v);
}

// T.launch_thread(thread, extent): `thread` is a T.env_thread variable or a
// tag (a new variable, named by `x = ...` / `as x`). An AttrStmt
// "thread_extent" ("virtual_thread" for vthread tags) over what follows.
Any LaunchThread(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"thread", "extent"}, 2);
  PrimExpr extent = b.ToPrimExpr(a.get("extent"), a.pos("extent"), "the thread extent");
  if (!extent.dtype().is_int() || !extent.dtype().is_scalar()) {
    b.Error(a.pos("extent"), "a thread extent must be a scalar integer, got dtype " + extent.dtype().str());
  }
  IterVar iv;
  const Any& thread = a.get("thread");
  if (const auto* s = thread.as<StringObj>()) {
    if (s->data.empty()) b.Error(a.pos("thread"), "the thread tag cannot be empty");
    Var v(NameOf(c).empty() ? s->data : NameOf(c), extent.dtype());
    iv = IterVar(Range::FromMinExtent(IntImm(v.dtype(), 0), extent), v, kThreadIndex, s->data);
  } else if (const auto* var = thread.as<VarNode>(); var && b.env_thread_tags().count(var)) {
    auto it = b.launched_threads().find(var);
    if (it != b.launched_threads().end()) {
      iv = it->second;
    } else {
      PrimExpr ext = extent;
      if (ext.dtype() != var->dtype) ext = b.Guard(a.pos("extent"), [&] { return cast(var->dtype, ext); });
      iv = IterVar(Range::FromMinExtent(IntImm(var->dtype, 0), ext), GetRef<Var>(var), kThreadIndex,
                   b.env_thread_tags()[var]);
      b.launched_threads()[var] = iv;
    }
  } else {
    b.Error(a.pos("thread"), "T.launch_thread() expects a thread tag such as \"threadIdx.x\" or a variable made by "
                             "T.env_thread(), not a " + b.TypeName(thread));
  }
  std::string key = iv->thread_tag.rfind("vthread", 0) == 0 ? "virtual_thread" : "thread_extent";
  auto scope = make_object<ScopeStmtValueObj>();
  scope->what = "T.launch_thread()";
  scope->bound = iv->var;
  Pos pos = c.node->pos;
  scope->wrap = [&b, iv, key, extent, pos](Stmt body) {
    return b.Guard(pos, [&] { return Stmt(AttrStmt(iv, key, extent, body)); });
  };
  return Any(AsRef(scope));
}

// with T.LetStmt(value) as x: / with T.LetStmt(value, var=x): (x declared before, e.g. x = T.int32()).
Any LetStmtScope(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"value", "type_annotation", "var"}, 1);
  PrimExpr value = b.ToPrimExpr(a.get("value"), a.pos("value"), "the bound value");
  DataType t = value.dtype();
  ObjectRef pointer_type;  // T.LetStmt(p, T.handle("float32")): a typed handle
  if (const auto* typed = a.get("type_annotation").as<VarNode>()) {
    t = typed->dtype;
    pointer_type = typed->type_annotation;
  } else if (a.has("type_annotation")) {
    t = b.ToDType(a.get("type_annotation"), a.pos("type_annotation"));
  }
  Var var;
  if (a.has("var")) {
    const auto* v = a.get("var").as<VarNode>();
    if (v == nullptr) b.Error(a.pos("var"), "var= expects a variable, e.g. one declared with T.int32()");
    var = GetRef<Var>(v);
    t = var.dtype();
  } else {
    var = AnnotatedVar("v", t, pointer_type);
  }
  if (value.dtype() != t) {
    b.Error(a.pos("value"), "the value has dtype " + value.dtype().str() + " but the variable is " + t.str());
  }
  auto scope = make_object<ScopeStmtValueObj>();
  scope->what = "T.LetStmt()";
  scope->bound = var;
  Pos pos = c.node->pos;
  scope->wrap = [&b, var, value, pos](Stmt body) { return b.Guard(pos, [&] { return Stmt(LetStmt(var, value, body)); }); };
  return Any(AsRef(scope));
}

// The spelling of T.target's argument: a target string, or a dict
// {"kind": "cuda", "arch": "sm_80", ...} (options as -key=value).
std::string TargetSpec(TIRBuilder& b, const Any& v, const Pos& pos) {
  if (const auto* s = v.as<StringObj>()) return s->data;
  if (v.is_object() && v.raw_object()->GetTypeKey() == "target.Target") {
    if (auto str = Reflection::GetField(v.raw_object().get(), "str")) return str->cast<std::string>();
  }
  const auto* map = v.as<MapObj>();
  if (map == nullptr) b.Error(pos, "T.target() expects a target string such as \"cuda\" or a dict with a \"kind\"");
  std::string kind;
  std::string opts;
  for (const auto& [key, value] : map->data) {
    std::string k = b.ToStr(key, pos, "a target option name");
    std::string text;
    if (value.kind() == Any::Kind::kBool) {
      text = value.raw_int() ? "true" : "false";
    } else if (value.kind() == Any::Kind::kInt) {
      text = std::to_string(value.raw_int());
    } else if (const auto* str = value.as<StringObj>()) {
      text = str->data;
    } else if (const auto* arr = value.as<ArrayObj>()) {
      for (size_t i = 0; i < arr->data.size(); ++i) {
        text += (i ? "," : "") + b.ToStr(arr->data[i], pos, "a target option value");
      }
    } else {
      b.Error(pos, "target option '" + k + "' must be a string, an integer, a boolean or a list of strings");
    }
    if (k == "kind") {
      kind = text;
    } else if (k == "host") {
      b.Error(pos, "give the host as T.target(..., host=...)");
    } else {
      opts += " -" + k + "=" + text;
    }
  }
  if (kind.empty()) b.Error(pos, "a target dict needs a \"kind\"");
  return kind + opts;
}

// T.target("cuda", host="llvm"): a Target (through the target layer's registered constructor).
Any TargetExpr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"target_config", "host"}, 1);
  std::string spec = TargetSpec(b, a.get("target_config"), a.pos("target_config"));
  if (a.has("host")) {
    std::string host = TargetSpec(b, a.get("host"), a.pos("host"));
    auto f = Registry::Get("target.TargetWithHost");
    if (!f) b.Error(c.node->pos, "T.target() needs the target library");
    return b.Guard(c.node->pos, [&] { return (*f)(spec, host); });
  }
  auto f = Registry::Get("target.Target");
  if (!f) b.Error(c.node->pos, "T.target() needs the target library");
  return b.Guard(c.node->pos, [&] { return (*f)(spec); });
}

// T.Let(body, where={x: value}): the expression form of let (x declared before, e.g. x = T.float32()).
Any LetExpr(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"body", "where"}, 2);
  PrimExpr body = b.ToPrimExpr(a.get("body"), a.pos("body"), "the let body");
  const auto* where = a.get("where").as<MapObj>();
  if (where == nullptr || where->data.size() != 1) {
    b.Error(a.pos("where"), "T.Let() expects where={variable: value} with one binding");
  }
  const auto& [key, value] = where->data[0];
  const auto* var = key.as<VarNode>();
  if (var == nullptr) b.Error(a.pos("where"), "the key of where= must be a variable");
  PrimExpr v = b.ToPrimExpr(value, a.pos("where"), "the bound value");
  return b.Guard(c.node->pos, [&] { return PrimExpr(Let(GetRef<Var>(var), v, body)); });
}

// T.Add(a, b), T.Div(a, b), ...: the node itself, without folding or type promotion.
template <typename Node>
Any RawBinary(TIRBuilder& b, CallArgs& c) {
  auto x = Exprs(b, c, 2);
  return b.Guard(c.node->pos, [&] { return PrimExpr(Node(x[0], x[1])); });
}

Any MetaVar(TIRBuilder& b, CallArgs& c) {
  TirArgs a(b, c, {"value"}, 1);
  return a.get("value");
}

Any NotInWith(TIRBuilder& b, CallArgs& c) {
  b.Error(c.node->pos, c.func + "() must be used in a with statement: with " + c.func + "(...):");
}

Any NotCallable(TIRBuilder& b, CallArgs& c) {
  b.Error(c.node->pos, c.func + " is a decorator and cannot be called inside a function body");
}

const std::unordered_map<std::string, Handler>& Builtins() {
  static const std::unordered_map<std::string, Handler> table = {
      {"T.Buffer", BufferDecl},
      {"T.match_buffer", MatchBuffer},
      {"T.alloc_buffer", AllocBuffer},
      {"T.allocate", AllocateDecl},
      {"T.decl_buffer", DeclBufferDecl},
      {"T.func_attr", FuncAttr},
      {"T.block_attr", BlockAttr},
      {"T.reads", ReadsWrites},
      {"T.writes", ReadsWrites},
      {"T.where", Where},
      {"T.axis.spatial", Axis<kDataPar>},
      {"T.axis.S", Axis<kDataPar>},
      {"T.axis.reduce", Axis<kCommReduce>},
      {"T.axis.R", Axis<kCommReduce>},
      {"T.axis.scan", Axis<kOrdered>},
      {"T.axis.opaque", Axis<kOpaque>},
      {"T.axis.remap", AxisRemap},
      {"T.grid", Grid},
      {"range", [](TIRBuilder& b, CallArgs& c) { return LoopRange(b, c, ForKind::kSerial); }},
      {"T.serial", [](TIRBuilder& b, CallArgs& c) { return LoopRange(b, c, ForKind::kSerial); }},
      {"T.parallel", [](TIRBuilder& b, CallArgs& c) { return LoopRange(b, c, ForKind::kParallel); }},
      {"T.vectorized", [](TIRBuilder& b, CallArgs& c) { return LoopRange(b, c, ForKind::kVectorized); }},
      {"T.unroll", [](TIRBuilder& b, CallArgs& c) { return LoopRange(b, c, ForKind::kUnrolled); }},
      {"T.thread_binding", [](TIRBuilder& b, CallArgs& c) { return LoopRange(b, c, ForKind::kThreadBinding); }},
      {"T.var", VarDecl},
      {"T.handle", HandleDecl},
      {"T.max", Binary<tir::max>},
      {"T.min", Binary<tir::min>},
      {"T.truncdiv", Binary<tir::truncdiv>},
      {"T.truncmod", Binary<tir::truncmod>},
      {"T.floordiv", Binary<tir::floordiv>},
      {"T.floormod", Binary<tir::floormod>},
      {"T.pow", Binary<tir::pow>},
      {"T.abs", Abs},
      {"T.Select", SelectExpr},
      {"T.if_then_else", IfThenElseExpr},
      {"T.Cast", CastNodeExpr},
      {"T.cast", CastExpr},
      {"T.call_extern", CallExtern},
      {"T.call_pure_extern", CallExtern},
      {"T.call_packed", CallExtern},
      {"T.evaluate", EvaluateStmt},
      {"T.max_value", ExtremeValue},
      {"T.min_value", ExtremeValue},
      {"T.Ramp", RampExpr},
      {"T.Broadcast", BroadcastExpr},
      {"T.likely", Likely},
      {"T.ramp", RampExpr},
      {"T.broadcast", BroadcastExpr},
      {"T.ceildiv", CeilDiv},
      {"T.comm_reducer", CommReducerExpr},
      {"T.attr", AttrScope},
      {"T.env_thread", EnvThread},
      {"T.launch_thread", LaunchThread},
      {"T.LetStmt", LetStmtScope},
      {"T.target", TargetExpr},
      {"T.Let", LetExpr},
      {"T.Add", RawBinary<Add>},
      {"T.Sub", RawBinary<Sub>},
      {"T.Mul", RawBinary<Mul>},
      {"T.Div", RawBinary<Div>},
      {"T.Mod", RawBinary<Mod>},
      {"T.FloorDiv", RawBinary<FloorDiv>},
      {"T.FloorMod", RawBinary<FloorMod>},
      {"T.Min", RawBinary<Min>},
      {"T.Max", RawBinary<Max>},
      {"T.meta_var", MetaVar},
      {"T.block", NotInWith},
      {"T.init", NotInWith},
      {"T.prim_func", NotCallable},
  };
  return table;
}

bool IsBoolResultMath(const std::string& name) { return name == "isnan" || name == "isinf" || name == "isfinite"; }

// The builtins of the table that, like TVM's operator functions, take a dtype= keyword.
bool AcceptsDtypeKeyword(const std::string& func) {
  static const std::unordered_set<std::string> names = {
      "T.max", "T.min", "T.truncdiv", "T.truncmod", "T.floordiv", "T.floormod", "T.pow", "T.abs",
      "T.if_then_else", "T.likely", "T.ceildiv"};
  return names.count(func) > 0;
}

// Removes dtype= from a call's keywords; returns the dtype and its position.
std::optional<std::pair<DataType, Pos>> TakeDtypeKeyword(TIRBuilder& b, CallArgs& c) {
  for (size_t k = 0; k < c.kwargs.size(); ++k) {
    if (c.kwargs[k].first != "dtype") continue;
    Pos pos = c.kwarg_pos[k];
    DataType t = b.ToCallDType(c.kwargs[k].second, pos);
    c.kwargs.erase(c.kwargs.begin() + static_cast<std::ptrdiff_t>(k));
    c.kwarg_pos.erase(c.kwarg_pos.begin() + static_cast<std::ptrdiff_t>(k));
    return std::make_pair(t, pos);
  }
  return std::nullopt;
}

// dtype= on an operator whose result dtype follows from its operands: it must agree.
void CheckDeclaredDtype(TIRBuilder& b, const CallArgs& c, const Any& result, DataType declared, const Pos& pos) {
  const auto* e = result.as<PrimExprNode>();
  if (e == nullptr || e->dtype == declared) return;
  b.Error(pos, c.func + "(): dtype=\"" + declared.str() + "\" does not match the dtype of the result, " + e->dtype.str() +
                   " (cast the operands instead)");
}

bool IsDtypeFirst(const Op& op) {
  const std::string& n = op->name;
  return op.GetAttr("TScriptDtypeFirst").has_value() || n == "tir.call_llvm_intrin" ||
         n == "tir.call_llvm_pure_intrin" || n == "tir.reinterpret";
}

}  // namespace

bool TIRBuilder::IsKnownName(const std::string& path) {
  if (path == "T" || path == "range") return true;
  if (path.rfind("T.", 0) != 0) return true;  // other namespaces are checked by their dialect
  for (const auto& [key, handler] : Builtins()) {
    if (key == path || key.rfind(path + ".", 0) == 0) return true;  // a builtin or a namespace of them (T.axis)
  }
  std::string name = path.substr(2);
  if (name.find('.') != std::string::npos) return false;
  if (name == "handle" || name == "Ptr" || name == "void" || name == "type_annotation") return true;
  if (Op::Exists("tir." + name)) return true;
  try {
    DataType t(name);
    return true;
  } catch (const ::tessera::Error&) {
    return false;
  }
}

Any TIRBuilder::CallBuiltin(CallArgs& call) {
  const auto& table = Builtins();
  auto it = table.find(call.func);
  if (it != table.end()) {
    // TVM accepts (and drops) dtype= on its operator functions; here it must
    // name the dtype the call has.
    std::optional<std::pair<DataType, Pos>> declared;
    if (AcceptsDtypeKeyword(call.func)) declared = TakeDtypeKeyword(*this, call);
    Any result = it->second(*this, call);
    if (declared) CheckDeclaredDtype(*this, call, result, declared->first, declared->second);
    return result;
  }
  const Pos& callee_pos = call.node->kind == ast::ExprKind::kCall ? call.node->a->pos : call.node->pos;
  if (call.func.rfind("T.", 0) == 0) {
    std::string name = call.func.substr(2);
    // Scalar types: T.float32(0), T.int64(), T.bool(True), T.float32x4(...).
    if (name.find('.') == std::string::npos && !name.empty() && std::islower(static_cast<unsigned char>(name[0]))) {
      std::optional<DataType> dtype;
      try {
        DataType t(name);
        if (!t.is_void() && !t.is_handle()) dtype = t;
      } catch (const ::tessera::Error&) {
      }
      if (dtype) return ScalarOfType(*this, call, *dtype);
    }
    // T.type_annotation("float32") / T.type_annotation(dtype="float32"): a value standing for its dtype.
    if (name == "type_annotation") {
      TirArgs a(*this, call, {"dtype"}, 1);
      DataType t = ToDType(a.get("dtype"), a.pos("dtype"));
      return PrimExpr(Call(t, Op::Get("tir.type_annotation"), {}));
    }
    // Any other registered intrinsic "tir.<name>". As in TVM, a Python
    // string argument becomes a StringImm (T.tvm_storage_sync("shared")).
    // The result dtype: given first for the ops marked TScriptDtypeFirst
    // (T.reinterpret("float32", x), or dtype=...), fixed for those marked
    // TScriptResultDtype, otherwise inferred from the operands.
    if (name.find('.') == std::string::npos && Op::Exists("tir." + name)) {
      Op op = Op::Get("tir." + name);
      std::optional<std::pair<DataType, Pos>> declared = TakeDtypeKeyword(*this, call);
      if (!call.kwargs.empty()) {
        Error(call.kwarg_pos[0], call.func + "() got an unexpected keyword argument '" + call.kwargs[0].first + "'");
      }
      bool dtype_first = IsDtypeFirst(op);
      size_t first = dtype_first && !declared ? 1 : 0;
      if (dtype_first && !declared && call.args.empty()) {
        Error(call.node->pos, call.func + "() needs the result dtype first (or dtype=...)");
      }
      size_t given = call.args.size() - first;
      if (op->num_inputs >= 0 && static_cast<int>(given) != op->num_inputs) {
        Error(call.node->pos, call.func + "() takes " + std::to_string(op->num_inputs + first) + " argument" +
                                  (op->num_inputs + first == 1 ? "" : "s") + " but " + std::to_string(call.args.size()) +
                                  (call.args.size() == 1 ? " was" : " were") + " given");
      }
      std::optional<DataType> result_dtype;
      if (dtype_first) result_dtype = declared ? declared->first : ToCallDType(call.args[0], call.arg_pos[0]);
      std::optional<DataType> fixed;
      if (auto attr = op.GetAttr("TScriptResultDtype")) {
        const auto* s = attr->as<StringObj>();
        if (s != nullptr) fixed = s->data == "void" ? DataType::Void() : DataType(s->data);
      }
      std::vector<PrimExpr> args;
      for (size_t i = first; i < call.args.size(); ++i) {
        if (const auto* s = call.args[i].as<StringObj>()) {
          args.push_back(StringImm(s->data));
        } else {
          args.push_back(ToPrimExpr(call.args[i], call.arg_pos[i]));
        }
      }
      PrimExpr result = Guard(call.node->pos, [&]() -> PrimExpr {
        if (result_dtype) return CallIntrin(*result_dtype, "tir." + name, Array<PrimExpr>(args));
        if (fixed) return CallIntrin(*fixed, "tir." + name, Array<PrimExpr>(args));
        if (args.size() == 1 && op.GetAttr("TCallEffectKind") && !args[0].as<StringImmNode>()) {
          PrimExpr r = UnaryMath(name, args[0]);
          if (IsBoolResultMath(name)) return Call(DataType::Bool(args[0].dtype().lanes()), op, {r.as<CallNode>()->args[0]});
          return r;
        }
        if (auto from = op.GetAttr("TScriptResultArg")) {
          int64_t i = from->cast<int64_t>();
          if (i >= 0 && static_cast<size_t>(i) < args.size()) return CallIntrin(args[i].dtype(), "tir." + name, Array<PrimExpr>(args));
        }
        // The result dtypes TVM gives these intrinsics; otherwise the first
        // operand's dtype (int32 when it is a string or there is none).
        DataType t = args.empty() || args[0].as<StringImmNode>() ? DataType::Int(32) : args[0].dtype();
        if (name == "tvm_access_ptr" || name == "address_of" || name == "tvm_thread_allreduce") t = DataType::Handle();
        if (name == "tvm_storage_sync") t = DataType::Int(32);
        return CallIntrin(t, "tir." + name, Array<PrimExpr>(args));
      });
      if (declared && !dtype_first) CheckDeclaredDtype(*this, call, result, declared->first, declared->second);
      return result;
    }
  }
  if (call.func == "R" || call.func.rfind("R.", 0) == 0) {
    Error(callee_pos, "Relax (" + call.func + ") cannot be used inside a T.prim_func");
  }
  Error(callee_pos, "unknown TVMScript function '" + call.func + "'");
}

Any TIRBuilder::CallMethod(const BoundMethodObj* m, CallArgs& call) {
  Buffer buffer = m->self.cast<Buffer>();
  call.func = buffer->name + "." + m->name;
  if (m->name == "scope") {
    TirArgs a(*this, call, {}, 0);
    return String(buffer->scope);
  }
  // access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)
  TirArgs a(*this, call, {"access_mask", "ptr_type", "content_lanes", "offset", "extent"}, 1);
  int64_t mask = 0;
  const Any& m_arg = a.get("access_mask");
  if (const auto* s = m_arg.as<StringObj>()) {
    for (char ch : s->data) {
      if (ch == 'r') {
        mask |= 1;
      } else if (ch == 'w') {
        mask |= 2;
      } else {
        Error(a.pos("access_mask"), "the access mask is made of 'r' and 'w'");
      }
    }
  } else {
    mask = ToInt(m_arg, a.pos("access_mask"), "the access mask");
  }
  if (a.has("ptr_type") && ToStr(a.get("ptr_type"), a.pos("ptr_type"), "the pointer type") != "handle") {
    Error(a.pos("ptr_type"), "only ptr_type=\"handle\" is supported");
  }
  return Guard(call.node->pos, [&]() -> PrimExpr {
    PrimExpr offset = a.has("offset") ? ToPrimExpr(a.get("offset"), a.pos("offset")) : PrimExpr(0);
    PrimExpr extent;
    if (a.has("extent")) {
      extent = ToPrimExpr(a.get("extent"), a.pos("extent"));
    } else if (buffer->shape.empty()) {
      extent = IntImm(DataType::Int(32), 1);
    } else if (!buffer->strides.empty()) {
      extent = mul(buffer->strides[0], buffer->shape[0]);
    } else {
      extent = buffer->shape[0];
      for (size_t i = 1; i < buffer->shape.size(); ++i) extent = mul(extent, buffer->shape[i]);
    }
    extent = sub(extent, offset);
    PrimExpr elem_offset = add(buffer->elem_offset, offset);
    PrimExpr type_annotation = Call(buffer->dtype, Op::Get("tir.type_annotation"), {});
    return CallIntrin(DataType::Handle(), "tir.tvm_access_ptr",
                      {type_annotation, buffer->data, elem_offset, extent, IntImm(DataType::Int(32), mask)});
  });
}

}  // namespace script
}  // namespace tessera
