// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the scratch layouts (core/layout.hpp): every region inside its scratch.
//
// Sweeps n (small, block and tile boundaries of every face, powers of two,
// INT32_MAX and a few hundred random sizes) and every host team size 1..256,
// and checks that each region of each face's layout lies inside the scratch
// the size rule promises (compact_scratch_bytes(n), reorder_scratch_bytes(n, e)),
// is aligned for its elements, and shares no byte with the regions the same
// face uses at the same time. No Kokkos, no device: pure arithmetic.
#include <sieve/core/layout.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/core/state.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/native/host/team.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using sieve::Impl::CompactLayout;
using sieve::Impl::ReorderLayout;
using sieve::Impl::ScratchRegion;
namespace Tuning = sieve::Tuning;

constexpr int kMaxThreads = 256;
constexpr std::uint32_t kElemSizes[] = {1u, 2u, 4u, 8u, 16u};

/// The sizes swept: fixed edge cases, every face's tile and block boundaries
/// (and a few multiples) +-1, and random sizes (fixed seed, log-uniform).
std::vector<std::int64_t> sizes() {
  // clang-format off
  std::vector<std::int64_t> v = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025,
                                 4095, 4096, 4097, (1 << 20) - 1, 1 << 20, (1 << 20) + 1,
                                 (1 << 24) + 17, INT32_MAX - 1, INT32_MAX};
  // clang-format on
  const std::int64_t units[] = {
      32,                                          // a keep-bit word
      Tuning::Cuda::kCompactTile,                  // CUDA compaction tile
      Tuning::Portable::kTileGroups * 32,          // portable compaction tile
      Tuning::Host::kCompactMinPerThread,          // host compaction team step
      Tuning::Host::kReorderMinPerThread,          // host reorder team step
      sieve::kScanScratchBlock * 32,               // scan block of the word counts
      Tuning::Cuda::kScanTile<std::uint32_t> * 32, // CUDA scan tile of the word counts
      Tuning::Cuda::kScanTile<std::uint32_t> * Tuning::Cuda::kScanTile<std::uint32_t> * 32,
      sieve::kScanScratchBlock * sieve::kScanScratchBlock * 32,
  };
  for (const std::int64_t u : units)
    for (const std::int64_t k : {1, 2, 3, 7, 255, 256, 257})
      for (const std::int64_t d : {-1, 0, 1}) {
        const std::int64_t n = u * k + d;
        if (n >= 0 && n <= INT32_MAX) v.push_back(n);
      }
  std::mt19937_64 rng(20240601u);
  std::uniform_real_distribution<double> lg(0.0, 31.0);
  for (int i = 0; i < 300; ++i)
    v.push_back(std::min<std::int64_t>(INT32_MAX, static_cast<std::int64_t>(std::exp2(lg(rng)))));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string show(const ScratchRegion& r) {
  std::ostringstream s;
  s << "[" << r.offset << ", " << r.end() << ")";
  return s.str();
}

/// Every named region lies inside [0, limit), is aligned to `align`, and no
/// two of them share a byte.
struct Check {
  std::int64_t n;
  int threads;
  std::size_t limit;
  std::vector<std::pair<std::string, ScratchRegion>> regions;

  void add(const std::string& name, const ScratchRegion& r, std::size_t align) {
    EXPECT_LE(r.end(), limit) << name << " " << show(r) << " past the scratch, n = " << n
                              << ", threads = " << threads;
    EXPECT_EQ(r.offset % align, 0u) << name << " misaligned, n = " << n;
    for (const auto& [other, o] : regions)
      EXPECT_FALSE(r.overlaps(o)) << name << " " << show(r) << " overlaps " << other << " "
                                  << show(o) << ", n = " << n << ", threads = " << threads;
    regions.emplace_back(name, r);
  }
};

/// The team size a host twin runs with for `work` units when `maxThreads`
/// are available: the face's own launch helper.
int hostTeam(std::int64_t work, std::int64_t minPerThread, int maxThreads) {
  return sieve::Impl::teamSizeFor(sieve::HostTeam{maxThreads}, work, minPerThread);
}

TEST(Layout, SizesCoverEveryBoundary) {
  const auto v = sizes();
  EXPECT_GE(v.size(), 300u);
  EXPECT_EQ(v.front(), 0);
  EXPECT_EQ(v.back(), INT32_MAX);
}

