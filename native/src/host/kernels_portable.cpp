// SPDX-License-Identifier: Apache-2.0
// Sieve — the host hot loops for the architecture's baseline (SSE2 on x86-64,
// plain C++ elsewhere).
#include "kernels.hpp"
#include "maskbits.hpp"

#include <sieve/core/elem.hpp>

#include <cstdint>
#include <cstring>

namespace sieve {
namespace Impl {
namespace {

void countPortable(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a, std::int64_t b,
                   std::uint32_t* kept, std::uint32_t* live) {
  std::uint32_t c = 0, l = 0;
  const std::uint32_t flip = keepFlip16(flags);
  std::int64_t i = a;
  for (; i + 32 <= b; i += 32) {
    const std::uint32_t bits = keepBits16(mask + i, flip) | (keepBits16(mask + i + 16, flip) << 16);
    c += popcount32(bits);
    l += bits != 0u;
  }
  if (i < b) {
    const std::uint32_t bits = keepBitsTail(mask + i, b - i, flags);
    c += popcount32(bits);
    l += bits != 0u;
  }
  *kept = c;
  *live = l;
}

void writePortable(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a, std::int64_t b,
                   std::int32_t* map, std::int64_t pos, std::int64_t end) {
  const std::uint32_t flip = keepFlip16(flags);
  std::int64_t i = a;
  for (; i + 16 <= b; i += 16) {
    std::uint32_t bits = keepBits16(mask + i, flip);
    if (bits == 0u) continue;
    if (pos + 16 <= end) {
      // Unconditional stores of 8 slots per byte of bits; they stay inside
      // [pos, end) and the slack is overwritten, in order, by what follows.
      const std::uint32_t lo = bits & 0xFFu, hi = bits >> 8;
      const auto base = static_cast<std::int32_t>(i);
#if defined(__SSE2__)
      const __m128i b0 = _mm_set1_epi32(base), b1 = _mm_set1_epi32(base + 8);
      const auto* tl = reinterpret_cast<const __m128i*>(kBitLut.pos[lo]);
      const auto* th = reinterpret_cast<const __m128i*>(kBitLut.pos[hi]);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(map + pos),
                       _mm_add_epi32(_mm_load_si128(tl), b0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(map + pos + 4),
                       _mm_add_epi32(_mm_load_si128(tl + 1), b0));
      pos += kBitLut.pop[lo];
      _mm_storeu_si128(reinterpret_cast<__m128i*>(map + pos),
                       _mm_add_epi32(_mm_load_si128(th), b1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(map + pos + 4),
                       _mm_add_epi32(_mm_load_si128(th + 1), b1));
      pos += kBitLut.pop[hi];
#else
      for (int k = 0; k < 8; ++k) map[pos + k] = base + kBitLut.pos[lo][k];
      pos += kBitLut.pop[lo];
      for (int k = 0; k < 8; ++k) map[pos + k] = base + 8 + kBitLut.pos[hi][k];
      pos += kBitLut.pop[hi];
#endif
    } else {
      for (; bits != 0u; bits &= bits - 1u) map[pos++] = static_cast<std::int32_t>(i + ctz32(bits));
    }
  }
  for (; i < b; ++i)
    if (keeps(mask[i], flags)) map[pos++] = static_cast<std::int32_t>(i);
}

std::uint32_t scanSum32Portable(const std::uint32_t* in, std::uint32_t* out, std::int64_t len,
                                std::uint32_t pre, bool inclusive) {
  std::int64_t i = 0;
#if defined(__SSE2__)
  // In-register prefix of 4 lanes, two vectors per step; the carry chain is
  // one add per 8 elements (each vector's total is formed off the chain).
  __m128i carry = _mm_set1_epi32(static_cast<int>(pre));
  for (; i + 8 <= len; i += 8) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 4));
    __m128i pa = _mm_add_epi32(a, _mm_slli_si128(a, 4));
    __m128i pb = _mm_add_epi32(b, _mm_slli_si128(b, 4));
    pa = _mm_add_epi32(pa, _mm_slli_si128(pa, 8));
    pb = _mm_add_epi32(pb, _mm_slli_si128(pb, 8));
    const __m128i ta = _mm_shuffle_epi32(pa, 0xFF);
    const __m128i ia = _mm_add_epi32(pa, carry);
    const __m128i ib = _mm_add_epi32(_mm_add_epi32(pb, ta), carry);
    if (inclusive) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), ia);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 4), ib);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_sub_epi32(ia, a));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 4), _mm_sub_epi32(ib, b));
    }
    carry = _mm_add_epi32(carry, _mm_add_epi32(ta, _mm_shuffle_epi32(pb, 0xFF)));
  }
  pre = static_cast<std::uint32_t>(_mm_cvtsi128_si32(carry));
