// The packed calling convention of a PrimFunc and the pass recording it on the
// function (see make_packed_api.h).
#include "tir/transform/make_packed_api.h"

#include "runtime/registry.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {

namespace {

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
          refuse("the shape of parameter " + buf->name + " uses an expression; bind each dimension to a variable");
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
