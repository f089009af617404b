// SPDX-License-Identifier: Apache-2.0
// Sieve — reorderDevice / restoreDevice.
//
// Reorder: keep bits of the span (one word per 32 samples) and their kept
// counts, an exclusive scan of the counts (cuda::Scan, into scratch), then for
// every plane a stage kernel and a place kernel that sends slot i to
// reorderDstFromBits() — the same destinations as the host twin's two-cursor
// partition. perm moves like a plane; then inv, the identity map and the
// words. Every move reads the fire word on the device (no-op while 0) and the
// span word (the span is never read back).
#include <sieve/core/bits.hpp>
#include <sieve/core/elem.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace {

using Tuning::Cuda::kBlock;

__device__ __forceinline__ std::int64_t globalIndex() {
  return static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x;
}

/// The stride of a grid-stride loop.
__device__ __forceinline__ std::int64_t gridStride() {
  return static_cast<std::int64_t>(gridDim.x) * kBlock;
}

__global__ void reorderBitsKernel(const std::uint8_t* mask, std::uint32_t flags, ReorderState s,
                                  std::uint32_t* bits, std::uint32_t* counts) {
  // A replay with fire == 0 reads no mask and writes no bits; the scan of
  // the word offsets that follows still runs over scratch (n / 32 words), and
  // every kernel after it is gated on the same word.
  const std::int64_t g = globalIndex();
  if (g >= groups32(s.n) || !s.active()) return;
  const std::int64_t sp = s.sp();
  const std::uint32_t b =
      g * 32 < sp ? groupKeepBits([&](std::int64_t i) { return mask[i]; }, g * 32, sp, flags) : 0u;
  bits[g] = b;
  counts[g] = static_cast<std::uint32_t>(popcount32(b));
}

__global__ void reorderCountKernel(const std::uint32_t* bits, const std::uint32_t* wordOff,
                                   std::int64_t words, std::uint32_t* cnt, ReorderState s) {
  if (globalIndex() == 0 && s.active())
    *cnt = wordOff[words - 1] + static_cast<std::uint32_t>(popcount32(bits[words - 1]));
}

// The moves are grid-stride loops over a grid sized to the device's
// residency (Geometry::moveBlocks), each thread reading the fire word once:
// a replay with fire == 0 costs one small launch per move.
template <class T>
__global__ void reorderStageKernel(const T* plane, T* stage, ReorderState s) {
  if (!s.active()) return;
  const std::int64_t end = s.sp();
  for (std::int64_t i = globalIndex(); i < end; i += gridStride()) stage[i] = plane[i];
}

template <class T>
__global__ void reorderPlaceKernel(const T* stage, T* plane, ReorderState s) {
  if (!s.active()) return;
  const std::int64_t end = s.sp();
  for (std::int64_t i = globalIndex(); i < end; i += gridStride()) plane[s.dst(i)] = stage[i];
}

__global__ void reorderInverseKernel(const std::int32_t* perm, std::int32_t* inv, ReorderState s) {
  if (!s.active()) return;
  const std::int64_t end = s.sp();
  for (std::int64_t i = globalIndex(); i < end; i += gridStride()) {
    const std::int32_t p = perm[i];
    if (slotInRange(p, s.n)) inv[p] = static_cast<std::int32_t>(i);
  }
}

__global__ void reorderIdentityKernel(std::int32_t* map, ReorderState s) {
  if (!s.active()) return;
  const std::int64_t end = s.kept() < s.n ? s.kept() : s.n;
  for (std::int64_t i = globalIndex(); i < end; i += gridStride())
    map[i] = static_cast<std::int32_t>(i);
}

__global__ void reorderWordsKernel(ReorderState s, std::uint32_t* count, std::uint32_t* span,
                                   std::uint32_t* fire) {
  if (globalIndex() != 0 || !s.active()) return;
  reorderEpilogue(count, span, fire, *s.cnt);
}

__global__ void reorderEmptyKernel(std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire) {
  if (globalIndex() == 0) reorderEpilogue(count, span, fire, 0u);
}

template <class T>
__global__ void restoreStageKernel(const T* plane, T* stage, std::int64_t n) {
  const std::int64_t i = globalIndex();
  if (i < n) stage[i] = plane[i];
}

template <class T>
__global__ void restoreGatherKernel(const T* stage, T* plane, const std::int32_t* inv,
                                    std::int64_t n) {
  const std::int64_t i = globalIndex();
  if (i < n) {
    const std::int32_t from = inv[i];
    if (slotInRange(from, n)) plane[i] = stage[from];
  }
}

