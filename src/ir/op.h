// Op: a named primitive operator (TIR intrinsics such as "tir.exp", Relax
// operators such as "relax.add"), with a registry of per-op attributes
// (struct-info inference, legalization, pure/impure...). IR layer.
// Register with TESSERA_REGISTER_OP("tir.exp").set_num_inputs(1).set_attr(...).
// Read an attribute of many ops through a typed map obtained once:
//   static const OpAttrMap<PackedFunc> finfer = Op::GetAttrMap<PackedFunc>("FInferStructInfo");
//   if (finfer.count(op)) finfer[op](call);
// Registration takes a lock; reading an OpAttrMap does not.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "ir/expr.h"

namespace tessera {

class OpNode : public RelaxExprNode {
 public:
  std::string name;
  std::string description;
  int num_inputs = -1;  // -1: variadic
  // Position in the op registry (the slot of its attributes); -1 for an
  // op not made by the registry.
  int32_t registry_index = -1;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(OpNode, RelaxExprNode, "ir.Op");
};

// The values of one attribute name for every op, indexed by
// OpNode::registry_index. Slots never move: readers need no lock.
class OpAttrColumn {
 public:
  static constexpr int32_t kMaxOps = 4096;
  explicit OpAttrColumn(std::string name) : name_(std::move(name)), slots_(new Slot[kMaxOps]) {}
  const std::string& name() const { return name_; }
  // nullptr when op has no value.
  const Any* Get(int32_t index) const {
    if (index < 0 || index >= kMaxOps) return nullptr;
    const Slot& s = slots_[index];
    return s.set.load(std::memory_order_acquire) ? &s.value : nullptr;
  }
  // Under the registry lock: sets unless a value of higher plevel is there.
  void Set(int32_t index, Any value, int plevel);

 private:
  struct Slot {
    Any value;
    int plevel = 0;
    std::atomic<bool> set{false};
  };
  std::string name_;
  std::unique_ptr<Slot[]> slots_;
};

class Op;

// Typed view of one attribute over all ops (TVM's OpAttrMap<T>).
template <typename T>
class OpAttrMap {
 public:
  explicit OpAttrMap(const OpAttrColumn* column) : column_(column) {}
  const std::string& attr_name() const { return column_->name(); }
  // Whether `op` has a value for this attribute.
  bool count(const Op& op) const;
  // The value for `op`; ValueError naming the op and attribute when it has
  // none, TypeError when the value is not a T.
  T operator[](const Op& op) const;
  // The value for `op`, or `default_value` when it has none.
  T get(const Op& op, T default_value) const;

 private:
  const Any* Lookup(const Op& op) const;
  T Convert(const Op& op, const Any& v) const;
  const OpAttrColumn* column_;
};

class Op : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Op, RelaxExpr, OpNode);
  // The registered op `name`; raises ValueError naming it when unknown.
  static Op Get(const std::string& name);
  static bool Exists(const std::string& name);
  static std::vector<std::string> ListNames();
  // Attribute `attr` of this op, or nullopt.
  std::optional<Any> GetAttr(const std::string& attr) const;
  // The typed map of attribute `attr_name` over all ops (created empty when
  // no op has it yet; later registrations show through it).
  template <typename T>
  static OpAttrMap<T> GetAttrMap(const std::string& attr_name) {
    return OpAttrMap<T>(GetAttrColumn(attr_name));
  }
  // Whether any op has registered attribute `attr_name`.
  static bool HasAttrMap(const std::string& attr_name);

 private:
  static const OpAttrColumn* GetAttrColumn(const std::string& attr_name);
};

template <typename T>
const Any* OpAttrMap<T>::Lookup(const Op& op) const {
  TESSERA_CHECK_OR_THROW(op.defined(), ValueError) << "OpAttrMap['" << attr_name() << "'] of an undefined op";
  return column_->Get(op->registry_index);
}
template <typename T>
T OpAttrMap<T>::Convert(const Op& op, const Any& v) const {
  if (!AnyConverter<T>::Check(v)) {
    TESSERA_THROW(TypeError) << "attribute '" << attr_name() << "' of operator '" << op->name << "' is a "
                             << v.type_name() << ", not the type asked for";
  }
  return v.cast<T>();
}
template <typename T>
bool OpAttrMap<T>::count(const Op& op) const {
  return Lookup(op) != nullptr;
}
template <typename T>
T OpAttrMap<T>::operator[](const Op& op) const {
  const Any* v = Lookup(op);
  TESSERA_CHECK_OR_THROW(v != nullptr, ValueError)
      << "operator '" << op->name << "' has no attribute '" << attr_name() << "'";
  return Convert(op, *v);
}
template <typename T>
T OpAttrMap<T>::get(const Op& op, T default_value) const {
  const Any* v = Lookup(op);
  return v != nullptr ? Convert(op, *v) : default_value;
}

// Builder returned by TESSERA_REGISTER_OP.
class OpRegEntry {
 public:
  static OpRegEntry& RegisterOrGet(const std::string& name);
  OpRegEntry& describe(const std::string& d);
  OpRegEntry& set_num_inputs(int n);
  OpRegEntry& set_attr(const std::string& attr, Any value, int plevel = 10);
  const Op& op() const { return op_; }

 private:
  explicit OpRegEntry(Op op) : op_(std::move(op)) {}
  Op op_;
};

}  // namespace tessera

#define TESSERA_OP_CONCAT_(a, b) a##b
#define TESSERA_OP_CONCAT(a, b) TESSERA_OP_CONCAT_(a, b)
#define TESSERA_REGISTER_OP(Name)                                                                \
  [[maybe_unused]] static ::tessera::OpRegEntry& TESSERA_OP_CONCAT(_tessera_op_reg_, __COUNTER__) = \
      ::tessera::OpRegEntry::RegisterOrGet(Name)
