// ExecBuilder: emits VM functions instruction by instruction and produces a
// checked Executable (operands in range, no register read before it is
// written, registers renumbered densely). Used by VMCodegen (compiler) and
// by Python's relax.ExecBuilder. Runtime layer, so hand-written programs
// need no compiler.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/vm/executable.h"

namespace tessera::runtime::vm {

class ExecBuilderNode : public Object {
 public:
  ExecBuilderNode();

  // Declares a function without emitting it (callee of a later call, or a
  // packed function by name). Re-declaring with the same kind is a no-op.
  void DeclareFunction(const std::string& name, VMFuncInfo::FuncKind kind);
  // Starts emitting VM function `name` with `num_inputs` parameters
  // (registers 0..num_inputs-1); `param_names` may be empty.
  void EmitFunction(const std::string& name, int64_t num_inputs, const std::vector<std::string>& param_names);
  // Ends the function being emitted (must be `name`).
  void EndFunction(const std::string& name);

  // Index of a constant equal to `value` (strings, shapes, dtypes, numbers
  // and tensors of equal contents are shared).
  Index ConvertConstant(const Any& value);
  Index GetFunctionIndex(const std::string& name) const;

  void EmitCall(const std::string& func, const std::vector<Arg>& args, RegName dst);
  void EmitCall(Index func_idx, const std::vector<Arg>& args, RegName dst);
  void EmitRet(Arg result);
  void EmitGoto(Index pc_offset);
  void EmitIf(Arg cond, Index false_offset);
  // Instructions emitted so far in the current function.
  Index CurrentFunctionSize() const;
  // Sets the jump offset of the Goto or If at `pc` (relative to the start
  // of the current function): how code generators fill in forward jumps.
  void PatchJump(Index pc, Index offset);

  // Checks and formalizes the program; the builder stays usable.
  ObjectPtr<ExecutableNode> Get();

  TESSERA_DECLARE_FINAL_OBJECT_INFO(ExecBuilderNode, Object, "relax.ExecBuilder");

 private:
  void CheckInFunction(const char* what) const;
  void Emit(std::initializer_list<ExecWord> words, const std::vector<Arg>& args = {});
  void CheckExecutable() const;
  void Formalize(ExecutableNode* exec) const;

  ObjectPtr<ExecutableNode> exec_;
  Index current_ = -1;  // function being emitted
  std::vector<bool> defined_;  // per function: its body was emitted
  std::unordered_map<std::string, Index> const_cache_;  // key -> constant index
};

class ExecBuilder : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ExecBuilder, ObjectRef, ExecBuilderNode);
  static ExecBuilder Create() { return ExecBuilder(ObjectPtr<Object>(make_object<ExecBuilderNode>())); }
  ExecBuilderNode* mutable_node() const { return const_cast<ExecBuilderNode*>(get()); }
};

}  // namespace tessera::runtime::vm
