// The target kind registry and the kinds Tessera knows (see target_kind.h).
// Option names follow TVM's target kinds; every option listed here is read
// by a backend (llvm, c) or by the tuner (cuda, which has no backend yet and
// is refused at build time). The layers above add their attributes to these
// kinds where they are defined (the tir layer its default schedule, the
// LLVM layer its vector width, ...).
#include "target/target_kind.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "runtime/device.h"
#include "runtime/registry.h"

namespace tessera {
namespace {

struct KindTable {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<TargetKindInfo>> kinds;
  std::unordered_map<std::string, std::unique_ptr<TargetKindRegEntry>> entries;
  static KindTable* Global() {
    static KindTable* t = new KindTable();
    return t;
  }
};

}  // namespace

TargetKindRegEntry& TargetKindRegEntry::RegisterOrGet(const std::string& name) {
  KindTable* t = KindTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->entries.find(name);
  if (it != t->entries.end()) return *it->second;
  auto info = std::make_unique<TargetKindInfo>();
  info->name = name;
  auto* entry = new TargetKindRegEntry(info.get());
  t->kinds.emplace(name, std::move(info));
  t->entries.emplace(name, std::unique_ptr<TargetKindRegEntry>(entry));
  return *entry;
}

TargetKindRegEntry& TargetKindRegEntry::set_device_type(int device_type) {
  info_->device_type = device_type;
  RegisterDeviceName(info_->name, static_cast<DLDeviceType>(device_type));
  return *this;
}

TargetKindRegEntry& TargetKindRegEntry::set_default_keys(std::vector<std::string> keys) {
  info_->default_keys = std::move(keys);
  return *this;
}

TargetKindRegEntry& TargetKindRegEntry::add_attr_option(const std::string& name, TargetOptionType type) {
  info_->options[name] = type;
  return *this;
}

TargetKindRegEntry& TargetKindRegEntry::add_attr_option(const std::string& name, TargetOptionType type,
                                                        Any default_value) {
  info_->options[name] = type;
  info_->option_defaults[name] = std::move(default_value);
  return *this;
}

TargetKindRegEntry& TargetKindRegEntry::set_attr(const std::string& name, Any value) {
  info_->attrs[name] = std::move(value);
  return *this;
}

TargetKindRegEntry& TargetKindRegEntry::set_target_parser(std::function<void(TargetNode*)> parser) {
  info_->parser = std::move(parser);
  return *this;
}

const TargetKindInfo* FindTargetKind(const std::string& name) {
  KindTable* t = KindTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->kinds.find(name);
  return it == t->kinds.end() ? nullptr : it->second.get();
}

std::optional<Any> GetTargetKindAttr(const std::string& kind, const std::string& name) {
  const TargetKindInfo* info = FindTargetKind(kind);
  if (info == nullptr) return std::nullopt;
  auto it = info->attrs.find(name);
  if (it == info->attrs.end()) return std::nullopt;
  return it->second;
}

int TargetNumCores(const Target& target) {
  if (auto cores = target.GetInt("num-cores")) return static_cast<int>(*cores);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int TargetVectorBits(const Target& target) {
  if (auto width = GetTargetKindAttr(target->kind, kTargetKindAttrVectorWidth)) {
    return static_cast<int>(width->cast<PackedFunc>()(target).cast<int64_t>());
  }
  return 128;
}

std::vector<std::string> ListTargetKinds() {
  KindTable* t = KindTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  std::vector<std::string> names;
  for (const auto& kv : t->kinds) names.push_back(kv.first);
  return names;
}

namespace {
// What every CPU kind shares: kDLCPU, key "cpu", the CPU default schedule,
// the tuner's "cpu" family and running the VM.
TargetKindRegEntry& RegisterCPUKind(const std::string& name) {
  return TargetKindRegEntry::RegisterOrGet(name)
      .set_device_type(kDLCPU)
      .set_default_keys({"cpu"})
      .set_attr(kTargetKindAttrDefaultSchedule, String("tir.DefaultCPUScheduleFunc"))
      .set_attr(kTargetKindAttrScheduleRules, String("cpu"))
      .set_attr(kTargetKindAttrPostprocs, String("cpu"))
      .set_attr(kTargetKindAttrMutatorProbs, String("cpu"))
      .set_attr(kTargetKindAttrVMHost, true);
}
}  // namespace

// CPU code through LLVM. -mtriple/-mcpu/-mattr select the machine (checked
// against LLVM by codegen/llvm/llvm_target.cc), -opt-level the LLVM
// optimization level (0-3, default 3), -fast-math* the floating-point
// relaxations of the generated IR, -num-cores the threads of parallel loops,
// -bound-check the checking of every buffer access.
[[maybe_unused]] static TargetKindRegEntry& kLLVMKind = RegisterCPUKind("llvm")
    .add_attr_option("mtriple", TargetOptionType::kString)
    .add_attr_option("mcpu", TargetOptionType::kString)
    .add_attr_option("mattr", TargetOptionType::kString)
    .add_attr_option("opt-level", TargetOptionType::kInt)
    .add_attr_option("num-cores", TargetOptionType::kInt)
    .add_attr_option("fast-math", TargetOptionType::kBool)
    .add_attr_option("fast-math-nnan", TargetOptionType::kBool)
    .add_attr_option("fast-math-ninf", TargetOptionType::kBool)
    .add_attr_option("fast-math-nsz", TargetOptionType::kBool)
    .add_attr_option("fast-math-arcp", TargetOptionType::kBool)
    .add_attr_option("fast-math-contract", TargetOptionType::kBool)
    .add_attr_option("fast-math-reassoc", TargetOptionType::kBool)
    .add_attr_option("bound-check", TargetOptionType::kBool);

// CPU code as C source compiled by the system C compiler (codegen/source/):
// -num-cores and -bound-check as for llvm; the CPU default schedule and tuner
// rules (TVM's "c" kind shares llvm's).
[[maybe_unused]] static TargetKindRegEntry& kCKind = RegisterCPUKind("c")
    .add_attr_option("num-cores", TargetOptionType::kInt)
    .add_attr_option("bound-check", TargetOptionType::kBool);

// NVIDIA GPUs: no backend yet; the limits are read by the tuner.
TESSERA_REGISTER_TARGET_KIND("cuda")
    .set_device_type(kDLCUDA)
    .set_default_keys({"cuda", "gpu"})
    .set_attr(kTargetKindAttrPostprocs, String("gpu"))
    .add_attr_option("arch", TargetOptionType::kString)
    .add_attr_option("max_num_threads", TargetOptionType::kInt)
    .add_attr_option("max_threads_per_block", TargetOptionType::kInt)
    .add_attr_option("thread_warp_size", TargetOptionType::kInt)
    .add_attr_option("max_shared_memory_per_block", TargetOptionType::kInt)
    .add_attr_option("registers_per_block", TargetOptionType::kInt)
    .add_attr_option("l2_cache_size_bytes", TargetOptionType::kInt);

// NVIDIA GPUs through LLVM's NVPTX backend: no backend yet.
TESSERA_REGISTER_TARGET_KIND("nvptx")
    .set_device_type(kDLCUDA)
    .set_default_keys({"cuda", "gpu"})
    .add_attr_option("mcpu", TargetOptionType::kString)
    .add_attr_option("mtriple", TargetOptionType::kString)
    .add_attr_option("max_num_threads", TargetOptionType::kInt)
    .add_attr_option("thread_warp_size", TargetOptionType::kInt);

TESSERA_REGISTER_GLOBAL("target.ListTargetKinds").set_body_typed([]() {
  std::vector<std::string> names = ListTargetKinds();
  return Array<String>(names.begin(), names.end());
});

// target.TargetKindGetAttr(kind, name): the attribute, or None.
TESSERA_REGISTER_GLOBAL("target.TargetKindGetAttr").set_body_typed([](std::string kind, std::string name) -> Any {
  TESSERA_CHECK_OR_THROW(FindTargetKind(kind) != nullptr, ValueError) << "unknown target kind '" << kind << "'";
  return GetTargetKindAttr(kind, name).value_or(Any());
});
TESSERA_REGISTER_GLOBAL("target.TargetKindDeviceType").set_body_typed([](std::string kind) -> int64_t {
  const TargetKindInfo* info = FindTargetKind(kind);
  TESSERA_CHECK_OR_THROW(info != nullptr, ValueError) << "unknown target kind '" << kind << "'";
  return info->device_type;
});
TESSERA_REGISTER_GLOBAL("target.TargetNumCores").set_body_typed([](Target t) -> int64_t { return TargetNumCores(t); });
TESSERA_REGISTER_GLOBAL("target.TargetVectorBits").set_body_typed([](Target t) -> int64_t {
  return TargetVectorBits(t);
});

TESSERA_REGISTER_GLOBAL("target.ListTargetKindOptions").set_body_typed([](std::string kind) {
  const TargetKindInfo* info = FindTargetKind(kind);
  if (info == nullptr) TESSERA_THROW(ValueError) << "unknown target kind '" << kind << "'";
  static const char* kTypeNames[] = {"bool", "int", "str"};
  Map<String, String> out;
  for (const auto& kv : info->options) out.Set(kv.first, kTypeNames[static_cast<int>(kv.second)]);
  return out;
});

}  // namespace tessera
