// SPDX-License-Identifier: Apache-2.0
// Sieve — compactHost, the OpenMP twin of compactDevice (host memory).
#pragma once

#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>
#include <sieve/native/host/team.hpp>

#include <cstdint>

namespace sieve {

/// Compact the `n` samples of `mask` to an index map (host memory, OpenMP).
///
/// `indexMap[0..count)` receives the kept sample indices in ascending order and
/// `*count` their number; slots at or past the count are never written. A
/// non-zero mask byte keeps its sample, or drops it with kCompactMaskIsDrop in
/// `flags`. `scratch` holds compact_scratch_bytes(n) bytes (8-byte aligned);
/// its contents are internal and no byte past that size is touched.
///
/// Fused count-then-write: the mask is read twice (the second time from cache)
/// and nothing else; O(n) work, blocking, on the OpenMP default team (or
/// `team`). Throws std::invalid_argument for n < 0, n > kCompactMaxSamples,
/// unknown flags, or a null array that would be addressed.
void compactHost(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                 std::uint32_t* count, void* scratch, std::int64_t n);

/// compactHost that also computes the reorder trigger `trig` (host words) by the
/// same rule as the device face: `*trig->live32` = aligned 32-sample groups
/// holding a kept sample, `*trig->fire` = triggerFires(count, live32,
/// *trig->span, theta). `trig == nullptr` is the call above. Throws as above,
/// and for null trigger words or theta outside (0, 1).
void compactHost(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                 std::uint32_t* count, void* scratch, std::int64_t n, const ReorderTrigger* trig);

/// compactHost on an explicit team (`team.threads` threads, own parallel region).
void compactHost(HostTeam team, const std::uint8_t* mask, std::uint32_t flags,
                 std::int32_t* indexMap, std::uint32_t* count, void* scratch, std::int64_t n,
                 const ReorderTrigger* trig = nullptr);

namespace Impl {
/// compactHost for a caller that has made every check compactHost makes
/// (checkCompact, same arguments): the Kokkos face, which checks its Views
/// once at its entry. Anything else calls compactHost.
void compactHostChecked(HostTeam team, const std::uint8_t* mask, std::uint32_t flags,
                        std::int32_t* indexMap, std::uint32_t* count, void* scratch, std::int64_t n,
                        const ReorderTrigger* trig);
} // namespace Impl

} // namespace sieve
