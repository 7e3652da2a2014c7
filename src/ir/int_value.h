// IntValue: the integer an Any holds, whether a Python int/bool or an
// IntImm (what a Python int in an annotation or attribute becomes once
// printed and parsed back). IR layer, beside expr.h.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/expr.h"

namespace tessera {

inline std::optional<int64_t> IntValue(const Any& v) {
  if (v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool) return v.raw_int();
  if (const auto* imm = v.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

}  // namespace tessera
