// SPDX-License-Identifier: Apache-2.0
// Sieve examples — the counter-based hash the demo and the transport example
// draw their random numbers from: the same bits on every backend and on the
// host, so that a sequential replay can check every particle bit for bit.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace sieve_example {

KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7FB5D329728EA185ull;
  x ^= x >> 27;
  x *= 0x81DADEF4BC2DD44Dull;
  x ^= x >> 33;
  return x;
}

/// A uniform double in [0, 1) for (seed, id, step, salt), salt in [0, 4).
KOKKOS_INLINE_FUNCTION double uniform(std::uint64_t seed, std::int64_t id, int step, int salt) {
  const std::uint64_t h = mix(seed ^ mix(static_cast<std::uint64_t>(id) * 4 + salt) ^
                              (static_cast<std::uint64_t>(step) << 40));
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace sieve_example
