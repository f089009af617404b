// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the process-wide switch of the debug checks
// (sieve::debug_checks / set_debug_checks, debug.hpp), read by the calls.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace sieve {
namespace Impl {

/// The switch: on at start when SIEVE_DEBUG_CHECKS is set to anything but "0".
inline std::atomic<bool>& debugChecksFlag() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("SIEVE_DEBUG_CHECKS");
    return env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
  }()};
  return on;
}

/// Whether the debug checks are on (what sieve::debug_checks() returns).
inline bool debugChecksOn() { return debugChecksFlag().load(std::memory_order_relaxed); }

} // namespace Impl
} // namespace sieve
