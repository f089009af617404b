// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: prefix scan (reduce, then
// scan, over blocks; one team per block).
#pragma once

#include <sieve/impl/portable/base.hpp>

namespace sieve {
namespace Impl {
namespace Portable {

/// The shape of a scan block on Exec, which alone fixes the association order
/// (never the team size): a block is kChunks chunks of kChunk elements; one
/// thread folds (or scans) a chunk left to right; the chunk totals combine
/// left to right in groups of kGroup; one thread combines the group totals
/// left to right. On devices a team stages its block in team scratch
/// (coalesced loads and stores) and a thread takes a chunk of 8; on host
/// spaces a block is one chunk, scanned by a team of one thread in place.
template <class Exec>
struct ScanShape {
  static constexpr bool kStaged = !Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;
  static constexpr int kBlock = static_cast<int>(Tuning::Portable::kScanBlock);
  static constexpr int kChunk = kStaged ? Tuning::Portable::kScanChunk : kBlock;
  static constexpr int kChunks = kBlock / kChunk;
  static constexpr int kGroup = kStaged ? Tuning::Portable::kScanGroup : 1;
  static constexpr int kGroups = kChunks / kGroup;
  /// Staged elements: one pad slot every 32 (no bank conflicts when the
  /// threads of a warp walk their chunks).
  static constexpr int kStagedElems = kStaged ? kBlock + kBlock / 32 : 0;
  KOKKOS_INLINE_FUNCTION static constexpr int pad(int i) { return i + (i >> 5); }

  // Blocks of at least kScanScratchBlock elements: every level of block
  // totals is no longer than the rule's, so they fit sieve::scanScratchElems(n).
  static_assert(kBlock >= sieve::kScanScratchBlock, "sieve: scan blocks below the scratch rule");
  static_assert(kChunks * kChunk == kBlock && kGroups * kGroup == kChunks,
                "sieve: scan shape must tile");
};

template <class Exec, class T>
using Raw = Kokkos::View<T*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class Exec, class T>
using TeamShared =
    Kokkos::View<T*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Team scratch bytes of one block: the staged block, the chunk totals and
/// the group totals, allocated in this order by the kernels.
template <class Exec, class T>
std::size_t scanTeamBytes() {
  using S = ScanShape<Exec>;
  using Shared = TeamShared<Exec, T>;
  return Shared::shmem_size(S::kStagedElems) + Shared::shmem_size(S::kChunks) +
         Shared::shmem_size(S::kGroups);
}

/// One team per block, at most one thread per chunk (the team size changes
/// no result).
template <class Exec, class T, class Body>
void launchBlocks(const Exec& exec, const std::string& label, i64 nb, const Body& body) {
  using Team = Kokkos::TeamPolicy<Exec>;
  constexpr int most = ScanShape<Exec>::kChunks;
  const std::size_t bytes = scanTeamBytes<Exec, T>();
  Team probe(exec, static_cast<int>(nb), Kokkos::AUTO);
  probe.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const int rec = probe.team_size_recommended(body, Kokkos::ParallelForTag());
  const int size = rec < 1 ? 1 : (rec < most ? rec : most);
  Team policy(exec, static_cast<int>(nb), size);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(label, policy, body);
}

/// One block of a scan pass as its team sees it: the bounds, the chunk and
/// group counts, and x(i), element i of the block (staged in team scratch,
/// first of the team's scratch allocations, where the shape stages).
template <class S, class Src, class Shared>
struct TeamBlock {
  i64 lo;
  int cnt, nc, ng;
  Shared staged;
  Src src;

