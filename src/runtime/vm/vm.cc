// The VM interpreter and its module API (see vm.h).
#include "runtime/vm/vm.h"

#include "runtime/array.h"
#include "runtime/device_api.h"
#include "runtime/interrupt.h"
#include "runtime/registry.h"
#include "runtime/shape_tuple.h"
#include "runtime/stack_guard.h"

namespace tessera::runtime::vm {

namespace {
// Frames live at once (VM calls nested in VM calls, closures included).
constexpr size_t kMaxCallDepth = 4096;
}  // namespace

VMClosure::VMClosure(std::string func_name, PackedFunc impl) {
  auto n = make_object<VMClosureObj>();
  n->func_name = std::move(func_name);
  n->impl = std::move(impl);
  data_ = ObjectPtr<Object>(std::move(n));
}

// Marks the calling thread as the VM's user for the duration of a call from
// outside; a second thread gets RuntimeError instead of a corrupted VM.
[[noreturn]] static void ThrowInterrupted(const ExecutableNode& exec, Index func_idx) {
  ThrowErrorOfKind("KeyboardInterrupt",
                   "VM function " + exec.func_table[static_cast<size_t>(func_idx)].name + " was interrupted (SIGINT)");
}

class VMEntryGuard {
 public:
  explicit VMEntryGuard(VirtualMachineNode* vm) : vm_(vm) {
    const std::thread::id me = std::this_thread::get_id();
    std::thread::id expected{};
    if (vm_->owner_.compare_exchange_strong(expected, me, std::memory_order_acquire)) {
      outermost_ = true;
    } else if (expected != me) {
      TESSERA_THROW(RuntimeError) << "this VirtualMachine is running on another thread; "
                                     "create one VirtualMachine per thread";
    }
  }
  ~VMEntryGuard() {
    if (outermost_) vm_->owner_.store(std::thread::id{}, std::memory_order_release);
  }

 private:
  VirtualMachineNode* vm_;
  bool outermost_ = false;
};

VirtualMachineNode::VirtualMachineNode(ObjectPtr<ExecutableNode> exec) : exec_(std::move(exec)) {
  exec_->Validate();
  const size_t n = exec_->func_table.size();
  packed_.resize(n);
  max_call_args_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const VMFuncInfo& f = exec_->func_table[i];
    if (f.kind == VMFuncInfo::FuncKind::kPackedFunc) {
      // The executable's library first, then the global registry; names
      // still missing are looked up again at their first call.
      for (const Module& m : exec_->imports) {
        if (auto fn = m->GetFunction(f.name)) {
          packed_[i] = *fn;
          break;
        }
      }
      if (!packed_[i]) packed_[i] = Registry::Get(f.name);
    } else {
      for (Index pc = f.start_instr; pc < f.end_instr; ++pc) {
        Instruction in = exec_->GetInstruction(pc);
        if (in.op == Opcode::kCall) max_call_args_[i] = std::max(max_call_args_[i], in.num_args);
      }
    }
  }
  devices_ = {CPU()};
  PlaceConstants();
}

void VirtualMachineNode::PlaceConstants() {
  // Tensor constants live on the VM's first device (uploaded once here, as
  // TVM's VM does), so that kernels of a device target get device memory.
  constants_ = exec_->constants;
  constant_arrays_.clear();
  for (Any& c : constants_) {
    if (c.as<NDArrayObj>() == nullptr) continue;
    NDArray arr = c.cast<NDArray>();
    Device dev = arr.device();
    if (dev.device_type != devices_[0].device_type || dev.device_id != devices_[0].device_id) {
      c = arr.CopyTo(devices_[0]);
    }
    constant_arrays_.insert(c.raw_object().get());
  }
}

Any VirtualMachineNode::DetachConstants(const Any& v) const {
  if (constant_arrays_.empty() || !v.is_object()) return v;
  if (v.as<NDArrayObj>() != nullptr) {
    if (!constant_arrays_.count(v.raw_object().get())) return v;
    NDArray arr = v.cast<NDArray>();
    return arr.CopyTo(arr.device());
  }
  const auto* tuple = v.as<ArrayObj>();
  if (tuple == nullptr) return v;
  CheckStack("VM result tuple");
  std::vector<Any> fields = tuple->data;
  bool changed = false;
  for (Any& field : fields) {
    Any detached = DetachConstants(field);
    if (detached.is_object() && !detached.raw_object().same_as(field.raw_object())) {
      field = std::move(detached);
      changed = true;
    }
  }
  return changed ? Any(Array<Any>(std::move(fields))) : v;
}

