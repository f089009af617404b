// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the single-pass CUDA selection with decoupled look-back,
// written once for both of its keep-bit sources: a byte mask (selectDevice,
// native/src/cuda/select.cu) and a predicate of the sample index compiled into
// the kernel (cuda::SelectIf, native/cuda/select.cuh: findall's predicate
// form, no n-byte mask written and reread).
//
// Each block takes the next tile of 8192 samples (a dynamic tile counter, so
// a block only ever waits on tiles handed out before its own), each thread
// the keep bits of one aligned 32-sample group: from the mask, vectorised
// loads (impl/mask.cuh); from a predicate, a warp's 32 groups evaluated 32
// consecutive samples at a time (coalesced reads), each group's bits one
// ballot, kept by the lane that owns the group. A block scan gives every
// thread its offset inside the tile; warp 0 publishes the tile's kept count,
// walks back over the tiles before it, 32 at a time, until it meets an
// inclusive prefix, and publishes its own (kept counts in the full 62-bit
// payload: int64 totals). The selected positions are staged in shared memory
// (16 bits each, relative to the tile) at their offsets, then the items are
// written out coalesced: the index (int64 or int32) or the gathered value.
// Items at or past `cap` are not written. The last tile writes the count.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/select.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/types.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/impl/lookback.cuh>
#include <sieve/native/cuda/impl/mask.cuh>

#include <cstdint>
#include <cstring>

namespace sieve {
namespace Impl {
namespace SelectDevice {

// Tile status payloads (impl/lookback.cuh): the kept count of the tile (or
// of every tile up to it), in all 62 bits (TileStatus::sumTilePrefix chains them).

/// Where a selected sample's item comes from: its index k, or values[k].
enum class Source { Index, Value };

struct Args {
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

/// The keep bits of thread `tid`'s group, samples tileBase + 32 tid + [0, 32),
/// from a byte mask (16-byte aligned or not).
template <bool AlignedMask>
struct MaskBits {
  const std::uint8_t* mask;
  __device__ __forceinline__ std::uint32_t operator()(std::int64_t tileBase, unsigned tid,
                                                      std::int64_t n) const {
    const std::int64_t base = tileBase + static_cast<std::int64_t>(tid) * 32;
    return base < n ? keepBits<AlignedMask>(mask, base, n, 0u) : 0u;
  }
};

/// The same bits from `keep(k)` (a device functor of the sample index,
/// returning something that converts to bool), called once per sample below
/// n: the warp's 32 groups are read 32 consecutive samples at a time, and
/// group j's ballot is kept by lane j (every lane of the warp takes part).
template <class Keep>
struct KeepBits {
  Keep keep;
  __device__ __forceinline__ std::uint32_t operator()(std::int64_t tileBase, unsigned tid,
                                                      std::int64_t n) const {
    const unsigned lane = tid & 31u;
    const std::int64_t warpBase = tileBase + static_cast<std::int64_t>(tid - lane) * 32;
    std::uint32_t bits = 0u;
    for (unsigned j = 0; j < 32u; ++j) {
      const std::int64_t group = warpBase + static_cast<std::int64_t>(j) * 32;
      if (group >= n) break; // warp-uniform
      const std::int64_t k = group + lane;
      const bool kept = k < n && static_cast<bool>(keep(k));
      const std::uint32_t word = __ballot_sync(0xFFFFFFFFu, kept);
      if (lane == j) bits = word;
    }
    return bits;
  }
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
__device__ __forceinline__ void writeItem(const Args& a, std::int64_t k, std::int64_t at) {
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

template <Source Src, unsigned Bytes, class Bits>
__global__ void __launch_bounds__(Tuning::Cuda::kBlock) selectKernel(Args a, Bits bitsOf) {
  using Tuning::Cuda::kBlock;
  using Tuning::Cuda::kSelectTile;
  using Tuning::Cuda::kWarps;
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
  const std::uint32_t bits = bitsOf(tileBase, static_cast<unsigned>(threadIdx.x), a.n);
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

template <class Unused = void>
__global__ void emptyKernel(std::int64_t* count) {
  if (threadIdx.x == 0) *count = 0;
}

/// The names a selection's launches report (a failed launch names its call).
struct Labels {
  const char* select;
  const char* empty;
  const char* clear;
};

/// Enqueue the selection `s` (checked by the caller: checkSelectDevice) on
/// `stream` with keep bits from `bitsOf` (MaskBits or KeepBits): the tile
/// words cleared, then one kernel. Capture-safe: kernels only.
template <class Bits>
void enqueue(const SelectSpec& s, const Bits& bitsOf, void* scratch, cudaStream_t stream,
             const Labels& labels) {
  const char* what = labels.select;
  if (s.n == 0) {
    launch(emptyKernel<>, 1u, stream, labels.empty, s.count);
    return;
  }
  const std::int64_t tiles = SelectLayout::cudaTiles(s.n);
  const TileStatus::TileWords w =
      TileStatus::clearTileWords<SelectLayout>(scratch, tiles, stream, labels.clear);
  const std::uint32_t bytes = selectItemBytes(s.item, s.elemBytes);
  const bool typed =
      reinterpret_cast<std::uintptr_t>(s.out) % bytes == 0 &&
      (s.item != SelectItem::Value || reinterpret_cast<std::uintptr_t>(s.values) % bytes == 0);
  const Args args{s.values, s.out, s.count, w.status, w.counter, s.n, tiles, s.cap, typed};
  const auto grid = static_cast<unsigned>(tiles);
  if (s.item == SelectItem::Index64)
    return launch(selectKernel<Source::Index, 8, Bits>, grid, stream, what, args, bitsOf);
  if (s.item == SelectItem::Index32)
    return launch(selectKernel<Source::Index, 4, Bits>, grid, stream, what, args, bitsOf);
  switch (bytes) {
  case 1: return launch(selectKernel<Source::Value, 1, Bits>, grid, stream, what, args, bitsOf);
  case 2: return launch(selectKernel<Source::Value, 2, Bits>, grid, stream, what, args, bitsOf);
  case 4: return launch(selectKernel<Source::Value, 4, Bits>, grid, stream, what, args, bitsOf);
  default: return launch(selectKernel<Source::Value, 8, Bits>, grid, stream, what, args, bitsOf);
  }
}

} // namespace SelectDevice
} // namespace Impl
} // namespace sieve
