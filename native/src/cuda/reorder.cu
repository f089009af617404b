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
#include <sieve/core/rules.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/impl/launch.cuh>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace {

using Geometry::kBlock;

/// The words every move kernel reads.
struct MoveWords {
  const std::uint32_t* span;
  const std::uint32_t* fire; // null: unconditional
  std::int64_t n;
  __device__ bool active() const { return fire == nullptr || *fire != 0u; }
  __device__ std::int64_t sp() const { return effectiveSpan(*span, n); }
};

__device__ __forceinline__ std::int64_t globalIndex() {
  return static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x;
}

__global__ void reorderBitsKernel(const std::uint8_t* mask, std::uint32_t flags, MoveWords w,
                                  std::uint32_t* bits, std::uint32_t* counts) {
  const std::int64_t g = globalIndex();
  if (g >= groups32(w.n)) return;
  const std::int64_t sp = w.sp();
  const std::uint32_t b =
      g * 32 < sp ? groupKeepBits([&](std::int64_t i) { return mask[i]; }, g * 32, sp, flags) : 0u;
  bits[g] = b;
  counts[g] = static_cast<std::uint32_t>(popcount32(b));
}

__global__ void reorderCountKernel(const std::uint32_t* bits, const std::uint32_t* wordOff,
                                   std::int64_t words, std::uint32_t* cnt) {
  if (globalIndex() == 0)
    *cnt = wordOff[words - 1] + static_cast<std::uint32_t>(popcount32(bits[words - 1]));
}

template <class T>
__global__ void reorderStageKernel(const T* plane, T* stage, MoveWords w) {
  const std::int64_t i = globalIndex();
  if (i < w.n && w.active() && i < w.sp()) stage[i] = plane[i];
}

template <class T>
__global__ void reorderPlaceKernel(const T* stage, T* plane, const std::uint32_t* bits,
                                   const std::uint32_t* wordOff, const std::uint32_t* cnt,
                                   MoveWords w) {
  const std::int64_t i = globalIndex();
  if (i < w.n && w.active() && i < w.sp())
    plane[reorderDstFromBits(bits, wordOff, i, static_cast<std::int64_t>(*cnt))] = stage[i];
}

__global__ void reorderInverseKernel(const std::int32_t* perm, std::int32_t* inv, MoveWords w) {
  const std::int64_t i = globalIndex();
  if (i < w.n && w.active() && i < w.sp()) inv[perm[i]] = static_cast<std::int32_t>(i);
}

__global__ void reorderIdentityKernel(std::int32_t* map, const std::uint32_t* cnt, MoveWords w) {
  const std::int64_t i = globalIndex();
  if (i < w.n && w.active() && i < static_cast<std::int64_t>(*cnt)) map[i] = static_cast<std::int32_t>(i);
}

__global__ void reorderWordsKernel(const std::uint32_t* cnt, std::uint32_t* count,
                                   std::uint32_t* span, std::uint32_t* fire) {
  if (globalIndex() != 0 || (fire != nullptr && *fire == 0u)) return;
  *count = *cnt;
  *span = *cnt;
  if (fire != nullptr) *fire = 0u;
}

__global__ void reorderEmptyKernel(std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire) {
  if (globalIndex() != 0) return;
  *count = 0u;
  *span = 0u;
  if (fire != nullptr) *fire = 0u;
}

template <class T>
__global__ void restoreStageKernel(const T* plane, T* stage, std::int64_t n) {
  const std::int64_t i = globalIndex();
  if (i < n) stage[i] = plane[i];
}

template <class T>
__global__ void restoreGatherKernel(const T* stage, T* plane, const std::int32_t* inv, std::int64_t n) {
  const std::int64_t i = globalIndex();
  if (i < n) plane[i] = stage[inv[i]];
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
  // Scratch: keep bits | word offsets | kept count | scan block sums, within
  // the compaction scratch (2 * words + 1 + words / 2304 <= 3 * n words);
  // then the staging plane.
  const std::int64_t words = groups32(n);
  auto* bits = static_cast<std::uint32_t*>(scratch);
  std::uint32_t* wordOff = bits + words;
  std::uint32_t* cnt = wordOff + words;
  std::uint32_t* sums = cnt + 1;
  void* stage = static_cast<unsigned char*>(scratch) + reorderStageOffset(n);
  const MoveWords w{span, fire, n};
  const unsigned wordBlocks = Geometry::blocksFor(words, kBlock);
  const unsigned blocks = Geometry::blocksFor(n, kBlock);
  launch(reorderBitsKernel, wordBlocks, stream, "sieve::reorderDevice (bits)", mask, flags, w, bits,
         wordOff);
  cuda::Scan::enqueue<std::uint32_t, Sum, false>(wordOff, wordOff, sums, words, 0u, stream);
  launch(reorderCountKernel, 1u, stream, "sieve::reorderDevice (count)", bits, wordOff, words, cnt);
  auto move = [&](void* data, std::uint32_t elemBytes) {
    withElem(elemBytes, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(reorderStageKernel<T>, blocks, stream, "sieve::reorderDevice (stage)",
             static_cast<const T*>(data), static_cast<T*>(stage), w);
      launch(reorderPlaceKernel<T>, blocks, stream, "sieve::reorderDevice (place)",
             static_cast<const T*>(stage), static_cast<T*>(data), bits, wordOff, cnt, w);
    });
  };
  for (std::uint32_t p = 0; p < nPlanes; ++p) move(planes[p].data, planes[p].elemBytes);
  move(perm, 4u);
  launch(reorderInverseKernel, blocks, stream, "sieve::reorderDevice (inverse)", perm, inv, w);
  launch(reorderIdentityKernel, blocks, stream, "sieve::reorderDevice (identity)", indexMap, cnt, w);
  launch(reorderWordsKernel, 1u, stream, "sieve::reorderDevice (words)", cnt, count, span, fire);
}

void restoreDevice(const ReorderPlane* planes, std::uint32_t nPlanes, std::int32_t* perm,
                   std::int32_t* inv, void* scratch, std::int64_t n, cudaStream_t stream) {
  using namespace Impl;
  checkRestore("sieve::restoreDevice", planes, nPlanes, perm, inv, scratch, n);
  if (n == 0) return;
  void* stage = static_cast<unsigned char*>(scratch) + reorderStageOffset(n);
  const unsigned blocks = Geometry::blocksFor(n, kBlock);
  for (std::uint32_t p = 0; p < nPlanes; ++p) {
    withElem(planes[p].elemBytes, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(restoreStageKernel<T>, blocks, stream, "sieve::restoreDevice (stage)",
             static_cast<const T*>(planes[p].data), static_cast<T*>(stage), n);
      launch(restoreGatherKernel<T>, blocks, stream, "sieve::restoreDevice (gather)",
             static_cast<const T*>(stage), static_cast<T*>(planes[p].data),
             static_cast<const std::int32_t*>(inv), n);
    });
  }
  launch(restoreIdentityKernel, blocks, stream, "sieve::restoreDevice (identity)", perm, inv, n);
}

} // namespace sieve
