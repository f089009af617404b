// SPDX-License-Identifier: Apache-2.0
// Sieve — how every face carves its scratch, one layout per primitive.
//
// Each region is an {offset, bytes} pair computed from n (and from the team
// size or the tile count where the face has one). Every face takes its
// pointers through these functions and nowhere else; tests/core/test_layout.cpp
// proves, over n and every team size, that each region lies inside the
// scratch the size rule (rules.hpp) promises and that the regions a face uses
// at the same time never share a byte. Host and device callable, O(1) except
// where noted.
#pragma once

#include <sieve/core/rules.hpp>
#include <sieve/core/tuning.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sieve {
namespace Impl {

/// A part of a scratch buffer: `bytes` bytes from byte `offset`.
struct ScratchRegion {
  std::size_t offset = 0;
  std::size_t bytes = 0;

  /// One past the last byte.
  SIEVE_INLINE constexpr std::size_t end() const { return offset + bytes; }
  /// Whether the two regions share a byte (an empty region shares none).
  SIEVE_INLINE constexpr bool overlaps(const ScratchRegion& o) const {
    return bytes != 0 && o.bytes != 0 && offset < o.end() && o.offset < end();
  }
};

/// The first element of region `r` of `scratch`, typed.
template <class T>
SIEVE_INLINE T* carve(void* scratch, const ScratchRegion& r) {
  return reinterpret_cast<T*>(static_cast<unsigned char*>(scratch) + r.offset);
}

/// Elements of block sums a reduce-then-scan over tiles of `tile` elements
/// writes for n elements: the tile totals of every level above n, up to the
/// level that fits one tile (none for n <= tile). At most scanScratchElems(n)
/// when tile >= kScanScratchBlock. O(log n).
SIEVE_INLINE constexpr std::int64_t scanBlockSumsElems(std::int64_t n, std::int64_t tile) {
  std::int64_t total = 0;
  for (std::int64_t len = n; len > tile;) {
    len = (len + tile - 1) / tile;
    total += len;
  }
  return total;
}

/// The single-pass (decoupled look-back) scan's scratch over tiles of `tile`
/// elements, carved from its block sums at `base` (4-byte aligned at least):
/// the dynamic tile counter (a uint32) at the base, then the status of every
/// tile but the last (whose fold nobody reads). Nothing for a single tile.
/// - packed (payloads of up to 32 bits): one 8-byte status word per tile, from
///   the next 8-byte boundary: at most 8 * tiles bytes.
/// - wide (64-bit payloads): a uint32 flag per tile right after the counter,
///   then, from the next 8-byte boundary, an aggregate and an inclusive value
///   per tile: at most 20 * tiles bytes.
/// Both stay within scanScratchElems(n) elements of the scanned type for the
/// CUDA tiles (2304 elements of 4 bytes, 2816 of 8; core/test_layout.cpp).
struct ScanLookBackLayout {
  SIEVE_INLINE static constexpr std::int64_t tiles(std::int64_t n, std::int64_t tile) {
    return (n + tile - 1) / tile;
  }
  /// Packed: where the status words start, from a base at `base` (mod 8: 0 or 4).
  SIEVE_INLINE static constexpr std::size_t statusOffset(std::uintptr_t base) {
    return base % 8 == 4 ? 4 : 8;
  }
  /// Packed: bytes used from a base at `base`: the counter, padding and status words.
  SIEVE_INLINE static constexpr std::size_t bytes(std::int64_t n, std::int64_t tile,
                                                  std::uintptr_t base) {
    const std::int64_t t = tiles(n, tile);
    return t > 1 ? statusOffset(base) + std::size_t(8) * static_cast<std::size_t>(t - 1) : 0;
  }
  /// Packed: the most bytes any base needs (an 8-byte aligned one): 8 * tiles.
  SIEVE_INLINE static constexpr std::size_t maxBytes(std::int64_t n, std::int64_t tile) {
    return bytes(n, tile, 0);
  }
  /// Wide: the flags follow the counter.
  SIEVE_INLINE static constexpr std::size_t wideFlagsOffset() { return 4; }
  /// Wide: where the aggregate values start (the inclusive ones follow them).
  SIEVE_INLINE static constexpr std::size_t wideValuesOffset(std::int64_t n, std::int64_t tile,
                                                             std::uintptr_t base) {
    const std::size_t end =
        wideFlagsOffset() + std::size_t(4) * static_cast<std::size_t>(tiles(n, tile) - 1);
    return end + ((base + end) % 8 != 0 ? 4 : 0);
  }
  /// Wide: bytes used from a base at `base`.
  SIEVE_INLINE static constexpr std::size_t wideBytes(std::int64_t n, std::int64_t tile,
                                                      std::uintptr_t base) {
    const std::int64_t t = tiles(n, tile);
    return t > 1
               ? wideValuesOffset(n, tile, base) + std::size_t(16) * static_cast<std::size_t>(t - 1)
               : 0;
  }
  /// Wide: the most bytes any 4-byte aligned base needs.
  SIEVE_INLINE static constexpr std::size_t wideMaxBytes(std::int64_t n, std::int64_t tile) {
    const std::size_t a = wideBytes(n, tile, 0), b = wideBytes(n, tile, 4);
    return a > b ? a : b;
  }
};

/// The words a CUDA look-back chain over tiles of `Tile` samples keeps in
/// its scratch (compaction, selection): one 8-byte status word per tile,
/// then the dynamic tile counter (a uint32 in an 8-byte word), all cleared
/// before each launch; none for a single tile, which looks back on nothing.
template <std::int64_t Tile>
struct CudaTileWords {
  /// Tiles (blocks) of Tile samples covering n.
  SIEVE_HOST_DEVICE static constexpr std::int64_t cudaTiles(std::int64_t n) {
    return (n + Tile - 1) / Tile;
  }
  /// One status word per tile (the flag and the payload).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion cudaTileStatus(std::int64_t tiles) {
    return {0, tiles > 1 ? std::size_t(8) * static_cast<std::size_t>(tiles) : 0};
  }
  /// The dynamic tile counter, after the status words.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion cudaTileCounter(std::int64_t tiles) {
    return {cudaTileStatus(tiles).end(), tiles > 1 ? std::size_t(8) : 0};
  }
  /// What is cleared before the launch: the status words and the counter.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion cudaCleared(std::int64_t tiles) {
    return {0, tiles > 1 ? cudaTileCounter(tiles).end() : 0};
  }
};

