// SPDX-License-Identifier: Apache-2.0
// Sieve — the rules every face follows, written once.
//
// Scratch-size arithmetic, the keep predicate, the locality trigger rule, the
// reorder destination rule and the span clamp. Host and device callable; the
// CUDA kernels, the OpenMP twins and the portable Kokkos path all call these,
// which is what makes their outputs agree to the bit.
#pragma once

#include <sieve/core/check.hpp>
#include <sieve/core/types.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {

/// Bytes of scratch the compaction of `n` samples needs: three `idx_t` planes
/// of `max(n, 1)` (predicate, inclusive scan, scan block sums). The contents are
/// internal; no face touches a byte past this size. O(1), host and device.
/// On the host, throws std::invalid_argument for n < 0 or n > INT32_MAX (the
/// contract of every call that takes the scratch); device code does not check.
SIEVE_INLINE constexpr std::size_t compact_scratch_bytes(std::int64_t n) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  if (n < 0 || n > kCompactMaxSamples) Impl::checkSamples("sieve::compact_scratch_bytes", n);
#endif
  return std::size_t(3) * sizeof(idx_t) * static_cast<std::size_t>(n > 1 ? n : 1);
}

/// The block size every scan's scratch rule is written for: no face uses
/// blocks (tiles) of fewer elements.
inline constexpr std::int64_t kScanScratchBlock = 1024;

/// Elements of block-sum scratch a scan of `n` elements needs on every face:
/// the sum over the levels of a block-by-block reduction with blocks of
/// kScanScratchBlock, down to one block total (n = 0: none; 1 <= n <= 1024:
/// one). About n / 1023. O(log n), host and device.
SIEVE_INLINE constexpr std::int64_t scanScratchElems(std::int64_t n) {
  std::int64_t total = 0;
  for (std::int64_t len = n; len > 0;) {
    len = (len + kScanScratchBlock - 1) / kScanScratchBlock;
    total += len;
    if (len <= 1) break;
  }
  return total;
}

namespace Impl {
/// Byte offset of the staging plane inside the reorder scratch: the compaction
/// scratch rounded up to 16 bytes.
SIEVE_INLINE constexpr std::size_t reorderStageOffset(std::int64_t n) {
  return (compact_scratch_bytes(n) + 15u) & ~std::size_t(15u);
}
/// Bytes of one staging element: the widest plane, `perm` included (4 bytes).
SIEVE_INLINE constexpr std::size_t reorderStageElemBytes(std::uint32_t maxElemBytes) {
  return maxElemBytes > 4u ? maxElemBytes : 4u;
}
} // namespace Impl

/// Bytes of scratch a reorder (or restore) of `n` samples needs: the
/// compaction scratch rounded up to 16 bytes, then one staging plane of
/// `max(n, 1)` elements of `max(maxElemBytes, 4)` bytes. O(1), host and device.
/// On the host, throws std::invalid_argument for a bad `n` (as
/// compact_scratch_bytes) or a `maxElemBytes` other than 1, 2, 4, 8 or 16.
SIEVE_INLINE constexpr std::size_t reorder_scratch_bytes(std::int64_t n,
                                                         std::uint32_t maxElemBytes) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  if (n < 0 || n > kCompactMaxSamples) Impl::checkSamples("sieve::reorder_scratch_bytes", n);
  if (!Impl::supportedElem(maxElemBytes))
    Impl::checkElemBytes("sieve::reorder_scratch_bytes", maxElemBytes, "max_elem_bytes");
#endif
  return Impl::reorderStageOffset(n) +
         static_cast<std::size_t>(n > 1 ? n : 1) * Impl::reorderStageElemBytes(maxElemBytes);
}

namespace Impl {
/// Where a Population's spawn keeps its words inside its scratch: the
/// compaction scratch first (rounded up to 16 bytes), then the index map of
/// the free samples (max(n, 1) int32), the mask gathered in sample-id order
/// (max(n, 1) bytes) and the free count (one uint32), each from a 16-byte
/// boundary.
struct SpawnLayout {
  std::size_t map, order, count, bytes;
};
SIEVE_INLINE constexpr SpawnLayout spawnLayout(std::int64_t n) {
  const std::size_t m = static_cast<std::size_t>(n > 1 ? n : 1);
  SpawnLayout l{};
  l.map = reorderStageOffset(n);
  l.order = l.map + ((4u * m + 15u) & ~std::size_t(15u));
  l.count = l.order + ((m + 15u) & ~std::size_t(15u));
  l.bytes = l.count + 16u;
  return l;
}
} // namespace Impl

