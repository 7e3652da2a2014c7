// The target tag registry (tag.h) and the NVIDIA tags: architecture, shared
// memory and registers per block as TVM's tag table gives them (1024 threads
// per block and warps of 32 for every one), the L2 size where TVM lists it.
// nvidia/nvidia-h200 is Tessera's own (TVM has no H200 tag): sm_90, the
// H100's limits (docs/compatibility.md).
#include "target/tag.h"

#include <mutex>

#include "runtime/registry.h"
#include "target/target.h"
#include "target/target_kind.h"

namespace tessera {
namespace {

struct TagTable {
  std::mutex mu;
  std::map<std::string, TargetTagInfo> tags;
  static TagTable* Global() {
    static TagTable* t = new TagTable();
    return t;
  }
};

struct CudaTag {
  const char* name;
  const char* arch;
  int64_t shared_memory;
  int64_t registers;
  int64_t l2_bytes;  // 0: not given
};

// name, arch, max_shared_memory_per_block, registers_per_block, l2_cache_size_bytes
constexpr CudaTag kCudaTags[] = {
    {"nvidia/nvidia-h200", "sm_90", 49152, 65536, 52428800},
    {"nvidia/nvidia-h100", "sm_90a", 49152, 65536, 52428800},
    {"nvidia/nvidia-a100", "sm_80", 49152, 65536, 41943040},
    {"nvidia/nvidia-a40", "sm_86", 49152, 65536, 0},
    {"nvidia/nvidia-a30", "sm_80", 49152, 65536, 0},
    {"nvidia/nvidia-a10", "sm_86", 49152, 65536, 0},
    {"nvidia/nvidia-a10g", "sm_86", 49152, 65536, 0},
    {"nvidia/nvidia-a16", "sm_86", 49152, 65536, 0},
    {"nvidia/nvidia-a2", "sm_86", 49152, 65536, 0},
    {"nvidia/nvidia-t4", "sm_75", 49152, 65536, 0},
    {"nvidia/nvidia-v100", "sm_70", 49152, 65536, 0},
    {"nvidia/tesla-p100", "sm_60", 49152, 65536, 0},
    {"nvidia/tesla-p40", "sm_61", 49152, 65536, 0},
    {"nvidia/tesla-p4", "sm_61", 49152, 65536, 0},
    {"nvidia/tesla-m60", "sm_52", 49152, 65536, 0},
    {"nvidia/tesla-m40", "sm_52", 49152, 65536, 0},
    {"nvidia/tesla-k80", "sm_37", 49152, 65536, 0},
    {"nvidia/tesla-k40", "sm_35", 49152, 65536, 0},
    {"nvidia/rtx-a6000", "sm_86", 49152, 65536, 0},
    {"nvidia/quadro-rtx-8000", "sm_75", 49152, 65536, 0},
    {"nvidia/quadro-rtx-6000", "sm_75", 49152, 65536, 0},
    {"nvidia/quadro-gv100", "sm_70", 49152, 65536, 0},
    {"nvidia/quadro-gp100", "sm_60", 49152, 65536, 0},
    {"nvidia/geforce-rtx-4090", "sm_89", 49152, 65536, 75497472},
    {"nvidia/geforce-rtx-4070-ti", "sm_89", 49152, 65536, 75497472},
    {"nvidia/geforce-rtx-3090-ti", "sm_86", 49152, 65536, 0},
    {"nvidia/geforce-rtx-3090", "sm_86", 49152, 65536, 0},
    {"nvidia/geforce-rtx-3080-ti", "sm_86", 49152, 65536, 0},
    {"nvidia/geforce-rtx-3080", "sm_86", 49152, 65536, 0},
    {"nvidia/geforce-rtx-3070-ti", "sm_86", 49152, 65536, 0},
    {"nvidia/geforce-rtx-3070", "sm_86", 49152, 65536, 0},
    {"nvidia/geforce-rtx-3060", "sm_86", 49152, 65536, 0},
    {"nvidia/nvidia-titan-rtx", "sm_75", 49152, 65536, 0},
    {"nvidia/geforce-rtx-2080-ti", "sm_75", 49152, 65536, 0},
    {"nvidia/geforce-rtx-2080", "sm_75", 49152, 65536, 0},
    {"nvidia/geforce-rtx-2070", "sm_75", 49152, 65536, 0},
    {"nvidia/geforce-rtx-2060", "sm_75", 49152, 65536, 0},
    {"nvidia/nvidia-titan-v", "sm_70", 49152, 65536, 0},
    {"nvidia/nvidia-titan-xp", "sm_61", 49152, 65536, 0},
    {"nvidia/geforce-gtx-1080-ti", "sm_61", 49152, 65536, 0},
    {"nvidia/geforce-gtx-1080", "sm_61", 49152, 65536, 0},
    {"nvidia/geforce-gtx-1070", "sm_61", 49152, 65536, 0},
    {"nvidia/geforce-gtx-1060", "sm_61", 49152, 65536, 0},
};

bool RegisterCudaTags() {
  for (const CudaTag& t : kCudaTags) {
    std::map<std::string, Any> options{{"arch", Any(std::string(t.arch))},
                                       {"max_shared_memory_per_block", Any(t.shared_memory)},
                                       {"max_threads_per_block", Any(int64_t(1024))},
                                       {"max_num_threads", Any(int64_t(1024))},
                                       {"thread_warp_size", Any(int64_t(32))},
                                       {"registers_per_block", Any(t.registers)}};
    if (t.l2_bytes != 0) options["l2_cache_size_bytes"] = Any(t.l2_bytes);
    AddTargetTag(t.name, "cuda", std::move(options));
  }
  return true;
}

[[maybe_unused]] const bool kCudaTagsRegistered = RegisterCudaTags();

}  // namespace

const TargetTagInfo* FindTargetTag(const std::string& name) {
  TagTable* t = TagTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->tags.find(name);
  return it == t->tags.end() ? nullptr : &it->second;
}

std::vector<std::string> ListTargetTags() {
  TagTable* t = TagTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  std::vector<std::string> names;
  for (const auto& kv : t->tags) names.push_back(kv.first);
  return names;
}

void AddTargetTag(const std::string& name, const std::string& kind, std::map<std::string, Any> options) {
  TESSERA_CHECK_OR_THROW(name.find('/') != std::string::npos && name.find(' ') == std::string::npos, ValueError)
      << "target tag '" << name << "' must be written vendor/model, without spaces";
  TESSERA_CHECK_OR_THROW(FindTargetKind(name) == nullptr, ValueError)
      << "target tag '" << name << "' is the name of a target kind";
  TagTable* t = TagTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  t->tags[name] = TargetTagInfo{name, kind, std::move(options)};
}

// target.TargetTagListTags() -> {tag: Target}, as TVM's.
TESSERA_REGISTER_GLOBAL("target.TargetTagListTags").set_body_typed([]() {
  Map<String, Any> out;
  for (const std::string& name : ListTargetTags()) out.Set(name, Any(Target(name)));
  return out;
});

}  // namespace tessera
