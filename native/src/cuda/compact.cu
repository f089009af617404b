// SPDX-License-Identifier: Apache-2.0
// Sieve — compactDevice: single-pass stream compaction with decoupled
// look-back.
//
// Each block takes the next tile of 8192 samples (a dynamic tile counter, so
// a block only ever waits on tiles handed out before its own), each thread
// one aligned 32-sample group: keep bits, popcount, a live flag for the
// trigger. A block scan gives every thread its offset inside the tile; warp
// 0 publishes the tile's (kept, live) aggregate, walks back over the tiles
// before it, 32 at a time, until it meets an inclusive prefix, and publishes
// its own. The kept indices are staged in shared memory at their offsets and written out
// coalesced. The last tile writes the count and the trigger words.
#include <sieve/core/bits.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/impl/lookback.cuh>
#include <sieve/native/cuda/impl/mask.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace {

using Tuning::Cuda::kBlock;
using Tuning::Cuda::kCompactTile;
using Tuning::Cuda::kWarps;

// Tile status payloads (impl/lookback.cuh): live groups in bits 32-61, kept
// samples in bits 0-31 (kept <= 2^31 - 1 and live <= 2^26: plain additions of
// two payloads never carry across fields; TileStatus::sumTilePrefix chains
// them).

struct CompactArgs {
  const std::uint8_t* mask;
  std::int32_t* map;
  std::uint32_t* count;
  unsigned long long* status; // one word per tile (only with more than one tile)
  unsigned int* tileCounter;
  std::int64_t n;
  std::int64_t tiles;
  std::uint32_t flags;
  bool hasTrigger;
  ReorderTrigger trig;
};

template <bool Aligned>
__global__ void __launch_bounds__(kBlock) compactKernel(CompactArgs a) {
  __shared__ std::int32_t staged[kCompactTile];
  __shared__ std::uint32_t warpTotals[kWarps];
  __shared__ long long sTile;
  __shared__ unsigned long long sPrefix;
  if (threadIdx.x == 0)
    sTile = a.tiles > 1 ? static_cast<long long>(atomicAdd(a.tileCounter, 1u)) : 0;
  __syncthreads();
  const std::int64_t tile = sTile;
  // A block past the last tile (a grid larger than the tiles, e.g. a retuned
  // graph node) has nothing to do; block-uniform, before any barrier.
  if (tile >= a.tiles) return;
  const std::int64_t base = (tile * kBlock + threadIdx.x) * 32;
  const std::uint32_t bits = base < a.n ? keepBits<Aligned>(a.mask, base, a.n, a.flags) : 0u;
  // kept in the low 16 bits (<= 8192 per tile), the live flag above
  const std::uint32_t mine =
      static_cast<std::uint32_t>(__popc(bits)) | (bits != 0u ? 1u << 16 : 0u);
  const std::uint32_t incl = blockInclusive(mine, Sum{}, warpTotals);
  const std::uint32_t excl = incl - mine;
  const std::uint32_t tileSum = warpTotals[kWarps - 1];

  if (threadIdx.x < 32u) {
    // Warp 0 publishes the tile and looks back, 32 predecessors at a time.
    const unsigned lane = threadIdx.x;
    const unsigned long long agg = static_cast<unsigned long long>(tileSum & 0xFFFFu) |
                                   (static_cast<unsigned long long>(tileSum >> 16) << 32);
    const unsigned long long prefix =
        TileStatus::sumTilePrefix(TileStatus::PackedStatus{a.status}, tile, a.tiles, lane, agg);
    if (lane == 0u) {
      sPrefix = prefix;
      if (tile == a.tiles - 1) {
        const unsigned long long total = prefix + agg;
        const auto kept = static_cast<std::uint32_t>(total & 0xFFFFFFFFull);
        const auto live = static_cast<std::uint32_t>(total >> 32);
        *a.count = kept;
        if (a.hasTrigger) {
          *a.trig.live32 = live;
          *a.trig.fire = triggerFires(kept, live, *a.trig.span, a.trig.theta);
        }
      }
    }
  }
  // Stage this thread's indices at its offset in the tile, then write the
  // tile's indices out coalesced.
  // (Swizzled slots: a fully kept warp writes 32 banks per step, not one.)
  std::uint32_t pos = excl & 0xFFFFu;
  for (std::uint32_t b = bits; b != 0u; b &= b - 1u)
    staged[stagedSlot(pos++)] = static_cast<std::int32_t>(base + ctz32(b));
  __syncthreads();
  const auto out = static_cast<std::int64_t>(sPrefix & 0xFFFFFFFFull);
  const std::uint32_t tileKept = tileSum & 0xFFFFu;
  for (std::uint32_t j = threadIdx.x; j < tileKept; j += kBlock)
    a.map[out + j] = staged[stagedSlot(j)];
}

__global__ void compactEmptyKernel(std::uint32_t* count, bool hasTrigger, ReorderTrigger trig) {
  if (threadIdx.x != 0) return;
  *count = 0u;
  if (hasTrigger) {
    *trig.live32 = 0u;
    *trig.fire = triggerFires(0u, 0u, *trig.span, trig.theta);
  }
}

} // namespace
} // namespace Impl

void compactDevice(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                   std::uint32_t* count, void* scratch, std::int64_t n, cudaStream_t stream,
                   const ReorderTrigger* trig) {
  Impl::checkCompact("sieve::compactDevice", mask, flags, indexMap, count, scratch, n, 1,
                     sizeof(std::int32_t), trig);
  Impl::compactDeviceChecked(mask, flags, indexMap, count, scratch, n, stream, trig);
}

void Impl::compactDeviceChecked(const std::uint8_t* mask, std::uint32_t flags,
                                std::int32_t* indexMap, std::uint32_t* count, void* scratch,
                                std::int64_t n, cudaStream_t stream, const ReorderTrigger* trig) {
  const ReorderTrigger t = trig != nullptr ? *trig : ReorderTrigger{};
  if (n == 0) {
    launch(compactEmptyKernel, 1u, stream, "sieve::compactDevice (empty)", count, trig != nullptr,
           t);
    return;
  }
  const std::int64_t tiles = CompactLayout::cudaTiles(n);
  const TileStatus::TileWords w = TileStatus::clearTileWords<CompactLayout>(
      scratch, tiles, stream, "sieve::compactDevice (clear tile words)");
  const CompactArgs args{mask, indexMap, count, w.status,        w.counter,
                         n,    tiles,    flags, trig != nullptr, t};
  const bool aligned = reinterpret_cast<std::uintptr_t>(mask) % 16 == 0;
  if (aligned)
    launch(compactKernel<true>, static_cast<unsigned>(tiles), stream, "sieve::compactDevice", args);
  else
    launch(compactKernel<false>, static_cast<unsigned>(tiles), stream, "sieve::compactDevice",
           args);
}

void compactDevice(const std::uint8_t* mask, std::uint32_t flags, std::int32_t* indexMap,
                   std::uint32_t* count, void* scratch, std::int64_t n, cudaStream_t stream) {
  compactDevice(mask, flags, indexMap, count, scratch, n, stream, nullptr);
}

} // namespace sieve
