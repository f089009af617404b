// SPDX-License-Identifier: Apache-2.0
// Sieve — compactDevice, the native CUDA compaction (device memory).
// Declared in plain C++ (no nvcc needed to call it); defined in the library.
#pragma once

#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sieve {

/// Enqueue the compaction of the `n` samples of `mask` on `stream` (device
/// memory): `indexMap[0..count)` = the kept sample indices, ascending; `*count`
/// (a device word) = their number; slots at or past the count are never
/// written. A non-zero mask byte keeps its sample, or drops it with
/// kCompactMaskIsDrop. `scratch` (device memory, 8-byte aligned) holds
/// compact_scratch_bytes(n) bytes; no byte past them is touched.
///
/// Single pass: one kernel reads the mask once and writes the map (tiles of
/// 8192 samples chained by decoupled look-back), after one memset of its tile
/// words. Nothing is allocated, synchronised or read back: legal while
/// `stream` is being captured into a CUDA graph. O(n).
/// Throws std::invalid_argument (nothing enqueued) for n < 0,
/// n > kCompactMaxSamples, unknown flags or a null array that would be
/// addressed; std::runtime_error if a CUDA call fails.
void compactDevice(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                   std::uint32_t* count, void* scratch, std::int64_t n, cudaStream_t stream);

/// compactDevice that also computes the reorder trigger `trig` (device words):
/// live32 counted with one ballot-free popcount per aligned 32-sample group
/// and carried through the look-back, fire written by the lane that writes the
/// count, by the same rule as the host twin. `trig == nullptr` is the call
/// above. Throws as above, and for null trigger words or theta outside (0, 1).
void compactDevice(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                   std::uint32_t* count, void* scratch, std::int64_t n, cudaStream_t stream,
                   const ReorderTrigger* trig);

namespace Impl {
/// compactDevice for a caller that has made every check compactDevice makes
/// (checkCompact, same arguments): the Kokkos face, which checks its Views
/// once at its entry. Anything else calls compactDevice.
void compactDeviceChecked(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                          std::uint32_t* count, void* scratch, std::int64_t n, cudaStream_t stream,
                          const ReorderTrigger* trig);
} // namespace Impl

} // namespace sieve
