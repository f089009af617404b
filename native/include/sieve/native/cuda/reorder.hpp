// SPDX-License-Identifier: Apache-2.0
// Sieve — reorderDevice / restoreDevice, the native CUDA reorder (device
// memory). Declared in plain C++; defined in the library.
#pragma once

#include <sieve/core/rules.hpp>
#include <sieve/core/types.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sieve {

/// Enqueue the reorder of `n` samples on `stream` (device memory): the same
/// stable partition of [0, min(*span, n)), the same moves and the same words
/// as reorderHost, so the two faces agree to the bit. `planes` (a host array
/// of descriptors of device planes), `perm`, `inv`, `indexMap` and the words
/// `count`, `span`, `fire` live on the device. With `fire != nullptr` every
/// kernel is a no-op on the device while *fire == 0: such a replay costs its
/// launches and reads only the fire word. `scratch`:
/// reorder_scratch_bytes(n, widest elemBytes) bytes, 16-byte aligned. Kernels
/// only: legal during stream capture. O(n * planes). Throws std::invalid_argument as reorderHost,
/// std::runtime_error if a CUDA call fails.
void reorderDevice(const ReorderPlane* planes, std::uint32_t nPlanes, const std::uint8_t* mask,
                   std::uint32_t flags, std::int32_t* perm, std::int32_t* inv,
                   std::int32_t* indexMap, std::uint32_t* count, std::uint32_t* span,
                   std::uint32_t* fire, void* scratch, std::int64_t n, cudaStream_t stream);

/// Enqueue the un-permutation of every plane on `stream`: sample i back at
/// slot i (a gather through `inv` over all n slots), then perm = inv =
/// identity. The index map, count and span are not touched. Kernels only.
/// Throws as reorderDevice.
void restoreDevice(const ReorderPlane* planes, std::uint32_t nPlanes, std::int32_t* perm,
                   std::int32_t* inv, void* scratch, std::int64_t n, cudaStream_t stream);

namespace Impl {
/// reorderDevice / restoreDevice for a caller that has made every check they
/// make (checkReorder / checkRestore, same arguments): the Kokkos face, which
/// checks its Views once at its entry. Anything else calls the checked forms.
void reorderDeviceChecked(const ReorderPlane* planes, std::uint32_t nPlanes,
                          const std::uint8_t* mask, std::uint32_t flags, std::int32_t* perm,
                          std::int32_t* inv, std::int32_t* indexMap, std::uint32_t* count,
                          std::uint32_t* span, std::uint32_t* fire, void* scratch, std::int64_t n,
                          cudaStream_t stream);
void restoreDeviceChecked(const ReorderPlane* planes, std::uint32_t nPlanes, std::int32_t* perm,
                          std::int32_t* inv, void* scratch, std::int64_t n, cudaStream_t stream);
} // namespace Impl

} // namespace sieve
