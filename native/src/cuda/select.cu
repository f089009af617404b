// SPDX-License-Identifier: Apache-2.0
// Sieve — selectDevice: single-pass selection (sieve::findall's write on
// Kokkos::Cuda) with decoupled look-back.
//
// Each block takes the next tile of 8192 samples (a dynamic tile counter, so
// a block only ever waits on tiles handed out before its own), each thread
// one aligned 32-sample group of mask bytes (vectorised loads, impl/mask.cuh):
// keep bits and their popcount. A block scan gives every thread its offset
// inside the tile; warp 0 publishes the tile's kept count, walks back over
// the tiles before it, 32 at a time, until it meets an inclusive prefix, and
// publishes its own (kept counts in the full 62-bit payload: int64 totals).
// The selected positions are staged in shared memory (16 bits each, relative
// to the tile) at their offsets, then the items are written out coalesced:
// the index (int64 or int32) or the gathered value. Items at or past `cap`
// are not written. The last tile writes the count.
#include <sieve/core/bits.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/select.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/impl/lookback.cuh>
#include <sieve/native/cuda/impl/mask.cuh>
#include <sieve/native/cuda/select.hpp>

#include <cstdint>
#include <cstring>

namespace sieve {
namespace Impl {
namespace {

using Tuning::Cuda::kBlock;
using Tuning::Cuda::kSelectTile;
using Tuning::Cuda::kWarps;

// Tile status payloads (impl/lookback.cuh): the kept count of the tile (or
// of every tile up to it), in all 62 bits (TileStatus::sumTilePrefix chains them).

/// Where a selected sample's item comes from: its index k, or values[k].
enum class Source { Index, Value };

struct SelectArgs {
  const std::uint8_t* mask;
  const void* values;
  void* out;
  std::int64_t* count;
  unsigned long long* status; // one word per tile (only with more than one tile)
  unsigned int* tileCounter;
  std::int64_t n;
  std::int64_t tiles;
  std::int64_t cap;
  bool typed; // out (and values) aligned to the item size: whole-item loads and stores
};

/// The unsigned word of an item of `Bytes` bytes.
template <unsigned Bytes>
struct WordOf;
template <>
struct WordOf<1> {
  using type = unsigned char;
};
template <>
struct WordOf<2> {
  using type = unsigned short;
};
template <>
struct WordOf<4> {
  using type = unsigned int;
};
template <>
struct WordOf<8> {
  using type = unsigned long long;
};

/// Write the item of sample k to slot `at` of the output: one load and one
/// store of the item's size, or (arrays off that alignment) bytes placed as
/// memcpy would.
template <Source Src, unsigned Bytes>
__device__ __forceinline__ void writeItem(const SelectArgs& a, std::int64_t k, std::int64_t at) {
  using Word = typename WordOf<Bytes>::type;
  Word w;
  if constexpr (Src == Source::Index) {
    w = static_cast<Word>(k); // Index32: k < 2^31, the bits of the int32
  } else {
    if (a.typed) w = __ldg(static_cast<const Word*>(a.values) + k);
    else memcpy(&w, static_cast<const unsigned char*>(a.values) + k * Bytes, Bytes);
  }
  if (a.typed) static_cast<Word*>(a.out)[at] = w;
  else memcpy(static_cast<unsigned char*>(a.out) + at * Bytes, &w, Bytes);
}

template <Source Src, unsigned Bytes, bool AlignedMask>
__global__ void __launch_bounds__(kBlock) selectKernel(SelectArgs a) {
  __shared__ std::uint16_t staged[kSelectTile];
  __shared__ std::uint32_t warpTotals[kWarps];
  __shared__ long long sTile;
  __shared__ long long sPrefix;
  if (threadIdx.x == 0)
    sTile = a.tiles > 1 ? static_cast<long long>(atomicAdd(a.tileCounter, 1u)) : 0;
  __syncthreads();
  const std::int64_t tile = sTile;
  // A block past the last tile (a grid larger than the tiles, e.g. a retuned
  // graph node) has nothing to do; block-uniform, before any barrier.
  if (tile >= a.tiles) return;
  const std::int64_t tileBase = tile * kSelectTile;
  const auto group = static_cast<std::uint32_t>(threadIdx.x) * 32u; // in the tile
  const std::int64_t base = tileBase + group;
  const std::uint32_t bits = base < a.n ? keepBits<AlignedMask>(a.mask, base, a.n, 0u) : 0u;
  const auto mine = static_cast<std::uint32_t>(__popc(bits));
  const std::uint32_t incl = blockInclusive(mine, Sum{}, warpTotals);
  const std::uint32_t tileKept = warpTotals[kWarps - 1];

  if (threadIdx.x < 32u) {
    // Warp 0 publishes the tile and looks back, 32 predecessors at a time.
    const unsigned lane = threadIdx.x;
    const auto agg = static_cast<unsigned long long>(tileKept);
    const unsigned long long prefix =
        TileStatus::sumTilePrefix(TileStatus::PackedStatus{a.status}, tile, a.tiles, lane, agg);
    if (lane == 0u) {
      sPrefix = static_cast<long long>(prefix);
      if (tile == a.tiles - 1) *a.count = static_cast<std::int64_t>(prefix + agg);
    }
  }
  // Stage this thread's positions at its offset in the tile, then write the
  // tile's items out coalesced, stopping at cap.
  // (Swizzled slots: a fully kept warp spreads its writes over the banks.)
  std::uint32_t pos = incl - mine;
  for (std::uint32_t b = bits; b != 0u; b &= b - 1u)
    staged[stagedSlot(pos++)] = static_cast<std::uint16_t>(group + ctz32(b));
  __syncthreads();
  const std::int64_t first = sPrefix;
  const std::int64_t room = a.cap - first;
  const std::int64_t limit = room < std::int64_t(tileKept) ? (room > 0 ? room : 0) : tileKept;
  for (std::int64_t j = threadIdx.x; j < limit; j += kBlock)
    writeItem<Src, Bytes>(a, tileBase + staged[stagedSlot(static_cast<std::uint32_t>(j))],
                          first + j);
}

__global__ void selectEmptyKernel(std::int64_t* count) {
  if (threadIdx.x == 0) *count = 0;
}

template <Source Src, unsigned Bytes>
void launchSelect(const SelectArgs& args, bool alignedMask, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>(args.tiles);
  if (alignedMask)
    launch(selectKernel<Src, Bytes, true>, grid, stream, "sieve::selectDevice", args);
  else launch(selectKernel<Src, Bytes, false>, grid, stream, "sieve::selectDevice", args);
}

} // namespace
} // namespace Impl

void selectDevice(const SelectSpec& s, void* scratch, std::size_t scratchBytes,
                  cudaStream_t stream) {
  Impl::checkSelectDevice("sieve::selectDevice", s, scratch, scratchBytes);
  Impl::selectDeviceChecked(s, scratch, scratchBytes, stream);
}

void Impl::selectDeviceChecked(const SelectSpec& s, void* scratch, std::size_t /*scratchBytes*/,
                               cudaStream_t stream) {
  if (s.n == 0) {
    launch(selectEmptyKernel, 1u, stream, "sieve::selectDevice (empty)", s.count);
    return;
  }
  const std::int64_t tiles = SelectLayout::cudaTiles(s.n);
  auto* status = carve<unsigned long long>(scratch, SelectLayout::cudaTileStatus(tiles));
  auto* counter = carve<unsigned int>(scratch, SelectLayout::cudaTileCounter(tiles));
  // A single tile uses no scratch at all (the cleared region is then empty).
  // Cleared by a kernel, not cudaMemsetAsync (see clearWordsKernel).
  const ScratchRegion cleared = SelectLayout::cudaCleared(tiles);
  if (cleared.bytes > 0) {
    const auto words = static_cast<std::int64_t>(cleared.bytes / 8);
    launch(TileStatus::clearWordsKernel<unsigned long long>, Geometry::moveBlocks(words), stream,
           "sieve::selectDevice (clear tile words)", carve<unsigned long long>(scratch, cleared),
           words, static_cast<const std::uint32_t*>(nullptr));
  }
  const std::uint32_t bytes = selectItemBytes(s.item, s.elemBytes);
  const bool typed =
      reinterpret_cast<std::uintptr_t>(s.out) % bytes == 0 &&
      (s.item != SelectItem::Value || reinterpret_cast<std::uintptr_t>(s.values) % bytes == 0);
  const SelectArgs args{s.mask,  s.values, s.out, s.count, status,
                        counter, s.n,      tiles, s.cap,   typed};
  const bool alignedMask = reinterpret_cast<std::uintptr_t>(s.mask) % 16 == 0;
  if (s.item == SelectItem::Index64)
    return launchSelect<Source::Index, 8>(args, alignedMask, stream);
  if (s.item == SelectItem::Index32)
    return launchSelect<Source::Index, 4>(args, alignedMask, stream);
  switch (bytes) {
  case 1: return launchSelect<Source::Value, 1>(args, alignedMask, stream);
  case 2: return launchSelect<Source::Value, 2>(args, alignedMask, stream);
  case 4: return launchSelect<Source::Value, 4>(args, alignedMask, stream);
  default: return launchSelect<Source::Value, 8>(args, alignedMask, stream);
  }
}

} // namespace sieve
