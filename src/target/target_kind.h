// TargetKind: the registry of target kinds ("llvm", "c", "cuda"), the hub of
// everything per target. Per kind: its device type, default keys, the options
// a target string may carry (types and defaults), a parser hook that checks
// values and may fill some in (installed by the layer that knows the kind's
// toolchain), and attributes that other layers read instead of testing the
// kind's name (the default schedule of untuned kernels, the tuner's rules,
// the vector width, ...; their names are listed in kTargetKindAttr* below).
// Adding a backend is registrations on its kind, e.g.
// TESSERA_REGISTER_TARGET_KIND("llvm").set_attr(kTargetKindAttrTunable, true).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/any.h"
#include "target/target.h"

namespace tessera {

enum class TargetOptionType { kBool, kInt, kString };

// The attributes other layers read (values as documented; absent: the
// feature does not apply to the kind).
// String: the global function (PrimFunc, Target) -> PrimFunc giving an
// untuned kernel its schedule (relax.build's DefaultCPUSchedule pass);
// "tir.DefaultCPUScheduleFunc" for the CPU kinds.
inline constexpr const char* kTargetKindAttrDefaultSchedule = "tir.default_schedule";
// PackedFunc (Target) -> int: the SIMD width in bits of the target's machine
// (installed by the backend that knows it; 128 when absent).
inline constexpr const char* kTargetKindAttrVectorWidth = "target.vector_width";
// The tuner's defaults, each a String naming a family ("cpu", "gpu") whose
// set python/tessera/meta_schedule defines (ScheduleRule.create,
// Postproc.create, Mutator.create): kinds of one family share it. The kind
// is tunable when it has default rules.
inline constexpr const char* kTargetKindAttrScheduleRules = "meta_schedule.default_rules";
inline constexpr const char* kTargetKindAttrPostprocs = "meta_schedule.default_postprocs";
inline constexpr const char* kTargetKindAttrMutatorProbs = "meta_schedule.mutator_probs";
// Bool: relax.build can run a VM whose kernels are built for this kind.
inline constexpr const char* kTargetKindAttrVMHost = "relax.vm_host";

struct TargetKindInfo {
  std::string name;
  int device_type = 1;  // DLDeviceType: kDLCPU (1), kDLCUDA (2), ...
  std::vector<std::string> default_keys;
  std::map<std::string, TargetOptionType> options;  // sorted, for listing in messages
  std::map<std::string, Any> option_defaults;       // filled in when the target string omits them
  std::map<std::string, Any> attrs;                 // kTargetKindAttr* (and backends' own)
  // Checks a parsed target (raises ValueError naming the culprit) and may
  // fill in values (e.g. -arch read from the device): it gets the fresh,
  // unshared node. Installed by the layer that knows the kind's toolchain.
  std::function<void(TargetNode*)> parser;
};

class TargetKindRegEntry {
 public:
  static TargetKindRegEntry& RegisterOrGet(const std::string& name);
  // The device kernels of this kind run on; also makes the kind's name a
  // device name (tvm.device("llvm")).
  TargetKindRegEntry& set_device_type(int device_type);
  TargetKindRegEntry& set_default_keys(std::vector<std::string> keys);
  TargetKindRegEntry& add_attr_option(const std::string& name, TargetOptionType type);
  TargetKindRegEntry& add_attr_option(const std::string& name, TargetOptionType type, Any default_value);
  TargetKindRegEntry& set_attr(const std::string& name, Any value);
  TargetKindRegEntry& set_target_parser(std::function<void(TargetNode*)> parser);

 private:
  explicit TargetKindRegEntry(TargetKindInfo* info) : info_(info) {}
  TargetKindInfo* info_;
};

// The kind registered as `name`, or nullptr.
const TargetKindInfo* FindTargetKind(const std::string& name);
std::vector<std::string> ListTargetKinds();
// The attribute `name` of the kind `kind`, or nullopt.
std::optional<Any> GetTargetKindAttr(const std::string& kind, const std::string& name);

// Computed once for every layer (the default schedule and the tuner): the
// threads of parallel loops (--num-cores, else the machine's cores) and the
// SIMD width in bits (the kind's kTargetKindAttrVectorWidth, else 128).
int TargetNumCores(const Target& target);
int TargetVectorBits(const Target& target);

}  // namespace tessera

#define TESSERA_TARGET_KIND_CONCAT_(a, b) a##b
#define TESSERA_TARGET_KIND_CONCAT(a, b) TESSERA_TARGET_KIND_CONCAT_(a, b)
#define TESSERA_REGISTER_TARGET_KIND(Name)                                                                    \
  [[maybe_unused]] static ::tessera::TargetKindRegEntry& TESSERA_TARGET_KIND_CONCAT(_tessera_target_kind_, \
                                                                                    __COUNTER__) =         \
      ::tessera::TargetKindRegEntry::RegisterOrGet(Name)
