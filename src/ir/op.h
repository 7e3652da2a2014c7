// Op: a named primitive operator (TIR intrinsics such as "tir.exp", Relax
// operators such as "relax.add"), with a registry of per-op attributes
// (struct-info inference, legalization, pure/impure...). IR layer.
// Register with TESSERA_REGISTER_OP("tir.exp").set_num_inputs(1).set_attr(...).
#pragma once

#include <string>

#include "ir/expr.h"

namespace tessera {

class OpNode : public BaseExprNode {
 public:
  std::string name;
  std::string description;
  int num_inputs = -1;  // -1: variadic
  TESSERA_DECLARE_FINAL_OBJECT_INFO(OpNode, BaseExprNode, "ir.Op");
};

class Op : public BaseExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Op, BaseExpr, OpNode);
  // The registered op `name`; raises ValueError naming it when unknown.
  static Op Get(const std::string& name);
  static bool Exists(const std::string& name);
  static std::vector<std::string> ListNames();
  // Attribute `attr` of this op, or nullopt.
  std::optional<Any> GetAttr(const std::string& attr) const;
};

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
