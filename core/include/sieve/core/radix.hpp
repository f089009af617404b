// SPDX-License-Identifier: Apache-2.0
// Sieve — the stable LSD radix order of 64-bit unsigned keys, described once
// for every face: the digit width and the scratch its passes ping-pong
// through. The host twin is native/host/radix.hpp (radixOrderHost).
//
// Scratch layout (radix_order_scratch_bytes(n) bytes, any alignment): from
// the first 64-byte boundary of the buffer, three 64-byte aligned planes of
// m = max(n, 1) elements each:
//   keys  m x 8 bytes  (uint64 keys between passes)
//   idxA  m x w bytes + 64 (the original index of each key, ping; it starts
//         at the line phase of `order`, its key plane)
//   idxB  m x w bytes  (pong, with the scratch's key plane)
// with w = 4 (uint32 indices) when n <= 2^32 - 1 and w = 8 otherwise. The
// second key plane a ping-pong needs is the output `order` itself (n x 8
// bytes), which the last pass overwrites with the indices. Per-thread
// histograms and write-combining buffers are not in the scratch (the face
// allocates them per call), so the rule is a function of n alone and serves
// every face and every team size.
#pragma once

#include <sieve/core/macros.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {

/// Bits of one radix digit: one pass per non-constant 8-bit digit of the keys.
inline constexpr int kRadixDigitBits = 8;

namespace Impl {

/// Bytes of one scratch index (uint32 when every index of n keys fits).
SIEVE_INLINE constexpr std::size_t radixIndexBytes(std::int64_t n) {
  return n > static_cast<std::int64_t>(0xFFFFFFFFu) ? 8u : 4u;
}

SIEVE_INLINE constexpr std::size_t radixRound64(std::size_t b) { return (b + 63u) / 64u * 64u; }

/// Offsets of the three planes from the 64-byte aligned base of the scratch.
struct RadixLayout {
  SIEVE_HOST_DEVICE static constexpr std::size_t elems(std::int64_t n) {
    return static_cast<std::size_t>(n > 1 ? n : 1);
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t keys(std::int64_t) { return 0; }
  SIEVE_HOST_DEVICE static constexpr std::size_t idxA(std::int64_t n) {
    return radixRound64(8u * elems(n));
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t idxB(std::int64_t n) {
    return idxA(n) + 64u + radixRound64(radixIndexBytes(n) * elems(n));
  }
  SIEVE_HOST_DEVICE static constexpr std::size_t end(std::int64_t n) {
    return idxB(n) + radixRound64(radixIndexBytes(n) * elems(n));
  }
};

/// The passes of a dense stable counting scatter into `buckets` buckets on a
/// native face (denseScatterHost): bucket b's high digit b >> lowBits first
/// (one scatter into the output, at most 2^11 destinations per thread: they
/// fit the line buffers and the TLB), then, when lowBits > 0, every high
/// bucket's run sorted by its low digit in place (a run is ~n / 2^highBits
/// elements: it stays in cache). One pass up to 2^11 buckets; two up to
/// 2^23 (`ok` false beyond: the portable counting sort serves those).
struct DenseScatterPlan {
  bool ok;
  int highBits, lowBits;
};
SIEVE_INLINE constexpr DenseScatterPlan denseScatterPlan(std::int64_t buckets) {
  int bits = 0;
  while (bits < 63 && (std::int64_t(1) << bits) < buckets) ++bits;
  if (bits <= 11) return {buckets >= 1, bits, 0};
  const int high = (bits + 1) / 2 < 11 ? (bits + 1) / 2 : 11;
  return {bits - high <= 12, high, bits - high};
}

/// Whether the native dense scatter pays on a host face for `records`
/// records of `recordBytes` bytes into `buckets` buckets, against the
/// portable counting sort (one direct scatter, in cache below the last-level
/// cache): only the two-pass plan, from 32 MiB of output. Measured (2 threads,
/// 8-byte records): 2^16 keys at 2^22 records 0.84x the portable time, at
/// 2^24 0.67x; 2^10 keys (one pass) at 2^24 1.0x, and at 2^20 records 2x
/// slower (the portable scatter stays in cache).
SIEVE_INLINE constexpr bool denseScatterNativePays(std::int64_t buckets, std::int64_t records,
                                                   std::int64_t recordBytes) {
  const DenseScatterPlan plan = denseScatterPlan(buckets);
  return plan.ok && plan.lowBits > 0 && records * recordBytes >= (std::int64_t(32) << 20);
}

} // namespace Impl

/// Bytes of scratch the radix order of `n` keys needs: 64 bytes of alignment
/// slack, then a uint64 key plane and two index planes of max(n, 1) elements
/// (uint32 indices for n <= 2^32 - 1, uint64 beyond), each rounded to 64
/// bytes, and 64 bytes to align the first index plane with `order`: about
/// 16n bytes. A function of n alone (not of the team size).
/// n < 0 is treated as 0 (the call that takes the scratch rejects it). O(1),
/// host and device.
SIEVE_INLINE constexpr std::size_t radix_order_scratch_bytes(std::int64_t n) {
  return 64u + Impl::RadixLayout::end(n < 0 ? 0 : n);
}

} // namespace sieve
