// tvm.ir.VDevice: a virtual device (a target, an id among devices of that
// target, a memory scope) as a module's global_infos list them. Here an IR
// object with reflection (structural equality, printing, JSON) and the
// ir.VDevice constructor; relax TensorStructInfo carries one. IR layer.
#include "ir/global_info.h"

#include "runtime/error.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "target/target.h"

namespace tessera {

std::string VDeviceText(const VDevice& vdevice) {
  if (!vdevice.defined()) return "None";
  const auto* t = vdevice->target.as<TargetNode>();
  return (t ? t->kind : std::string("none")) + ":" + std::to_string(vdevice->vdevice_id) + ":" +
         vdevice->memory_scope;
}

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