void VirtualMachineNode::Init(std::vector<Device> devices) {
  TESSERA_CHECK_OR_THROW(!devices.empty(), ValueError) << "VirtualMachine needs at least one device";
  devices_ = std::move(devices);
  PlaceConstants();
  initialized_ = true;
}

Device VirtualMachineNode::GetDevice(int64_t index) const {
  TESSERA_CHECK_OR_THROW(index >= 0 && static_cast<size_t>(index) < devices_.size(), ValueError)
      << "device index " << index << " out of range: the VM has " << devices_.size() << " device(s)";
  return devices_[static_cast<size_t>(index)];
}

VirtualMachineNode::Frame* VirtualMachineNode::PushFrame(Index func_idx, Index return_pc, RegName ret_reg) {
  if (depth_ >= kMaxCallDepth) {
    throw RecursionError("VM call depth exceeds " + std::to_string(kMaxCallDepth) + " frames (calling " +
                         exec_->func_table[static_cast<size_t>(func_idx)].name + "; unbounded recursion?)");
  }
  if (depth_ == frames_.size()) frames_.push_back(std::make_unique<Frame>());
  Frame* f = frames_[depth_++].get();
  const VMFuncInfo& info = exec_->func_table[static_cast<size_t>(func_idx)];
  if (f->registers.size() < static_cast<size_t>(info.register_file_size)) {
    f->registers.resize(static_cast<size_t>(info.register_file_size));
  }
  if (f->call_args.size() < static_cast<size_t>(max_call_args_[static_cast<size_t>(func_idx)])) {
    f->call_args.resize(static_cast<size_t>(max_call_args_[static_cast<size_t>(func_idx)]));
  }
  f->func_idx = func_idx;
  f->return_pc = return_pc;
  f->caller_return_register = ret_reg;
  return f;
}

void VirtualMachineNode::PopFrame() {
  Frame* f = frames_[--depth_].get();
  // Drop the frame's references so storage and tensors become reusable.
  const Index n = exec_->func_table[static_cast<size_t>(f->func_idx)].register_file_size;
  for (Index i = 0; i < n; ++i) f->registers[static_cast<size_t>(i)] = Any();
}

const Any& VirtualMachineNode::ReadRegister(const Frame* f, RegName r) {
  static const Any kNone;
  if (r < kBeginSpecialReg) return f->registers[static_cast<size_t>(r)];
  return kNone;  // kVoidRegister; kVMRegister is handled by ReadArg
}

Any VirtualMachineNode::ReadArg(const Frame* f, Arg a) {
  const ExecWord v = a.value();
  switch (a.kind()) {
    case Arg::Kind::kRegister:
      if (v == kVMRegister) return Any(static_cast<void*>(this));
      return ReadRegister(f, v);
    case Arg::Kind::kImmediate: return Any(v);
    case Arg::Kind::kConstIdx: return constants_[static_cast<size_t>(v)];
    case Arg::Kind::kFuncIdx: {
      const VMFuncInfo& info = exec_->func_table[static_cast<size_t>(v)];
      if (info.kind == VMFuncInfo::FuncKind::kVMFunc) return GetClosure(v);
      return ResolvePacked(v, f->func_idx);
    }
  }
  return Any();
}

const PackedFunc& VirtualMachineNode::ResolvePacked(Index func_idx, Index caller_idx) {
  std::optional<PackedFunc>& slot = packed_[static_cast<size_t>(func_idx)];
  if (!slot) {
    const std::string& name = exec_->func_table[static_cast<size_t>(func_idx)].name;
    slot = Registry::Get(name);
    TESSERA_CHECK_OR_THROW(slot.has_value(), ValueError)
        << "VM function " << exec_->func_table[static_cast<size_t>(caller_idx)].name << " calls '" << name
        << "', which is neither a function of the executable's library nor a registered global function "
           "(register it with tvm.register_func)";
  }
  return *slot;
}

VMClosure VirtualMachineNode::GetClosure(Index func_idx) {
  ObjectPtr<VirtualMachineNode> self(this);
  const std::string& name = exec_->func_table[static_cast<size_t>(func_idx)].name;
  return VMClosure(name, PackedFunc([self, func_idx](PackedArgs args) -> Any {
    return self->Invoke(func_idx, args.data(), args.size());
  }, name));
}