  template <class Member>
  KOKKOS_INLINE_FUNCTION TeamBlock(const Member& m, const Src& s, i64 len)
      : lo(static_cast<i64>(m.league_rank()) * S::kBlock),
        cnt(static_cast<int>(len - lo < S::kBlock ? len - lo : S::kBlock)),
        nc((cnt + S::kChunk - 1) / S::kChunk), ng((nc + S::kGroup - 1) / S::kGroup),
        staged(m.team_scratch(0), S::kStagedElems), src(s) {
    // (plain `if`s on the constants: nvcc's extended lambdas cannot
    // first-capture inside `if constexpr`)
    if (S::kStaged) {
      const TeamBlock& b = *this;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt),
                           [&](const int i) { b.staged(S::pad(i)) = b.src(b.lo + i); });
      m.team_barrier();
    }
  }
  KOKKOS_INLINE_FUNCTION typename Shared::non_const_value_type operator()(const int i) const {
    if (S::kStaged) return staged(S::pad(i));
    return src(lo + i);
  }
};

/// Chunk totals ct[0, nc) and group totals gt[0, ng) of the block elements
/// x(0 .. cnt), each a left-to-right fold; ends with a team barrier.
template <class S, class Member, class X, class Shared, class Op>
KOKKOS_INLINE_FUNCTION void chunkTotals(const Member& m, const X& x, int cnt, int nc, int ng,
                                        const Shared& ct, const Shared& gt, const Op& op) {
  using T = typename Shared::non_const_value_type;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(m, nc), [&](const int c) {
    const int a = c * S::kChunk;
    T acc = x(a);
    if (a + S::kChunk <= cnt) {
      for (int i = 1; i < S::kChunk; ++i) acc = op(acc, x(a + i));
    } else {
      for (int i = a + 1; i < cnt; ++i) acc = op(acc, x(i));
    }
    ct(c) = acc;
  });
  m.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ng), [&](const int g) {
    const int a = g * S::kGroup;
    const int e = a + S::kGroup < nc ? a + S::kGroup : nc;
    T acc = ct(a);
    for (int c = a + 1; c < e; ++c) acc = op(acc, ct(c));
    gt(g) = acc;
  });
  m.team_barrier();
}

/// totals[b] = fold of block b of src[0, len).
template <class Exec, class Src, class T, class Op>
void blockReduce(const Exec& exec, const std::string& label, const Src& src, i64 len, T* totals,
                 const Op& op) {
  using S = ScanShape<Exec>;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Shared = TeamShared<Exec, T>;
  const i64 nb = (len + S::kBlock - 1) / S::kBlock;
  const auto body = KOKKOS_LAMBDA(const Member& m) {
    const TeamBlock<S, Src, Shared> x(m, src, len);
    const int cnt = x.cnt, nc = x.nc, ng = x.ng;
    const Shared ct(m.team_scratch(0), S::kChunks);
    const Shared gt(m.team_scratch(0), S::kGroups);
    chunkTotals<S>(m, x, cnt, nc, ng, ct, gt, op);
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      T acc = gt(0);
      for (int g = 1; g < ng; ++g) acc = op(acc, gt(g));
      totals[m.league_rank()] = acc;
    });
  };
  launchBlocks<Exec, T>(exec, label + "::reduce", nb, body);
}

