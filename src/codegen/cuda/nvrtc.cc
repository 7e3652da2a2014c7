// NVRTC loading and compilation (see nvrtc.h). Declares the handful of
// libnvrtc entry points it uses instead of including nvrtc.h.
#include "codegen/cuda/nvrtc.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "runtime/array.h"
#include "runtime/error.h"
#include "runtime/registry.h"

namespace tessera {
namespace codegen {
namespace {

using nvrtcProgram = void*;
using nvrtcResult = int;  // NVRTC_SUCCESS == 0

struct NVRTCApi {
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;  // NVRTC >= 11.1
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetNumSupportedArchs)(int*) = nullptr;  // NVRTC >= 11.2
  nvrtcResult (*GetSupportedArchs)(int*) = nullptr;
};

struct State {
  std::mutex mu;
  bool tried = false;
  bool ok = false;
  std::string why, path, version;
  std::vector<std::string> include_dirs;
  std::vector<std::pair<std::string, std::string>> extra;  // registered (lib dir, include dir)
  NVRTCApi api;
};

State& GetState() {
  static State* s = new State();
  return *s;
}

bool IsFile(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Dirname(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}

// Loads libnvrtc from the candidates in order; fills `s` (called with s.mu held).
void Load(State& s) {
  if (s.tried) return;
  s.tried = true;
  // (library file, include dir) candidates.
  std::vector<std::pair<std::string, std::string>> cands;
  const char* names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"};
  auto add_dir = [&](const std::string& lib_dir, const std::string& inc_dir) {
    for (const char* n : names) cands.emplace_back(lib_dir + "/" + n, inc_dir);
  };
  if (const char* lib = std::getenv("TESSERA_NVRTC_LIBRARY"); lib && *lib) {
    cands.emplace_back(lib, Dirname(Dirname(lib)) + "/include");
  }
  // An NVRTC the process already has (PyTorch preloads its PyPI copy with
  // RTLD_GLOBAL) comes first: a second NVRTC of another minor version would
  // pick up the first one's libnvrtc-builtins by soname and crash.
  for (const char* soname : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}) {
    if (void* h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD); h != nullptr) {
      std::string inc;
      if (const char* home = std::getenv("CUDA_HOME"); home && *home) inc = std::string(home) + "/include";
      if (inc.empty() || !IsFile(inc + "/cuda_fp16.h")) inc = "/usr/local/cuda/include";
      cands.emplace_back(soname, inc);
      dlclose(h);
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) add_dir(std::string(home) + "/lib64", std::string(home) + "/include");
  add_dir("/usr/local/cuda/lib64", "/usr/local/cuda/include");
  for (const auto& [lib_dir, inc_dir] : s.extra) add_dir(lib_dir, inc_dir);
  std::vector<std::string> tried;
  for (const auto& [file, inc] : cands) {
    if (file.find('/') != std::string::npos && !IsFile(file)) continue;
    void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* err = dlerror();
      tried.push_back(file + " (" + (err ? err : "dlopen failed") + ")");
      continue;
    }
    NVRTCApi a;
    bool all = true;
    auto sym = [&](auto& fn, const char* name, bool required) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (fn == nullptr && required) all = false;
    };
    sym(a.GetErrorString, "nvrtcGetErrorString", true);
    sym(a.Version, "nvrtcVersion", true);
    sym(a.CreateProgram, "nvrtcCreateProgram", true);
    sym(a.DestroyProgram, "nvrtcDestroyProgram", true);
    sym(a.CompileProgram, "nvrtcCompileProgram", true);
    sym(a.GetProgramLogSize, "nvrtcGetProgramLogSize", true);
    sym(a.GetProgramLog, "nvrtcGetProgramLog", true);
    sym(a.GetPTXSize, "nvrtcGetPTXSize", true);
    sym(a.GetPTX, "nvrtcGetPTX", true);
    sym(a.GetCUBINSize, "nvrtcGetCUBINSize", false);
    sym(a.GetCUBIN, "nvrtcGetCUBIN", false);
    sym(a.GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", false);
    sym(a.GetSupportedArchs, "nvrtcGetSupportedArchs", false);
    if (!all) {
      tried.push_back(file + " (lacks NVRTC entry points)");
      dlclose(h);
      continue;
    }
    int major = 0, minor = 0;
    a.Version(&major, &minor);
    s.api = a;
    s.ok = true;
    s.path = file;
    s.version = std::to_string(major) + "." + std::to_string(minor);
    // The headers of the same installation first; a registered include dir (PyPI's) as the fallback for cuda_fp16.h.
    if (IsFile(inc + "/cuda_fp16.h")) s.include_dirs.push_back(inc);
    for (const auto& [lib_dir, inc_dir] : s.extra) {
      if (s.include_dirs.empty() && IsFile(inc_dir + "/cuda_fp16.h")) s.include_dirs.push_back(inc_dir);
    }
    return;
  }
  std::ostringstream why;
  why << "NVRTC (libnvrtc.so) was not found: set $TESSERA_NVRTC_LIBRARY or $CUDA_HOME, install the CUDA toolkit, "
         "or `pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12`";
  for (const std::string& t : tried) why << "; tried " << t;
  s.why = why.str();
}

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A ValueError message for a failed compile: the log, then the first erroneous line of the source.
std::string CompileErrorMessage(const std::string& source, const std::string& log, const std::string& file) {
  std::ostringstream os;
  os << "NVRTC failed to compile the CUDA source:\n" << log;
  // NVRTC's "file(LINE): error ..." or "file(LINE): catastrophic error ...".
  size_t at = log.find("): error");
  if (at == std::string::npos) at = log.find("): catastrophic error");
  size_t open = at == std::string::npos ? std::string::npos : log.rfind('(', at);
  if (open != std::string::npos && AllDigits(log.substr(open + 1, at - open - 1))) {
    int line = std::stoi(log.substr(open + 1, at - open - 1));
    std::istringstream src(source);
    std::string text;
    for (int i = 1; std::getline(src, text); ++i) {
      if (i == line) {
        os << "\noffending line " << file << ":" << line << ": " << text;
        break;
      }
    }
  }
  return os.str();
}

}  // namespace

