// The packed calling convention of a PrimFunc and the pass recording it on the
// function (see make_packed_api.h).
#include "tir/transform/make_packed_api.h"

#include "runtime/registry.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {

namespace {

// The slot index of size variable `v` (-1: not a slot).
int SlotOf(const std::vector<Var>& slots, const VarNode* v) {
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].get() == v) return static_cast<int>(i);
  return -1;
}

// Compiles a shape expression into ShapeCheck's postfix program over the slots
// (appending to `code`, writing its text to `text`); returns the first variable
// that is not a slot, or the unsupported node's type, as an error (empty: ok).
std::string CompileShapeExpr(const PrimExpr& e, const std::vector<Var>& slots, const Array<Var>& params,
                             std::vector<int64_t>* code, std::string* text) {
  if (const int64_t* c = AsConstInt(e)) {
    code->insert(code->end(), {kConst, *c});
    *text += std::to_string(*c);
    return "";
  }
  if (const auto* v = e.as<VarNode>()) {
    int k = SlotOf(slots, v);
    if (k >= 0) {
      code->insert(code->end(), {kVar, k});
    } else {
      for (size_t i = 0; i < params.size() && k < 0; ++i)
        if (params[i].get() == v && (v->dtype.is_int() || v->dtype.is_uint())) k = static_cast<int>(i);
      if (k < 0) {
        return "its variable " + v->name_hint + " is neither the extent of a parameter's dimension nor an integer "
               "parameter";
      }
      code->insert(code->end(), {kParam, k});
    }
    *text += v->name_hint;
    return "";
  }
  if (const auto* cast = e.as<CastNode>()) {
    if (!cast->dtype.is_int() && !cast->dtype.is_uint()) return "it casts to " + cast->dtype.str();
    return CompileShapeExpr(cast->value, slots, params, code, text);
  }
  const auto* bin = e.as<BinaryOpNode>();
  int64_t op = -1;
  const char* spelling = "";
  if (e.as<AddNode>()) op = kAdd, spelling = " + ";
  if (e.as<SubNode>()) op = kSub, spelling = " - ";
  if (e.as<MulNode>()) op = kMul, spelling = " * ";
  if (e.as<FloorDivNode>()) op = kFloorDiv, spelling = " // ";
  if (e.as<FloorModNode>()) op = kFloorMod, spelling = " % ";
  if (e.as<MinNode>()) op = kMin, spelling = "min";
  if (e.as<MaxNode>()) op = kMax, spelling = "max";
  if (bin == nullptr || op < 0) return std::string("it uses a ") + e->GetTypeKey();
  const bool call_form = op == kMin || op == kMax;
  *text += call_form ? std::string(spelling) + "(" : "(";
  std::string err = CompileShapeExpr(bin->a, slots, params, code, text);
  if (!err.empty()) return err;
  *text += call_form ? ", " : spelling;
  err = CompileShapeExpr(bin->b, slots, params, code, text);
  if (!err.empty()) return err;
  *text += ")";
  code->push_back(op);
  return "";
}

// The name of the slot holding the extent of a dimension that is an expression.
std::string CheckSlotName(const std::string& buffer, size_t dim) {
  return buffer + ".shape[" + std::to_string(dim) + "]";
}

// Shared by ComputePackedAPI (given == nullptr: shape variables become slots
// in order of first use) and GetPackedAPI (given: the recorded slots, each
// shape variable must be one of them).
PackedAPI BuildPackedAPI(const std::string& name, const PrimFunc& func, const std::vector<Var>* given) {
  auto refuse = [&](const std::string& what) {
    TESSERA_THROW(NotImplementedError) << "cannot compile function " << name << ": " << what;
  };
  PackedAPI api;
  api.info.name = name;
  if (given != nullptr) {
    api.sym_vars = *given;
    for (const Var& v : api.sym_vars) api.info.sym_vars.push_back(v->name_hint);
  }
  struct Pending {
    int param;
    int dim;
    PrimExpr expr;
    std::string buffer;
  };
  std::vector<Pending> pending;  // dimensions that are expressions: checked once every variable has a slot
  for (Var p : func->params) {
    ParamInfo pi;
    if (auto b = func->buffer_map.Get(p)) {
      Buffer buf = *b;
      pi.name = buf->name;
      pi.is_buffer = true;
      pi.dtype = buf->dtype;
      // The data alignment the kernel may assume (checked, or staged, at the call).
      // (A declared alignment that is not a power of two tells nothing.)
      const int64_t align = buf->data_alignment;
      pi.alignment = align > 1 && (align & (align - 1)) == 0 ? align : 0;
      if (!buf->strides.empty()) refuse("parameter buffer " + buf->name + " has explicit strides");
      if (!IsConstInt(buf->elem_offset, 0)) refuse("parameter buffer " + buf->name + " has an element offset");
      for (PrimExpr dim : buf->shape) {
        ShapeDim sd;
        if (const int64_t* c = AsConstInt(dim)) {
          sd.value = *c;
        } else if (const auto* v = dim.as<VarNode>()) {
          int k = -1;
          for (size_t i = 0; i < api.sym_vars.size(); ++i)
            if (api.sym_vars[i].get() == v) k = static_cast<int>(i);
          if (k < 0 && given != nullptr) {
            TESSERA_THROW(ValueError) << "function " << name << ": shape variable " << v->name_hint
                                      << " of parameter " << buf->name << " is not in its \"" << kAttrPackedArgs
                                      << "\" attribute; rerun tir.transform.MakePackedAPI";
          }
          if (k < 0) {
            k = static_cast<int>(api.sym_vars.size());
            api.sym_vars.push_back(GetRef<Var>(v));
            api.info.sym_vars.push_back(v->name_hint);
          }
          sd.sym = k;
        } else {
          // Bound to a slot of its own, checked against the expression after binding.
          const std::string slot_name = CheckSlotName(buf->name, pi.shape.size());
          int k = -1;
          for (size_t i = 0; i < api.sym_vars.size(); ++i)
            if (api.sym_vars[i]->name_hint == slot_name) k = static_cast<int>(i);
          if (k < 0 && given != nullptr) {
            TESSERA_THROW(ValueError) << "function " << name << ": the slot " << slot_name << " of parameter "
                                      << buf->name << " is not in its \"" << kAttrPackedArgs
                                      << "\" attribute; rerun tir.transform.MakePackedAPI";
          }
          if (k < 0) {
            k = static_cast<int>(api.sym_vars.size());
            api.sym_vars.push_back(Var(slot_name, dim.dtype()));
            api.info.sym_vars.push_back(slot_name);
          }
          sd.sym = k;
          pending.push_back({static_cast<int>(api.info.params.size()), static_cast<int>(pi.shape.size()), dim,
                             buf->name});
        }
        pi.shape.push_back(sd);
      }
      api.buffers.push_back(buf);
    } else {
      pi.name = p->name_hint;
      pi.is_buffer = false;
      pi.dtype = p.dtype();
      if (p.dtype().is_handle()) refuse("handle parameter " + p->name_hint + " has no buffer in buffer_map");
      api.buffers.push_back(Buffer());
    }
    api.info.params.push_back(pi);
  }
  for (const Pending& d : pending) {
    ShapeCheck check;
    check.param = d.param;
    check.dim = d.dim;
    check.sym = api.info.params[static_cast<size_t>(d.param)].shape[static_cast<size_t>(d.dim)].sym;
    const std::string err = CompileShapeExpr(d.expr, api.sym_vars, func->params, &check.code, &check.text);
    if (!err.empty()) {
      refuse("dimension " + std::to_string(d.dim) + " of parameter " + d.buffer + " is an expression that cannot be "
             "checked at the call (" + err + ")");
    }
    api.info.checks.push_back(std::move(check));
  }
  return api;
}

}  // namespace

