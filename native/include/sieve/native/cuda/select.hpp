// SPDX-License-Identifier: Apache-2.0
// Sieve — selectDevice, the native CUDA selection (device memory): the write
// of sieve::findall on Kokkos::Cuda. Declared in plain C++ (no nvcc needed to
// call it); defined in the library.
#pragma once

#include <sieve/core/select.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace sieve {

/// Enqueue the selection `s` (core/select.hpp; every array in device memory)
/// on `stream`: out[0], out[1], ... = the item of each sample k whose mask
/// byte is non-zero, in ascending k (its int64 or int32 index, or values[k]
/// copied bit for bit), up to out[cap - 1]; items past `cap` are counted, never
/// written; `*s.count` (an 8-byte aligned device word) = the number selected.
/// No byte of `out` at or past min(cap, count) items is written; `out` and
/// `values` need no alignment to the item size. `scratch` (device memory,
/// 8-byte aligned) holds `scratchBytes` >= select_scratch_bytes(s.n) bytes; no
/// byte past select_scratch_bytes(s.n) is touched (none for n <= 8192: it may
/// then be null).
///
/// Single pass: one kernel reads the mask once and writes the items (tiles of
/// Tuning::Cuda::kSelectTile samples chained by decoupled look-back, kept
/// counts carried in 62 bits), after one clearing kernel for its tile words.
/// Nothing is allocated, synchronised or read back: legal while `stream` is
/// being captured into a CUDA graph. O(n); does not block.
/// Throws std::invalid_argument (nothing enqueued) for n < 0,
/// n > kSelectDeviceMaxSamples, cap < 0, an item kind / element size other
/// than core/select.hpp allows, Index32 with n > 2^31, a null array that would
/// be addressed, a misaligned count or scratch, a scratch smaller than
/// select_scratch_bytes(n), or arrays (mask, values, out, count, scratch) that
/// share a byte; std::runtime_error if a CUDA call fails.
void selectDevice(const SelectSpec& s, void* scratch, std::size_t scratchBytes,
                  cudaStream_t stream);

namespace Impl {
/// selectDevice for a caller that has made every check selectDevice makes
/// (checkSelectDevice, same arguments): the Kokkos face, which checks its
/// Views once at its entry. Anything else calls selectDevice.
void selectDeviceChecked(const SelectSpec& s, void* scratch, std::size_t scratchBytes,
                         cudaStream_t stream);
} // namespace Impl

} // namespace sieve
