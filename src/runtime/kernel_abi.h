// The calling convention between the runtime and compiled kernels, and the
// description of each kernel's parameters (names, dtypes, shapes with
// symbolic dimensions) that the runtime uses to check arguments before a
// call. Runtime layer: shared by the code generators (which emit kernels
// and their FunctionInfo) and by the modules that call them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/data_type.h"
#include "runtime/device.h"
#include "runtime/packed_func.h"

namespace tessera {

// A compiled kernel: `int32_t kernel(void** args)`. For parameter i, args[i]
// points to the first element of a buffer, or to an int64_t / double holding
// a scalar. Then one int64_t* per symbolic variable (FunctionInfo::sym_vars).
// Returns 0, or nonzero after calling TesseraSetLastError.
using KernelFn = int32_t (*)(void** args);

struct ShapeDim {
  int64_t value = 0;    // used when sym < 0
  int sym = -1;         // index into FunctionInfo::sym_vars, or -1 for a constant
};

// A buffer dimension given by an expression of the size variables (a reshape to 3 * n):
// the argument's extent is bound to its own slot `sym`, then checked against `code`
// evaluated over the bound variables (postfix: ShapeOp, with an operand after kConst,
// kVar (a sym_vars slot) and kParam (an integer scalar parameter)). A mismatch raises ValueError naming the parameter, the dimension and `text`.
enum ShapeOp : int64_t { kConst = 0, kVar, kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax, kParam };
struct ShapeCheck {
  int param = 0;               // the parameter and dimension (for the message)
  int dim = 0;
  int sym = 0;                 // the slot holding the argument's extent
  std::string text;            // the expression as written (3 * n)
  std::vector<int64_t> code;   // postfix program over FunctionInfo::sym_vars
};

struct ParamInfo {
  std::string name;
  bool is_buffer = true;
  DataType dtype;
  std::vector<ShapeDim> shape;  // buffers only
  // Buffers: the alignment in bytes the kernel assumes for the data pointer
  // (the buffer's data_alignment, told to LLVM); 0 for none. The call
  // passes a misaligned array through an aligned copy (copied back after).
  int64_t alignment = 0;
};

struct FunctionInfo {
  std::string name;
  // Where the kernel's buffer arguments must live (DLDeviceType; the target
  // kind's device type): arrays elsewhere are refused naming the parameter.
  int device_type = kDLCPU;
  std::vector<ParamInfo> params;
  std::vector<std::string> sym_vars;  // symbolic shape variables bound from arguments
  std::vector<ShapeCheck> checks;     // dimensions that are expressions of them (checked after binding)
  int num_threads = 0;                // the target's -num-cores: caps its parallel loops (0: no cap)
  std::string ToJSON() const;
  static FunctionInfo FromJSON(const std::string& json);
  static std::vector<FunctionInfo> ListFromJSON(const std::string& json);
  static std::string ListToJSON(const std::vector<FunctionInfo>& infos);
};

// The symbol under which the kernel of function `name` is exported.
inline std::string KernelSymbol(const std::string& name) { return "tessera_kernel_" + name; }

// Wraps a kernel as a PackedFunc taking NDArrays / numbers. Checks argument
// count, types, ndim, shape (binding symbolic dimensions consistently),
// dtype and device, raising ValueError/TypeError naming the parameter with
// expected vs got. An array whose data is not aligned to its parameter's
// `alignment` (a zero-copy DLPack view at an odd offset) is staged through
// an aligned temporary, copied back after the call. `keep_alive` is held by the function (e.g. the module).
// `num_threads` > 0 sets the threads its parallel loops use (the target's
// --num-cores); 0 uses info.num_threads, else the runtime default (the CPUs
// available, or TESSERA_NUM_THREADS; runtime/thread_pool.h).
PackedFunc MakeKernelFunction(const FunctionInfo& info, KernelFn fn, ObjectRef keep_alive, int num_threads = 0);

class ModuleNode;
// What a host function running on this thread launches device kernels from
// (TesseraLaunchKernel): the module whose function it is (its imports hold the
// device modules) and the device its arrays are on. Set by the function made
// by MakeKernelFunction for the duration of a call when the function's
// device_type is not the CPU (`keep_alive` is then its module); empty otherwise.
struct KernelLaunchContext {
  const ModuleNode* module = nullptr;
  Device device{kDLCPU, 0};
};
const KernelLaunchContext& CurrentKernelLaunchContext();
// The message a kernel or runtime entry recorded on this thread (TesseraSetLastError).
const std::string& KernelLastError();

}  // namespace tessera

extern "C" {
// Called by kernels to report an error before returning nonzero.
void TesseraSetLastError(const char* msg);
// Called by kernels for an index outside its axis (tir.checked_index): records
// "IndexError: <what>: index <index> is out of bounds for size <extent>".
void TesseraSetIndexError(const char* what, int64_t index, int64_t extent);
// Runs task(i, data) for i in [0, num_tasks) in parallel; returns 0 on success.
int32_t TesseraParallelFor(int32_t (*task)(int32_t i, void* data), void* data, int32_t num_tasks);
// Workspace allocation for large intermediate buffers (64-byte aligned).
void* TesseraWorkspaceAlloc(int64_t nbytes);
void TesseraWorkspaceFree(void* ptr);
// Device memory for a buffer the host part of a device function allocates
// (shared by its kernels), on the device of the running call
// (KernelLaunchContext). On failure returns null after recording a
// MemoryError (the next launch, given the null pointer, reports it).
void* TesseraDeviceWorkspaceAlloc(int64_t nbytes);
void TesseraDeviceWorkspaceFree(void* ptr);
// Launches device kernel `name` of the calling host function's imported device
// modules (KernelLaunchContext) on grid (gx, gy, gz) and blocks (bx, by, bz)
// with `dyn_shmem` bytes of dynamic shared memory; args[i] points at the i-th
// kernel argument's value. Returns 0, or nonzero after TesseraSetLastError.
// Defined with the CUDA module (runtime/cuda/cuda_module.cc).
int32_t TesseraLaunchKernel(const char* name, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by, int64_t bz,
                            int64_t dyn_shmem, void** args, int32_t nargs);
}