TEST(Layout, CompactRegionsFitAndDoNotOverlap) {
  for (const std::int64_t n : sizes()) {
    const std::size_t limit = sieve::compact_scratch_bytes(n);
    // Host twin: its counts, for every team it can run with.
    for (int t = 1; t <= kMaxThreads; ++t) {
      const int threads = hostTeam(n, Tuning::Host::kCompactMinPerThread, t);
      ASSERT_LE(threads, CompactLayout::hostMaxThreads(n)) << "n = " << n;
      Check host{n, threads, limit, {}};
      host.add("host kept", CompactLayout::hostKept(threads), 4);
      host.add("host live", CompactLayout::hostLive(threads), 4);
      if (threads > 1) {
        ASSERT_EQ(CompactLayout::hostKept(threads).bytes, 4u * threads);
        ASSERT_EQ(CompactLayout::hostLive(threads).bytes, 4u * threads);
      }
    }
    // The largest team the layout admits fits too.
    Check hostMax{n, CompactLayout::hostMaxThreads(n), limit, {}};
    hostMax.add("host kept", CompactLayout::hostKept(hostMax.threads), 4);
    hostMax.add("host live", CompactLayout::hostLive(hostMax.threads), 4);
    // CUDA: tile status words and the tile counter.
    const std::int64_t tiles = CompactLayout::cudaTiles(n);
    ASSERT_EQ(tiles, (n + Tuning::Cuda::kCompactTile - 1) / Tuning::Cuda::kCompactTile);
    Check cuda{n, 0, limit, {}};
    cuda.add("cuda status", CompactLayout::cudaTileStatus(tiles), 8);
    cuda.add("cuda counter", CompactLayout::cudaTileCounter(tiles), 8);
    const ScratchRegion cleared = CompactLayout::cudaCleared(tiles);
    EXPECT_LE(cleared.end(), limit) << "n = " << n;
    if (tiles > 1) {
      EXPECT_EQ(CompactLayout::cudaTileStatus(tiles).bytes, 8u * tiles);
      EXPECT_EQ(cleared.offset, 0u);
      EXPECT_EQ(cleared.end(), CompactLayout::cudaTileCounter(tiles).end());
    } else {
      EXPECT_EQ(cleared.bytes, 0u);
    }
    // Portable: three words per tile.
    const std::int64_t ntiles = CompactLayout::portableTiles(n);
    ASSERT_EQ(ntiles, (sieve::Impl::groups32(n) + Tuning::Portable::kTileGroups - 1) /
                          Tuning::Portable::kTileGroups);
    Check portable{n, 0, limit, {}};
    portable.add("portable kept", CompactLayout::portableTileKept(ntiles), 4);
    portable.add("portable live", CompactLayout::portableTileLive(ntiles), 4);
    portable.add("portable off", CompactLayout::portableTileOff(ntiles), 4);
    EXPECT_EQ(CompactLayout::portableTileOff(ntiles).bytes, 4u * ntiles);
    // ... and the keep bits its count phase saves, after them (where they
    // fit: every n but 1).
    const ScratchRegion gbits = CompactLayout::portableBits(n);
    if (n != 1) {
      EXPECT_EQ(gbits.bytes, 4u * sieve::Impl::groups32(n)) << "n = " << n;
    } else {
      EXPECT_EQ(gbits.bytes, 0u);
    }
    if (gbits.bytes > 0) portable.add("portable bits", gbits, 4);
    // Portable, sequential: the keep bits alone.
    Check sequential{n, 0, limit, {}};
    sequential.add("sequential bits", CompactLayout::sequentialBits(n), 4);
    EXPECT_EQ(CompactLayout::sequentialBits(n).bytes, 4u * sieve::Impl::groups32(n));
  }
}