CUDAArch ParseCUDAArch(const std::string& arch) {
  std::string rest = arch;
  for (const char* prefix : {"sm_", "compute_"}) {
    if (rest.rfind(prefix, 0) == 0) {
      rest = rest.substr(std::string(prefix).size());
      break;
    }
  }
  std::string suffix;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    suffix = rest.substr(rest.size() - 1);
    rest.pop_back();
  }
  if (AllDigits(rest) && rest.size() < 6) return {std::stoi(rest), suffix};
  size_t dot = arch.find('.');
  if (suffix.empty() && dot != std::string::npos && AllDigits(arch.substr(0, dot)) && AllDigits(arch.substr(dot + 1)) &&
      arch.size() < 8) {
    return {std::stoi(arch.substr(0, dot) + arch.substr(dot + 1)), ""};
  }
  TESSERA_THROW(ValueError) << "NVRTC: unrecognised CUDA architecture \"" << arch
                            << "\" (expected sm_XX, compute_XX, XX or X.Y, e.g. sm_80)";
}

void NVRTCAddSearchPath(const std::string& lib_dir, const std::string& include_dir) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (std::find(s.extra.begin(), s.extra.end(), std::make_pair(lib_dir, include_dir)) == s.extra.end()) {
    s.extra.emplace_back(lib_dir, include_dir);
  }
  if (s.tried && !s.ok) s.tried = false;  // a later registration may find it
}

bool NVRTCAvailable(std::string* why) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  Load(s);
  if (!s.ok && why) *why = s.why;
  return s.ok;
}

std::string NVRTCLibraryPath() {
  NVRTCAvailable();
  return GetState().path;
}

std::string NVRTCVersion() {
  NVRTCAvailable();
  return GetState().version;
}

std::vector<std::string> NVRTCIncludeDirs() {
  NVRTCAvailable();
  return GetState().include_dirs;
}

std::vector<int> NVRTCSupportedArchs() {
  std::vector<int> archs;
  if (!NVRTCAvailable()) return archs;
  const NVRTCApi& a = GetState().api;
  int n = 0;
  if (a.GetNumSupportedArchs && a.GetSupportedArchs && a.GetNumSupportedArchs(&n) == 0 && n > 0) {
    archs.resize(static_cast<size_t>(n));
    if (a.GetSupportedArchs(archs.data()) != 0) archs.clear();
  }
  std::sort(archs.begin(), archs.end());
  return archs;
}

