// Sieve tests — buffers with guard bytes behind them, to prove that no face
// touches a byte past the documented size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace sieve_test {

inline constexpr std::size_t kGuardBytes = 256;
inline constexpr unsigned char kGuard = 0xA5;

/// `bytes` usable bytes (64-byte aligned start) followed by kGuardBytes of guard.
class Guarded {
 public:
  explicit Guarded(std::size_t bytes, unsigned char fill = 0x5A)
      : bytes_(bytes), store_(bytes + kGuardBytes + 64) {
    auto addr = reinterpret_cast<std::uintptr_t>(store_.data());
    offset_ = static_cast<std::size_t>((64 - addr % 64) % 64);
    std::memset(data(), fill, bytes_);
    std::memset(data() + bytes_, kGuard, kGuardBytes);
  }
  unsigned char* data() { return store_.data() + offset_; }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(data());
  }
  std::size_t size() const { return bytes_; }
  bool guardIntact() const {
    const unsigned char* g = store_.data() + offset_ + bytes_;
    for (std::size_t i = 0; i < kGuardBytes; ++i)
      if (g[i] != kGuard) return false;
    return true;
  }

 private:
  std::size_t bytes_, offset_ = 0;
  std::vector<unsigned char> store_;
};

} // namespace sieve_test
