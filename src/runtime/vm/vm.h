// The virtual machine: interprets an Executable's bytecode. Registers are
// held in frames that are pooled and reused, so a call allocates nothing in
// steady state; Call dispatches to VM functions (in the same loop, without
// C++ recursion), packed functions (TIR kernels of the executable's library
// or global functions) and closures; If runs only the taken branch. As a
// Module ("relax.VirtualMachine") it exposes each VM function by name plus
// the API of tvm.runtime.relax_vm.VirtualMachine. Runtime layer.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/vm/executable.h"
#include "runtime/vm/memory.h"
#include "runtime/vm/profiler.h"

namespace tessera::runtime::vm {

// A function value of the VM: a VM function (or a packed function) with
// arguments possibly bound (vm.builtin.make_closure). `impl` takes the
// remaining arguments.
class VMClosureObj : public Object {
 public:
  std::string func_name;
  PackedFunc impl;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(VMClosureObj, Object, "relax.vm.Closure");
};
class VMClosure : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(VMClosure, ObjectRef, VMClosureObj);
  VMClosure(std::string func_name, PackedFunc impl);
};

class VirtualMachineNode : public ModuleNode {
 public:
  explicit VirtualMachineNode(ObjectPtr<ExecutableNode> exec);

  // Sets the devices (index 0 is where tensors are allocated by default).
  void Init(std::vector<Device> devices);
  const std::vector<Device>& devices() const { return devices_; }
  Device GetDevice(int64_t index) const;

  // Calls VM function `func_idx` with `args`; TypeError naming the function
  // on a wrong argument count.
  Any Invoke(Index func_idx, const Any* args, int nargs);
  Any Invoke(const std::string& name, const Any* args, int nargs);
  // Calls a closure (VMClosure or PackedFunc) with `args`.
  Any InvokeClosure(const Any& closure, const Any* args, int nargs);
  // A closure calling function `func_idx`.
  VMClosure GetClosure(Index func_idx);

  StoragePool& storage_pool() { return pool_; }
  const ExecutableNode& exec() const { return *exec_; }

  std::string type_key() const override { return "relax.VirtualMachine"; }
  std::optional<PackedFunc> GetFunction(const std::string& name) const override;
  std::vector<std::string> ListFunctions() const override;

  TESSERA_DECLARE_FINAL_OBJECT_INFO(VirtualMachineNode, ModuleNode, "relax.VirtualMachine");

 private:
  struct Frame {
    Index func_idx = 0;
    Index return_pc = 0;
    RegName caller_return_register = kVoidRegister;
    std::vector<Any> registers;
    std::vector<Any> call_args;  // scratch for the arguments of a packed call
  };
  // Stateful calls (set_input / invoke_stateful / get_outputs).
  struct StatefulSlot {
    std::vector<Any> inputs;
    Any output;
    bool has_output = false;
  };

  Frame* PushFrame(Index func_idx, Index return_pc, RegName ret_reg);
  void PopFrame();
  Any RunLoop(size_t base_depth, Index pc);
  const Any& ReadRegister(const Frame* f, RegName r);
  Any ReadArg(const Frame* f, Arg a);
  const PackedFunc& ResolvePacked(Index func_idx, Index caller_idx);
  Index CheckedFunction(const std::string& name) const;
  // `v` with every executable constant it is or holds (in tuples) replaced
  // by a copy: what a call returns belongs to the caller, and writing into it
  // must not change what later calls return.
  Any DetachConstants(const Any& v) const;

  ObjectPtr<ExecutableNode> exec_;
  std::vector<Device> devices_;
  std::vector<std::optional<PackedFunc>> packed_;  // by func index; kPackedFunc entries
  std::vector<Index> max_call_args_;                // by func index; kVMFunc entries
  // The executable's constants, tensors on devices_[0] (PlaceConstants).
  void PlaceConstants();
  std::vector<Any> constants_;
  std::unordered_set<const Object*> constant_arrays_;  // the NDArray constants of constants_
  std::vector<std::unique_ptr<Frame>> frames_;      // frames_[0, depth_) are live
  size_t depth_ = 0;
  StoragePool pool_;
  std::unordered_map<std::string, StatefulSlot> stateful_;
  struct SavedCall {
    Index func_idx = 0;
    std::vector<Any> args;
    bool include_return = true;
  };
  std::unordered_map<std::string, std::shared_ptr<const SavedCall>> saved_;  // save_function
  // Set while vm.profile runs: every packed call is timed into it.
  std::unique_ptr<VMProfiler> profiler_;
  // The thread running the VM (re-entry from it is allowed; see VMEntryGuard).
  std::atomic<std::thread::id> owner_{};
  bool initialized_ = false;

  friend class VMEntryGuard;
};

using VirtualMachine = ObjectPtr<VirtualMachineNode>;

// The VM behind the kVMRegister argument a builtin receives.
VirtualMachineNode* VMFromArg(const Any& arg, const char* builtin);

// Loads the executable serialized in an exported library (see executable.h)
// and returns it as a module importing `lib`.
Module LoadExecutableFromLibrary(const Module& lib, const std::string& bytes);

}  // namespace tessera::runtime::vm