PackedAPI ComputePackedAPI(const std::string& name, const PrimFunc& func) {
  return BuildPackedAPI(name, func, nullptr);
}

PackedAPI GetPackedAPI(const std::string& name, const PrimFunc& func) {
  auto attr = func.GetAttr(kAttrPackedArgs);
  TESSERA_CHECK_OR_THROW(attr.has_value(), ValueError)
      << "function " << name << " has no \"" << kAttrPackedArgs
      << "\" attribute: run tir.transform.MakePackedAPI (the last pass of tir.default_pipeline) before code generation";
  auto slots = attr->try_cast<Array<Var>>();
  TESSERA_CHECK_OR_THROW(slots.has_value(), TypeError)
      << "function " << name << ": the \"" << kAttrPackedArgs << "\" attribute must be an array of variables";
  size_t np = func->params.size();
  TESSERA_CHECK_OR_THROW(slots->size() >= np, ValueError)
      << "function " << name << ": its \"" << kAttrPackedArgs << "\" attribute has " << slots->size()
      << " slots but the function has " << np << " parameters; rerun tir.transform.MakePackedAPI";
  for (size_t i = 0; i < np; ++i) {
    TESSERA_CHECK_OR_THROW((*slots)[i].same_as(func->params[i]), ValueError)
        << "function " << name << ": slot " << i << " of its \"" << kAttrPackedArgs << "\" attribute is not parameter "
        << func->params[i]->name_hint << "; rerun tir.transform.MakePackedAPI";
  }
  std::vector<Var> sym;
  for (size_t i = np; i < slots->size(); ++i) sym.push_back((*slots)[i]);
  PackedAPI api = BuildPackedAPI(name, func, &sym);
  // A host function launching device kernels (SplitHostDevice) takes arrays on that device.
  // Its host code never dereferences them, so it assumes no alignment (nothing is staged, kernel_abi.cc).
  if (auto dev = func.GetAttr("tessera.device_type")) {
    api.info.device_type = static_cast<int>(dev->cast<int64_t>());
    if (api.info.device_type != kDLCPU) {
      for (ParamInfo& p : api.info.params) p.alignment = 0;
    }
  }
  return api;
}

namespace transform {

tessera::transform::Pass MakePackedAPI() {
  auto fpass = [](PrimFunc f, IRModule mod, PassContext) {
    // The entry's name: the global_symbol, else the function's name in the module.
    std::string name;
    for (const GlobalVar& gv : mod->GetGlobalVars())
      if (mod->Lookup(gv).same_as(f)) name = gv->name_hint;
    if (auto sym = f.GetAttr("global_symbol")) name = sym->try_cast<std::string>().value_or(name);
    PackedAPI api = ComputePackedAPI(name, f);
    Array<Var> slots;
    for (const Var& p : f->params) slots.push_back(p);
    for (const Var& v : api.sym_vars) slots.push_back(v);
    f = WithAttr(f, kAttrCallingConv, kCallingConvPacked);
    return WithAttr(f, kAttrPackedArgs, slots);
  };
  return CreatePrimFuncPass(fpass, 0, "MakePackedAPI");
}
TESSERA_REGISTER_PASS("tir.transform.MakePackedAPI", MakePackedAPI);

}  // namespace transform

// The FunctionInfo as JSON (what export_library embeds), for inspection.
TESSERA_REGISTER_GLOBAL("codegen.MakePackedAPIInfo").set_body_typed([](std::string name, PrimFunc func) {
  return ComputePackedAPI(name, func).info.ToJSON();
});

}  // namespace tir
}  // namespace tessera
