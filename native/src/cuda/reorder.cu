// SPDX-License-Identifier: Apache-2.0
// Sieve — reorderDevice / restoreDevice.
//
// Reorder: keep bits of the span (one word per 32 samples) and their kept
// counts, an exclusive scan of the counts (the single-pass cuda::Scan, into
// scratch), then for every plane a stage kernel and a place kernel that sends
// slot i to reorderDstFromBits() — the same destinations as the host twin's
// two-cursor partition. perm moves like a plane; then inv, the identity map
// and the words. Every kernel reads the fire word on the device (a no-op while
// it is 0: such a replay reads and writes nothing else) and the span word (the
// span is never read back).
#include <sieve/core/bits.hpp>
#include <sieve/core/elem.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/block.cuh>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace {

using Tuning::Cuda::kBlock;

__global__ void reorderBitsKernel(const std::uint8_t* mask, std::uint32_t flags, ReorderState s,
                                  std::uint32_t* bits, std::uint32_t* counts) {
  // A replay with fire == 0 reads no mask and writes no bits; the scan of
  // the word offsets that follows and every kernel after it are gated on the
  // same word.
  if (!blockGateOpen(s.fire)) return;
  const std::int64_t g = globalIndex();
  if (g >= groups32(s.n)) return;
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

/// dst[0, count) = src[0, count) by a grid-stride loop: 16 bytes per thread
/// and step while both arrays are 16-byte aligned (so a 1-byte plane moves 16
/// samples a step), then the rest element by element.
template <class T>
__device__ __forceinline__ void copyElems(const T* src, T* dst, std::int64_t count) {
  std::int64_t done = 0;
  if constexpr (sizeof(T) < 16) {
    if ((reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst)) % 16 == 0) {
      constexpr std::int64_t per = 16 / sizeof(T);
      const std::int64_t vectors = count / per;
      const auto* s = reinterpret_cast<const uint4*>(src);
      auto* d = reinterpret_cast<uint4*>(dst);
      for (std::int64_t i = globalIndex(); i < vectors; i += gridStride()) d[i] = __ldg(s + i);
      done = vectors * per;
    }
  }
  for (std::int64_t i = done + globalIndex(); i < count; i += gridStride()) dst[i] = src[i];
}

// The moves are grid-stride loops over a grid sized to the device's
// residency (Geometry::moveBlocks), each block reading the fire word once:
// a replay with fire == 0 costs one small launch per move.
template <class T>
__global__ void reorderStageKernel(const T* plane, T* stage, ReorderState s) {
  if (!blockGateOpen(s.fire)) return;
  copyElems(plane, stage, s.sp());
}

template <class T>
__global__ void reorderPlaceKernel(const T* stage, T* plane, ReorderState s) {
  if (!blockGateOpen(s.fire)) return;
  const std::int64_t end = s.sp();
  std::int64_t done = 0;
  if constexpr (sizeof(T) < 4) {
    // 1- and 2-byte planes: 4 bytes of the (16-byte aligned) stage per load.
    constexpr std::int64_t per = 4 / sizeof(T);
    const std::int64_t words = end / per;
    const auto* w = reinterpret_cast<const std::uint32_t*>(stage);
    for (std::int64_t g = globalIndex(); g < words; g += gridStride()) {
      const std::uint32_t word = w[g];
#pragma unroll
      for (std::int64_t k = 0; k < per; ++k) {
        T v;
        memcpy(&v, reinterpret_cast<const unsigned char*>(&word) + k * sizeof(T), sizeof(T));
        plane[s.dst(g * per + k)] = v;
      }
    }
    done = words * per;
  }
  for (std::int64_t i = done + globalIndex(); i < end; i += gridStride())
    plane[s.dst(i)] = stage[i];
}