NVRTCResult NVRTCCompile(const std::string& source, const std::string& arch, const std::string& format,
                         const std::vector<std::string>& options) {
  TESSERA_CHECK_OR_THROW(format == "ptx" || format == "cubin", ValueError)
      << "NVRTC: target_format must be \"ptx\" or \"cubin\", got \"" << format << "\"";
  auto [number, suffix] = ParseCUDAArch(arch);
  std::string why;
  if (!NVRTCAvailable(&why)) TESSERA_THROW(RuntimeError) << why;
  State& s = GetState();
  const NVRTCApi& a = s.api;
  TESSERA_CHECK_OR_THROW(format == "ptx" || a.GetCUBIN != nullptr, ValueError)
      << "NVRTC " << s.version << " (" << s.path << ") cannot emit cubin (needs NVRTC 11.1 or newer); use ptx";
  {
    std::vector<int> archs = NVRTCSupportedArchs();
    if (!archs.empty()) {
      if (std::find(archs.begin(), archs.end(), number) == archs.end()) {
        std::ostringstream os;
        for (size_t i = 0; i < archs.size(); ++i) os << (i ? ", " : "") << archs[i];
        TESSERA_THROW(ValueError) << "NVRTC " << s.version << " does not support architecture " << arch
                                  << " (supported: " << os.str() << ")";
      }
    }
  }
  std::vector<std::string> opts;
  opts.push_back(std::string("--gpu-architecture=") + (format == "ptx" ? "compute_" : "sm_") + std::to_string(number) + suffix);
  for (const std::string& dir : s.include_dirs) opts.push_back("-I" + dir);
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char*> copts;
  for (const std::string& o : opts) copts.push_back(o.c_str());

  const char* file = "tessera_kernels.cu";
  nvrtcProgram prog = nullptr;
  nvrtcResult r = a.CreateProgram(&prog, source.c_str(), file, 0, nullptr, nullptr);
  TESSERA_CHECK_OR_THROW(r == 0, RuntimeError) << "nvrtcCreateProgram failed: " << a.GetErrorString(r);
  struct Guard {
    const NVRTCApi& a;
    nvrtcProgram* p;
    ~Guard() { a.DestroyProgram(p); }
  } guard{a, &prog};
  nvrtcResult compiled = a.CompileProgram(prog, static_cast<int>(copts.size()), copts.data());
  NVRTCResult out;
  size_t log_size = 0;
  if (a.GetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    out.log.resize(log_size);
    a.GetProgramLog(prog, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (compiled != 0) {
    std::string msg = out.log.empty() ? std::string(a.GetErrorString(compiled)) : out.log;
    TESSERA_THROW(ValueError) << CompileErrorMessage(source, msg, file);
  }
  size_t size = 0;
  if (format == "ptx") {
    a.GetPTXSize(prog, &size);
    out.binary.resize(size);
    a.GetPTX(prog, out.binary.data());
    while (!out.binary.empty() && out.binary.back() == '\0') out.binary.pop_back();
  } else {
    a.GetCUBINSize(prog, &size);
    out.binary.resize(size);
    a.GetCUBIN(prog, out.binary.data());
  }
  out.format = format;
  return out;
}

namespace {

// Bytes to a String whose characters are the bytes (latin-1), so Python gets them back with .encode("latin-1").
std::string Latin1(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

}  // namespace

// [binary as latin-1 text, format, log]
TESSERA_REGISTER_GLOBAL("codegen.NVRTCCompile")
    .set_body_typed([](std::string source, std::string arch, std::string format, Array<String> options) {
      std::vector<std::string> opts;
      for (const String& o : options) opts.push_back(o);
      NVRTCResult r = NVRTCCompile(source, arch, format, opts);
      return Array<Any>{String(Latin1(r.binary)), String(r.format), String(r.log)};
    });
// [available, why, library path, version, include dirs]
TESSERA_REGISTER_GLOBAL("codegen.NVRTCInfo").set_body_typed([]() {
  std::string why;
  bool ok = NVRTCAvailable(&why);
  Array<String> incs;
  for (const std::string& d : NVRTCIncludeDirs()) incs.push_back(String(d));
  return Array<Any>{ok, String(why), String(NVRTCLibraryPath()), String(NVRTCVersion()), incs};
});
// [number, suffix]: "sm_90a" -> [90, "a"], "8.0" -> [80, ""]; the one -arch parser
// (contrib/nvcc.py reads the compute version through it).
TESSERA_REGISTER_GLOBAL("codegen.ParseCUDAArch").set_body_typed([](std::string arch) {
  CUDAArch a = ParseCUDAArch(arch);
  return Array<Any>{static_cast<int64_t>(a.number), String(a.suffix)};
});
TESSERA_REGISTER_GLOBAL("codegen.NVRTCAddSearchPath").set_body_typed([](std::string lib_dir, std::string include_dir) {
  NVRTCAddSearchPath(lib_dir, include_dir);
});

}  // namespace codegen
}  // namespace tessera
