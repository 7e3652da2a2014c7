// Target tags ("nvidia/tesla-p100", "nvidia/nvidia-a100", ...): named
// configurations of a target kind, as TVM's target tag registry has them.
// `tvm.target.Target("nvidia/nvidia-a100")` is the tag's kind with its
// options; options written after the tag override them. Sits beside the
// target kinds (target_kind.h); the tags themselves are in tag.cc.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/any.h"

namespace tessera {

struct TargetTagInfo {
  std::string name;
  std::string kind;
  std::map<std::string, Any> options;  // option name -> value, as the target string would give it
};

// The tag registered as `name`, or nullptr.
const TargetTagInfo* FindTargetTag(const std::string& name);
std::vector<std::string> ListTargetTags();
// Registers (or replaces) a tag; the options must be options of `kind`.
void AddTargetTag(const std::string& name, const std::string& kind, std::map<std::string, Any> options);

}  // namespace tessera