TEST(Layout, ReorderRegionsFitAndDoNotOverlap) {
  for (const std::int64_t n : sizes()) {
    const std::int64_t words = ReorderLayout::words(n);
    ASSERT_EQ(words, (n + 31) / 32);
    // The staging plane starts past the compaction scratch, 16-byte aligned.
    EXPECT_GE(ReorderLayout::stage(n, 1).offset, sieve::compact_scratch_bytes(n));
    // What the CUDA scan of the word counts writes fits its region.
    EXPECT_LE(sieve::Impl::scanBlockSumsElems(words, Tuning::Cuda::kScanTile<std::uint32_t>),
              sieve::scanScratchElems(words))
        << "n = " << n;
    // ... and so does what its single pass carves, from the region's own base
    // (4 mod 8: the status words start 4 bytes in).
    EXPECT_LE(sieve::Impl::ScanLookBackLayout::bytes(words, Tuning::Cuda::kScanTile<std::uint32_t>,
                                                     ReorderLayout::scanSums(n).offset),
              ReorderLayout::scanSums(n).bytes)
        << "n = " << n;
    for (const std::uint32_t e : kElemSizes) {
      const std::size_t limit = sieve::reorder_scratch_bytes(n, e);
      // Every plane a reorder with widest element e moves has its stage inside.
      for (const std::uint32_t w : kElemSizes) {
        if (w > std::max(e, 4u)) continue;
        EXPECT_LE(ReorderLayout::stage(n, w).end(), limit) << "n = " << n << ", e = " << e;
      }
      // CUDA and portable: keep bits, word offsets, kept count, scan block
      // sums and the stage, all live at once.
      Check dev{n, 0, limit, {}};
      dev.add("bits", ReorderLayout::bits(n), 4);
      dev.add("wordOff", ReorderLayout::wordOff(n), 4);
      dev.add("cnt", ReorderLayout::cnt(n), 4);
      dev.add("scan sums", ReorderLayout::scanSums(n), 4);
      dev.add("stage", ReorderLayout::stage(n, e), 16);
      EXPECT_EQ(ReorderLayout::stage(n, e).end(), limit) << "n = " << n << ", e = " << e;
      // Host twin: keep bits, per-thread counts and the stage, for every team
      // it can run with (its team is sized by the span, at most n).
      for (int t = 1; t <= kMaxThreads; ++t) {
        const int threads = hostTeam(n, Tuning::Host::kReorderMinPerThread, t);
        ASSERT_LE(threads, ReorderLayout::hostMaxThreads(n)) << "n = " << n;
        Check host{n, threads, limit, {}};
        host.add("bits", ReorderLayout::bits(n), 4);
        host.add("host shared", ReorderLayout::hostShared(n, threads), 4);
        host.add("stage", ReorderLayout::stage(n, e), 16);
      }
      // Portable: a second staging plane of every element size up to 8
      // bytes beside the keep bits, word offsets, kept count and the stage
      // (a reorder); beside the stage alone (a restore). None for 16 bytes.
      for (const std::uint32_t w : kElemSizes) {
        if (w > std::max(e, 4u)) continue;
        const ScratchRegion pair = ReorderLayout::pairStage(n, ReorderLayout::cnt(n).end(), w);
        const ScratchRegion pair0 = ReorderLayout::pairStage(n, 0, w);
        if (n >= 2 && w <= 8) {
          EXPECT_EQ(pair.bytes, std::size_t(w) * n) << "n = " << n << ", w = " << w;
          EXPECT_EQ(pair0.bytes, std::size_t(w) * n) << "n = " << n << ", w = " << w;
        }
        if (w == 16 || n < 2) EXPECT_EQ(pair.bytes, 0u) << "n = " << n << ", w = " << w;
        Check pairs{n, 0, limit, {}};
        pairs.add("bits", ReorderLayout::bits(n), 4);
        pairs.add("wordOff", ReorderLayout::wordOff(n), 4);
        pairs.add("cnt", ReorderLayout::cnt(n), 4);
        if (pair.bytes > 0) pairs.add("pair stage", pair, 16);
        pairs.add("stage", ReorderLayout::stage(n, e), 16);
        Check restore{n, 0, limit, {}};
        if (pair0.bytes > 0) restore.add("pair stage", pair0, 16);
        restore.add("stage", ReorderLayout::stage(n, e), 16);
      }
      Check hostMax{n, ReorderLayout::hostMaxThreads(n), limit, {}};
      hostMax.add("bits", ReorderLayout::bits(n), 4);
      hostMax.add("host shared", ReorderLayout::hostShared(n, hostMax.threads), 4);
      hostMax.add("stage", ReorderLayout::stage(n, e), 16);
    }
  }
}

TEST(Layout, ScanScratchCoversEveryFace) {
  // No face scans in blocks smaller than the rule's: what each writes fits
  // scanScratchElems(n).
  for (const std::int64_t n : sizes()) {
    const std::int64_t rule = sieve::scanScratchElems(n);
    EXPECT_LE(sieve::Impl::scanBlockSumsElems(n, Tuning::Cuda::kScanTile<std::uint32_t>), rule);
    EXPECT_LE(sieve::Impl::scanBlockSumsElems(n, Tuning::Cuda::kScanTile<std::uint64_t>), rule);
    const std::int64_t hostBlock = Tuning::Host::kScanBlock;
    const std::int64_t hostBlocks = (n + hostBlock - 1) / hostBlock;
    EXPECT_LE(hostBlocks, rule) << "n = " << n;
  }
}

