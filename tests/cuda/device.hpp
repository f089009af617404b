// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — device buffers and the device-present check.
#pragma once

#include <sieve/native/cuda/check.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef SIEVE_TEST_CUDA_ARCHS
#define SIEVE_TEST_CUDA_ARCHS "?"
#endif

namespace sieve_test {

/// An empty kernel (main.cu), built for the same architectures as the
/// library: whether the device has an image of it.
__global__ void probeKernel();

/// Empty when a CUDA device can run this build's kernels, else why not (no
/// device, or a device below every architecture built).
inline const std::string& noDeviceReason() {
  static const std::string reason = [] {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
      return std::string("no usable CUDA device (") + cudaGetErrorName(err) + ": " +
             cudaGetErrorString(err) + ")";
    if (count == 0) return std::string("no CUDA device");
    cudaFuncAttributes attr{};
    err = cudaFuncGetAttributes(&attr, probeKernel);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      int dev = 0, major = 0, minor = 0;
      (void)cudaGetDevice(&dev);
      (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
      (void)cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
      return "device " + std::to_string(dev) + " is sm_" + std::to_string(major) +
             std::to_string(minor) + ", below every architecture this build has kernels for (" +
             SIEVE_TEST_CUDA_ARCHS + "; CMAKE_CUDA_ARCHITECTURES) (" + cudaGetErrorName(err) + ")";
    }
    return std::string();
  }();
  return reason;
}

/// Skip a CUDA-only test without a GPU.
#define SIEVE_REQUIRE_DEVICE()                                                           \
  do {                                                                                   \
    if (!::sieve_test::noDeviceReason().empty())                                         \
      GTEST_SKIP() << ::sieve_test::noDeviceReason() << ": the CUDA tests run on a GPU"; \
  } while (0)

/// Device memory of `bytes` bytes followed by a guard, zero or filled.
class DeviceBytes {
 public:
  static constexpr std::size_t kGuard = 256;
  explicit DeviceBytes(std::size_t bytes, int fill = 0x5A) : bytes_(bytes) {
    SIEVE_CUDA_CHECK(cudaMalloc(&ptr_, bytes_ + kGuard));
    SIEVE_CUDA_CHECK(cudaMemset(ptr_, fill, bytes_));
    SIEVE_CUDA_CHECK(cudaMemset(static_cast<unsigned char*>(ptr_) + bytes_, 0xA5, kGuard));
  }
  ~DeviceBytes() { cudaFree(ptr_); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;

  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t size() const { return bytes_; }
  void upload(const void* src, std::size_t bytes) {
    SIEVE_CUDA_CHECK(cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice));
    // A copy from pageable memory may return before the DMA lands; work on a
    // non-blocking stream would not wait for it.
    SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  template <class T>
  void upload(const std::vector<T>& v) {
    upload(v.data(), v.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> download(std::size_t count) const {
    std::vector<T> v(count);
    SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
    SIEVE_CUDA_CHECK(cudaMemcpy(v.data(), ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  std::vector<unsigned char> bytes() const { return download<unsigned char>(bytes_); }
  bool guardIntact() const {
    std::vector<unsigned char> g(kGuard);
    SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
    SIEVE_CUDA_CHECK(cudaMemcpy(g.data(), static_cast<unsigned char*>(ptr_) + bytes_, kGuard,
                                cudaMemcpyDeviceToHost));
    for (auto b : g)
      if (b != 0xA5) return false;
    return true;
  }

 private:
  std::size_t bytes_;
  void* ptr_ = nullptr;
};

inline std::uint32_t word(const DeviceBytes& d) { return d.download<std::uint32_t>(1)[0]; }

/// Expect `f()` to throw std::invalid_argument naming `fn` and `needle`.
template <class F>
void expectInvalidNaming(const std::string& fn, const std::string& needle, F&& f) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fn), std::string::npos) << e.what();
  }
}

} // namespace sieve_test