/// Scan every block of src[0, len) into dst from its prefix: prefix[b], or
/// init when prefix is null (a single block). The last chunk's total and the
/// last group's total of a block are never needed, so never computed.
/// Unseeded (!Seeded: no init), the first element starts the fold: block 0
/// has no prefix (prefix[0] is not read), nor have group 0 and chunk 0 of it,
/// and element 0 is its own inclusive fold; the other folds keep their order,
/// the init left out. (An exclusive unseeded scan leaves dst(0) = src(0), a
/// placeholder: it serves the levels of block totals, whose slot 0 is never
/// read then.)
template <bool Inclusive, bool Seeded, class Exec, class Src, class Dst, class T, class Op>
void blockScan(const Exec& exec, const std::string& label, const Src& src, const Dst& dst, i64 len,
               const T* prefix, const T& init, const Op& op) {
  using S = ScanShape<Exec>;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Shared = TeamShared<Exec, T>;
  const i64 nb = (len + S::kBlock - 1) / S::kBlock;
  const T first = init;
  const auto body = KOKKOS_LAMBDA(const Member& m) {
    const TeamBlock<S, Src, Shared> x(m, src, len);
    const int cnt = x.cnt, nc = x.nc, ng = x.ng;
    const i64 lo = x.lo;
    const Shared ct(m.team_scratch(0), S::kChunks);
    const Shared gt(m.team_scratch(0), S::kGroups);
    // totals of chunks [0, nc - 1) and of groups [0, ng - 1)
    chunkTotals<S>(m, x, cnt, nc - 1, ng - 1, ct, gt, op);
    // Unseeded, block 0 starts the fold: it has no prefix (a constant false
    // when seeded, so the seeded kernel is unchanged).
    const bool unseeded0 = !Seeded && m.league_rank() == 0;
    // group totals -> exclusive group prefixes, from the block's prefix
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      int g = 0;
      T acc = first;
      if (unseeded0) {
        if (ng > 1) acc = gt(g++); // group 0's prefix: none (gt(0) keeps a placeholder)
      } else if (prefix != nullptr) {
        acc = prefix[m.league_rank()];
      }
      for (; g + 1 < ng; ++g) {
        const T v = gt(g);
        gt(g) = acc;
        acc = op(acc, v);
      }
      gt(ng - 1) = acc;
    });
    m.team_barrier();
    // chunk totals -> exclusive chunk prefixes, from their group's prefix
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ng), [&](const int g) {
      const int a = g * S::kGroup;
      const int e = a + S::kGroup < nc ? a + S::kGroup : nc;
      int c = a;
      T acc = gt(g);
      if (unseeded0 && g == 0 && e > 1) acc = ct(c++); // chunk 0's prefix: none
      for (; c + 1 < e; ++c) {
        const T v = ct(c);
        ct(c) = acc;
        acc = op(acc, v);
      }
      ct(e - 1) = acc;
    });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, nc), [&](const int c) {
      const int a = c * S::kChunk;
      T acc = ct(c);
      const auto put = [&](const int i, const T& v) {
        if (S::kStaged) x.staged(S::pad(i)) = v;
        else dst(lo + i) = v;
      };
      const auto step = [&](const int i) {
        const T v = x(i);
        if (Inclusive) acc = op(acc, v);
        put(i, acc);
        if (!Inclusive) acc = op(acc, v);
      };
      const int end = a + S::kChunk < cnt ? a + S::kChunk : cnt;
      if (unseeded0 && c == 0) {
        // element 0 starts the fold: its own inclusive fold (and the
        // exclusive placeholder)
        acc = x(0);
        put(0, acc);
        for (int i = 1; i < end; ++i) step(i);
      } else if (a + S::kChunk <= cnt) {
        for (int i = 0; i < S::kChunk; ++i) step(a + i);
      } else {
        for (int i = a; i < cnt; ++i) step(i);
      }
    });
    if (S::kStaged) {
      m.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt),
                           [&](const int i) { dst(lo + i) = x.staged(S::pad(i)); });
    }
  };
  launchBlocks<Exec, T>(exec, label + "::scan", nb, body);
}

/// Scan src[0, len) into dst (src == dst allowed) from init (unseeded: from
/// the first element, init unused), using work[] for the levels of block
/// totals (each level scanned exclusively in place, seeded as the scan).
template <bool Inclusive, bool Seeded, class Exec, class Src, class Dst, class T, class Op>
void scanLevels(const Exec& exec, const std::string& label, const Src& src, const Dst& dst, i64 len,
                T* work, const T& init, const Op& op) {
  if (len <= ScanShape<Exec>::kBlock) {
    blockScan<Inclusive, Seeded>(exec, label, src, dst, len, static_cast<const T*>(nullptr), init,
                                 op);
    return;
  }
  const i64 nb = (len + ScanShape<Exec>::kBlock - 1) / ScanShape<Exec>::kBlock;
  blockReduce(exec, label, src, len, work, op);
  const Raw<Exec, T> totals(work, static_cast<std::size_t>(nb));
  scanLevels<false, Seeded>(exec, label, totals, totals, nb, work + nb, init, op);
  blockScan<Inclusive, Seeded>(exec, label, src, dst, len, static_cast<const T*>(work), init, op);
}

/// Scan in[0, n) into out (in == out allowed). `blockSums` holds at least
/// sieve::scanScratchElems(n) elements. Seeded: the fold starts from `init`;
/// unseeded (inclusive only), from in(0), as std::inclusive_scan without
/// init (`init` unused).
template <bool Inclusive, bool Seeded = true, class Exec, class InView, class OutView, class T,
          class Op>
void scan(const Exec& exec, const std::string& label, const InView& in, const OutView& out,
          const Op& op, const T& init, T* blockSums, i64 n) {
  static_assert(Inclusive || Seeded, "sieve: an exclusive scan needs an init");
  if (n == 0) return;
  scanLevels<Inclusive, Seeded>(exec, label, in, out, n, blockSums, init, op);
}

} // namespace Portable
} // namespace Impl
} // namespace sieve
