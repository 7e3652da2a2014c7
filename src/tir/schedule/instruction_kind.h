// InstructionKind (`tvm.tir.schedule.InstructionKind`): what a kind of
// schedule instruction ("Split", "CacheWrite", ...) knows — how to replay it
// on a Schedule, how to print it as Python, how its attributes go to and
// from JSON, whether it is pure. Each primitive file (primitive/*.cc)
// declares its kinds with TESSERA_REGISTER_INST_KIND; Trace and replay
// look them up by name. TIR schedule layer.
//
// Adding a primitive: the pure transformation, its
// TESSERA_REGISTER_INST_KIND, the Schedule method that resolves handles,
// commits and records it, and its TESSERA_REGISTER_SCHEDULE_API FFI entry
// all go in one primitive/*.cc file; replay, trace printing and JSON need
// nothing else. Outside it: the method's declaration line in schedule.h,
// the Python method in python/tessera/tir/schedule/schedule.py, and tests
// (test_schedule_instruction_kinds.py fails until the kind has a case).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tir/function.h"

namespace tessera {
namespace tir {

class Schedule;

// The argument types of the apply functions that primitive files register
// (`using namespace inst_args;` at the registrations).
namespace inst_args {
using Inputs = Array<Any>;
using Attrs = Array<Any>;
using Decision = std::optional<Any>;
}  // namespace inst_args

class InstructionKindNode : public Object {
 public:
  // Replays the instruction on `sch` (inputs already mapped to `sch`'s
  // random variables); returns its outputs.
  using FApply = std::function<Array<Any>(const Schedule& sch, const Array<Any>& inputs, const Array<Any>& attrs,
                                          const std::optional<Any>& decision)>;
  // One Python statement: inputs and decision already rendered (random
  // variable names or literals), attrs as recorded, output names.
  using FAsPython = std::function<std::string(const std::vector<std::string>& inputs, const Array<Any>& attrs,
                                              const std::optional<std::string>& decision,
                                              const std::vector<std::string>& outputs)>;
  // Attributes to JSON-safe values (None, bools, ints, floats, strings and
  // arrays of them) and back. Unset: the attributes are already JSON-safe.
  using FAttrsConvert = std::function<Array<Any>(const Array<Any>& attrs)>;

  std::string name;
  bool is_pure = false;  // no effect on the module (lookups, sampling)
  FApply f_apply;
  FAsPython f_as_python;
  FAttrsConvert f_attrs_as_json;
  FAttrsConvert f_attrs_from_json;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(InstructionKindNode, Object, "tir.InstructionKind");
};

class InstructionKind : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(InstructionKind, ObjectRef, InstructionKindNode);
  // ValueError naming the registered kinds when `name` is unknown.
  static InstructionKind Get(const std::string& name);
  static std::vector<std::string> ListNames();
};

// Builder returned by TESSERA_REGISTER_INST_KIND.
class InstructionKindRegEntry {
 public:
  static InstructionKindRegEntry& Register(const std::string& name);
  InstructionKindRegEntry& set_is_pure(bool pure);
  InstructionKindRegEntry& set_apply(InstructionKindNode::FApply f);
  InstructionKindRegEntry& set_as_python(InstructionKindNode::FAsPython f);
  InstructionKindRegEntry& set_attrs_as_json(InstructionKindNode::FAttrsConvert f);
  InstructionKindRegEntry& set_attrs_from_json(InstructionKindNode::FAttrsConvert f);
  InstructionKind kind;
};

// `o0, o1 = sch.<method>(<input_names[i]>=<input>, ..., <attr_names[i]>=<attr>, decision=<decision>)`;
// input_names {"*"} passes the inputs positionally. `returns_list`: the
// method returns a list, so a single output prints as `(o0,) = ...`.
InstructionKindNode::FAsPython PythonCall(std::string method, std::vector<std::string> input_names,
                                          std::vector<std::string> attr_names, bool returns_list = false);
// A recorded attribute as a Python literal (True/False, "text", [1, 2], None).
std::string PythonLiteral(const Any& value);
// Typed results of a primitive as the outputs of an instruction.
template <typename T>
Array<Any> AsOutputs(const Array<T>& xs) {
  std::vector<Any> out(xs.begin(), xs.end());
  return Array<Any>(out);
}

#define TESSERA_INST_KIND_CONCAT_(a, b) a##b
#define TESSERA_INST_KIND_CONCAT(a, b) TESSERA_INST_KIND_CONCAT_(a, b)
#define TESSERA_REGISTER_INST_KIND(Name)                                                        \
  [[maybe_unused]] static ::tessera::tir::InstructionKindRegEntry& TESSERA_INST_KIND_CONCAT( \
      _tessera_inst_kind_, __COUNTER__) = ::tessera::tir::InstructionKindRegEntry::Register(Name)

}  // namespace tir
}  // namespace tessera
