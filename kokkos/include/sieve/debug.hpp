// SPDX-License-Identifier: Apache-2.0
// Sieve — debug checks: validations too costly for every call, switched on
// for a run (a debug build of a code, a test, a bug hunt).
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace sieve {
namespace Impl {
inline std::atomic<bool>& debugChecksFlag() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("SIEVE_DEBUG_CHECKS");
    return env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
  }()};
  return on;
}
} // namespace Impl

/// Whether Sieve's debug checks are on: off unless the environment variable
/// SIEVE_DEBUG_CHECKS is set (to anything but "0") or set_debug_checks(true)
/// was called. With them on, sieve::reorder and sieve::restore first check
/// that perm and inv are inverse permutations of [0, n) — O(n) on the
/// instance, and the call then blocks until that check is done — and throw
/// std::invalid_argument naming the first slot where they are not. With them
/// off a corrupted perm / inv is still never followed outside the planes (an
/// out-of-range entry is skipped), but it goes unreported. O(1), thread-safe.
inline bool debug_checks() { return Impl::debugChecksFlag().load(std::memory_order_relaxed); }

/// Switch the debug checks on or off for the whole process (see
/// debug_checks()). O(1), thread-safe; throws nothing.
inline void set_debug_checks(bool on) {
  Impl::debugChecksFlag().store(on, std::memory_order_relaxed);
}

} // namespace sieve
