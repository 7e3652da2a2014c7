// Executable: decoding, validation, printing and the binary format (see
// executable.h). The binary form is: magic "TSRVMEX1", a version, the
// payload size and its FNV-1a checksum, then the function table, the
// constants and the instruction stream; every read is bounds-checked.
#include "runtime/vm/executable.h"

#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "runtime/array.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"
#include "runtime/vm/vm.h"

namespace tessera::runtime::vm {

namespace {

constexpr char kMagic[8] = {'T', 'S', 'R', 'V', 'M', 'E', 'X', '1'};
constexpr uint32_t kVersion = 1;
constexpr Index kMaxRegisters = Index{1} << 24;

enum ConstTag : uint8_t { kTagNDArray = 0, kTagShape = 1, kTagString = 2, kTagDType = 3, kTagInt = 4, kTagFloat = 5,
                          kTagNone = 6, kTagBool = 7 };

uint64_t Fnv1a(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

const char* OpName(Opcode op) {
  switch (op) {
    case Opcode::kCall: return "call";
    case Opcode::kRet: return "ret";
    case Opcode::kGoto: return "goto";
    case Opcode::kIf: return "If";
  }
  return "?";
}

// Length in words of the instruction starting at p (0 when the opcode is unknown).
Index InstrLength(const ExecWord* p, Index avail) {
  if (avail < 1) return 0;
  switch (static_cast<Opcode>(p[0])) {
    case Opcode::kCall: return avail < 4 || p[3] < 0 || p[3] > avail - 4 ? -1 : 4 + p[3];
    case Opcode::kRet: return 2;
    case Opcode::kGoto: return 2;
    case Opcode::kIf: return 3;
  }
  return 0;
}

class Writer {
 public:
  template <typename T>
  void Pod(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void Str(const std::string& s) {
    Pod<uint64_t>(s.size());
    out_.append(s);
  }
  void Bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  T Pod(const char* what) {
    Need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string Str(const char* what) {
    uint64_t n = Pod<uint64_t>(what);
    Need(n, what);
    std::string s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  const char* Bytes(uint64_t n, const char* what) {
    Need(n, what);
    const char* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  // A count of items of at least `min_item_bytes` each that must fit in what is left.
  uint64_t Count(const char* what, uint64_t min_item_bytes) {
    uint64_t n = Pod<uint64_t>(what);
    if (n > (size_ - pos_) / std::max<uint64_t>(1, min_item_bytes)) {
      TESSERA_THROW(ValueError) << "corrupted executable: " << what << " count " << n << " exceeds the data left";
    }
    return n;
  }
  bool AtEnd() const { return pos_ == size_; }

 private:
  void Need(uint64_t n, const char* what) {
    if (n > size_ - pos_) {
      TESSERA_THROW(ValueError) << "corrupted executable: truncated while reading " << what << " (needs " << n
                                << " bytes at offset " << pos_ << ", " << (size_ - pos_) << " left)";
    }
  }
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::string ConstantRepr(const Any& c) {
  if (const auto* s = c.as<ShapeTupleObj>()) return std::string("shape").append(ShapeString(s->data));
  if (const auto* a = c.as<NDArrayObj>()) {
    (void)a;
    NDArray arr = c.cast<NDArray>();
    return std::string("NDArray").append(ShapeString(arr.Shape()) + " " + arr.dtype().str());
  }
  if (const auto* s = c.as<StringObj>()) return "\"" + s->data + "\"";
  if (c.kind() == Any::Kind::kDataType) return std::string("dtype(").append(c.raw_dtype().str() + ")");
  return c.repr();
}

}  // namespace

std::string Arg::str() const {
  switch (kind()) {
    case Kind::kRegister: return RegisterName(value());
    case Kind::kImmediate: return std::string("i").append(std::to_string(value()));
    case Kind::kConstIdx: return std::string("c[").append(std::to_string(value()) + "]");
    case Kind::kFuncIdx: return std::string("f[").append(std::to_string(value()) + "]");
  }
  return std::string("?").append(std::to_string(data_));
}

Arg Arg::Make(Kind kind, ExecWord value) {
  TESSERA_CHECK_OR_THROW(value >= kValueMin && value <= kValueMax, ValueError)
      << "VM operand value " << value << " does not fit in " << kValueBits << " signed bits";
  Arg a;
  a.data_ = static_cast<ExecWord>((static_cast<uint64_t>(kind) << kValueBits) |
                                  (static_cast<uint64_t>(value) & ((uint64_t{1} << kValueBits) - 1)));
  return a;
}

std::string RegisterName(RegName r) {
  if (r == kVoidRegister) return "%void";
  if (r == kVMRegister) return "%vm";
  return std::string("%").append(std::to_string(r));
}

Instruction ExecutableNode::GetInstruction(Index i) const {
  const ExecWord* p = instr_data.data() + instr_offset[static_cast<size_t>(i)];
  Instruction in;
  in.op = static_cast<Opcode>(p[0]);
  switch (in.op) {
    case Opcode::kCall:
      in.dst = p[1];
      in.func_idx = p[2];
      in.num_args = p[3];
      in.args = p + 4;
      break;
    case Opcode::kRet: in.result = p[1]; break;
    case Opcode::kGoto: in.pc_offset = p[1]; break;
    case Opcode::kIf:
      in.cond = p[1];
      in.false_offset = p[2];
      break;
  }
  return in;
}

Index ExecutableNode::FindFunction(const std::string& name) const {
  auto it = func_map.find(name);
  return it == func_map.end() ? -1 : it->second;
}

void ExecutableNode::Validate() const {
  const Index ninstr = NumInstructions();
  const Index ndata = static_cast<Index>(instr_data.size());
  // Instruction boundaries and opcodes.
  for (Index i = 0; i < ninstr; ++i) {
    const Index off = instr_offset[static_cast<size_t>(i)];
    const Index next = i + 1 < ninstr ? instr_offset[static_cast<size_t>(i + 1)] : ndata;
    TESSERA_CHECK_OR_THROW(off >= 0 && off < ndata && next <= ndata && off < next, ValueError)
        << "invalid executable: instruction " << i << " has offset " << off << " outside the instruction stream";
    Index len = InstrLength(instr_data.data() + off, next - off);
    TESSERA_CHECK_OR_THROW(len != 0, ValueError)
        << "invalid executable: instruction " << i << " has unknown opcode " << instr_data[static_cast<size_t>(off)];
    TESSERA_CHECK_OR_THROW(len == next - off, ValueError)
        << "invalid executable: instruction " << i << " (" << OpName(static_cast<Opcode>(instr_data[static_cast<size_t>(off)]))
        << ") has " << (next - off) << " words, expected " << len;
  }
  TESSERA_CHECK_OR_THROW(func_map.size() == func_table.size(), ValueError)
      << "invalid executable: the function table has duplicate names";
  const Index nfunc = static_cast<Index>(func_table.size());
  const Index nconst = static_cast<Index>(constants.size());
  for (Index fi = 0; fi < nfunc; ++fi) {
    const VMFuncInfo& f = func_table[static_cast<size_t>(fi)];
    auto it = func_map.find(f.name);
    TESSERA_CHECK_OR_THROW(!f.name.empty() && it != func_map.end() && it->second == fi, ValueError)
        << "invalid executable: function table entry " << fi << " has a bad name '" << f.name << "'";
    if (f.kind == VMFuncInfo::FuncKind::kPackedFunc) continue;
    TESSERA_CHECK_OR_THROW(f.kind == VMFuncInfo::FuncKind::kVMFunc, ValueError)
        << "invalid executable: function " << f.name << " has kind " << static_cast<int>(f.kind)
        << " (this VM runs bytecode functions and packed functions only)";
    auto bad = [&](Index pc) -> std::string {
      return std::string("invalid executable: function ").append(f.name + ", instruction " + std::to_string(pc) + ": ");
    };
    TESSERA_CHECK_OR_THROW(f.start_instr >= 0 && f.start_instr < f.end_instr && f.end_instr <= ninstr, ValueError)
        << "invalid executable: function " << f.name << " spans instructions [" << f.start_instr << ", "
        << f.end_instr << ") of " << ninstr;
    TESSERA_CHECK_OR_THROW(f.num_args >= 0 && f.register_file_size >= f.num_args && f.register_file_size <= kMaxRegisters,
                           ValueError)
        << "invalid executable: function " << f.name << " has " << f.num_args << " arguments and "
        << f.register_file_size << " registers";
    TESSERA_CHECK_OR_THROW(f.param_names.empty() || static_cast<Index>(f.param_names.size()) == f.num_args, ValueError)
        << "invalid executable: function " << f.name << " names " << f.param_names.size() << " parameters but takes "
        << f.num_args;
    auto check_read = [&](Index pc, RegName r) {
      TESSERA_CHECK_OR_THROW((r >= 0 && r < f.register_file_size) || r == kVoidRegister || r == kVMRegister, ValueError)
          << bad(pc) << "register " << r << " outside the register file (" << f.register_file_size << ")";
    };
    auto check_target = [&](Index pc, Index offset) {
      TESSERA_CHECK_OR_THROW(offset >= f.start_instr - pc && offset < f.end_instr - pc, ValueError)
          << bad(pc) << "jump by " << offset << " leaves the function";
    };
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      Instruction in = GetInstruction(pc);
      switch (in.op) {
        case Opcode::kCall:
          TESSERA_CHECK_OR_THROW(in.func_idx >= 0 && in.func_idx < nfunc, ValueError)
              << bad(pc) << "calls function index " << in.func_idx << " of " << nfunc;
          TESSERA_CHECK_OR_THROW((in.dst >= 0 && in.dst < f.register_file_size) || in.dst == kVoidRegister, ValueError)
              << bad(pc) << "destination register " << in.dst << " outside the register file";
          for (Index a = 0; a < in.num_args; ++a) {
            Arg arg = in.arg(a);
            switch (arg.kind()) {
              case Arg::Kind::kRegister: check_read(pc, arg.value()); break;
              case Arg::Kind::kImmediate: break;
              case Arg::Kind::kConstIdx:
                TESSERA_CHECK_OR_THROW(arg.value() >= 0 && arg.value() < nconst, ValueError)
                    << bad(pc) << "constant index " << arg.value() << " of " << nconst;
                break;
              case Arg::Kind::kFuncIdx:
                TESSERA_CHECK_OR_THROW(arg.value() >= 0 && arg.value() < nfunc, ValueError)
                    << bad(pc) << "function index " << arg.value() << " of " << nfunc;
                break;
              default: TESSERA_THROW(ValueError) << bad(pc) << "argument " << a << " has an unknown kind";
            }
          }
          break;
        case Opcode::kRet: check_read(pc, in.result); break;
        case Opcode::kGoto: check_target(pc, in.pc_offset); break;
        case Opcode::kIf:
          check_read(pc, in.cond);
          TESSERA_CHECK_OR_THROW(in.cond != kVMRegister, ValueError) << bad(pc) << "If on the VM register";
          check_target(pc, in.false_offset);
          TESSERA_CHECK_OR_THROW(pc + 1 < f.end_instr, ValueError) << bad(pc) << "If is the last instruction";
          break;
      }
    }
    Opcode last = GetInstruction(f.end_instr - 1).op;
    TESSERA_CHECK_OR_THROW(last == Opcode::kRet || last == Opcode::kGoto, ValueError)
        << "invalid executable: function " << f.name << " does not end with ret or goto";
  }
}

std::optional<PackedFunc> ExecutableNode::GetFunction(const std::string& name) const {
  ObjectPtr<ExecutableNode> self(const_cast<ExecutableNode*>(this));
  if (name == "vm_load_executable") {
    return PackedFunc([self](PackedArgs) -> Any {
      return Module(ObjectPtr<Object>(make_object<VirtualMachineNode>(self)));
    }, name);
  }
  if (name == "stats") return PackedFunc([self](PackedArgs) -> Any { return self->Stats(); }, name);
  if (name == "as_text") return PackedFunc([self](PackedArgs) -> Any { return self->AsText(); }, name);
  return std::nullopt;
}

std::vector<std::string> ExecutableNode::ListFunctions() const { return {"vm_load_executable", "stats", "as_text"}; }

std::string ExecutableNode::AsText() const {
  std::ostringstream os;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != VMFuncInfo::FuncKind::kVMFunc) continue;
    os << "@" << f.name << ":\n";
    for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
      Instruction in = GetInstruction(pc);
      os << "  ";
      switch (in.op) {
        case Opcode::kCall: {
          os << std::left << std::setw(6) << "call" << std::setw(16) << func_table[static_cast<size_t>(in.func_idx)].name
             << " in: ";
          for (Index a = 0; a < in.num_args; ++a) os << (a ? ", " : "") << in.arg(a).str();
          os << std::setw(6) << "" << "dst: " << RegisterName(in.dst) << "\n";
          break;
        }
        case Opcode::kRet: os << "ret " << RegisterName(in.result) << "\n"; break;
        case Opcode::kGoto: os << "goto " << in.pc_offset << "\n"; break;
        case Opcode::kIf: os << "If " << RegisterName(in.cond) << ", " << in.false_offset << "\n"; break;
      }
    }
    os << "\n";
  }
  return os.str();
}

std::string ExecutableNode::Stats() const {
  std::ostringstream os;
  size_t nvm = 0, npacked = 0;
  for (const VMFuncInfo& f : func_table) (f.kind == VMFuncInfo::FuncKind::kVMFunc ? nvm : npacked)++;
  os << "Relax VM executable statistics:\n";
  os << "  Constant pool (# " << constants.size() << "): [";
  for (size_t i = 0; i < constants.size(); ++i) os << (i ? ", " : "") << ConstantRepr(constants[i]);
  os << "]\n";
  os << "  Globals (#" << nvm << "): [";
  bool first = true;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind != VMFuncInfo::FuncKind::kVMFunc) continue;
    os << (first ? "" : ", ") << f.name;
    first = false;
  }
  os << "]\n  Packed functions (#" << npacked << "): [";
  first = true;
  for (const VMFuncInfo& f : func_table) {
    if (f.kind == VMFuncInfo::FuncKind::kVMFunc) continue;
    os << (first ? "" : ", ") << f.name;
    first = false;
  }
  os << "]\n  Instructions (#" << instr_offset.size() << ")\n";
  return os.str();
}

std::string ExecutableNode::SaveToBytes() const {
  Writer w;
  w.Pod<uint64_t>(func_table.size());
  for (const VMFuncInfo& f : func_table) {
    w.Pod<int32_t>(static_cast<int32_t>(f.kind));
    w.Str(f.name);
    w.Pod<int64_t>(f.start_instr);
    w.Pod<int64_t>(f.end_instr);
    w.Pod<int64_t>(f.num_args);
    w.Pod<int64_t>(f.register_file_size);
    w.Pod<uint64_t>(f.param_names.size());
    for (const std::string& p : f.param_names) w.Str(p);
  }
  w.Pod<uint64_t>(constants.size());
  for (size_t i = 0; i < constants.size(); ++i) {
    const Any& c = constants[i];
    switch (c.kind()) {
      case Any::Kind::kNone: w.Pod<uint8_t>(kTagNone); continue;
      case Any::Kind::kInt: w.Pod<uint8_t>(kTagInt); w.Pod<int64_t>(c.raw_int()); continue;
      case Any::Kind::kBool: w.Pod<uint8_t>(kTagBool); w.Pod<uint8_t>(c.raw_int() != 0); continue;
      case Any::Kind::kFloat: w.Pod<uint8_t>(kTagFloat); w.Pod<double>(c.raw_float()); continue;
      case Any::Kind::kDataType: {
        DataType t = c.raw_dtype();
        w.Pod<uint8_t>(kTagDType);
        w.Pod<uint8_t>(t.code());
        w.Pod<uint8_t>(static_cast<uint8_t>(t.bits()));
        w.Pod<uint16_t>(static_cast<uint16_t>(t.lanes()));
        continue;
      }
      default: break;
    }
    if (const auto* s = c.as<StringObj>()) {
      w.Pod<uint8_t>(kTagString);
      w.Str(s->data);
    } else if (const auto* s = c.as<ShapeTupleObj>()) {
      w.Pod<uint8_t>(kTagShape);
      w.Pod<uint64_t>(s->data.size());
      for (int64_t d : s->data) w.Pod<int64_t>(d);
    } else if (c.as<NDArrayObj>()) {
      NDArray arr = c.cast<NDArray>();
      DataType t = arr.dtype();
      w.Pod<uint8_t>(kTagNDArray);
      w.Pod<uint8_t>(t.code());
      w.Pod<uint8_t>(static_cast<uint8_t>(t.bits()));
      w.Pod<uint16_t>(static_cast<uint16_t>(t.lanes()));
      w.Pod<uint64_t>(arr.Shape().size());
      for (int64_t d : arr.Shape()) w.Pod<int64_t>(d);
      std::string bytes(arr.NBytes(), '\0');
      if (IsContiguous(arr->dl)) {
        arr.CopyToBytes(bytes.data(), bytes.size());
      } else {
        NDArray copy = NDArray::Empty(arr.Shape(), t, CPU());
        copy.CopyFrom(arr);
        copy.CopyToBytes(bytes.data(), bytes.size());
      }
      w.Str(bytes);
    } else {
      TESSERA_THROW(ValueError) << "cannot save the executable: constant " << i << " is a " << c.type_name()
                                << ", which has no binary form";
    }
  }
  w.Pod<uint64_t>(instr_offset.size());
  for (Index o : instr_offset) w.Pod<int64_t>(o);
  w.Pod<uint64_t>(instr_data.size());
  for (ExecWord d : instr_data) w.Pod<int64_t>(d);

  Writer out;
  out.Bytes(kMagic, sizeof kMagic);
  out.Pod<uint32_t>(kVersion);
  out.Pod<uint64_t>(w.out().size());
  out.Pod<uint64_t>(Fnv1a(w.out().data(), w.out().size()));
  out.out() += w.out();
  return std::move(out.out());
}

ObjectPtr<ExecutableNode> ExecutableNode::LoadFromBytes(const std::string& bytes) {
  Reader head(bytes.data(), bytes.size());
  const char* magic = head.Bytes(sizeof kMagic, "the header");
  TESSERA_CHECK_OR_THROW(std::memcmp(magic, kMagic, sizeof kMagic) == 0, ValueError)
      << "not a Tessera VM executable (bad magic number)";
  uint32_t version = head.Pod<uint32_t>("the header");
  TESSERA_CHECK_OR_THROW(version == kVersion, ValueError)
      << "unsupported VM executable version " << version << " (this runtime reads version " << kVersion << ")";
  uint64_t size = head.Pod<uint64_t>("the header");
  uint64_t checksum = head.Pod<uint64_t>("the header");
  const char* payload = head.Bytes(size, "the payload");
  TESSERA_CHECK_OR_THROW(head.AtEnd(), ValueError)
      << "corrupted executable: " << (bytes.size() - size) << " bytes follow the payload";
  TESSERA_CHECK_OR_THROW(Fnv1a(payload, size) == checksum, ValueError)
      << "corrupted executable: checksum mismatch (the file was modified or damaged)";

  Reader r(payload, size);
  auto exec = make_object<ExecutableNode>();
  uint64_t nfunc = r.Count("functions", 44);
  for (uint64_t i = 0; i < nfunc; ++i) {
    VMFuncInfo f;
    int32_t kind = r.Pod<int32_t>("a function kind");
    TESSERA_CHECK_OR_THROW(kind >= 0 && kind <= 2, ValueError) << "corrupted executable: function kind " << kind;
    f.kind = static_cast<VMFuncInfo::FuncKind>(kind);
    f.name = r.Str("a function name");
    f.start_instr = r.Pod<int64_t>("a function");
    f.end_instr = r.Pod<int64_t>("a function");
    f.num_args = r.Pod<int64_t>("a function");
    f.register_file_size = r.Pod<int64_t>("a function");
    uint64_t nparams = r.Count("parameter names", 8);
    for (uint64_t p = 0; p < nparams; ++p) f.param_names.push_back(r.Str("a parameter name"));
    TESSERA_CHECK_OR_THROW(exec->func_map.emplace(f.name, static_cast<Index>(i)).second, ValueError)
        << "corrupted executable: function " << f.name << " appears twice";
    exec->func_table.push_back(std::move(f));
  }
  uint64_t nconst = r.Count("constants", 1);
  for (uint64_t i = 0; i < nconst; ++i) {
    uint8_t tag = r.Pod<uint8_t>("a constant");
    switch (tag) {
      case kTagNone: exec->constants.emplace_back(); break;
      case kTagInt: exec->constants.emplace_back(r.Pod<int64_t>("a constant")); break;
      case kTagBool: exec->constants.emplace_back(r.Pod<uint8_t>("a constant") != 0); break;
      case kTagFloat: exec->constants.emplace_back(r.Pod<double>("a constant")); break;
      case kTagDType: {
        uint8_t code = r.Pod<uint8_t>("a dtype");
        uint8_t bits = r.Pod<uint8_t>("a dtype");
        uint16_t lanes = r.Pod<uint16_t>("a dtype");
        DataType t(code, bits, lanes);
        if (!t.is_void()) DataType(t.str());  // validates
        exec->constants.emplace_back(t);
        break;
      }
      case kTagString: exec->constants.emplace_back(String(r.Str("a string constant"))); break;
      case kTagShape: {
        uint64_t n = r.Count("shape dimensions", 8);
        std::vector<int64_t> dims(n);
        for (uint64_t d = 0; d < n; ++d) dims[d] = r.Pod<int64_t>("a shape");
        exec->constants.emplace_back(ShapeTuple(std::move(dims)));
        break;
      }
      case kTagNDArray: {
        uint8_t code = r.Pod<uint8_t>("a tensor dtype");
        uint8_t bits = r.Pod<uint8_t>("a tensor dtype");
        uint16_t lanes = r.Pod<uint16_t>("a tensor dtype");
        DataType t(code, bits, lanes);
        TESSERA_CHECK_OR_THROW(!t.is_void(), ValueError) << "corrupted executable: tensor constant " << i << " has no dtype";
        DataType(t.str());  // validates
        uint64_t ndim = r.Count("tensor dimensions", 8);
        TESSERA_CHECK_OR_THROW(ndim <= 64, ValueError) << "corrupted executable: tensor constant with " << ndim << " dims";
        std::vector<int64_t> shape(ndim);
        for (uint64_t d = 0; d < ndim; ++d) shape[d] = r.Pod<int64_t>("a tensor shape");
        uint64_t nbytes = r.Pod<uint64_t>("tensor data");
        const char* data = r.Bytes(nbytes, "tensor data");
        NDArray arr = NDArray::Empty(shape, t, CPU());
        TESSERA_CHECK_OR_THROW(arr.NBytes() == nbytes, ValueError)
            << "corrupted executable: tensor constant " << i << " of shape " << ShapeString(shape) << " has " << nbytes
            << " bytes of data, expected " << arr.NBytes();
        arr.CopyFromBytes(data, nbytes);
        exec->constants.emplace_back(arr);
        break;
      }
      default: TESSERA_THROW(ValueError) << "corrupted executable: constant " << i << " has unknown tag " << int(tag);
    }
  }
  uint64_t ninstr = r.Count("instructions", 8);
  exec->instr_offset.resize(ninstr);
  for (uint64_t i = 0; i < ninstr; ++i) exec->instr_offset[i] = r.Pod<int64_t>("instruction offsets");
  uint64_t ndata = r.Count("instruction words", 8);
  exec->instr_data.resize(ndata);
  for (uint64_t i = 0; i < ndata; ++i) exec->instr_data[i] = r.Pod<int64_t>("instructions");
  TESSERA_CHECK_OR_THROW(r.AtEnd(), ValueError) << "corrupted executable: trailing bytes after the instructions";
  exec->Validate();
  return exec;
}

void ExecutableNode::SaveToFile(const std::string& path) const {
  std::string bytes = SaveToBytes();
  std::ofstream out(path, std::ios::binary);
  TESSERA_CHECK_OR_THROW(static_cast<bool>(out), ValueError) << "cannot write the executable to " << path;
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  TESSERA_CHECK_OR_THROW(static_cast<bool>(out), ValueError) << "writing the executable to " << path << " failed";
}

ObjectPtr<ExecutableNode> ExecutableNode::LoadFromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TESSERA_CHECK_OR_THROW(static_cast<bool>(in), ValueError) << "cannot open the executable file " << path;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return LoadFromBytes(bytes);
  } catch (const ValueError& e) {
    TESSERA_THROW(ValueError) << path << ": " << e.what();
  }
}