Index VirtualMachineNode::CheckedFunction(const std::string& name) const {
  Index idx = exec_->FindFunction(name);
  TESSERA_CHECK_OR_THROW(idx >= 0 && exec_->func_table[static_cast<size_t>(idx)].kind == VMFuncInfo::FuncKind::kVMFunc,
                         ValueError)
      << "the VM executable has no function '" << name << "'";
  return idx;
}

Any VirtualMachineNode::Invoke(const std::string& name, const Any* args, int nargs) {
  return Invoke(CheckedFunction(name), args, nargs);
}

Any VirtualMachineNode::Invoke(Index func_idx, const Any* args, int nargs) {
  VMEntryGuard guard(this);
  CheckStack("VM call");
  const VMFuncInfo& info = exec_->func_table[static_cast<size_t>(func_idx)];
  if (info.kind != VMFuncInfo::FuncKind::kVMFunc) {
    return ResolvePacked(func_idx, func_idx).CallPacked(PackedArgs(args, nargs));
  }
  if (nargs != info.num_args) {
    TESSERA_THROW(TypeError) << info.name << "() takes " << info.num_args << " argument"
                             << (info.num_args == 1 ? "" : "s") << " but " << nargs << (nargs == 1 ? " was" : " were")
                             << " given";
  }
  // One SIGINT scope for the whole call: the kernels it calls nest in it and
  // so skip installing the handler each (three system calls per kernel
  // otherwise, the larger part of a small kernel's call cost).
  InterruptScope interrupt_scope;
  const size_t base = depth_;
  Frame* f = PushFrame(func_idx, -1, kVoidRegister);
  for (int i = 0; i < nargs; ++i) f->registers[static_cast<size_t>(i)] = args[i];
  try {
    return DetachConstants(RunLoop(base, info.start_instr));
  } catch (...) {
    while (depth_ > base) PopFrame();
    throw;
  }
}

Any VirtualMachineNode::RunLoop(size_t base_depth, Index pc) {
  const ExecutableNode& exec = *exec_;
  for (;;) {
    const Instruction in = exec.GetInstruction(pc);
    Frame* f = frames_[depth_ - 1].get();
    switch (in.op) {
      case Opcode::kCall: {
        const VMFuncInfo& callee = exec.func_table[static_cast<size_t>(in.func_idx)];
        if (callee.kind == VMFuncInfo::FuncKind::kVMFunc) {
          TESSERA_CHECK_OR_THROW(in.num_args == callee.num_args, TypeError)
              << callee.name << "() takes " << callee.num_args << " arguments but " << in.num_args
              << " were given (called from " << exec.func_table[static_cast<size_t>(f->func_idx)].name << ")";
          Frame* callee_frame = PushFrame(in.func_idx, pc + 1, in.dst);
          for (Index i = 0; i < in.num_args; ++i) callee_frame->registers[static_cast<size_t>(i)] = ReadArg(f, in.arg(i));
          pc = callee.start_instr;
          break;
        }
        const PackedFunc& fn = ResolvePacked(in.func_idx, f->func_idx);
        Any* call_args = f->call_args.data();
        for (Index i = 0; i < in.num_args; ++i) call_args[i] = ReadArg(f, in.arg(i));
        Any ret;
        if (profiler_ == nullptr) {
          ret = fn.CallPacked(PackedArgs(call_args, static_cast<int>(in.num_args)));
        } else {
          const auto t0 = VMProfiler::Clock::now();
          ret = fn.CallPacked(PackedArgs(call_args, static_cast<int>(in.num_args)));
          const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(VMProfiler::Clock::now() - t0).count();
          if (profiler_ != nullptr) profiler_->Record(callee.name, ns, call_args, static_cast<int>(in.num_args));
        }
        // Ctrl-C while a packed function ran (Python's handler is suspended during the call).
        if (InterruptScope::Requested()) ThrowInterrupted(exec, f->func_idx);
        // The callee may have re-entered the VM (frames_ may have grown): re-read the frame.
        f = frames_[depth_ - 1].get();
        for (Index i = 0; i < in.num_args; ++i) f->call_args[static_cast<size_t>(i)] = Any();
        if (in.dst != kVoidRegister) f->registers[static_cast<size_t>(in.dst)] = std::move(ret);
        ++pc;
        break;
      }
      case Opcode::kRet: {
        Any result = ReadRegister(f, in.result);
        const Index return_pc = f->return_pc;
        const RegName ret_reg = f->caller_return_register;
        PopFrame();
        if (depth_ == base_depth) return result;
        if (ret_reg != kVoidRegister) frames_[depth_ - 1]->registers[static_cast<size_t>(ret_reg)] = std::move(result);
        pc = return_pc;
        break;
      }
      case Opcode::kGoto:
        if (in.pc_offset <= 0 && InterruptScope::Requested()) ThrowInterrupted(exec, f->func_idx);
        pc += in.pc_offset;
        break;
      case Opcode::kIf: {
        const Any& c = ReadRegister(f, in.cond);
        int64_t cond = 0;
        if (c.kind() == Any::Kind::kInt || c.kind() == Any::Kind::kBool) {
          cond = c.raw_int();
        } else {
          TESSERA_THROW(TypeError) << "VM function " << exec.func_table[static_cast<size_t>(f->func_idx)].name
                                   << ": the condition of If (register " << RegisterName(in.cond)
                                   << ") must be an int or bool, got " << c.type_name()
                                   << " (read tensors with vm.builtin.read_if_cond)";
        }
        pc += cond != 0 ? 1 : in.false_offset;
        break;
      }
    }
  }
}

