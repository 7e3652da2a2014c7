// NVRTC: CUDA C -> PTX or cubin at run time, through libnvrtc loaded with
// dlopen (no CUDA headers or libraries at build time). Search order:
// $TESSERA_NVRTC_LIBRARY, $CUDA_HOME/lib64, /usr/local/cuda/lib64, then the
// directories registered by the Python package (PyPI's nvidia-cuda-nvrtc-cu12).
// Used by the CUDA build (target.build.cuda) and tvm.contrib.nvcc.
#pragma once

#include <string>
#include <vector>

namespace tessera {
namespace codegen {

struct NVRTCResult {
  std::string binary;  // PTX text (NUL-free) or cubin bytes
  std::string format;  // "ptx" or "cubin"
  std::string log;     // NVRTC's compile log (warnings)
};

// Compiles `source` for `arch` ("sm_80", "sm_90a", "compute_80", or "80"). `format` is "ptx" (virtual arch
// compute_XX) or "cubin" (real arch sm_XX). Raises ValueError quoting NVRTC's log and the offending source line
// on a compile error, ValueError for a bad arch/format, RuntimeError when NVRTC cannot be loaded.
NVRTCResult NVRTCCompile(const std::string& source, const std::string& arch, const std::string& format = "ptx",
                         const std::vector<std::string>& options = {});

// A CUDA architecture read from "sm_90a", "compute_80", "86" or "8.6": {90, "a"}, {80, ""}, {86, ""}. The one
// parser of -arch values (NVRTC's options, the CUDA build's choice of architecture); anything else is a
// ValueError naming the value.
struct CUDAArch {
  int number;
  std::string suffix;  // "", "a" or "f"
};
CUDAArch ParseCUDAArch(const std::string& arch);

// Whether libnvrtc can be loaded; `why` says why not.
bool NVRTCAvailable(std::string* why = nullptr);

// Where the loaded libnvrtc came from, its version ("12.9") and the include directories passed to it.
std::string NVRTCLibraryPath();
std::string NVRTCVersion();
std::vector<std::string> NVRTCIncludeDirs();
// The architectures (e.g. 75, 80, 90) this NVRTC compiles for, ascending;
// empty when NVRTC is missing or cannot list them (NVRTC < 11.2).
std::vector<int> NVRTCSupportedArchs();

// Registers a fallback library directory and its include directory (searched after the toolkit's); call
// before the first compile. The Python package registers PyPI's nvidia-cuda-nvrtc-cu12/-runtime-cu12.
void NVRTCAddSearchPath(const std::string& lib_dir, const std::string& include_dir);

}  // namespace codegen
}  // namespace tessera
