// CUDAModule: the device module of a CUDA build (type_key "cuda"). It holds
// the generated CUDA C (get_source()), the PTX or cubin NVRTC made of it, and
// per kernel its parameter types and launch tags; it loads the binary into a
// device lazily (cuModuleLoadData, once per device) and launches kernels for
// the host module that imports it (TesseraLaunchKernel, runtime/kernel_abi.h)
// or directly (rt_mod.imported_modules[0]["f_kernel"](*args, *launch_extents),
// as TVM's). It serializes to bytes so export_library can embed it. Runtime layer.
#pragma once

#include <string>
#include <vector>

#include "runtime/data_type.h"
#include "runtime/module.h"

namespace tessera {

struct CUDAKernelInfo {
  std::string name;                      // the kernel's symbol (extern "C")
  std::vector<DataType> params;          // per parameter: handle (a device pointer) or the scalar's type
  std::vector<std::string> launch_tags;  // blockIdx.x/y/z, threadIdx.x/y/z it binds, in that order
  bool dyn_shmem_arg = false;            // direct calls take the dynamic shared memory bytes last
};

// `format` is "ptx" or "cubin"; `binary` what NVRTC produced from `source`.
Module CUDAModuleCreate(std::string source, std::string binary, std::string format,
                        std::vector<CUDAKernelInfo> kernels);

// The bytes export_library embeds, and the module made back from them
// (ValueError naming what is wrong for bytes that are not such a module).
std::string CUDAModuleSave(const Module& mod);
Module CUDAModuleLoad(const std::string& bytes);

}  // namespace tessera
