// ExecBuilder: emission, the register checker, formalization and the FFI of
// relax.ExecBuilder (see exec_builder.h).
#include "runtime/vm/exec_builder.h"

#include <cstring>
#include <sstream>

#include "runtime/array.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"

namespace tessera::runtime::vm {

namespace {

uint64_t HashBytes(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ULL;
  return h;
}

std::string TensorBytes(const NDArray& a) {
  std::string bytes(a.NBytes(), '\0');
  NDArray src = a;
  if (!IsContiguous(a->dl) || a.device().device_type != kDLCPU) {
    src = NDArray::Empty(a.Shape(), a.dtype(), CPU());
    src.CopyFrom(a);
  }
  src.CopyToBytes(bytes.data(), bytes.size());
  return bytes;
}

// A cache key equal for constants that may share a pool slot (empty: never shared).
std::string ConstKey(const Any& v) {
  switch (v.kind()) {
    case Any::Kind::kNone: return "n";
    case Any::Kind::kInt: return std::string("i").append(std::to_string(v.raw_int()));
    case Any::Kind::kBool: return std::string("b").append(std::to_string(v.raw_int()));
    case Any::Kind::kFloat: {
      double d = v.raw_float();
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return std::string("f").append(std::to_string(bits));
    }
    case Any::Kind::kDataType: return std::string("d").append(v.raw_dtype().str());
    default: break;
  }
  if (const auto* s = v.as<StringObj>()) return std::string("s").append(s->data);
  if (const auto* s = v.as<ShapeTupleObj>()) return std::string("h").append(ShapeString(s->data));
  if (v.as<NDArrayObj>()) {
    NDArray a = v.cast<NDArray>();
    std::string bytes = TensorBytes(a);
    return std::string("t").append(a.dtype().str() + ShapeString(a.Shape()) + std::to_string(HashBytes(bytes.data(), bytes.size())));
  }
  return "";
}

bool SameConstant(const Any& a, const Any& b) {
  if (a.as<NDArrayObj>() && b.as<NDArrayObj>()) return TensorBytes(a.cast<NDArray>()) == TensorBytes(b.cast<NDArray>());
  return true;  // other kinds: the key is the value
}

}  // namespace

ExecBuilderNode::ExecBuilderNode() : exec_(make_object<ExecutableNode>()) {}

void ExecBuilderNode::DeclareFunction(const std::string& name, VMFuncInfo::FuncKind kind) {
  TESSERA_CHECK_OR_THROW(!name.empty(), ValueError) << "ExecBuilder: a function needs a name";
  TESSERA_CHECK_OR_THROW(kind == VMFuncInfo::FuncKind::kPackedFunc || kind == VMFuncInfo::FuncKind::kVMFunc, ValueError)
      << "ExecBuilder: function kind " << static_cast<int>(kind) << " is not supported (0 = packed, 1 = VM function)";
  Index idx = exec_->FindFunction(name);
  if (idx >= 0) {
    TESSERA_CHECK_OR_THROW(exec_->func_table[static_cast<size_t>(idx)].kind == kind, ValueError)
        << "ExecBuilder: function " << name << " was already declared with another kind";
    return;
  }
  VMFuncInfo info;
  info.kind = kind;
  info.name = name;
  exec_->func_map[name] = static_cast<Index>(exec_->func_table.size());
  exec_->func_table.push_back(std::move(info));
  defined_.push_back(false);
}

void ExecBuilderNode::EmitFunction(const std::string& name, int64_t num_inputs,
                                   const std::vector<std::string>& param_names) {
  TESSERA_CHECK_OR_THROW(current_ < 0, ValueError)
      << "ExecBuilder: cannot start function " << name << " inside function "
      << exec_->func_table[static_cast<size_t>(current_)].name;
  TESSERA_CHECK_OR_THROW(num_inputs >= 0, ValueError) << "ExecBuilder: function " << name << " has " << num_inputs << " inputs";
  TESSERA_CHECK_OR_THROW(param_names.empty() || static_cast<int64_t>(param_names.size()) == num_inputs, ValueError)
      << "ExecBuilder: function " << name << " has " << num_inputs << " inputs but " << param_names.size()
      << " parameter names";
  DeclareFunction(name, VMFuncInfo::FuncKind::kVMFunc);
  Index idx = exec_->FindFunction(name);
  TESSERA_CHECK_OR_THROW(!defined_[static_cast<size_t>(idx)], ValueError) << "ExecBuilder: function " << name << " is defined twice";
  VMFuncInfo& f = exec_->func_table[static_cast<size_t>(idx)];
  f.num_args = num_inputs;
  f.param_names = param_names;
  f.start_instr = exec_->NumInstructions();
  f.end_instr = f.start_instr;
  f.register_file_size = num_inputs;
  current_ = idx;
}

void ExecBuilderNode::EndFunction(const std::string& name) {
  TESSERA_CHECK_OR_THROW(current_ >= 0 && exec_->func_table[static_cast<size_t>(current_)].name == name, ValueError)
      << "ExecBuilder: EndFunction(" << name << ") outside that function";
  VMFuncInfo& f = exec_->func_table[static_cast<size_t>(current_)];
  f.end_instr = exec_->NumInstructions();
  TESSERA_CHECK_OR_THROW(f.end_instr > f.start_instr, ValueError) << "ExecBuilder: function " << name << " is empty";
  defined_[static_cast<size_t>(current_)] = true;
  current_ = -1;
}

void ExecBuilderNode::CheckInFunction(const char* what) const {
  TESSERA_CHECK_OR_THROW(current_ >= 0, ValueError) << "ExecBuilder: " << what << " outside a function (use function(...))";
}

Index ExecBuilderNode::ConvertConstant(const Any& value) {
  std::string key = ConstKey(value);
  TESSERA_CHECK_OR_THROW(!key.empty(), TypeError)
      << "ExecBuilder: a " << value.type_name()
      << " cannot be a VM constant (tensors, shapes, strings, dtypes, numbers and None can)";
  auto it = const_cache_.find(key);
  if (it != const_cache_.end() && SameConstant(exec_->constants[static_cast<size_t>(it->second)], value)) return it->second;
  Index idx = static_cast<Index>(exec_->constants.size());
  exec_->constants.push_back(value);
  const_cache_[key] = idx;
  return idx;
}

Index ExecBuilderNode::GetFunctionIndex(const std::string& name) const {
  Index idx = exec_->FindFunction(name);
  TESSERA_CHECK_OR_THROW(idx >= 0, ValueError) << "ExecBuilder: no function named " << name << " was declared";
  return idx;
}

void ExecBuilderNode::Emit(std::initializer_list<ExecWord> words, const std::vector<Arg>& args) {
  exec_->instr_offset.push_back(static_cast<Index>(exec_->instr_data.size()));
  exec_->instr_data.insert(exec_->instr_data.end(), words);
  for (const Arg& a : args) exec_->instr_data.push_back(a.data());
}

void ExecBuilderNode::EmitCall(const std::string& func, const std::vector<Arg>& args, RegName dst) {
  if (exec_->FindFunction(func) < 0) DeclareFunction(func, VMFuncInfo::FuncKind::kPackedFunc);
  EmitCall(exec_->FindFunction(func), args, dst);
}

void ExecBuilderNode::EmitCall(Index func_idx, const std::vector<Arg>& args, RegName dst) {
  CheckInFunction("emit_call");
  TESSERA_CHECK_OR_THROW(func_idx >= 0 && func_idx < static_cast<Index>(exec_->func_table.size()), ValueError)
      << "ExecBuilder: emit_call of unknown function index " << func_idx;
  TESSERA_CHECK_OR_THROW((dst >= 0 && dst < kBeginSpecialReg) || dst == kVoidRegister, ValueError)
      << "ExecBuilder: the destination of a call must be a register, got " << RegisterName(dst);
  Emit({static_cast<ExecWord>(Opcode::kCall), dst, func_idx, static_cast<ExecWord>(args.size())}, args);
}

void ExecBuilderNode::EmitRet(Arg result) {
  CheckInFunction("emit_ret");
  TESSERA_CHECK_OR_THROW(result.kind() == Arg::Kind::kRegister, ValueError)
      << "ExecBuilder: ret takes a register, got " << result.str();
  Emit({static_cast<ExecWord>(Opcode::kRet), result.value()});
}

void ExecBuilderNode::EmitGoto(Index pc_offset) {
  CheckInFunction("emit_goto");
  Emit({static_cast<ExecWord>(Opcode::kGoto), pc_offset});
}

void ExecBuilderNode::EmitIf(Arg cond, Index false_offset) {
  CheckInFunction("emit_if");
  TESSERA_CHECK_OR_THROW(cond.kind() == Arg::Kind::kRegister, ValueError)
      << "ExecBuilder: If takes a register condition, got " << cond.str();
  Emit({static_cast<ExecWord>(Opcode::kIf), cond.value(), false_offset});
}

Index ExecBuilderNode::CurrentFunctionSize() const {
  CheckInFunction("CurrentFunctionSize");
  return exec_->NumInstructions() - exec_->func_table[static_cast<size_t>(current_)].start_instr;
}

void ExecBuilderNode::PatchJump(Index pc, Index offset) {
  CheckInFunction("PatchJump");
  const Index abs = exec_->func_table[static_cast<size_t>(current_)].start_instr + pc;
  TESSERA_CHECK_OR_THROW(pc >= 0 && abs < exec_->NumInstructions(), ValueError)
      << "ExecBuilder: no instruction " << pc << " in the current function";
  ExecWord* p = exec_->instr_data.data() + exec_->instr_offset[static_cast<size_t>(abs)];
  if (static_cast<Opcode>(p[0]) == Opcode::kGoto) {
    p[1] = offset;
  } else if (static_cast<Opcode>(p[0]) == Opcode::kIf) {
    p[2] = offset;
  } else {
    TESSERA_THROW(ValueError) << "ExecBuilder: instruction " << pc << " is not a jump";
  }
}

void ExecBuilderNode::CheckExecutable() const {
  for (size_t fi = 0; fi < exec_->func_table.size(); ++fi) {
    const VMFuncInfo& f = exec_->func_table[fi];
    if (f.kind != VMFuncInfo::FuncKind::kVMFunc) continue;
    TESSERA_CHECK_OR_THROW(defined_[fi], ValueError) << "ExecBuilder: function " << f.name << " is declared but never defined";
    // Registers written so far, in program order (as the emitter lays code out).
    std::vector<bool> written;
    auto mark = [&](RegName r) {
      if (r < 0 || r >= kBeginSpecialReg) return;
      if (written.size() <= static_cast<size_t>(r)) written.resize(static_cast<size_t>(r) + 1, false);
      written[static_cast<size_t>(r)] = true;
    };
    auto check = [&](Index pc, RegName r) {
      if (r == kVoidRegister || r == kVMRegister) return;
      TESSERA_CHECK_OR_THROW(r >= 0 && r < kBeginSpecialReg, ValueError)
          << "ExecBuilder: function " << f.name << ", instruction " << pc - f.start_instr << ": invalid register " << r;
      if (r < f.num_args) return;
      TESSERA_CHECK_OR_THROW(static_cast<size_t>(r) < written.size() && written[static_cast<size_t>(r)], ValueError)
          << "ExecBuilder: function " << f.name << ", instruction " << pc - f.start_instr << ": register "
          << RegisterName(r) << " is read before it is written";
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      Instruction in = exec_->GetInstruction(pc);
      switch (in.op) {
        case Opcode::kCall:
          for (Index a = 0; a < in.num_args; ++a)
            if (in.arg(a).kind() == Arg::Kind::kRegister) check(pc, in.arg(a).value());
          mark(in.dst);
          break;
        case Opcode::kRet: check(pc, in.result); break;
        case Opcode::kIf: check(pc, in.cond); break;
        case Opcode::kGoto: break;
      }
    }
  }
}

void ExecBuilderNode::Formalize(ExecutableNode* exec) const {
  for (VMFuncInfo& f : exec->func_table) {
    if (f.kind != VMFuncInfo::FuncKind::kVMFunc) continue;
    std::unordered_map<RegName, RegName> map;
    RegName next = f.num_args;
    auto rename = [&](RegName r) -> RegName {
      if (r >= kBeginSpecialReg || r < f.num_args) return r;
      auto it = map.find(r);
      if (it != map.end()) return it->second;
      return map[r] = next++;
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      ExecWord* p = exec->instr_data.data() + exec->instr_offset[static_cast<size_t>(pc)];
      switch (static_cast<Opcode>(p[0])) {
        case Opcode::kCall: {
          for (Index a = 0; a < p[3]; ++a) {
            Arg arg = Arg::FromData(p[4 + a]);
            if (arg.kind() == Arg::Kind::kRegister) p[4 + a] = Arg::Register(rename(arg.value())).data();
          }
          p[1] = rename(p[1]);
          break;
        }
        case Opcode::kRet: p[1] = rename(p[1]); break;
        case Opcode::kIf: p[1] = rename(p[1]); break;
        case Opcode::kGoto: break;
      }
    }
    f.register_file_size = next;
  }
}

ObjectPtr<ExecutableNode> ExecBuilderNode::Get() {
  TESSERA_CHECK_OR_THROW(current_ < 0, ValueError)
      << "ExecBuilder: function " << exec_->func_table[static_cast<size_t>(current_)].name << " is not finished";
  CheckExecutable();
  auto out = make_object<ExecutableNode>();
  out->func_table = exec_->func_table;
  out->func_map = exec_->func_map;
  out->constants = exec_->constants;
  out->instr_offset = exec_->instr_offset;
  out->instr_data = exec_->instr_data;
  Formalize(out.get());
  out->Validate();
  return out;
}

TESSERA_REGISTER_OBJECT_TYPE(ExecBuilderNode);

namespace {

ExecBuilderNode* B(const ExecBuilder& b) { return b.mutable_node(); }

std::vector<Arg> ArgsOf(ExecBuilderNode* b, const Array<Any>& args) {
  std::vector<Arg> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const Any& a = args.at_any(i);
    if (a.kind() == Any::Kind::kInt) {
      out.push_back(Arg::FromData(a.raw_int()));
    } else {
      out.push_back(Arg::ConstIdx(b->ConvertConstant(a)));
    }
  }
  return out;
}

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.ExecBuilderCreate").set_body_typed([]() { return ExecBuilder::Create(); });
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderR").set_body_typed([](ExecBuilder, int64_t i) {
  TESSERA_CHECK_OR_THROW(i >= 0, ValueError) << "ExecBuilder.r: negative register " << i;
  return Arg::Register(i).data();
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderImm").set_body_typed([](ExecBuilder, int64_t v) { return Arg::Immediate(v).data(); });
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderC").set_body_typed([](ExecBuilder, int64_t i) {
  TESSERA_CHECK_OR_THROW(i >= 0, ValueError) << "ExecBuilder.c: negative constant index " << i;
  return Arg::ConstIdx(i).data();
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderF").set_body_typed([](ExecBuilder b, std::string name) {
  return Arg::FuncIdx(B(b)->GetFunctionIndex(name)).data();
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderDeclareFunction").set_body_typed([](ExecBuilder b, std::string name, int64_t kind) {
  B(b)->DeclareFunction(name, static_cast<VMFuncInfo::FuncKind>(kind));
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderEmitFunction").set_body_typed(
    [](ExecBuilder b, std::string name, int64_t num_inputs, std::optional<Array<String>> names) {
      std::vector<std::string> params;
      if (names) for (const String& s : *names) params.push_back(s.str());
      B(b)->EmitFunction(name, num_inputs, params);
    });
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderEndFunction").set_body_typed([](ExecBuilder b, std::string name) {
  B(b)->EndFunction(name);
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderConvertConstant").set_body_typed([](ExecBuilder b, Any v) {
  return Arg::ConstIdx(B(b)->ConvertConstant(v)).data();
});
// A dtype constant (Python passes dtypes as strings).
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderConvertDataType").set_body_typed([](ExecBuilder b, DataType t) {
  return Arg::ConstIdx(B(b)->ConvertConstant(Any(t))).data();
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderEmitCall").set_body_typed([](ExecBuilder b, std::string name, Array<Any> args, int64_t dst) {
  Arg d = Arg::FromData(dst);
  TESSERA_CHECK_OR_THROW(d.kind() == Arg::Kind::kRegister, ValueError) << "emit_call: dst must be a register (ib.r(i))";
  B(b)->EmitCall(name, ArgsOf(B(b), args), d.value());
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderEmitRet").set_body_typed([](ExecBuilder b, int64_t r) {
  B(b)->EmitRet(Arg::FromData(r));
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderEmitGoto").set_body_typed([](ExecBuilder b, int64_t off) { B(b)->EmitGoto(off); });
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderEmitIf").set_body_typed([](ExecBuilder b, int64_t cond, int64_t off) {
  B(b)->EmitIf(Arg::FromData(cond), off);
});
TESSERA_REGISTER_GLOBAL("relax.ExecBuilderGet").set_body_typed([](ExecBuilder b) {
  return Module(ObjectPtr<Object>(B(b)->Get()));
});

}  // namespace tessera::runtime::vm
