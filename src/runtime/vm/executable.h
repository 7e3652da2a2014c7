// Executable: what relax.build produces and the VM runs. It holds the
// function table, the constant pool and the instruction stream, can be
// printed (as_text, stats), saved to a validated binary form and loaded
// back, and imports the library module of the compiled TIR functions.
// Runtime layer (a Module of type "relax.Executable").
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/module.h"
#include "runtime/vm/bytecode.h"

namespace tessera::runtime::vm {

struct VMFuncInfo {
  enum class FuncKind : int { kPackedFunc = 0, kVMFunc = 1, kVMTIRFunc = 2 };
  FuncKind kind = FuncKind::kPackedFunc;
  std::string name;
  Index start_instr = 0;         // first instruction (VM functions)
  Index end_instr = 0;           // one past the last instruction
  Index num_args = 0;
  Index register_file_size = 0;
  std::vector<std::string> param_names;
};

class ExecutableNode : public ModuleNode {
 public:
  std::vector<VMFuncInfo> func_table;
  std::unordered_map<std::string, Index> func_map;  // name -> index in func_table
  std::vector<Any> constants;  // NDArray, ShapeTuple, String, DataType, int, float, bool, None
  std::vector<Index> instr_offset;  // start of each instruction in instr_data
  std::vector<ExecWord> instr_data;

  std::string type_key() const override { return "relax.Executable"; }
  std::optional<PackedFunc> GetFunction(const std::string& name) const override;
  std::vector<std::string> ListFunctions() const override;

  Index NumInstructions() const { return static_cast<Index>(instr_offset.size()); }
  // Decodes instruction i (no bounds checks: the executable is validated).
  Instruction GetInstruction(Index i) const;
  // Index of the function `name`, or -1.
  Index FindFunction(const std::string& name) const;

  // Checks every table entry, instruction, operand and jump target; raises
  // ValueError naming the function and instruction at fault. Run on every
  // executable built or loaded, so that the VM never reads out of bounds.
  void Validate() const;

  // Human-readable listing of every function and instruction.
  std::string AsText() const;
  // Counts of functions, constants (by kind), instructions.
  std::string Stats() const;

  // Binary form: magic, version, checksum, then the tables. LoadFromBytes
  // raises ValueError for truncated, corrupted or foreign data.
  std::string SaveToBytes() const;
  static ObjectPtr<ExecutableNode> LoadFromBytes(const std::string& bytes);
  void SaveToFile(const std::string& path) const;
  static ObjectPtr<ExecutableNode> LoadFromFile(const std::string& path);

  TESSERA_DECLARE_FINAL_OBJECT_INFO(ExecutableNode, ModuleNode, "relax.Executable");
};

// The symbols an exported library carries the serialized executable under.
constexpr const char* kExecutableSymbol = "__tessera_vm_executable";
constexpr const char* kExecutableSizeSymbol = "__tessera_vm_executable_size";

}  // namespace tessera::runtime::vm
