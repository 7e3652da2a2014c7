// TensorIntrin registry (see tensor_intrin.h).
#include "tir/tensor_intrin.h"

#include <mutex>
#include <unordered_map>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace {

struct IntrinTable {
  std::mutex mu;
  std::unordered_map<std::string, TensorIntrin> intrins;
  static IntrinTable* Global() {
    static IntrinTable* t = new IntrinTable();
    return t;
  }
};

}  // namespace

TensorIntrin::TensorIntrin(PrimFunc desc, PrimFunc impl) {
  TESSERA_CHECK_OR_THROW(desc.defined() && impl.defined(), ValueError) << "TensorIntrin needs desc and impl functions";
  TESSERA_CHECK_OR_THROW(desc->buffer_map.size() == impl->buffer_map.size(), ValueError)
      << "TensorIntrin: desc binds " << desc->buffer_map.size() << " buffers but impl binds " << impl->buffer_map.size();
  auto n = make_object<TensorIntrinNode>();
  n->desc = std::move(desc);
  n->impl = std::move(impl);
  data_ = std::move(n);
}

void TensorIntrin::Register(const std::string& name, const TensorIntrin& intrin, bool override) {
  IntrinTable* t = IntrinTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  if (t->intrins.count(name) && !override) {
    TESSERA_THROW(ValueError) << "tensor intrinsic '" << name << "' is already registered (pass override=True)";
  }
  t->intrins[name] = intrin;
}

TensorIntrin TensorIntrin::Get(const std::string& name) {
  IntrinTable* t = IntrinTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->intrins.find(name);
  if (it == t->intrins.end()) TESSERA_THROW(ValueError) << "tensor intrinsic '" << name << "' is not registered";
  return it->second;
}

TESSERA_REGISTER_OBJECT_TYPE(TensorIntrinNode);
TESSERA_REGISTER_NODE(TensorIntrinNode).field("desc", &TensorIntrinNode::desc).field("impl", &TensorIntrinNode::impl);
TESSERA_REGISTER_GLOBAL("tir.TensorIntrin").set_body_typed([](PrimFunc d, PrimFunc i) { return TensorIntrin(d, i); });
TESSERA_REGISTER_GLOBAL("tir.TensorIntrinRegister").set_body_typed([](std::string name, TensorIntrin t, bool o) {
  TensorIntrin::Register(name, t, o);
});
TESSERA_REGISTER_GLOBAL("tir.TensorIntrinGet").set_body_typed([](std::string name) { return TensorIntrin::Get(name); });

}  // namespace tir
}  // namespace tessera