#endif
  std::uint32_t acc = pre;
  return scanSum32Tail(in, out, i, len, acc, inclusive);
}

void scatterPortable(const void* stage, void* plane, std::uint32_t elemBytes,
                     const std::uint32_t* bits, std::int64_t a, std::int64_t b, std::int64_t kp,
                     std::int64_t, std::int64_t dp, std::int64_t) {
  withElem(elemBytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatterExact(static_cast<const T*>(stage), static_cast<T*>(plane), bits, a, b, kp, dp);
  });
}

// (Loads and stores through memcpy: the output, and the values, need not be
// aligned to their element size.)
/// The selected positions of mask[i, i + len) as indices of type T (int64 or
/// int32; the caller checked that they fit).
template <class T>
std::int64_t selectIndicesAs(const std::uint8_t* mask, std::int64_t i, std::int64_t len, T* dst) {
  auto* d = reinterpret_cast<unsigned char*>(dst);
  std::int64_t f = 0, j = 0;
  for (; j + 16 <= len; j += 16) {
    const std::uint32_t bits = nonzeroBits16(mask + i + j);
    if (bits == 0u) continue;
    // One table row (8 positions) per byte of bits, stored whole; the slack
    // is overwritten in order by what follows (or lies in the caller's room).
    const auto base = static_cast<T>(i + j);
    for (int h = 0; h < 2; ++h) {
      const std::uint32_t m = (bits >> (8 * h)) & 0xFFu;
      T row[8];
      for (int k = 0; k < 8; ++k) row[k] = static_cast<T>(base + 8 * h + kBitLut.pos[m][k]);
      std::memcpy(d + sizeof(T) * f, row, sizeof row);
      f += kBitLut.pop[m];
    }
  }
  return f + selectExact<T>(mask, i + j, len - j, d + sizeof(T) * f,
                            [](std::int64_t k) { return static_cast<T>(k); });
}

std::int64_t selectIndicesPortable(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                                   std::int64_t* dst) {
  return selectIndicesAs(mask, i, len, dst);
}

std::int64_t selectIndices32Portable(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                                     std::int32_t* dst) {
  return selectIndicesAs(mask, i, len, dst);
}

std::int64_t selectValuesPortable(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                                  const void* values, std::uint32_t elemBytes, void* dst) {
  std::int64_t f = 0;
  withElem(elemBytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* v = static_cast<const unsigned char*>(values);
    auto* d = static_cast<unsigned char*>(dst);
    const auto at = [v](std::int64_t k) {
      T x;
      std::memcpy(&x, v + k * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
      return x;
    };
    std::int64_t j = 0;
    for (; j + 16 <= len; j += 16) {
      for (std::uint32_t bits = nonzeroBits16(mask + i + j); bits != 0u; bits &= bits - 1u) {
        const T x = at(i + j + ctz32(bits));
        std::memcpy(d + f * static_cast<std::int64_t>(sizeof(T)), &x, sizeof(T));
        ++f;
      }
    }
    f += selectExact<T>(mask, i + j, len - j, d + f * static_cast<std::int64_t>(sizeof(T)), at);
  });
  return f;
}

/// Plain stores (`stream` is a hint this table does not take).
void offsetIndicesPortable(const std::int32_t* rel, std::int64_t len, std::int64_t base, void* dst,
                           std::uint32_t itemBytes, bool /*stream*/) {
  offsetIndicesExact(rel, 0, len, base, static_cast<unsigned char*>(dst), itemBytes);
}

} // namespace

const HostKernels& hostKernelsPortable() {
  static const HostKernels k{countPortable,        writePortable,         scanSum32Portable,
                             scatterPortable,      selectIndicesPortable, selectIndices32Portable,
                             selectValuesPortable, offsetIndicesPortable};
  return k;
}

} // namespace Impl
} // namespace sieve
