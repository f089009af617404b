// SPDX-License-Identifier: Apache-2.0
// Sieve (private) — mask bytes to keep bits, and the tables the host twins
// use to turn keep bits into indices without a branch per sample.
//
// x86-64 uses its SSE2 baseline (no -march flag needed); other targets use a
// portable byte loop the compiler vectorises as it can.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/rules.hpp>

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sieve {
namespace Impl {

/// XOR applied to the "non-zero byte" bits to get keep bits (16-bit lanes):
/// core's keepXorMask, 16 bits wide.
inline std::uint32_t keepFlip16(std::uint32_t flags) {
  return static_cast<std::uint32_t>(keepXorMask<std::uint16_t>(flags));
}

/// Bit j set when byte p[j] is non-zero, j < 16.
inline std::uint32_t nonzeroBits16(const std::uint8_t* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const int zero = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
  return static_cast<std::uint32_t>(zero) ^ 0xFFFFu;
#else
  std::uint32_t bits = 0;
  for (int j = 0; j < 16; ++j) bits |= static_cast<std::uint32_t>(p[j] != 0) << j;
  return bits;
#endif
}

/// Keep bits of 16 samples: bit j set when sample j is kept under the flip.
inline std::uint32_t keepBits16(const std::uint8_t* p, std::uint32_t flip) {
  return nonzeroBits16(p) ^ flip;
}

/// Mask byte j of p, for groupKeepBits (a functor, not a lambda: a host
/// lambda in that host-and-device template warns under nvcc).
struct MaskBytes {
  const std::uint8_t* p;
  SIEVE_INLINE std::uint8_t operator()(std::int64_t j) const { return p[j]; }
};

/// Keep bits of `len < 32` samples (bits at and past len are 0).
inline std::uint32_t keepBitsTail(const std::uint8_t* p, std::int64_t len, std::uint32_t flags) {
  return groupKeepBits(MaskBytes{p}, 0, len, flags);
}

/// Positions of the set bits of every byte value, and its population count.
struct BitLut {
  alignas(64) std::int32_t pos[256][8];
  std::uint8_t pop[256];
};

inline constexpr BitLut makeBitLut() {
  BitLut t{};
  for (int m = 0; m < 256; ++m) {
    int k = 0;
    for (int b = 0; b < 8; ++b)
      if (m & (1 << b)) t.pos[m][k++] = b;
    for (int r = k; r < 8; ++r) t.pos[m][r] = 0;
    t.pop[m] = static_cast<std::uint8_t>(k);
  }
  return t;
}

inline constexpr BitLut kBitLut = makeBitLut();

/// Keep bits of the 32-sample group starting at p (len samples valid, <= 32).
inline std::uint32_t keepBits32(const std::uint8_t* p, std::int64_t len, std::uint32_t flags) {
  if (len >= 32) {
    const std::uint32_t flip = keepFlip16(flags);
    return keepBits16(p, flip) | (keepBits16(p + 16, flip) << 16);
  }
  return keepBitsTail(p, len, flags);
}

} // namespace Impl
} // namespace sieve