/// The compaction scratch (compact_scratch_bytes(n) bytes, 8-byte aligned) as
/// each face carves it. A face uses its own regions only.
struct CompactLayout : CudaTileWords<Tuning::Cuda::kCompactTile> {
  // --- host twin -----------------------------------------------------------------
  /// The largest team the host twin runs for n samples (teamSizeFor() with
  /// Tuning::Host::kCompactMinPerThread); the host regions assume at most it.
  SIEVE_HOST_DEVICE static constexpr int hostMaxThreads(std::int64_t n) {
    const std::int64_t t = n / Tuning::Host::kCompactMinPerThread;
    return t < 1 ? 1 : (t > INT32_MAX ? INT32_MAX : static_cast<int>(t));
  }
  /// Host: the kept count of each thread of a team of `threads` (uint32 each;
  /// none for a team of one, which shares nothing).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion hostKept(int threads) {
    return {0, threads > 1 ? std::size_t(4) * static_cast<std::size_t>(threads) : 0};
  }
  /// Host: the live 32-groups of each thread (uint32 each), after the kept counts.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion hostLive(int threads) {
    return {hostKept(threads).end(), hostKept(threads).bytes};
  }

  // --- CUDA: cudaTiles / cudaTileStatus / cudaTileCounter / cudaCleared (CudaTileWords)

  // --- portable ------------------------------------------------------------------
  /// Portable: tiles of Tuning::Portable::kTileGroups 32-sample groups covering n.
  SIEVE_HOST_DEVICE static constexpr std::int64_t portableTiles(std::int64_t n) {
    return (groups32(n) + Tuning::Portable::kTileGroups - 1) / Tuning::Portable::kTileGroups;
  }
  /// Portable: the kept count of each tile (uint32 each).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion portableTileKept(std::int64_t ntiles) {
    return {0, std::size_t(4) * static_cast<std::size_t>(ntiles)};
  }
  /// Portable: the live 32-groups of each tile (uint32 each).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion portableTileLive(std::int64_t ntiles) {
    return {portableTileKept(ntiles).end(), std::size_t(4) * static_cast<std::size_t>(ntiles)};
  }
  /// Portable: the exclusive kept count before each tile (uint32 each).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion portableTileOff(std::int64_t ntiles) {
    return {portableTileLive(ntiles).end(), std::size_t(4) * static_cast<std::size_t>(ntiles)};
  }
  /// Portable, sequential (Kokkos::Serial): the keep bits of every 32-sample
  /// group (uint32 each), from byte 0; the only region it uses.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion sequentialBits(std::int64_t n) {
    return {0, std::size_t(4) * static_cast<std::size_t>(groups32(n))};
  }
  /// Portable: each 32-sample group's keep bits (uint32 each), saved by the
  /// count phase for the write phase, after the tile words; empty where they
  /// do not fit in compact_scratch_bytes(n) (n = 1: the write phase then
  /// reads the mask again).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion portableBits(std::int64_t n) {
    const ScratchRegion r{portableTileOff(portableTiles(n)).end(),
                          std::size_t(4) * static_cast<std::size_t>(groups32(n))};
    return r.end() <= compact_scratch_bytes(n) ? r : ScratchRegion{};
  }
};