Any VirtualMachineNode::InvokeClosure(const Any& closure, const Any* args, int nargs) {
  if (const auto* c = closure.as<VMClosureObj>()) return c->impl.CallPacked(PackedArgs(args, nargs));
  if (const auto* p = closure.as<PackedFuncObj>()) return p->body(PackedArgs(args, nargs));
  TESSERA_THROW(TypeError) << "invoke_closure: expected a closure or function, got " << closure.type_name();
}

VirtualMachineNode* VMFromArg(const Any& arg, const char* builtin) {
  TESSERA_CHECK_OR_THROW(arg.kind() == Any::Kind::kHandle && arg.raw_handle() != nullptr, TypeError)
      << builtin << ": the first argument must be the VM (the kVMRegister operand), got " << arg.type_name();
  return static_cast<VirtualMachineNode*>(arg.raw_handle());
}

namespace {

// Nested outputs: index into tuples (Arrays) along `idx`.
const Any& OutputAt(const Any& out, PackedArgs args, int first, const std::string& fn) {
  const Any* cur = &out;
  for (int i = first; i < args.size(); ++i) {
    const auto* arr = cur->as<ArrayObj>();
    TESSERA_CHECK_OR_THROW(arr != nullptr, IndexError) << "get_output(" << fn << "): output is not a tuple at depth " << i - first;
    int64_t k = args[i].cast<int64_t>();
    TESSERA_CHECK_OR_THROW(k >= 0 && static_cast<size_t>(k) < arr->data.size(), IndexError)
        << "get_output(" << fn << "): index " << k << " out of range for a tuple of " << arr->data.size();
    cur = &arr->data[static_cast<size_t>(k)];
  }
  return *cur;
}

}  // namespace

std::vector<std::string> VirtualMachineNode::ListFunctions() const {
  std::vector<std::string> out;
  for (const VMFuncInfo& f : exec_->func_table)
    if (f.kind == VMFuncInfo::FuncKind::kVMFunc) out.push_back(f.name);
  for (const auto& kv : saved_) out.push_back(kv.first);
  return out;
}

