// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::mpi::DeviceBuffers, the mode of set_device_buffers (in
// <sieve/mpi.hpp>), and its process-wide switch.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sieve {
namespace mpi {

/// How sieve::mpi hands the plane bytes of a rebalance to MPI (see
/// set_device_buffers).
enum class DeviceBuffers {
  Auto,   ///< MPI reads host memory itself; device memory when MPI says it can
  Direct, ///< MPI reads the space's memory itself (an MPI known to be CUDA-aware)
  Staged  ///< every exchange goes through host copies of its send and receive buffers
};

namespace Impl {

/// The mode of set_device_buffers: a DeviceBuffers value, or -1 when
/// SIEVE_MPI_DEVICE_BUFFERS held an unknown value (deviceBuffers throws).
inline std::atomic<int>& deviceBuffersMode() {
  static std::atomic<int> mode{[] {
    const char* env = std::getenv("SIEVE_MPI_DEVICE_BUFFERS");
    if (env == nullptr || *env == '\0' || std::strcmp(env, "auto") == 0)
      return static_cast<int>(DeviceBuffers::Auto);
    if (std::strcmp(env, "direct") == 0) return static_cast<int>(DeviceBuffers::Direct);
    if (std::strcmp(env, "staged") == 0) return static_cast<int>(DeviceBuffers::Staged);
    return -1;
  }()};
  return mode;
}
inline DeviceBuffers deviceBuffers() {
  const int m = deviceBuffersMode().load(std::memory_order_relaxed);
  if (m < 0) {
    const char* env = std::getenv("SIEVE_MPI_DEVICE_BUFFERS");
    throw std::invalid_argument(
        std::string("sieve::mpi: SIEVE_MPI_DEVICE_BUFFERS = '") + (env != nullptr ? env : "") +
        "' is not one of auto, direct, staged (how a rebalance hands device buffers to MPI)");
  }
  return static_cast<DeviceBuffers>(m);
}

} // namespace Impl
} // namespace mpi
} // namespace sieve
