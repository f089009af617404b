// SPDX-License-Identifier: Apache-2.0
// Sieve — the host-side argument checks the rules and the validation share:
// each throws std::invalid_argument naming the call, the argument and the
// rule it broke.
#pragma once

#include <sieve/core/types.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sieve {
namespace Impl {

[[noreturn]] inline void fail(const char* fn, const std::string& what) {
  throw std::invalid_argument(std::string(fn) + ": " + what);
}

inline constexpr bool supportedElem(std::uint32_t b) {
  return b == 1u || b == 2u || b == 4u || b == 8u || b == 16u;
}

/// `n` must be a valid sample count: 0 <= n <= kCompactMaxSamples (INT32_MAX).
inline void checkSamples(const char* fn, std::int64_t n, const char* name = "n") {
  if (n < 0)
    fail(fn, std::string(name) + " = " + std::to_string(n) +
                 " is negative; the sample count must be in [0, 2147483647]");
  if (n > kCompactMaxSamples)
    fail(fn, std::string(name) + " = " + std::to_string(n) +
                 " exceeds kCompactMaxSamples (2147483647), the largest count an int32 index map "
                 "can address");
}

/// A plane's element size must be one a reorder moves: 1, 2, 4, 8 or 16 bytes.
inline void checkElemBytes(const char* fn, std::uint32_t bytes, const char* name) {
  if (!supportedElem(bytes))
    fail(fn, std::string(name) + " = " + std::to_string(bytes) + "; it must be 1, 2, 4, 8 or 16");
}

} // namespace Impl
} // namespace sieve