std::optional<PackedFunc> VirtualMachineNode::GetFunction(const std::string& name) const {
  ObjectPtr<VirtualMachineNode> self(const_cast<VirtualMachineNode*>(this));
  Index idx = exec_->FindFunction(name);
  if (idx >= 0 && exec_->func_table[static_cast<size_t>(idx)].kind == VMFuncInfo::FuncKind::kVMFunc) {
    return PackedFunc([self, idx](PackedArgs args) -> Any { return self->Invoke(idx, args.data(), args.size()); }, name);
  }
  if (auto it = saved_.find(name); it != saved_.end()) {
    std::shared_ptr<const SavedCall> call = it->second;
    return PackedFunc([self, call](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() == 0, TypeError)
          << "a saved function takes no arguments (they were bound by save_function), got " << args.size();
      Any r = self->Invoke(call->func_idx, call->args.data(), static_cast<int>(call->args.size()));
      return call->include_return ? r : Any();
    }, name);
  }
  if (name == "vm_initialization") {
    // (device_type, device_id, alloc_type)*: alloc_type 1 (naive) or 2 (pooled).
    return PackedFunc([self](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() % 3 == 0 && args.size() > 0, TypeError)
          << "vm_initialization expects (device_type, device_id, alloc_type) triples, got " << args.size() << " values";
      std::vector<Device> devs;
      for (int i = 0; i < args.size(); i += 3) {
        int64_t type = args[i].cast<int64_t>(), id = args[i + 1].cast<int64_t>(), alloc = args[i + 2].cast<int64_t>();
        TESSERA_CHECK_OR_THROW(alloc == 1 || alloc == 2, ValueError)
            << "vm_initialization: allocator type " << alloc << " is unknown (1 = naive, 2 = pooled)";
        Device d{static_cast<DLDeviceType>(type), static_cast<int>(id)};
        TESSERA_CHECK_OR_THROW(DeviceAPI::Get(d)->Exists(d.device_id), ValueError)
            << "VirtualMachine: device " << d.str() << " does not exist on this machine";
        devs.push_back(d);
      }
      self->Init(std::move(devs));
      return Any();
    }, name);
  }
  if (name == "invoke_closure") {
    return PackedFunc([self](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "invoke_closure(closure, *args) needs a closure";
      return self->InvokeClosure(args[0], args.data() + 1, args.size() - 1);
    }, name);
  }
  if (name == "get_function_arity") {
    return PackedFunc::FromTyped([self](std::string fn) {
      return self->exec_->func_table[static_cast<size_t>(self->CheckedFunction(fn))].num_args;
    }, name);
  }
  if (name == "get_function_param_name") {
    return PackedFunc::FromTyped([self](std::string fn, int64_t i) -> std::string {
      const VMFuncInfo& f = self->exec_->func_table[static_cast<size_t>(self->CheckedFunction(fn))];
      TESSERA_CHECK_OR_THROW(i >= 0 && i < f.num_args, IndexError)
          << fn << " has " << f.num_args << " parameters; index " << i << " is out of range";
      return f.param_names.empty() ? "arg" + std::to_string(i) : f.param_names[static_cast<size_t>(i)];
    }, name);
  }
  if (name == "set_input") {
    return PackedFunc([self](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "set_input(func_name, *args) needs a function name";
      std::string fn = args[0].cast<std::string>();
      const VMFuncInfo& f = self->exec_->func_table[static_cast<size_t>(self->CheckedFunction(fn))];
      if (args.size() - 1 != f.num_args) {
        TESSERA_THROW(TypeError) << "set_input: " << fn << "() takes " << f.num_args << " arguments but "
                                 << args.size() - 1 << " were given";
      }
      StatefulSlot& slot = self->stateful_[fn];
      slot.inputs.assign(args.data() + 1, args.data() + args.size());
      return Any();
    }, name);
  }
  if (name == "invoke_stateful") {
    return PackedFunc::FromTyped([self](std::string fn) {
      auto it = self->stateful_.find(fn);
      TESSERA_CHECK_OR_THROW(it != self->stateful_.end(), ValueError)
          << "invoke_stateful(" << fn << "): call set_input(\"" << fn << "\", ...) first";
      StatefulSlot& slot = it->second;
      slot.output = Any();  // release the previous output before the call
      slot.has_output = false;
      slot.output = self->Invoke(fn, slot.inputs.data(), static_cast<int>(slot.inputs.size()));
      slot.has_output = true;
    }, name);
  }
  if (name == "get_output_arity" || name == "get_output") {
    const bool arity = name == "get_output_arity";
    return PackedFunc([self, arity](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "get_output(func_name, *index) needs a function name";
      std::string fn = args[0].cast<std::string>();
      auto it = self->stateful_.find(fn);
      TESSERA_CHECK_OR_THROW(it != self->stateful_.end() && it->second.has_output, ValueError)
          << "get_outputs(" << fn << "): no output yet; call invoke_stateful(\"" << fn << "\") first";
      const Any& out = OutputAt(it->second.output, args, 1, fn);
      if (!arity) return out;
      const auto* arr = out.as<ArrayObj>();
      return arr == nullptr ? int64_t{-1} : static_cast<int64_t>(arr->data.size());
    }, name);
  }
  if (name == "profile") {
    // profile(func_name, *args): one call of func_name with every packed call
    // timed; returns VMProfiler::Rows() (python/tessera/runtime/profiling.py).
    return PackedFunc([self](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "profile(func_name, *args) needs a function name";
      Index idx = self->CheckedFunction(args[0].cast<std::string>());
      TESSERA_CHECK_OR_THROW(self->profiler_ == nullptr, RuntimeError) << "profile: already profiling (nested call)";
      self->profiler_ = std::make_unique<VMProfiler>();
      struct Off {
        VirtualMachineNode* vm;
        ~Off() { vm->profiler_.reset(); }
      } off{self.get()};
      const auto t0 = VMProfiler::Clock::now();
      self->Invoke(idx, args.data() + 1, args.size() - 1);
      self->profiler_->RecordInvoke(
          std::chrono::duration_cast<std::chrono::nanoseconds>(VMProfiler::Clock::now() - t0).count());
      return self->profiler_->Rows();
    }, name);
  }
  if (name == "save_function") {
    // save_function(func_name, saved_name, include_return, *args)
    return PackedFunc([self](PackedArgs args) -> Any {
      TESSERA_CHECK_OR_THROW(args.size() >= 3, TypeError)
          << "save_function(func_name, saved_name, include_return, *args) needs 3 leading arguments";
      std::string fn = args[0].cast<std::string>();
      std::string saved = args[1].cast<std::string>();
      bool include_return = args[2].cast<bool>();
      Index idx = self->CheckedFunction(fn);
      const VMFuncInfo& f = self->exec_->func_table[static_cast<size_t>(idx)];
      if (args.size() - 3 != f.num_args) {
        TESSERA_THROW(TypeError) << "save_function: " << fn << "() takes " << f.num_args << " arguments but "
                                 << args.size() - 3 << " were given";
      }
      auto call = std::make_shared<SavedCall>();
      call->func_idx = idx;
      call->args.assign(args.data() + 3, args.data() + args.size());
      call->include_return = include_return;
      self->saved_[saved] = std::move(call);
      return Any();
    }, name);
  }
  return std::nullopt;
}

