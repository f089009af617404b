// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — what the scatter tests share: an output buffer fenced by
// guard bytes, placed at a chosen phase of a 1024-byte boundary (a bucket's
// block of up to 16 lines of the buffered scatters), and the check of an
// argument error's message.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace host_test {

inline constexpr unsigned char kGuard = 0xA5;
inline constexpr std::size_t kGuardBytes = 256;

/// `bytes` bytes `shift` bytes past kGuardBytes past a 1024-byte boundary,
/// guarded both sides; its bytes start as 0x5A (untouched()).
class Fenced {
 public:
  Fenced(std::size_t bytes, std::size_t shift)
      : bytes_(bytes), raw_(bytes + 2 * kGuardBytes + 1024 + 1024) { // alignment, shift
    std::memset(raw_.data(), kGuard, raw_.size());
    const auto addr = reinterpret_cast<std::uintptr_t>(raw_.data());
    begin_ = static_cast<std::size_t>((1024 - addr % 1024) % 1024) + kGuardBytes + shift;
    std::memset(raw_.data() + begin_, 0x5A, bytes_);
  }
  unsigned char* data() { return raw_.data() + begin_; }
  bool guardsIntact() const {
    for (std::size_t i = 0; i < raw_.size(); ++i)
      if ((i < begin_ || i >= begin_ + bytes_) && raw_[i] != kGuard) return false;
    return true;
  }
  bool untouched() const {
    for (std::size_t i = begin_; i < begin_ + bytes_; ++i)
      if (raw_[i] != 0x5A) return false;
    return guardsIntact();
  }

 private:
  std::size_t bytes_, begin_ = 0;
  std::vector<unsigned char> raw_;
};

/// f() throws std::invalid_argument whose message names `fn` and `word`.
template <class F>
void expectThrowsNaming(F&& f, const char* fn, const char* word) {
  try {
    f();
    ADD_FAILURE() << "no exception (" << word << ")";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fn), std::string::npos) << e.what();
  }
}

} // namespace host_test
