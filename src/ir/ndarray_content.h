// The bytes of a compact CPU NDArray, for structural equality and hashing
// of IR holding constants (relax.Constant): two constants are equal when
// dtype, shape and bytes are. IR layer.
#pragma once

#include <optional>
#include <string_view>

#include "runtime/ndarray.h"

namespace tessera {

// nullopt for arrays whose content cannot be read here (not on the CPU, or strided).
inline std::optional<std::string_view> NDArrayContent(const NDArrayObj* a) {
  if (a->dl.device.device_type != kDLCPU || !a->strides.empty()) return std::nullopt;
  size_t n = 1;
  for (int64_t d : a->shape) n *= static_cast<size_t>(d);
  size_t bytes = n * ((static_cast<size_t>(a->dl.dtype.bits) * a->dl.dtype.lanes + 7) / 8);
  if (bytes == 0) return std::string_view();
  if (a->dl.data == nullptr) return std::nullopt;
  return std::string_view(static_cast<const char*>(a->dl.data) + a->dl.byte_offset, bytes);
}

inline bool NDArraySameMeta(const NDArrayObj* a, const NDArrayObj* b) {
  return a->shape == b->shape && a->dl.dtype.code == b->dl.dtype.code && a->dl.dtype.bits == b->dl.dtype.bits &&
         a->dl.dtype.lanes == b->dl.dtype.lanes;
}

}  // namespace tessera
