// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the launch geometry helpers of every native CUDA kernel
// and the checked launch helper. The numbers (block size, tiles, items per
// thread) are in core/tuning.hpp, Tuning::Cuda.
#pragma once

#include <sieve/core/tuning.hpp>
#include <sieve/native/cuda/check.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {
namespace Geometry {

/// Blocks covering `work` units at `perBlock` units each (at least one).
inline unsigned blocksFor(std::int64_t work, std::int64_t perBlock) {
  const std::int64_t b = (work + perBlock - 1) / perBlock;
  return static_cast<unsigned>(b > 0 ? b : 1);
}

/// The grid of a grid-stride loop over `work` units, one per thread: enough
/// blocks to fill the device the CUDA policy assumes (Tuning::Cuda::kMoveBlocks),
/// fewer for less work.
inline unsigned moveBlocks(std::int64_t work) {
  const unsigned b = blocksFor(work, Tuning::Cuda::kBlock);
  return b < Tuning::Cuda::kMoveBlocks ? b : Tuning::Cuda::kMoveBlocks;
}

/// The most tiles one block of the dense scatter's digit count takes: its
/// 32-bit shared counts then hold at most 2^31 records.
inline constexpr std::int64_t kCountTilesPerBlock =
    (std::int64_t(1) << 31) / Tuning::Cuda::kDenseScatterTile;

/// The grid of the dense scatter's digit count over `tiles` tiles (a
/// grid-stride loop over tiles, each block flushing its counts once): enough
/// blocks to fill the device (kMoveBlocks), more where a block would take over
/// kCountTilesPerBlock tiles.
inline unsigned countBlocks(std::int64_t tiles) {
  const unsigned fill = tiles < Tuning::Cuda::kMoveBlocks
                            ? static_cast<unsigned>(tiles > 0 ? tiles : 1)
                            : Tuning::Cuda::kMoveBlocks;
  const unsigned least = blocksFor(tiles, kCountTilesPerBlock);
  return fill > least ? fill : least;
}

} // namespace Geometry

/// Launch `kernel<<<grid, Tuning::Cuda::kBlock, 0, stream>>>(args...)` through
/// cudaLaunchKernel and check its return value (never cudaGetLastError).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned grid, cudaStream_t stream, const char* what,
            Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "sieve: kernel argument count");
#if defined(SIEVE_CUDA_EMULATION)
  // The tests' CPU emulator of CUDA (tests/cuda_emu): the same kernel, the
  // same geometry, its threads run as fibers.
  cudaCheck(::sieve_emu::launch(kernel, dim3(grid), dim3(Tuning::Cuda::kBlock), stream,
                                std::forward<Args>(args)...),
            what);
#else
  std::tuple<std::decay_t<Params>...> values(std::forward<Args>(args)...);
  std::apply(
      [&](auto&... v) {
        void* ptrs[sizeof...(Params) > 0 ? sizeof...(Params) : 1] = {static_cast<void*>(&v)...};
        cudaCheck(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid),
                                   dim3(Tuning::Cuda::kBlock), ptrs, 0, stream),
                  what);
      },
      values);
#endif
}

} // namespace Impl
} // namespace sieve
