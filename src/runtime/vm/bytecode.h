// The VM's instruction set: four opcodes (Call, Ret, Goto, If) over a
// register file, with call arguments encoded as 64-bit words (kind in the
// top 8 bits: register, immediate, constant index, function index).
// Runtime layer; written by ExecBuilder, stored by Executable, run by the VM.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::runtime::vm {

using ExecWord = int64_t;  // one word of the instruction stream
using RegName = ExecWord;  // a register number
using Index = ExecWord;    // an index into a table (constants, functions, instructions)

// Registers from kBeginSpecialReg up are not in the register file.
constexpr RegName kBeginSpecialReg = static_cast<ExecWord>(1) << 54;
// Reads as None; a call whose result goes here discards it.
constexpr RegName kVoidRegister = kBeginSpecialReg + 0;
// Reads as the VM itself (passed to builtins that allocate or call back).
constexpr RegName kVMRegister = kBeginSpecialReg + 1;

enum class Opcode : ExecWord { kCall = 1, kRet = 2, kGoto = 3, kIf = 4 };

// An operand of Call: kind in bits [56, 64), a signed 56-bit value below.
class Arg {
 public:
  enum class Kind : int { kRegister = 0, kImmediate = 1, kConstIdx = 2, kFuncIdx = 3 };
  static constexpr int kValueBits = 56;
  static constexpr ExecWord kValueMax = (static_cast<ExecWord>(1) << (kValueBits - 1)) - 1;
  static constexpr ExecWord kValueMin = -(static_cast<ExecWord>(1) << (kValueBits - 1));

  Arg() = default;
  static Arg FromData(ExecWord data) {
    Arg a;
    a.data_ = data;
    return a;
  }
  // Raises ValueError when `value` does not fit in 56 signed bits.
  static Arg Make(Kind kind, ExecWord value);
  static Arg Register(RegName r) { return Make(Kind::kRegister, r); }
  static Arg Immediate(ExecWord v) { return Make(Kind::kImmediate, v); }
  static Arg ConstIdx(Index i) { return Make(Kind::kConstIdx, i); }
  static Arg FuncIdx(Index i) { return Make(Kind::kFuncIdx, i); }

  Kind kind() const { return static_cast<Kind>(static_cast<uint64_t>(data_) >> kValueBits); }
  // Sign-extended value.
  ExecWord value() const { return static_cast<ExecWord>(static_cast<uint64_t>(data_) << (64 - kValueBits)) >> (64 - kValueBits); }
  ExecWord data() const { return data_; }
  bool operator==(const Arg& o) const { return data_ == o.data_; }
  // "%2", "i5", "c[0]", "f[1]", "%void", "%vm".
  std::string str() const;

 private:
  ExecWord data_ = 0;
};

// A decoded view of one instruction; `args` points into the executable's
// instruction stream.
struct Instruction {
  Opcode op = Opcode::kRet;
  // kCall
  RegName dst = kVoidRegister;
  Index func_idx = 0;
  Index num_args = 0;
  const ExecWord* args = nullptr;
  // kRet
  RegName result = 0;
  // kGoto: pc += pc_offset; kIf: if cond is false, pc += false_offset, else pc += 1
  Index pc_offset = 0;
  RegName cond = 0;
  Index false_offset = 0;

  Arg arg(Index i) const { return Arg::FromData(args[i]); }
};

// "%2", "%void", "%vm" for register names.
std::string RegisterName(RegName r);

}  // namespace tessera::runtime::vm
