// SPDX-License-Identifier: Apache-2.0
// Sieve — whole-cache-line stores for the host twins that write through
// buffers (radixOrderHost, denseScatterHost, selectHost).
#pragma once

#include <sieve/core/fault.hpp>
#include <sieve/core/tuning.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sieve {
namespace Impl {

/// Bytes of one cache line: the unit the buffered scatters write.
inline constexpr int kHostLine = Tuning::Host::kLineBytes;

/// Store the 64 bytes at `src` (any address) to `dst` (64-byte aligned):
/// with `Stream`, non-temporal stores (no read for ownership, no cache
/// pollution) where SSE2 has them, plain stores otherwise.
template <bool Stream>
inline void storeLine(void* dst, const void* src) {
#if defined(__SSE2__)
  if constexpr (Stream) {
    const auto* s = static_cast<const __m128i*>(src);
    auto* d = static_cast<__m128i*>(dst);
    _mm_stream_si128(d, _mm_loadu_si128(s));
    _mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
    return;
  }
#endif
  std::memcpy(dst, src, kHostLine);
}

/// Copy `bytes` bytes from `src` (any address) to `dst`: the whole lines of
/// dst with storeLine<Stream>, the parts before its first and after its last
/// whole line byte-exactly (nothing outside the range is written). Returns
/// whether a line was streamed (then storeFence before the data is read
/// elsewhere).
template <bool Stream>
inline bool copyLines(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const std::size_t head =
      (kHostLine - reinterpret_cast<std::uintptr_t>(d) % kHostLine) % kHostLine;
  if (!Stream || head + kHostLine > bytes) {
    std::memcpy(d, s, bytes);
    return false;
  }
  std::memcpy(d, s, head);
  std::size_t at = head;
  for (; at + kHostLine <= bytes; at += kHostLine) storeLine<Stream>(d + at, s + at);
  std::memcpy(d + at, s + at, bytes - at);
  return true;
}

/// A 64-byte aligned heap block of `bytes` bytes (a thread's buffers).
struct Aligned {
  std::unique_ptr<unsigned char[]> raw;
  unsigned char* p = nullptr;
  explicit Aligned(std::size_t bytes)
      : raw((allocationPoint(), new unsigned char[bytes + kHostLine])) {
    const auto a = reinterpret_cast<std::uintptr_t>(raw.get());
    p = raw.get() + (kHostLine - a % kHostLine) % kHostLine;
  }
};

/// Order non-temporal stores before what follows (a team barrier, a return).
inline void storeFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// The slot of `p` within its cache line, in elements of T (p aligned to
/// sizeof(T)).
template <class T>
inline int linePhase(const T* p) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) % kHostLine / sizeof(T));
}

} // namespace Impl
} // namespace sieve
