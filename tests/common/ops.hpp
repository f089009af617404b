// SPDX-License-Identifier: Apache-2.0
// Sieve tests — an associative operator whose operand order matters, to catch
// a face that combines op(x, prefix) instead of op(prefix, x).
#pragma once

#include <sieve/core/macros.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace sieve_test {

/// Composition of affine maps x -> a x + b (mod 2^32), a in the high and b in
/// the low 32 bits: op(p, q) = "p, then q". Associative, not commutative.
struct Affine {
  SIEVE_INLINE std::uint64_t operator()(std::uint64_t p, std::uint64_t q) const {
    const auto ap = static_cast<std::uint32_t>(p >> 32), bp = static_cast<std::uint32_t>(p);
    const auto aq = static_cast<std::uint32_t>(q >> 32), bq = static_cast<std::uint32_t>(q);
    return (static_cast<std::uint64_t>(ap * aq) << 32) | static_cast<std::uint32_t>(aq * bp + bq);
  }
  static constexpr std::uint64_t kIdentity = std::uint64_t(1) << 32; // x -> x
};

/// Random affine maps (odd slopes, so that products do not collapse to 0).
inline std::vector<std::uint64_t> affineMaps(std::int64_t n, std::uint32_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = g() | (std::uint64_t(1) << 32);
  return v;
}

} // namespace sieve_test

namespace sieve_test {

/// Bitwise xor (integers): associative and commutative, no identity() — so the
/// scans must be given `init`.
struct XorOp {
  template <class T>
  SIEVE_INLINE T operator()(const T& a, const T& b) const {
    return static_cast<T>(a ^ b);
  }
};

/// The value of larger magnitude (floating point; ties keep the left one):
/// associative, not a sum.
struct AbsMaxOp {
  template <class T>
  SIEVE_INLINE T operator()(const T& a, const T& b) const {
    return (b < 0 ? -b : b) > (a < 0 ? -a : a) ? b : a;
  }
};

} // namespace sieve_test
