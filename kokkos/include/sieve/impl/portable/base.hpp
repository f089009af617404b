// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: Kokkos parallel patterns
// only, for every execution space without a native face (Serial, Threads, HIP,
// SYCL, OpenMPTarget) and for Views a native face cannot take (strided).
// It makes the same moves and writes the same words as the native faces, by
// the same rules (core/), so integer results are bit-identical. Everything is
// enqueued on the instance; nothing is fenced, allocated or read back.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/elem.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/impl/common.hpp>

#include <cstdint>
#include <string>

namespace sieve {
namespace Impl {
namespace Portable {

using i64 = std::int64_t;

template <class Exec>
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;

/// Compaction tiles (groups of 32 samples) and scan blocks: core/tuning.hpp.
using Tuning::Portable::kScanBlock;
using Tuning::Portable::kTileGroups;

} // namespace Portable
} // namespace Impl
} // namespace sieve