__global__ void restoreIdentityKernel(std::int32_t* perm, std::int32_t* inv, std::int64_t n) {
  const std::int64_t i = globalIndex();
  if (i < n) perm[i] = inv[i] = static_cast<std::int32_t>(i);
}

} // namespace
} // namespace Impl

void reorderDevice(const ReorderPlane* planes, std::uint32_t nPlanes, const std::uint8_t* mask,
                   std::uint32_t flags, std::int32_t* perm, std::int32_t* inv,
                   std::int32_t* indexMap, std::uint32_t* count, std::uint32_t* span,
                   std::uint32_t* fire, void* scratch, std::int64_t n, cudaStream_t stream) {
  using namespace Impl;
  checkReorder("sieve::reorderDevice", planes, nPlanes, mask, flags, perm, inv, indexMap, count,
               span, fire, scratch, n);
  if (n == 0) {
    launch(reorderEmptyKernel, 1u, stream, "sieve::reorderDevice (empty)", count, span, fire);
    return;
  }
  // Scratch: ReorderLayout (keep bits | word offsets | kept count | scan block
  // sums, then the staging plane).
  const std::int64_t words = ReorderLayout::words(n);
  auto* bits = carve<std::uint32_t>(scratch, ReorderLayout::bits(n));
  auto* wordOff = carve<std::uint32_t>(scratch, ReorderLayout::wordOff(n));
  auto* cnt = carve<std::uint32_t>(scratch, ReorderLayout::cnt(n));
  auto* sums = carve<std::uint32_t>(scratch, ReorderLayout::scanSums(n));
  const ReorderState s{bits, wordOff, cnt, span, fire, n};
  const unsigned wordBlocks = Geometry::blocksFor(words, kBlock);
  const unsigned blocks = Geometry::moveBlocks(n);
  launch(reorderBitsKernel, wordBlocks, stream, "sieve::reorderDevice (bits)", mask, flags, s, bits,
         wordOff);
  cuda::Scan::enqueue<std::uint32_t, Sum, false>(wordOff, wordOff, sums, words, 0u, stream);
  launch(reorderCountKernel, 1u, stream, "sieve::reorderDevice (count)", bits, wordOff, words, cnt,
         s);
  auto move = [&](void* data, std::uint32_t elemBytes) {
    withElem(elemBytes, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* stage = carve<T>(scratch, ReorderLayout::stage(n, sizeof(T)));
      launch(reorderStageKernel<T>, blocks, stream, "sieve::reorderDevice (stage)",
             static_cast<const T*>(data), stage, s);
      launch(reorderPlaceKernel<T>, blocks, stream, "sieve::reorderDevice (place)",
             static_cast<const T*>(stage), static_cast<T*>(data), s);
    });
  };
  for (std::uint32_t p = 0; p < nPlanes; ++p) move(planes[p].data, planes[p].elemBytes);
  move(perm, 4u);
  launch(reorderInverseKernel, blocks, stream, "sieve::reorderDevice (inverse)", perm, inv, s);
  launch(reorderIdentityKernel, blocks, stream, "sieve::reorderDevice (identity)", indexMap, s);
  launch(reorderWordsKernel, 1u, stream, "sieve::reorderDevice (words)", s, count, span, fire);
}

void restoreDevice(const ReorderPlane* planes, std::uint32_t nPlanes, std::int32_t* perm,
                   std::int32_t* inv, void* scratch, std::int64_t n, cudaStream_t stream) {
  using namespace Impl;
  checkRestore("sieve::restoreDevice", planes, nPlanes, perm, inv, scratch, n);
  if (n == 0) return;
  const unsigned blocks = Geometry::blocksFor(n, kBlock);
  for (std::uint32_t p = 0; p < nPlanes; ++p) {
    withElem(planes[p].elemBytes, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* stage = carve<T>(scratch, ReorderLayout::stage(n, sizeof(T)));
      launch(restoreStageKernel<T>, blocks, stream, "sieve::restoreDevice (stage)",
             static_cast<const T*>(planes[p].data), stage, n);
      launch(restoreGatherKernel<T>, blocks, stream, "sieve::restoreDevice (gather)",
             static_cast<const T*>(stage), static_cast<T*>(planes[p].data),
             static_cast<const std::int32_t*>(inv), n);
    });
  }
  launch(restoreIdentityKernel, blocks, stream, "sieve::restoreDevice (identity)", perm, inv, n);
}

} // namespace sieve