/// The reorder / restore scratch (reorder_scratch_bytes(n, maxElemBytes) bytes,
/// 16-byte aligned) as each face carves it: the keep-bit regions inside the
/// compaction scratch, then the staging plane from reorderStageOffset(n).
struct ReorderLayout {
  /// Keep-bit words: one per aligned 32-sample group of n.
  SIEVE_HOST_DEVICE static constexpr std::int64_t words(std::int64_t n) { return groups32(n); }
  /// Every face: the keep bits of the span, one uint32 per 32 samples.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion bits(std::int64_t n) {
    return {0, std::size_t(4) * static_cast<std::size_t>(words(n))};
  }
  /// CUDA and portable: the exclusive kept count before each word (uint32 each).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion wordOff(std::int64_t n) {
    return {bits(n).end(), std::size_t(4) * static_cast<std::size_t>(words(n))};
  }
  /// CUDA and portable: the kept count of the span (one uint32).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion cnt(std::int64_t n) {
    return {wordOff(n).end(), 4};
  }
  /// CUDA: the block sums of the scan of the word counts (uint32;
  /// scanScratchElems(words) of them, what a scan on any face may use).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion scanSums(std::int64_t n) {
    return {cnt(n).end(), std::size_t(4) * static_cast<std::size_t>(scanScratchElems(words(n)))};
  }
  /// The largest team the host twin runs for a span of `sp` <= n samples
  /// (teamSizeFor() with Tuning::Host::kReorderMinPerThread); the host
  /// regions assume at most it.
  SIEVE_HOST_DEVICE static constexpr int hostMaxThreads(std::int64_t sp) {
    const std::int64_t t = sp / Tuning::Host::kReorderMinPerThread;
    return t < 1 ? 1 : (t > INT32_MAX ? INT32_MAX : static_cast<int>(t));
  }
  /// Host: the kept count of each thread of a team of `threads` (uint32 each;
  /// none for a team of one), where the word offsets of the other faces go.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion hostShared(std::int64_t n, int threads) {
    return {bits(n).end(), threads > 1 ? std::size_t(4) * static_cast<std::size_t>(threads) : 0};
  }
  /// Every face: the staging plane of a plane of `elemBytes`-byte elements
  /// (perm: 4), max(n, 1) of them, from reorderStageOffset(n).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion stage(std::int64_t n, std::uint32_t elemBytes) {
    return {reorderStageOffset(n),
            static_cast<std::size_t>(n > 1 ? n : 1) * reorderStageElemBytes(elemBytes)};
  }
  /// Portable: a second staging plane of n `elemBytes`-byte elements (two
  /// planes moved per pass), in the compaction part of the scratch from byte
  /// `from` on (past cnt(n) for a reorder, 0 for a restore, which uses no
  /// keep bits), 16-byte aligned; empty where it does not end before the
  /// staging plane (elements of 16 bytes, or n < 2).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion pairStage(std::int64_t n, std::size_t from,
                                                             std::uint32_t elemBytes) {
    const ScratchRegion r{(from + 15u) & ~std::size_t(15u),
                          std::size_t(elemBytes) * static_cast<std::size_t>(n > 0 ? n : 0)};
    return n >= 2 && r.end() <= stage(n, 4).offset ? r : ScratchRegion{};
  }
};

