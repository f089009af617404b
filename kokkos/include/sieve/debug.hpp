// SPDX-License-Identifier: Apache-2.0
// Sieve — debug checks: validations too costly for every call, switched on
// for a run (a debug build of a code, a test, a bug hunt).
#pragma once

#include <sieve/impl/debug/flag.hpp>

#include <atomic>

namespace sieve {

/// Whether Sieve's debug checks are on: off unless the environment variable
/// SIEVE_DEBUG_CHECKS is set (to anything but "0") or set_debug_checks(true)
/// was called. With them on, sieve::reorder and sieve::restore first check
/// that perm and inv are inverse permutations of [0, n) — O(n) on the
/// instance, and the call then blocks until that check is done — and throw
/// std::invalid_argument naming the first slot where they are not. With them
/// off a corrupted perm / inv is still never followed outside the planes (an
/// out-of-range entry is skipped), but it goes unreported. O(1), thread-safe.
inline bool debug_checks() { return Impl::debugChecksOn(); }

/// Switch the debug checks on or off for the whole process (see
/// debug_checks()). O(1), thread-safe; throws nothing.
inline void set_debug_checks(bool on) {
  Impl::debugChecksFlag().store(on, std::memory_order_relaxed);
}

} // namespace sieve
