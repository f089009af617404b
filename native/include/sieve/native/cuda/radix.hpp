// SPDX-License-Identifier: Apache-2.0
// Sieve — radixOrderDevice, the stable radix order of 64-bit keys on a CUDA
// device (the sparse sort of sieve::keys on Kokkos::Cuda). Declared in plain
// C++ (no nvcc needed to call it); defined in the library.
#pragma once

#include <sieve/core/radix.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sieve {

/// Enqueue on `stream` the stable order of keys[0, n) (device memory, every
/// key < 2^bits): order[p] = the index of the p-th smallest key, equal keys
/// in index order (the same int64 indices as radixOrderHost and a stable
/// sort). LSD passes of 8-bit digits (max(1, ceil(bits / 8)) of them) after
/// one count of every pass's digits, each pass one stable sweep whose tiles
/// chain their digit counts by decoupled look-back (cuda::DenseScatter's
/// pass kernels); `order` is also a key plane
/// between passes. status[0] (an 8-byte aligned device word of two) = the
/// keys >= 2^bits: then nothing is written to `order`; status[1] = 0.
/// `scratch` (device memory, any alignment) holds
/// radix_order_device_scratch_bytes(n) bytes. Kernels only: nothing
/// allocated, synchronised or read back (capture-safe). O(n x passes); does
/// not block.
/// Throws std::invalid_argument (nothing enqueued) for n < 0, bits outside
/// [0, 64], a null or misaligned (8 bytes) keys / order while n > 0, a null
/// or misaligned status, a null scratch or scratchBytes <
/// radix_order_device_scratch_bytes(n), or keys, order, status and scratch
/// sharing a byte; std::runtime_error if a launch fails.
void radixOrderDevice(const std::uint64_t* keys, std::int64_t n, int bits, std::int64_t* order,
                      std::int64_t* status, void* scratch, std::size_t scratchBytes,
                      cudaStream_t stream);

namespace Impl {
/// radixOrderDevice with index planes of `indexBytes` bytes (4 or 8, at least
/// radixIndexBytes(n)) in a scratch of Impl::radixOrderDeviceScratchBytes(n,
/// indexBytes) bytes: radixOrderDevice is this at radixIndexBytes(n). The
/// 8-byte planes, which only 2^32 keys and more take (about 180 GB of keys,
/// order and scratch), so run at any n (the tests). The same result and the
/// same throws as radixOrderDevice (messages naming `fn`), and for a bad
/// indexBytes.
void radixOrderDeviceIndexBytes(const std::uint64_t* keys, std::int64_t n, int bits,
                                std::int64_t* order, std::int64_t* status, void* scratch,
                                std::size_t scratchBytes, cudaStream_t stream,
                                std::size_t indexBytes, const char* fn);
} // namespace Impl

} // namespace sieve
