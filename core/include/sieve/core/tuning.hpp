// SPDX-License-Identifier: Apache-2.0
// Sieve — every tuning number of every face, in one place (one namespace per face).
//
// Only numbers live here: the launch helpers that use them stay with their
// face (team.hpp, launch.cuh, portable/base.hpp). Changing a number changes
// speed only, never a result: every face's outputs are fixed by the rules in
// rules.hpp, whatever its tiles, blocks or team sizes. The static_asserts
// below are the limits the rules and the scratch layouts (layout.hpp) rely on.
// Header-only, no Kokkos, no CUDA runtime.
#pragma once

#include <sieve/core/rules.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {
namespace Tuning {

/// The OpenMP host twins (native/src/host, cpu::Scan).
namespace Host {
/// Bytes of a cache line: the unit the buffered host scatters write whole
/// (native/host/lines.hpp kHostLine; the dense scatter's rule in radix.hpp).
inline constexpr int kLineBytes = 64;
/// Samples per thread below which compaction does not split further (the
/// per-thread counts it shares then fit its scratch: layout.hpp).
inline constexpr std::int64_t kCompactMinPerThread = 64 * 1024;
/// Samples per thread below which reorder and restore do not split further.
inline constexpr std::int64_t kReorderMinPerThread = 32 * 1024;
/// Elements per thread below which a scan does not split further.
inline constexpr std::int64_t kScanMinPerThread = 32 * 1024;
/// Bytes of input a thread takes per scan round (fits the L2 with its output).
inline constexpr std::int64_t kScanRoundBytesPerThread = 512 * 1024;
/// cpu::Scan's default block size (elements per block sum).
inline constexpr unsigned kScanBlock = 1024;
/// Output bytes from which findall's select writes whole cache lines with
/// non-temporal stores (far past what the caches keep for the caller).
inline constexpr std::uint64_t kSelectStreamBytes = std::uint64_t(32) << 20;
/// Samples a thread takes per round of the one-pass select (selectHost; half
/// as many for 8-byte values): its items are staged in the L2, at most 4
/// bytes a sample (a multiple of 64).
inline constexpr std::int64_t kSelectBlock = 64 * 1024;
} // namespace Host

/// The native CUDA kernels (native/src/cuda, cuda::Scan).
namespace Cuda {
/// Threads per block of every kernel (8 warps).
inline constexpr unsigned kBlock = 256;
/// Warps per block.
inline constexpr unsigned kWarps = kBlock / 32;
/// Blocks of a grid-stride move (reorder): 8 resident blocks of kBlock
/// threads on each of 132 SMs (H100 / H200), rounded up.
inline constexpr unsigned kMoveBlocks = 1056;
/// Compaction: one aligned 32-sample group per thread, one tile per block.
inline constexpr std::int64_t kCompactTile = std::int64_t(kBlock) * 32;
/// Selection (findall's native write, selectDevice): one aligned 32-sample
/// group per thread, one tile per block.
inline constexpr std::int64_t kSelectTile = std::int64_t(kBlock) * 32;
/// Scan: items per thread (odd, so that the per-thread shared-memory rows do
/// not hit the same bank).
template <class T>
inline constexpr unsigned kScanItems = sizeof(T) <= 4 ? 9u : 5u;
/// Scan: elements per tile (per block sum).
template <class T>
inline constexpr std::int64_t kScanTile = std::int64_t(kBlock) * kScanItems<T>;
/// The single-pass scan (integers): items per thread. 8-byte values publish
/// 20 bytes of tile status per tile, so their tiles are larger (2816
/// elements) to keep the status within the scan scratch rule.
template <class T>
inline constexpr unsigned kScanSinglePassItems = sizeof(T) == 8 ? 11u : kScanItems<T>;
/// The single-pass scan: elements per tile.
template <class T>
inline constexpr std::int64_t kScanSinglePassTile = std::int64_t(kBlock) * kScanSinglePassItems<T>;
/// The dense counting scatter (cuda::DenseScatter): records per thread of a
/// tile (one tile per block, kept in registers between its ranking and its
/// writes), and so records per tile.
inline constexpr unsigned kDenseScatterItems = 8;
inline constexpr std::int64_t kDenseScatterTile = std::int64_t(kBlock) * kDenseScatterItems;
/// The dense counting scatter: records of at most this many bytes are staged
/// in shared memory in digit order before they are written, so that a warp
/// writes runs of consecutive slots instead of 32 scattered ones (a tile of
/// 16-byte records is 32 KiB; larger records are written straight from
/// registers).
inline constexpr std::size_t kDenseScatterStageBytes = 16;
/// The dense counting scatter's sweep: the resident blocks an SM is built
/// for (its __launch_bounds__), so up to 85 registers a thread, which a tile
/// of 16-byte records and their ranks need without spills (ptxas -v, sm_90:
/// 80; left to itself ptxas took 64 and spilled).
inline constexpr int kDenseScatterBlocksPerSm = 3;
} // namespace Cuda

/// The portable Kokkos implementation (kokkos/include/sieve/impl/portable).
namespace Portable {
/// Compaction tiles: groups of 32 samples per tile (one team each).
inline constexpr std::int64_t kTileGroups = 128;
/// Scan blocks: elements per block sum (one team per block).
inline constexpr std::int64_t kScanBlock = 2048;
/// Scan chunks on devices: elements one thread folds (or scans) left to right;
/// chunk totals combine in groups of kScanGroup. On host spaces a block is one
/// chunk (a team of one thread scans it in place). Together with kScanBlock
/// these fix the association order of floating-point scans, never the team
/// size.
inline constexpr int kScanChunk = 8;
inline constexpr int kScanGroup = 16;
} // namespace Portable

/// sieve::findall (kokkos/include/sieve/findall.hpp). Its tile kernels are the
/// portable compaction's (one team per tile); only the tile shapes differ.
namespace Findall {
/// ScanScatter defaults on devices (Auto on Kokkos::Cuda and other device
/// spaces): blocks of 256 threads, 8 items each (tiles of 2048 elements).
inline constexpr int kBlock = 256;
inline constexpr int kItems = 8;
/// Partitioned (host spaces): elements per thread below which the input is
/// not split further (one partition, one count, one write per thread).
inline constexpr std::int64_t kPartitionMin = 64 * 1024;
/// Partitions are aligned to this many elements (whole 32-element words).
inline constexpr std::int64_t kPartitionAlign = 64;
} // namespace Findall

/// sieve::keys (core/keys_plan.hpp): where a call's path changes.
namespace Keys {
/// scatter_sparse of integer keys whose span (largest - smallest) is below
/// 2^kSparseByDenseSpanBits runs as the native dense scatter over the span
/// (where the native face takes and pays for it), then the keys present.
inline constexpr int kSparseByDenseSpanBits = 23;
} // namespace Keys

// --- what the rules and the layouts rely on -------------------------------------
static_assert(Host::kCompactMinPerThread >= 1 && Host::kReorderMinPerThread >= 32 &&
                  Host::kScanMinPerThread >= 1,
              "sieve: a host team's shared counts must fit the scratch (layout.hpp)");
static_assert(Host::kScanBlock >= kScanScratchBlock && Portable::kScanBlock >= kScanScratchBlock &&
                  Cuda::kScanTile<std::uint32_t> >= kScanScratchBlock &&
                  Cuda::kScanTile<std::uint64_t> >= kScanScratchBlock,
              "sieve: no face may scan in blocks smaller than kScanScratchBlock");
static_assert(Cuda::kBlock % 32 == 0 && Cuda::kBlock <= 1024, "sieve: CUDA blocks are whole warps");
static_assert(Cuda::kCompactTile < (1 << 16),
              "sieve: a CUDA compaction tile's kept count must fit 16 bits");
static_assert(Cuda::kSelectTile <= (1 << 16) && Cuda::kSelectTile % 32 == 0,
              "sieve: a CUDA selection tile stages 16-bit positions of whole 32-sample groups");
static_assert(Portable::kTileGroups >= 1, "sieve: portable compaction tiles hold a group");
static_assert(Findall::kBlock >= 1 && Findall::kBlock <= 1024 &&
                  (Findall::kBlock & (Findall::kBlock - 1)) == 0 && Findall::kItems >= 1,
              "sieve: the findall defaults must be a valid ScanScatter");
static_assert(Findall::kPartitionAlign % 32 == 0 &&
                  Findall::kPartitionMin >= Findall::kPartitionAlign,
              "sieve: findall partitions are whole 32-element words");

} // namespace Tuning
} // namespace sieve
