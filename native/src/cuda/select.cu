// SPDX-License-Identifier: Apache-2.0
// Sieve — selectDevice: single-pass selection (sieve::findall's write on
// Kokkos::Cuda) with decoupled look-back, its keep bits read from a byte
// mask. The kernel and its launch are native/cuda/impl/select.cuh, shared with
// the predicate's selection (cuda::SelectIf).
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/impl/select.cuh>
#include <sieve/native/cuda/select.hpp>

#include <cstdint>

namespace sieve {

void selectDevice(const SelectSpec& s, void* scratch, std::size_t scratchBytes,
                  cudaStream_t stream) {
  Impl::checkSelectDevice("sieve::selectDevice", s, scratch, scratchBytes);
  Impl::selectDeviceChecked(s, scratch, scratchBytes, stream);
}

void Impl::selectDeviceChecked(const SelectSpec& s, void* scratch, std::size_t /*scratchBytes*/,
                               cudaStream_t stream) {
  namespace D = SelectDevice;
  const D::Labels labels{"sieve::selectDevice", "sieve::selectDevice (empty)",
                         "sieve::selectDevice (clear tile words)"};
  if (reinterpret_cast<std::uintptr_t>(s.mask) % 16 == 0)
    D::enqueue(s, D::MaskBits<true>{s.mask}, scratch, stream, labels);
  else D::enqueue(s, D::MaskBits<false>{s.mask}, scratch, stream, labels);
}

} // namespace sieve