TEST(Layout, Polarity) {
  using sieve::Impl::keeps;
  using sieve::Impl::keepXorMask;
  for (const std::uint32_t flags : {0u, sieve::kCompactMaskIsDrop}) {
    for (int b = 0; b < 256; ++b) {
      const auto byte = static_cast<std::uint8_t>(b);
      const bool viaMask = ((byte != 0 ? 1u : 0u) ^ (keepXorMask<std::uint32_t>(flags) & 1u)) != 0;
      EXPECT_EQ(keeps(byte, flags), viaMask) << "byte " << b << ", flags " << flags;
    }
    EXPECT_EQ(keepXorMask<std::uint64_t>(flags), flags ? ~0ull : 0ull);
    EXPECT_EQ(sieve::Impl::keepXorMaskForZeroBits<std::uint32_t>(flags),
              static_cast<std::uint32_t>(~keepXorMask<std::uint32_t>(flags)));
    EXPECT_EQ(keepXorMask<std::uint16_t>(flags), flags ? 0xFFFFu : 0u);
  }
}

TEST(Layout, ReorderEpilogue) {
  std::uint32_t count = 7, span = 9, fire = 1;
  sieve::Impl::reorderEpilogue(&count, &span, &fire, 5u);
  EXPECT_EQ(count, 5u);
  EXPECT_EQ(span, 5u);
  EXPECT_EQ(fire, 0u);
  sieve::Impl::reorderEpilogue(&count, &span, nullptr, 0u);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(span, 0u);
}

} // namespace

TEST(Layout, CudaSinglePassScanFitsTheScanScratch) {
  // The single-pass CUDA scan (4-byte integers) carves a tile counter and a
  // status word per tile but the last from its block sums, at either 4-byte
  // alignment: within scanScratchElems(n) elements of 4 bytes, status words
  // 8-byte aligned and clear of the counter. Every n from one tile to 16 tiles,
  // then the shared sizes and large ones.
  using sieve::Impl::ScanLookBackLayout;
  constexpr std::int64_t tile = Tuning::Cuda::kScanSinglePassTile<std::uint32_t>;
  constexpr std::int64_t wideTile = Tuning::Cuda::kScanSinglePassTile<std::uint64_t>;
  std::vector<std::int64_t> ns;
  for (std::int64_t n = 1; n <= 16 * wideTile + 1; ++n) ns.push_back(n);
  for (const std::int64_t n : sizes()) ns.push_back(n);
  for (const std::int64_t n :
       {std::int64_t(1) << 26, std::int64_t(1) << 28, sieve::kCompactMaxSamples})
    ns.push_back(n);
  for (const std::int64_t n : ns) {
    const std::int64_t tiles = ScanLookBackLayout::tiles(n, tile);
    ASSERT_EQ(tiles, (n + tile - 1) / tile);
    const std::size_t rule = 4u * static_cast<std::size_t>(sieve::scanScratchElems(n));
    ASSERT_LE(ScanLookBackLayout::maxBytes(n, tile), rule) << "n = " << n;
    // Wide (8-byte values): flags after the counter, then the values, 8-byte
    // aligned, within the rule's elements of 8 bytes.
    const std::int64_t wt = ScanLookBackLayout::tiles(n, wideTile);
    ASSERT_LE(ScanLookBackLayout::wideMaxBytes(n, wideTile), 2 * rule) << "n = " << n;
    for (const std::uintptr_t base : {std::uintptr_t(4096), std::uintptr_t(4100)}) {
      const std::size_t bytes = ScanLookBackLayout::wideBytes(n, wideTile, base);
      ASSERT_LE(bytes, ScanLookBackLayout::wideMaxBytes(n, wideTile));
      if (wt <= 1) {
        ASSERT_EQ(bytes, 0u);
        continue;
      }
      const std::size_t values = ScanLookBackLayout::wideValuesOffset(n, wideTile, base);
      ASSERT_EQ((base + values) % 8, 0u) << "values 8-byte aligned";
      ASSERT_GE(values, ScanLookBackLayout::wideFlagsOffset() + 4u * std::size_t(wt - 1))
          << "values clear of the flags";
      ASSERT_EQ(bytes, values + 16u * std::size_t(wt - 1));
    }
    for (const std::uintptr_t base : {std::uintptr_t(4096), std::uintptr_t(4100)}) {
      const std::size_t bytes = ScanLookBackLayout::bytes(n, tile, base);
      ASSERT_LE(bytes, ScanLookBackLayout::maxBytes(n, tile)) << "n = " << n;
      if (tiles <= 1) {
        ASSERT_EQ(bytes, 0u) << "one tile uses no scratch";
        continue;
      }
      const std::size_t status = ScanLookBackLayout::statusOffset(base);
      ASSERT_EQ((base + status) % 8, 0u) << "status words 8-byte aligned";
      ASSERT_GE(status, 4u) << "the counter before the status words";
      ASSERT_EQ(bytes, status + 8u * static_cast<std::size_t>(tiles - 1)) << "n = " << n;
    }
  }
}
