// SPDX-License-Identifier: Apache-2.0
// Sieve tests — buffers with guard bytes behind them, to prove that no face
// touches a byte past the documented size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace sieve_test {

inline constexpr std::size_t kGuardBytes = 256;
inline constexpr unsigned char kGuard = 0xA5;

/// `bytes` usable bytes (64-byte aligned start) followed by kGuardBytes of guard.
class Guarded {
 public:
  explicit Guarded(std::size_t bytes, unsigned char fill = 0x5A) : Guarded(bytes, nullptr, fill) {}
  /// `bytes` usable bytes holding a copy of `src` (or `fill` when null).
  Guarded(std::size_t bytes, const void* src, unsigned char fill = 0x5A)
      : bytes_(bytes), store_(new unsigned char[bytes + kGuardBytes + 64]) {
    auto addr = reinterpret_cast<std::uintptr_t>(store_.get());
    offset_ = static_cast<std::size_t>((64 - addr % 64) % 64);
    if (src != nullptr && bytes_ != 0) std::memcpy(data(), src, bytes_);
    else std::memset(data(), fill, bytes_);
    std::memset(data() + bytes_, kGuard, kGuardBytes);
  }
  unsigned char* data() { return store_.get() + offset_; }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(data());
  }
  std::size_t size() const { return bytes_; }
  bool guardIntact() const {
    const unsigned char* g = store_.get() + offset_ + bytes_;
    for (std::size_t i = 0; i < kGuardBytes; ++i)
      if (g[i] != kGuard) return false;
    return true;
  }

 private:
  std::size_t bytes_, offset_ = 0;
  std::unique_ptr<unsigned char[]> store_;
};

} // namespace sieve_test
