// SPDX-License-Identifier: Apache-2.0
// Sieve — whole-cache-line stores for the host twins that write through
// per-bucket buffers (radixOrderHost, denseScatterHost).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sieve {
namespace Impl {

/// Bytes of one cache line: the unit the buffered scatters write.
inline constexpr int kHostLine = 64;

/// Store the 64 bytes at `src` (64-byte aligned) to `dst` (64-byte aligned):
/// with `Stream`, non-temporal stores (no read for ownership, no cache
/// pollution) where SSE2 has them, plain stores otherwise.
template <bool Stream>
inline void storeLine(void* dst, const void* src) {
#if defined(__SSE2__)
  if constexpr (Stream) {
    const auto* s = static_cast<const __m128i*>(src);
    auto* d = static_cast<__m128i*>(dst);
    _mm_stream_si128(d, _mm_load_si128(s));
    _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
    return;
  }
#endif
  std::memcpy(dst, src, kHostLine);
}

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