Module LoadExecutableFromLibrary(const Module& lib, const std::string& bytes) {
  ObjectPtr<ExecutableNode> exec = ExecutableNode::LoadFromBytes(bytes);
  exec->imports.push_back(lib);
  return Module(ObjectPtr<Object>(std::move(exec)));
}

TESSERA_REGISTER_OBJECT_TYPE(VMClosureObj);
TESSERA_REGISTER_OBJECT_TYPE(VirtualMachineNode);

// The C++ entry of relax.VirtualMachine(exec_module, devices...): exec_module
// is a relax.Executable module (possibly loaded from a library).
TESSERA_REGISTER_GLOBAL("vm.CreateVirtualMachine").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "vm.CreateVirtualMachine(executable, *devices)";
  Module m = args[0].cast<Module>();
  const auto* exec = m.as<ExecutableNode>();
  TESSERA_CHECK_OR_THROW(exec != nullptr, TypeError)
      << "VirtualMachine expects a relax.Executable (from relax.build or load_module of an exported executable), "
         "got " << (m.defined() ? "a " + m->type_key() + " module" : std::string("None"));
  auto vm = make_object<VirtualMachineNode>(ObjectPtr<ExecutableNode>(const_cast<ExecutableNode*>(exec)));
  std::vector<Device> devs;
  for (int i = 1; i < args.size(); ++i) devs.push_back(args[i].cast<Device>());
  if (devs.empty()) devs.push_back(CPU());
  vm->Init(std::move(devs));
  return Module(ObjectPtr<Object>(std::move(vm)));
});
TESSERA_REGISTER_GLOBAL("vm.LoadExecutableFromLibrary").set_body_typed([](Module lib, std::string bytes) {
  return LoadExecutableFromLibrary(lib, bytes);
});
TESSERA_REGISTER_GLOBAL("vm.StoragePoolSize").set_body_typed([](Module m) {
  const auto* vm = m.as<VirtualMachineNode>();
  TESSERA_CHECK_OR_THROW(vm != nullptr, TypeError) << "vm.StoragePoolSize expects a VirtualMachine";
  return static_cast<int64_t>(const_cast<VirtualMachineNode*>(vm)->storage_pool().size());
});

}  // namespace tessera::runtime::vm
