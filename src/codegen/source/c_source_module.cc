// Compiling, loading and exporting generated C (see c_source_module.h).
#include "codegen/source/c_source_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/library_file.h"
#include "runtime/process.h"

namespace tessera {
namespace codegen {
namespace {

// A private temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tessera_c_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) TESSERA_THROW(RuntimeError) << "cannot create a temporary directory";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) TESSERA_THROW(RuntimeError) << "cannot write " << path;
}

// Compiles `sources` into the shared library `out` with the system C compiler.
void CompileC(const std::vector<std::string>& sources, const std::string& out, const std::string& what) {
  const char* cc_env = std::getenv("CC");
  std::vector<std::string> argv = SplitCommandWords(cc_env && *cc_env ? cc_env : "cc", "the CC environment variable");
  // GNU C11 (statement expressions); wrapping signed arithmetic as TIR's.
  for (const char* a : {"-std=gnu11", "-O3", "-fPIC", "-shared", "-fwrapv", "-fno-math-errno", "-o"}) {
    argv.emplace_back(a);
  }
  argv.push_back(out);
  for (const std::string& s : sources) argv.push_back(s);
  for (std::string& a : RuntimeLinkArgs()) argv.push_back(std::move(a));
  ProcessResult result;
  try {
    result = RunProcess(argv);
  } catch (const RuntimeError& e) {
    TESSERA_THROW(RuntimeError) << what << ": cannot run the C compiler '" << argv[0]
                                << "' (set the CC environment variable to a C compiler): " << e.what();
  }
  if (result.exit_code != 0) {
    TESSERA_THROW(RuntimeError) << what << ": the C compiler '" << argv[0] << "' failed"
                                << (result.term_signal ? " (signal " + std::to_string(result.term_signal) + ")" : "")
                                << ":\n" << result.output.substr(0, 4000);
  }
}

class CSourceModuleNode final : public ModuleNode {
 public:
  CSourceModuleNode(std::string source, std::vector<FunctionInfo> infos, Target target)
      : source_(std::move(source)), infos_(std::move(infos)), target_(std::move(target)) {
    TempDir dir;
    std::string c_file = dir.File("kernels.c");
    std::string lib = dir.File("kernels.so");
    WriteFile(c_file, source_);
    CompileC({c_file}, lib, "tvm.build(target=\"" + target_->kind + "\")");
    handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);  // stays mapped after the file is removed
    if (handle_ == nullptr) {
      const char* err = dlerror();
      TESSERA_THROW(RuntimeError) << "cannot load the compiled C kernels: " << (err ? err : "unknown error");
    }
  }
  ~CSourceModuleNode() override {
    if (handle_) dlclose(handle_);
  }

  std::string type_key() const override { return "c"; }

  std::optional<PackedFunc> GetFunction(const std::string& name) const override {
    for (const FunctionInfo& info : infos_) {
      if (info.name != name) continue;
      auto fn = reinterpret_cast<KernelFn>(dlsym(handle_, KernelSymbol(name).c_str()));
      TESSERA_CHECK_OR_THROW(fn != nullptr, RuntimeError) << "the compiled C lacks the kernel symbol of " << name;
      return MakeKernelFunction(info, fn, GetRef<ObjectRef>(this),
                                static_cast<int>(target_.GetInt("num-cores").value_or(0)));
    }
    return std::nullopt;
  }

  std::vector<std::string> ListFunctions() const override {
    std::vector<std::string> out;
    for (const FunctionInfo& i : infos_) out.push_back(i.name);
    return out;
  }

  std::string GetSource(const std::string& format) const override {
    if (format.empty() || format == "c" || format == "cc") return source_;
    return ModuleNode::GetSource(format);
  }

  void ExportLibrary(const std::string& path) const override { ExportLibraryWithData(path, {}); }

  void ExportLibraryWithData(const std::string& path,
                             const std::vector<std::pair<std::string, std::string>>& data) const override {
    TempDir dir;
    std::string c_file = dir.File("kernels.c");
    // The parameter descriptions for LoadModuleFromFile, as the LLVM backend embeds them.
    WriteFile(c_file, source_ + "\nconst char* const __tessera_function_info = " +
                          FunctionInfoLiteral(FunctionInfo::ListToJSON(infos_)) + ";\n");
    std::vector<std::string> sources = {c_file};
    for (size_t i = 0; i < data.size(); ++i) {
      // The bytes travel through the assembler's .incbin (fast for large
      // executables); the file name is ours, so needs no quoting.
      std::string bin = dir.File("data" + std::to_string(i) + ".bin");
      std::string asm_file = dir.File("data" + std::to_string(i) + ".c");
      WriteFile(bin, data[i].second);
      const std::string& sym = data[i].first;
      WriteFile(asm_file, "#include <stdint.h>\n__asm__(\".section .rodata\\n.global " + sym + "\\n.balign 16\\n" + sym +
                              ":\\n.incbin \\\"" + bin + "\\\"\\n.previous\\n\");\nconst uint64_t " + sym +
                              "_size = " + std::to_string(data[i].second.size()) + "ULL;\n");
      sources.push_back(asm_file);
    }
    // Paths reach the compiler as argv entries; one starting with '-' is made relative.
    std::string out_path = !path.empty() && path[0] == '-' ? "./" + path : path;
    CompileC(sources, out_path, "export_library(" + path + ")");
    SealLibraryFile(path);  // load_module refuses any later change to the file
  }

 private:
  static std::string FunctionInfoLiteral(const std::string& json) {
    std::string out = "\"";
    for (char c : json) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }

  std::string source_;
  std::vector<FunctionInfo> infos_;
  Target target_;
  void* handle_ = nullptr;
};

}  // namespace

Module CreateCSourceModule(std::string source, std::vector<FunctionInfo> infos, const Target& target) {
  auto node = make_object<CSourceModuleNode>(std::move(source), std::move(infos), target);
  return Module(ObjectPtr<Object>(std::move(node)));
}

}  // namespace codegen
}  // namespace tessera
