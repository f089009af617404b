// SPDX-License-Identifier: Apache-2.0
// Sieve — cuda::SelectIf: the native CUDA selection of the samples a device
// predicate keeps (sieve::findall's predicate form into a result on
// Kokkos::Cuda). Header-only CUDA (the predicate is compiled into the
// kernel): include it from a translation unit nvcc compiles. The kernel is
// selectDevice's (impl/select.cuh), its keep bits evaluated in the kernel
// instead of read from a byte mask: no n-byte mask written and reread.
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/select.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/impl/select.cuh>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace cuda {

/// The native CUDA selection by a predicate (device memory; header-only).
struct SelectIf {
  /// Device scratch bytes of enqueue: select_scratch_bytes(n), as selectDevice.
  static std::size_t scratchBytes(std::int64_t n) { return select_scratch_bytes(n); }

  /// Enqueue on `stream` the selection `s` (core/select.hpp; s.mask unused)
  /// of the samples k in [0, s.n) for which `keep(k)` (a device functor of
  /// the sample index, converting to bool; called once per sample, in no
  /// particular order) is true: out[0], out[1], ... = their items in
  /// ascending k (the int64 or int32 index, or values[k] bit for bit) up to
  /// out[cap - 1], `*s.count` = the number kept (items past cap counted,
  /// never written), as selectDevice with mask[k] = keep(k). keep must not
  /// read the bytes out, count or the scratch cover (other tiles write them
  /// while it runs; nothing checks what it reads). One kernel after
  /// the clearing of its tile words: nothing allocated, synchronised or read
  /// back, so it may be captured into a CUDA graph. O(n); does not block.
  /// Throws std::invalid_argument (nothing enqueued) where selectDevice does
  /// (but for the mask); std::runtime_error if a launch fails.
  template <class Keep>
  static void enqueue(const SelectSpec& s, const Keep& keep, void* scratch,
                      std::size_t scratchBytes, cudaStream_t stream = 0) {
    constexpr const char* fn = "sieve::cuda::SelectIf::enqueue";
    Impl::checkSelectDevice(fn, s, scratch, scratchBytes, true);
    enqueueChecked(s, keep, scratch, stream);
  }

  /// enqueue for a caller that has made its checks (the Kokkos face, which
  /// checks its Views once at findall's entry).
  template <class Keep>
  static void enqueueChecked(const SelectSpec& s, const Keep& keep, void* scratch,
                             cudaStream_t stream = 0) {
    namespace D = Impl::SelectDevice;
    const D::Labels labels{"sieve::cuda::SelectIf", "sieve::cuda::SelectIf (empty)",
                           "sieve::cuda::SelectIf (clear tile words)"};
    D::enqueue(s, D::KeepBits<Keep>{keep}, scratch, stream, labels);
  }
};

} // namespace cuda
} // namespace sieve
