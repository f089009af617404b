// SPDX-License-Identifier: Apache-2.0
// Sieve (private) — the hot loops of the host twins, one table per instruction
// set. Every entry of every table produces the same bytes; the tables differ in
// speed only.
#pragma once

#include <sieve/core/tuning.hpp>
#include <sieve/native/host/isa.hpp>

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(__NVCOMPILER)
#define SIEVE_HOST_X86_DISPATCH 1
#define SIEVE_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define SIEVE_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2,avx2,bmi,bmi2,popcnt")))
#else
#define SIEVE_HOST_X86_DISPATCH 0
#endif

namespace sieve {
namespace Impl {

struct HostKernels {
  /// Kept samples and live aligned 32-groups of [a, b); a % 64 == 0.
  void (*count)(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a, std::int64_t b,
                std::uint32_t* kept, std::uint32_t* live);
  /// Indices of the kept samples of [a, b) into map[pos, end), end - pos being
  /// their exact number; a % 64 == 0. Writes no slot outside [pos, end).
  void (*write)(const std::uint8_t* mask, std::uint32_t flags, std::int64_t a, std::int64_t b,
                std::int32_t* map, std::int64_t pos, std::int64_t end);
  /// See hostScanSum32.
  std::uint32_t (*scanSum32)(const std::uint32_t* in, std::uint32_t* out, std::int64_t len,
                             std::uint32_t pre, bool inclusive);
  /// The reorder's move of stage[a, b) back into a plane of `elemBytes`-byte
  /// elements: kept samples (bit set in `bits`, one word per 32 samples) to
  /// slots [kp, kEnd), dropped ones to [dp, dEnd), each in order; a % 32 == 0,
  /// kEnd - kp and dEnd - dp being the exact counts. No other slot is written.
  void (*scatter)(const void* stage, void* plane, std::uint32_t elemBytes,
                  const std::uint32_t* bits, std::int64_t a, std::int64_t b, std::int64_t kp,
                  std::int64_t kEnd, std::int64_t dp, std::int64_t dEnd);
  /// The indices k (int64) of the samples of [i, i + len) whose mask byte is
  /// non-zero, in order, stored from dst; returns how many. len <=
  /// kSelectChunk. May store up to kSelectSlack bytes past the last item.
  std::int64_t (*selectIndices)(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                                std::int64_t* dst);
  /// selectIndices writing the indices as int32 (every k < 2^31).
  std::int64_t (*selectIndices32)(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                                  std::int32_t* dst);
  /// The same with values[k] (elements of elemBytes = 1, 2, 4 or 8 bytes).
  std::int64_t (*selectValues)(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                               const void* values, std::uint32_t elemBytes, void* dst);
  /// base + rel[k] for k < len into dst as int64 (itemBytes 8) or int32
  /// (itemBytes 4, every sum fitting), placed as memcpy would (dst needs no
  /// alignment). With `stream`, the whole 64-byte lines of an item-aligned
  /// dst are written with non-temporal stores (the caller fences). Writes no
  /// byte outside the len items.
  void (*offsetIndices)(const std::int32_t* rel, std::int64_t len, std::int64_t base, void* dst,
                        std::uint32_t itemBytes, bool stream);
};

/// Samples per call of a select kernel (at most 4096 bytes of 8-byte items).
inline constexpr std::int64_t kSelectChunk = Tuning::Host::kSelectKernelChunk;
/// Bytes a select kernel may store past its last item.
inline constexpr std::int64_t kSelectSlack = 64;

/// The exact select of one element type (also the tail of the vector ones):
/// items(k) of the selected samples of [i, i + len) from dst; returns how
/// many. Stores through memcpy: dst need not be aligned to T.
template <class T, class Item>
std::int64_t selectExact(const std::uint8_t* mask, std::int64_t i, std::int64_t len,
                         unsigned char* dst, const Item& item) {
  std::int64_t f = 0;
  for (std::int64_t j = 0; j < len; ++j) {
    // Branch-free: every item is stored, the cursor moves when selected.
    const T v = item(i + j);
    std::memcpy(dst + f * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
    f += mask[i + j] != 0;
  }
  return f;
}

/// The exact offsetIndices of items [k, len) (also the ends of the vector ones).
inline void offsetIndicesExact(const std::int32_t* rel, std::int64_t k, std::int64_t len,
                               std::int64_t base, unsigned char* dst, std::uint32_t itemBytes) {
  if (itemBytes == 8u) {
    for (; k < len; ++k) {
      const std::int64_t v = base + rel[k];
      std::memcpy(dst + 8 * k, &v, 8);
    }
  } else {
    for (; k < len; ++k) {
      const auto v = static_cast<std::int32_t>(base + rel[k]);
      std::memcpy(dst + 4 * k, &v, 4);
    }
  }
}

/// The scalar sum scan of in[i, len) from `acc` (the tail of every
/// vectorised scanSum32); returns the running sum.
inline std::uint32_t scanSum32Tail(const std::uint32_t* in, std::uint32_t* out, std::int64_t i,
                                   std::int64_t len, std::uint32_t acc, bool inclusive) {
  for (; i < len; ++i) {
    const std::uint32_t next = acc + in[i];
    out[i] = inclusive ? next : acc;
    acc = next;
  }
  return acc;
}

/// The portable scatter of one element type (also the exact tail of the others).
template <class T>
void scatterExact(const T* stage, T* plane, const std::uint32_t* bits, std::int64_t a,
                  std::int64_t b, std::int64_t& kp, std::int64_t& dp) {
  for (std::int64_t i = a; i < b; ++i) {
    // Branch-free: the slot is chosen by a mask, not a condition (a random
    // mask would mispredict every other sample).
    const std::int64_t k = (bits[i >> 5] >> (i & 31)) & 1u, sel = -k;
    plane[(kp & sel) | (dp & ~sel)] = stage[i];
    kp += k;
    dp += 1 - k;
  }
}

const HostKernels& hostKernels();

const HostKernels& hostKernelsPortable();
#if SIEVE_HOST_X86_DISPATCH
const HostKernels& hostKernelsAvx2();
const HostKernels& hostKernelsAvx512();
#endif

} // namespace Impl
} // namespace sieve
