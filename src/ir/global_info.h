// tvm.ir.VDevice: a virtual device (a target, an id among devices of that
// target, a memory scope), as a module's global_infos list them and as a
// relax TensorStructInfo carries it (src/relax/struct_info.h). IR layer;
// defined in global_info.cc.
#pragma once

#include <string>

#include "runtime/object.h"

namespace tessera {

class VDeviceNode : public Object {
 public:
  ObjectRef target;  // a Target, or undefined
  int vdevice_id = 0;
  std::string memory_scope = "global";
  TESSERA_DECLARE_FINAL_OBJECT_INFO(VDeviceNode, Object, "VDevice");
};

class VDevice : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(VDevice, ObjectRef, VDeviceNode);
};

// "cuda:0:global" (the target's kind, or "none" without a target), for messages.
std::string VDeviceText(const VDevice& vdevice);

}  // namespace tessera