/// The byte a mask of `polarity` holds for a kept (or a dead) sample: what a
/// spawn writes into a revived slot and a rebalance into the slots past its
/// new count. Host and device.
SIEVE_INLINE constexpr std::uint8_t maskByte(MaskPolarity polarity, bool kept) {
  return (polarity == MaskPolarity::drop) != kept ? 1u : 0u;
}

namespace Impl {
/// Bytes of scratch a Population's spawn of `n` samples needs
/// (spawnLayout). O(1), host and device.
SIEVE_INLINE constexpr std::size_t spawnScratchBytes(std::int64_t n) {
  return spawnLayout(n).bytes;
}
} // namespace Impl

namespace Impl {

/// The polarity bit, the one definition of what the mask means: whether a
/// non-zero mask byte drops its sample under `flags` (else it keeps it).
SIEVE_INLINE constexpr bool nonzeroDrops(std::uint32_t flags) {
  return (flags & kCompactMaskIsDrop) != 0;
}

/// Whether a mask byte keeps its sample under `flags`. Every scalar form of
/// the keep predicate calls this.
SIEVE_INLINE constexpr bool keeps(std::uint8_t maskByte, std::uint32_t flags) {
  return (maskByte != 0) != nonzeroDrops(flags);
}

/// The vector form of keeps(): XOR a word of "byte is non-zero" bits (one bit
/// per sample, any unsigned width U) with this to get keep bits: all ones when
/// a non-zero byte drops its sample, else zero. SIMD loops hoist it out of
/// the loop.
template <class U>
SIEVE_INLINE constexpr U keepXorMask(std::uint32_t flags) {
  return nonzeroDrops(flags) ? static_cast<U>(~U(0)) : U(0);
}

/// keepXorMask() for a loop that has "byte is zero" bits (a compare with
/// zero) instead: its complement, written as a constant of its own so that
/// no NOT is left in the loop.
template <class U>
SIEVE_INLINE constexpr U keepXorMaskForZeroBits(std::uint32_t flags) {
  return nonzeroDrops(flags) ? U(0) : static_cast<U>(~U(0));
}

/// The trigger rule, shared by every face so that they agree to the bit:
/// fire when the kept samples fill less than `theta` of the 32-sample groups
/// they occupy, a reorder would shrink the span, and the span is large enough
/// for the moves to pay. Evaluated in double precision.
SIEVE_INLINE constexpr std::uint32_t triggerFires(std::uint32_t count, std::uint32_t live32,
                                                  std::uint32_t span, float theta) {
  return (static_cast<double>(count) <
              static_cast<double>(theta) * 32.0 * static_cast<double>(live32) &&
          count < span && span >= kReorderMinSpan)
             ? 1u
             : 0u;
}

/// The span after a compaction with a trigger (public API): widened, when
/// needed, to just past the last kept sample `lastKept` (the index map's last
/// entry), so that a sample kept at or past the span — revived or spawned
/// there, or left there by a restore that the span does not know of — is never
/// dropped by the next reorder. count == 0 keeps the span. Host and device.
SIEVE_INLINE constexpr std::uint32_t spanCovering(std::uint32_t span, std::uint32_t count,
                                                  std::int32_t lastKept) {
  return count > 0u && static_cast<std::int64_t>(lastKept) >= static_cast<std::int64_t>(span)
             ? static_cast<std::uint32_t>(lastKept) + 1u
             : span;
}

/// The span a reorder moves over: the span word, clamped to `n` (a span past
/// the batch can never address memory past the planes).
SIEVE_INLINE constexpr std::int64_t effectiveSpan(std::uint32_t span, std::int64_t n) {
  return static_cast<std::int64_t>(span) < n ? static_cast<std::int64_t>(span) : n;
}

/// Where slot `i` goes in a reorder (a stable partition of `[0, span)`): kept
/// -> `incl - 1`, dropped -> after the kept ones, in order. `incl` is the
/// inclusive count of kept samples over `[0, i]`, `cnt` the kept count over
/// `[0, span)`.
SIEVE_INLINE constexpr std::int64_t reorderDst(bool kept, std::int64_t i, std::int64_t incl,
                                               std::int64_t cnt) {
  return kept ? incl - 1 : cnt + (i - incl);
}

/// Number of aligned 32-sample groups covering `[0, n)`.
SIEVE_INLINE constexpr std::int64_t groups32(std::int64_t n) { return (n + 31) / 32; }

/// Whether a perm / inv entry names a slot of `[0, n)`: every face reads an
/// index out of perm or inv only through this test, so a corrupted or foreign
/// permutation can never make a reorder or restore write (or read) outside the
/// planes. A failing entry is skipped (see the debug checks for reporting it).
SIEVE_INLINE constexpr bool slotInRange(std::int32_t slot, std::int64_t n) {
  return slot >= 0 && static_cast<std::int64_t>(slot) < n;
}

} // namespace Impl
} // namespace sieve
