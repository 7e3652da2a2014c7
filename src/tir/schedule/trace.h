// Trace: the record of every schedule primitive applied, with the random
// decisions sampling made. It prints as runnable Python
// (`def apply_trace(sch): ...`), replays onto another schedule, and
// round-trips through JSON (the tuning database stores traces); each
// instruction's kind (instruction_kind.h) says how. TIR schedule layer.
#pragma once

#include <string>
#include <vector>

#include "tir/function.h"
#include "tir/schedule/instruction_kind.h"

namespace tessera {
namespace tir {

// Handles to blocks and loops that stay valid across primitives.
class BlockRVNode : public Object {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(BlockRVNode, Object, "tir.BlockRV");
};
class BlockRV : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(BlockRV, ObjectRef, BlockRVNode);
  static BlockRV Make() { return BlockRV(ObjectPtr<Object>(make_object<BlockRVNode>())); }
};
class LoopRVNode : public Object {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(LoopRVNode, Object, "tir.LoopRV");
};
class LoopRV : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(LoopRV, ObjectRef, LoopRVNode);
  static LoopRV Make() { return LoopRV(ObjectPtr<Object>(make_object<LoopRVNode>())); }
};

// One applied primitive: its kind (InstructionKind "Split", ...), inputs
// (random variables, constants, lists), attributes and outputs (random
// variables).
class InstructionNode : public Object {
 public:
  InstructionKind kind;
  Array<Any> inputs;
  Array<Any> attrs;
  Array<Any> outputs;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(InstructionNode, Object, "tir.Instruction");
};
class Instruction : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Instruction, ObjectRef, InstructionNode);
  Instruction(InstructionKind kind, Array<Any> inputs, Array<Any> attrs, Array<Any> outputs);
};

class TraceNode : public Object {
 public:
  std::vector<Instruction> insts;
  std::vector<std::pair<Instruction, Any>> decisions;  // sampling instruction -> decision
  std::optional<Any> GetDecision(const Instruction& inst) const;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TraceNode, Object, "tir.Trace");
};
class Trace : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Trace, ObjectRef, TraceNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(TraceNode);
  static Trace Empty() { return Trace(ObjectPtr<Object>(make_object<TraceNode>())); }
  // `def apply_trace(sch: tir.Schedule) -> None:` followed by one line per instruction.
  std::string AsPython() const;
  std::string ToJSON() const;
  static Trace FromJSON(const std::string& json);
  // A copy with the decision of `inst` replaced.
  Trace WithDecision(const Instruction& inst, const Any& decision) const;
};

}  // namespace tir
}  // namespace tessera
