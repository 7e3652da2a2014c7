// tvm.ir.VDevice: a virtual device (a target, an id among devices of that
// target, a memory scope) as a module's global_infos list them. Here an IR
// object with reflection (structural equality, printing, JSON) and the
// ir.VDevice constructor; TensorStructInfo does not carry one yet (refused in
// python/tessera/relax/struct_info.py). IR layer.
#include "runtime/error.h"
#include "runtime/object.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {

class VDeviceNode : public Object {
 public:
  ObjectRef target;  // a Target, or undefined
  int vdevice_id = 0;
  std::string memory_scope = "global";
  TESSERA_DECLARE_FINAL_OBJECT_INFO(VDeviceNode, Object, "VDevice");
};

TESSERA_REGISTER_OBJECT_TYPE(VDeviceNode);
TESSERA_REGISTER_NODE(VDeviceNode)
    .field("target", &VDeviceNode::target)
    .field("vdevice_id", &VDeviceNode::vdevice_id)
    .field("memory_scope", &VDeviceNode::memory_scope);

TESSERA_REGISTER_GLOBAL("ir.VDevice").set_body_typed([](std::optional<ObjectRef> target, int vdevice_id,
                                                        std::string memory_scope) {
  TESSERA_CHECK_OR_THROW(vdevice_id >= 0, ValueError) << "VDevice: vdevice_id must be >= 0, got " << vdevice_id;
  auto n = make_object<VDeviceNode>();
  n->target = target.value_or(ObjectRef());
  n->vdevice_id = vdevice_id;
  n->memory_scope = std::move(memory_scope);
  return ObjectRef(n);
});

}  // namespace tessera
