// Sieve (internal) — the launch geometry of every native CUDA kernel, in one
// place, and the checked launch helper.
#pragma once

#include <sieve/native/cuda/check.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {
namespace Geometry {

/// Threads per block of every kernel (8 warps).
inline constexpr unsigned kBlock = 256;
inline constexpr unsigned kWarps = kBlock / 32;

/// Compaction: one aligned 32-sample group per thread, one tile per block.
inline constexpr std::int64_t kCompactTile = std::int64_t(kBlock) * 32;

/// Scan: items per thread (odd, so that the per-thread shared-memory rows do
/// not hit the same bank) and elements per tile.
template <class T>
inline constexpr unsigned kScanItems = sizeof(T) <= 4 ? 9u : 5u;
template <class T>
inline constexpr std::int64_t kScanTile = std::int64_t(kBlock) * kScanItems<T>;

/// Blocks covering `work` units at `perBlock` units each (at least one).
inline unsigned blocksFor(std::int64_t work, std::int64_t perBlock) {
  const std::int64_t b = (work + perBlock - 1) / perBlock;
  return static_cast<unsigned>(b > 0 ? b : 1);
}

} // namespace Geometry

/// Launch `kernel<<<grid, kBlock, 0, stream>>>(args...)` through
/// cudaLaunchKernel and check its return value (never cudaGetLastError).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned grid, cudaStream_t stream, const char* what,
            Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "sieve: kernel argument count");
  std::tuple<std::decay_t<Params>...> values(std::forward<Args>(args)...);
  std::apply(
      [&](auto&... v) {
        void* ptrs[sizeof...(Params) > 0 ? sizeof...(Params) : 1] = {static_cast<void*>(&v)...};
        cudaCheck(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid),
                                   dim3(Geometry::kBlock), ptrs, 0, stream),
                  what);
      },
      values);
}

} // namespace Impl
} // namespace sieve
