// Integer floor division and modulo on int64 (the quotient rounds toward
// negative infinity, the remainder takes the divisor's sign, as TIR's
// floordiv/floormod and Python's // and %), and ceiling division. Arith
// layer; the one copy used by constant folding (tir/op.cc), the simplifiers
// (canonical_simplify, modular_set, const_int_bound) and region analysis.
#pragma once

#include <cstdint>

namespace tessera {
namespace arith {

// a // b for b != 0.
constexpr int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// a - b * (a // b) for b != 0: in [0, b) when b > 0, in (b, 0] when b < 0.
constexpr int64_t FloorModInt(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// The smallest q with q * b >= a, for b > 0.
constexpr int64_t CeilDivInt(int64_t a, int64_t b) { return -FloorDivInt(-a, b); }

static_assert(FloorDivInt(-7, 2) == -4 && FloorModInt(-7, 2) == 1 && FloorDivInt(7, -2) == -4 &&
              FloorModInt(7, -2) == -1 && CeilDivInt(7, 2) == 4 && CeilDivInt(-7, 2) == -3);

}  // namespace arith
}  // namespace tessera