/// The largest n the CUDA selection (selectDevice) takes: one tile of
/// Tuning::Cuda::kSelectTile samples per block of a 1-D grid, at most
/// 2^31 - 1 blocks (the grid's x limit; the uint32 tile counter and the
/// 62-bit kept counts of the tile status words hold far more): about 1.76e13.
inline constexpr std::int64_t kSelectDeviceMaxSamples =
    std::int64_t(0x7FFFFFFF) * Tuning::Cuda::kSelectTile;

/// The CUDA selection's scratch (select_scratch_bytes(n) bytes, 8-byte
/// aligned): the tile status words, then the dynamic tile counter, all
/// cleared before each launch. A single tile looks back on nothing and uses
/// none.
struct SelectLayout : CudaTileWords<Tuning::Cuda::kSelectTile> {};

/// `n` must be a sample count the CUDA selection takes: 0 <= n <= kSelectDeviceMaxSamples.
inline void checkSelectDeviceSamples(const char* fn, std::int64_t n) {
  if (n < 0 || n > kSelectDeviceMaxSamples)
    fail(fn, "n = " + std::to_string(n) + "; it must be in [0, kSelectDeviceMaxSamples = " +
                 std::to_string(kSelectDeviceMaxSamples) + "]");
}
} // namespace Impl

/// Bytes of scratch the CUDA selection of `n` samples (selectDevice) needs:
/// 8 per tile of Tuning::Cuda::kSelectTile samples and 8 for the tile
/// counter, none for n <= kSelectTile (one tile). O(1), host and device.
/// Throws std::invalid_argument (host) for n < 0 or n > kSelectDeviceMaxSamples.
SIEVE_INLINE constexpr std::size_t select_scratch_bytes(std::int64_t n) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  if (n < 0 || n > Impl::kSelectDeviceMaxSamples)
    Impl::checkSelectDeviceSamples("sieve::select_scratch_bytes", n);
#endif
  return n > 0 ? Impl::SelectLayout::cudaCleared(Impl::SelectLayout::cudaTiles(n)).bytes : 0;
}
namespace Impl {

/// The sieve::findall workspace (bytes(n, tiles, samples) bytes): the
/// predicate's mask (n bytes), then the inclusive tile counts, the block sums
/// of their scan, the count word and the native selection's scratch for the
/// call's `samples` elements, each region 64-byte aligned. `tiles` is the tile
/// count of the call's algorithm (ScanScatter: ceil(n / (block x items));
/// Partitioned: the partitions). The portable face uses the first four regions, a native face the
/// mask, the count word and its own.
struct FindallLayout {
  SIEVE_HOST_DEVICE static constexpr std::size_t align64(std::size_t b) {
    return (b + 63u) & ~std::size_t(63u);
  }
  /// The predicate's mask: one byte per element (uint8, 0 or 1).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion mask(std::int64_t n) {
    return {0, static_cast<std::size_t>(n)};
  }
  /// The kept count of each tile, scanned in place to the inclusive ends (int64 each).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion tileEnd(std::int64_t n, std::int64_t tiles) {
    return {align64(mask(n).end()), std::size_t(8) * static_cast<std::size_t>(tiles)};
  }
  /// The block sums of the scan of the tile counts (int64; scanScratchElems(tiles)).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion sums(std::int64_t n, std::int64_t tiles) {
    return {align64(tileEnd(n, tiles).end()),
            std::size_t(8) * static_cast<std::size_t>(scanScratchElems(tiles))};
  }
  /// The count word (one int64) of the calls that return a new View.
  SIEVE_HOST_DEVICE static constexpr ScratchRegion total(std::int64_t n, std::int64_t tiles) {
    return {align64(sums(n, tiles).end()), 8};
  }
  /// The native selection's scratch for `samples` elements
  /// (select_scratch_bytes: the CUDA face's tile words; the host face uses
  /// none of it).
  SIEVE_HOST_DEVICE static constexpr ScratchRegion native(std::int64_t n, std::int64_t tiles,
                                                          std::int64_t samples) {
    return {align64(total(n, tiles).end()), select_scratch_bytes(samples)};
  }
  /// Bytes of the whole workspace.
  SIEVE_HOST_DEVICE static constexpr std::size_t bytes(std::int64_t n, std::int64_t tiles,
                                                       std::int64_t samples) {
    return native(n, tiles, samples).end();
  }
};

} // namespace Impl
} // namespace sieve
