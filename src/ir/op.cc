// Op registry and per-op attribute columns (see op.h): ops and attribute
// names are registered under a lock; OpAttrColumn slots are read without one.
#include "ir/op.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace {

struct OpTable {
  std::mutex mu;
  std::unordered_map<std::string, OpRegEntry*> entries;
  int32_t num_ops = 0;
  // attr name -> its column (never freed: OpAttrMaps point into it)
  std::unordered_map<std::string, OpAttrColumn*> attrs;
  OpAttrColumn* Column(const std::string& attr) {  // under mu
    auto it = attrs.find(attr);
    if (it != attrs.end()) return it->second;
    return attrs.emplace(attr, new OpAttrColumn(attr)).first->second;
  }
  static OpTable* Global() {
    static OpTable* t = new OpTable();
    return t;
  }
};

}  // namespace

OpRegEntry& OpRegEntry::RegisterOrGet(const std::string& name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->entries.find(name);
  if (it != t->entries.end()) return *it->second;
  TESSERA_ICHECK(t->num_ops < OpAttrColumn::kMaxOps) << "too many operators";
  auto n = make_object<OpNode>();
  n->name = name;
  n->registry_index = t->num_ops++;
  auto* entry = new OpRegEntry(Op(ObjectPtr<Object>(std::move(n))));
  t->entries.emplace(name, entry);
  return *entry;
}

OpRegEntry& OpRegEntry::describe(const std::string& d) {
  const_cast<OpNode*>(op_.get())->description = d;
  return *this;
}

OpRegEntry& OpRegEntry::set_num_inputs(int n) {
  const_cast<OpNode*>(op_.get())->num_inputs = n;
  return *this;
}

namespace {
// The plevel that set_attr reads as "remove the value" (TVM's Op.reset_attr, ir.OpResetAttr below):
// the slot reads as unset and any plevel may set it again. The old value stays in the slot until
// then, so a reader holding it is not left dangling.
constexpr int kResetPlevel = std::numeric_limits<int>::min();
}  // namespace

void OpAttrColumn::Set(int32_t index, Any value, int plevel) {
  TESSERA_ICHECK(index >= 0 && index < kMaxOps) << "op index " << index << " out of range";
  Slot& s = slots_[index];
  if (plevel == kResetPlevel) {
    s.plevel = 0;
    s.set.store(false, std::memory_order_release);
    return;
  }
  if (s.set.load(std::memory_order_relaxed) && s.plevel > plevel) return;
  s.value = std::move(value);
  s.plevel = plevel;
  s.set.store(true, std::memory_order_release);
}

OpRegEntry& OpRegEntry::set_attr(const std::string& attr, Any value, int plevel) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  t->Column(attr)->Set(op_->registry_index, std::move(value), plevel);
  return *this;
}

Op Op::Get(const std::string& name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->entries.find(name);
  if (it == t->entries.end()) TESSERA_THROW(ValueError) << "operator '" << name << "' is not registered";
  return it->second->op();
}

bool Op::Exists(const std::string& name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  return t->entries.count(name) > 0;
}

std::vector<std::string> Op::ListNames() {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  std::vector<std::string> names;
  for (const auto& kv : t->entries) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

const OpAttrColumn* Op::GetAttrColumn(const std::string& attr_name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  return t->Column(attr_name);
}

bool Op::HasAttrMap(const std::string& attr_name) {
  OpTable* t = OpTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->attrs.find(attr_name);
  if (it == t->attrs.end()) return false;
  for (int32_t i = 0; i < t->num_ops; ++i) {
    if (it->second->Get(i) != nullptr) return true;
  }
  return false;
}

std::optional<Any> Op::GetAttr(const std::string& attr) const {
  const OpAttrColumn* column;
  {
    OpTable* t = OpTable::Global();
    std::lock_guard<std::mutex> lock(t->mu);
    auto it = t->attrs.find(attr);
    if (it == t->attrs.end()) return std::nullopt;
    column = it->second;
  }
  const Any* v = column->Get(get()->registry_index);
  if (v == nullptr) return std::nullopt;
  return *v;
}

TESSERA_REGISTER_OBJECT_TYPE(OpNode);
// Ops are registered singletons; their name identifies them.
TESSERA_REGISTER_NODE(OpNode)
    .field("name", &OpNode::name)
    .ignore("description", &OpNode::description)
    .ignore("num_inputs", &OpNode::num_inputs)
    .on_load([](const ObjectRef& loaded) -> ObjectRef { return Op::Get(static_cast<const OpNode*>(loaded.get())->name); });
TESSERA_REGISTER_GLOBAL("ir.GetOp").set_body_typed([](std::string name) { return Op::Get(name); });
TESSERA_REGISTER_GLOBAL("ir.ListOpNames").set_body_typed([]() {
  std::vector<std::string> names = Op::ListNames();
  return Array<String>(names.begin(), names.end());
});
TESSERA_REGISTER_GLOBAL("ir.OpHasAttrMap").set_body_typed([](std::string attr) { return Op::HasAttrMap(attr); });
// Sets attribute `attr` of op `name` (registering the op if new), as TVM's ir.RegisterOpAttr;
// used by Python registrations such as a Relax op's "FLegalize".
TESSERA_REGISTER_GLOBAL("ir.RegisterOpAttr")
    .set_body_typed([](std::string name, std::string attr, Any value, int plevel) {
      OpRegEntry::RegisterOrGet(name).set_attr(attr, std::move(value), plevel);
    });
// Removes attribute `attr` of `op`, so that it can be registered anew at any level (TVM's Op.reset_attr).
TESSERA_REGISTER_GLOBAL("ir.OpResetAttr").set_body_typed([](Op op, std::string attr) {
  OpRegEntry::RegisterOrGet(op->name).set_attr(attr, Any(), kResetPlevel);
});
TESSERA_REGISTER_GLOBAL("ir.OpGetAttr").set_body_typed([](Op op, std::string attr) -> Any {
  auto v = op.GetAttr(attr);
  return v ? *v : Any();
});

}  // namespace tessera
