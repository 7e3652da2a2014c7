// TargetKind: the registry of target kinds ("llvm", "c", "cuda") and, per
// kind, the options a target string may carry with their types, the default
// keys and an optional parser hook that backends install to check values
// against their toolchain (the LLVM layer checks -mcpu/-mattr). Target
// parsing (target.cc) reads it; adding a kind or an option is one
// registration: TESSERA_REGISTER_TARGET_KIND("llvm").add_attr_option("mcpu", TargetOptionType::kString).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "target/target.h"

namespace tessera {

enum class TargetOptionType { kBool, kInt, kString };

struct TargetKindInfo {
  std::string name;
  std::vector<std::string> default_keys;
  std::map<std::string, TargetOptionType> options;  // sorted, for listing in messages
  // Checks a parsed target; raises ValueError naming the culprit. Installed
  // by the layer that knows the kind's toolchain.
  std::function<void(const Target&)> parser;
};

class TargetKindRegEntry {
 public:
  static TargetKindRegEntry& RegisterOrGet(const std::string& name);
  TargetKindRegEntry& set_default_keys(std::vector<std::string> keys);
  TargetKindRegEntry& add_attr_option(const std::string& name, TargetOptionType type);
  TargetKindRegEntry& set_target_parser(std::function<void(const Target&)> parser);

 private:
  explicit TargetKindRegEntry(TargetKindInfo* info) : info_(info) {}
  TargetKindInfo* info_;
};

// The kind registered as `name`, or nullptr.
const TargetKindInfo* FindTargetKind(const std::string& name);
std::vector<std::string> ListTargetKinds();

}  // namespace tessera

#define TESSERA_TARGET_KIND_CONCAT_(a, b) a##b
#define TESSERA_TARGET_KIND_CONCAT(a, b) TESSERA_TARGET_KIND_CONCAT_(a, b)
#define TESSERA_REGISTER_TARGET_KIND(Name)                                                                    \
  [[maybe_unused]] static ::tessera::TargetKindRegEntry& TESSERA_TARGET_KIND_CONCAT(_tessera_target_kind_, \
                                                                                    __COUNTER__) =         \
      ::tessera::TargetKindRegEntry::RegisterOrGet(Name)