TESSERA_REGISTER_OBJECT_TYPE(ExecutableNode);

namespace {
ExecutableNode* AsExec(const Module& m, const char* fn) {
  const auto* e = m.as<ExecutableNode>();
  TESSERA_CHECK_OR_THROW(e != nullptr, TypeError) << fn << ": expected a relax.Executable module, got a "
                                                  << m->type_key() << " module";
  return const_cast<ExecutableNode*>(e);
}
}  // namespace

TESSERA_REGISTER_GLOBAL("relax.ExecutableStats").set_body_typed([](Module m) { return AsExec(m, "stats")->Stats(); });
TESSERA_REGISTER_GLOBAL("relax.ExecutableAsText").set_body_typed([](Module m) { return AsExec(m, "as_text")->AsText(); });
TESSERA_REGISTER_GLOBAL("relax.ExecutableSaveToFile").set_body_typed([](Module m, std::string path) {
  AsExec(m, "save_to_file")->SaveToFile(path);
});
// Loads a saved executable; `lib` (may be None) supplies its TIR functions.
TESSERA_REGISTER_GLOBAL("relax.ExecutableLoadFromFile").set_body_typed([](std::string path, std::optional<Module> lib) {
  ObjectPtr<ExecutableNode> exec = ExecutableNode::LoadFromFile(path);
  if (lib.has_value() && lib->defined()) exec->imports.push_back(*lib);
  return Module(ObjectPtr<Object>(std::move(exec)));
});
// Writes one shared library holding the kernels of the executable's library
// (if any) and the serialized executable; load_module of it returns the
// executable. Needs the compiler (the LLVM backend writes the library).
TESSERA_REGISTER_GLOBAL("relax.ExecutableExportLibrary").set_body_typed([](Module m, std::string path) {
  ExecutableNode* exec = AsExec(m, "export_library");
  TESSERA_CHECK_OR_THROW(exec->imports.size() <= 1, NotImplementedError)
      << "export_library: an executable with " << exec->imports.size() << " imported modules cannot be exported";
  std::vector<std::pair<std::string, std::string>> data = {{std::string(kExecutableSymbol), exec->SaveToBytes()}};
  if (!exec->imports.empty()) {
    ExportModuleLibrary(exec->imports[0], path, data);  // the backend that built the kernels writes the library
    return;
  }
  // No kernels: the host backend writes a library of the data alone.
  auto writer = Registry::Get("codegen.ExportDataLibrary");
  TESSERA_CHECK_OR_THROW(writer.has_value(), RuntimeError)
      << "export_library needs the Tessera compiler (libtessera), which is not loaded";
  (*writer)(path, std::string(kExecutableSymbol), String(data[0].second));
});
// A copy of the executable whose packed calls resolve first in `lib` (the
// compiled TIR functions; VMLink).
TESSERA_REGISTER_GLOBAL("relax.ExecutableLinkLibrary").set_body_typed([](Module m, Module lib) {
  ExecutableNode* exec = AsExec(m, "link");
  auto out = make_object<ExecutableNode>(*exec);
  out->imports = {lib};
  return Module(ObjectPtr<Object>(std::move(out)));
});
TESSERA_REGISTER_GLOBAL("relax.ExecutableNumInstructions").set_body_typed([](Module m) {
  return static_cast<int64_t>(AsExec(m, "num_instructions")->NumInstructions());
});
TESSERA_REGISTER_GLOBAL("relax.ExecutableFunctionNames").set_body_typed([](Module m) {
  std::vector<std::string> names;
  for (const VMFuncInfo& f : AsExec(m, "function_names")->func_table) {
    if (f.kind == VMFuncInfo::FuncKind::kVMFunc) names.push_back(f.name);
  }
  return Array<String>(names.begin(), names.end());
});

}  // namespace tessera::runtime::vm