__global__ void reorderInverseKernel(const std::int32_t* perm, std::int32_t* inv, ReorderState s) {
  if (!blockGateOpen(s.fire)) return;
  const std::int64_t end = s.sp();
  for (std::int64_t i = globalIndex(); i < end; i += gridStride()) {
    const std::int32_t p = perm[i];
    if (slotInRange(p, s.n)) inv[p] = static_cast<std::int32_t>(i);
  }
}

__global__ void reorderIdentityKernel(std::int32_t* map, ReorderState s) {
  if (!blockGateOpen(s.fire)) return;
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
  copyElems(plane, stage, n);
}

template <class T>
__global__ void restoreGatherKernel(const T* stage, T* plane, const std::int32_t* inv,
                                    std::int64_t n) {
  // (A slot whose inv is out of range keeps its value: stage[i], the copy.)
  std::int64_t done = 0;
  if constexpr (sizeof(T) < 4) {
    // 1- and 2-byte planes, 4-byte aligned: one 4-byte store per 4 bytes.
    if (reinterpret_cast<std::uintptr_t>(plane) % 4 == 0) {
      constexpr std::int64_t per = 4 / sizeof(T);
      const std::int64_t words = n / per;
      auto* w = reinterpret_cast<std::uint32_t*>(plane);
      for (std::int64_t g = globalIndex(); g < words; g += gridStride()) {
        std::uint32_t word = 0;
#pragma unroll
        for (std::int64_t k = 0; k < per; ++k) {
          const std::int64_t i = g * per + k;
          const std::int32_t from = inv[i];
          const T v = stage[slotInRange(from, n) ? from : i];
          memcpy(reinterpret_cast<unsigned char*>(&word) + k * sizeof(T), &v, sizeof(T));
        }
        w[g] = word;
      }
      done = words * per;
    }
  }
  for (std::int64_t i = done + globalIndex(); i < n; i += gridStride()) {
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
  Impl::checkReorder("sieve::reorderDevice", planes, nPlanes, mask, flags, perm, inv, indexMap,
                     count, span, fire, scratch, n);
  Impl::reorderDeviceChecked(planes, nPlanes, mask, flags, perm, inv, indexMap, count, span, fire,
                             scratch, n, stream);
}

void Impl::reorderDeviceChecked(const ReorderPlane* planes, std::uint32_t nPlanes,
                                const std::uint8_t* mask, std::uint32_t flags, std::int32_t* perm,
                                std::int32_t* inv, std::int32_t* indexMap, std::uint32_t* count,
                                std::uint32_t* span, std::uint32_t* fire, void* scratch,
                                std::int64_t n, cudaStream_t stream) {
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
  // The single-pass scan (uint32 sums), gated on the fire word like every move.
  scanEnqueue<std::uint32_t, Sum, false>(wordOff, wordOff, sums, words, 0u, stream, Sum{}, fire);
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
  Impl::checkRestore("sieve::restoreDevice", planes, nPlanes, perm, inv, scratch, n);
  Impl::restoreDeviceChecked(planes, nPlanes, perm, inv, scratch, n, stream);
}

void Impl::restoreDeviceChecked(const ReorderPlane* planes, std::uint32_t nPlanes,
                                std::int32_t* perm, std::int32_t* inv, void* scratch,
                                std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = Geometry::blocksFor(n, kBlock), moves = Geometry::moveBlocks(n);
  for (std::uint32_t p = 0; p < nPlanes; ++p) {
    withElem(planes[p].elemBytes, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* stage = carve<T>(scratch, ReorderLayout::stage(n, sizeof(T)));
      launch(restoreStageKernel<T>, moves, stream, "sieve::restoreDevice (stage)",
             static_cast<const T*>(planes[p].data), stage, n);
      launch(restoreGatherKernel<T>, moves, stream, "sieve::restoreDevice (gather)",
             static_cast<const T*>(stage), static_cast<T*>(planes[p].data),
             static_cast<const std::int32_t*>(inv), n);
    });
  }
  launch(restoreIdentityKernel, blocks, stream, "sieve::restoreDevice (identity)", perm, inv, n);
}

} // namespace sieve
