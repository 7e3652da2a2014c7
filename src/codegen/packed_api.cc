// The packed calling convention of a PrimFunc (see packed_api.h).
#include "codegen/packed_api.h"

#include "runtime/registry.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

PackedAPI MakePackedAPI(const std::string& name, const PrimFunc& func) {
  auto refuse = [&](const std::string& what) {
    TESSERA_THROW(NotImplementedError) << "cannot compile function " << name << ": " << what;
  };
  PackedAPI api;
  api.info.name = name;
  for (Var p : func->params) {
    ParamInfo pi;
    if (auto b = func->buffer_map.Get(p)) {
      Buffer buf = *b;
      pi.name = buf->name;
      pi.is_buffer = true;
      pi.dtype = buf->dtype;
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

// The FunctionInfo as JSON (what export_library embeds), for inspection.
TESSERA_REGISTER_GLOBAL("codegen.MakePackedAPIInfo").set_body_typed([](std::string name, PrimFunc func) {
  return MakePackedAPI(name, func).info.ToJSON();
});

}  // namespace codegen
}  // namespace tessera
