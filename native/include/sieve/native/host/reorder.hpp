// SPDX-License-Identifier: Apache-2.0
// Sieve — reorderHost / restoreHost, the OpenMP twins of reorderDevice /
// restoreDevice (host memory).
#pragma once

#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>
#include <sieve/native/host/team.hpp>

#include <cstdint>

namespace sieve {

/// Physically reorder `nPlanes` per-sample planes in place (host memory,
/// OpenMP): a stable partition of the slots `[0, min(*span, n))`, the samples
/// the mask keeps first. Kept slot i goes to incl[i]-1, dropped slot i to
/// cnt + (i - incl[i]) (incl = inclusive count of kept samples, cnt = kept in
/// the span); slots at or past the span never move. `perm` (slot -> sample id)
/// moves like a plane, then inv[perm[s]] = s over the moved slots, `indexMap`
/// becomes the identity over [0, cnt), and finally *count = *span = cnt and
/// *fire = 0. The mask must be one of the planes (it moves with them).
///
/// With `fire != nullptr` the call changes nothing while *fire == 0.
/// n == 0: *count = *span = 0, *fire = 0. `scratch` holds
/// reorder_scratch_bytes(n, widest elemBytes) bytes, 16-byte aligned.
/// O(n * planes) work, blocking. Throws std::invalid_argument for a bad count,
/// unknown flags, unsupported element sizes, null, misaligned or overlapping
/// planes (perm and inv included), or a mask that is not among the planes.
void reorderHost(const ReorderPlane* planes, std::uint32_t nPlanes, const std::uint8_t* mask,
                 std::uint32_t flags, std::int32_t* perm, std::int32_t* inv, std::int32_t* indexMap,
                 std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire, void* scratch,
                 std::int64_t n);

/// reorderHost on an explicit team.
void reorderHost(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                 const std::uint8_t* mask, std::uint32_t flags, std::int32_t* perm,
                 std::int32_t* inv, std::int32_t* indexMap, std::uint32_t* count,
                 std::uint32_t* span, std::uint32_t* fire, void* scratch, std::int64_t n);

/// Undo every reorder since the last restore (host memory, OpenMP): sample i
/// back at slot i in every plane (a gather through `inv` over all n), then
/// perm and inv := identity. The index map, count and span are not touched.
/// `perm` / `inv` must be as the reorders left them (or the identity).
/// `scratch` holds reorder_scratch_bytes(n, widest elemBytes) bytes.
/// O(n * planes) work, blocking. Throws std::invalid_argument as reorderHost.
void restoreHost(const ReorderPlane* planes, std::uint32_t nPlanes, std::int32_t* perm,
                 std::int32_t* inv, void* scratch, std::int64_t n);

/// restoreHost on an explicit team.
void restoreHost(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                 std::int32_t* perm, std::int32_t* inv, void* scratch, std::int64_t n);

namespace Impl {
/// reorderHost / restoreHost for a caller that has made every check they make
/// (checkReorder / checkRestore, same arguments): the Kokkos face, which
/// checks its Views once at its entry. Anything else calls the checked forms.
void reorderHostChecked(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                        const std::uint8_t* mask, std::uint32_t flags, std::int32_t* perm,
                        std::int32_t* inv, std::int32_t* indexMap, std::uint32_t* count,
                        std::uint32_t* span, std::uint32_t* fire, void* scratch, std::int64_t n);
void restoreHostChecked(HostTeam team, const ReorderPlane* planes, std::uint32_t nPlanes,
                        std::int32_t* perm, std::int32_t* inv, void* scratch, std::int64_t n);
} // namespace Impl

} // namespace sieve
