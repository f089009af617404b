// SPDX-License-Identifier: Apache-2.0
// Sieve — checked CUDA runtime calls. Every runtime call of the native CUDA
// face goes through cudaCheck(); a failure throws std::runtime_error naming
// the call and the CUDA error. Launch errors are taken from the launch call's
// own return value (cudaLaunchKernel), never from cudaGetLastError, so a
// non-sticky error left behind by the caller does not confuse Sieve. A failed
// call's own error is taken out of the runtime's last-error slot as it is
// thrown, so a caller that catches the exception does not meet it again in
// its next cudaGetLastError (that slot holds only the latest error: ours had
// already replaced anything older). A sticky error — a crashed kernel —
// poisons the context and is reported by whichever call comes next, as
// everywhere in CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace sieve {
namespace Impl {

inline void cudaCheck(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::runtime_error(std::string("sieve: CUDA call ") + what + " failed: " +
                             cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  }
}

} // namespace Impl
} // namespace sieve

#define SIEVE_CUDA_CHECK(call) ::sieve::Impl::cudaCheck((call), #call)

namespace sieve {
namespace Impl {

/// Makes `device` the calling thread's current CUDA device for its lifetime
/// and restores the previous one after (as Kokkos does around its own
/// launches): a stream belongs to one device, so a native launch on the
/// stream of a Kokkos::Cuda instance of another GPU needs that GPU current.
/// No runtime call at all when the device is already current. Capture-safe:
/// cudaGetDevice / cudaSetDevice neither allocate nor synchronise.
class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(int device) {
    SIEVE_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device != previous_) {
      SIEVE_CUDA_CHECK(cudaSetDevice(device));
      switched_ = true;
    }
  }
  ~CudaDeviceGuard() {
    if (switched_) (void)cudaSetDevice(previous_); // a destructor must not throw
  }
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

} // namespace Impl
} // namespace sieve
