// Sieve (internal) — the portable implementation: prefix scan (reduce, then
// scan, over blocks; one team per block).
#pragma once

#include <sieve/impl/portable/base.hpp>

namespace sieve {
namespace Impl {
namespace Portable {


/// The shape of a scan block, which alone fixes the association order (never
/// the team size): a block is kChunks chunks of kChunk elements; a thread folds
/// (or scans) a chunk left to right; the chunk totals combine left to right in
/// groups of kGroup; one thread combines the group totals left to right.
struct ScanShape {
  static constexpr int kChunk = 8;
  static constexpr int kChunks = 256;
  static constexpr int kGroup = 16;
  static constexpr int kGroups = kChunks / kGroup;
  static constexpr int kBlock = kChunk * kChunks;
  /// Staged block elements: one pad slot every 32 (no bank conflicts when
  /// the threads of a warp walk their chunks).
  static constexpr int kStaged = kBlock + kBlock / 32;
  KOKKOS_INLINE_FUNCTION static constexpr int pad(int i) { return i + (i >> 5); }
};
// Blocks of at least kScanScratchBlock elements: every level of block totals
// is no longer than the rule's, so the totals fit sieve::scanScratchElems(n).
static_assert(ScanShape::kBlock >= sieve::kScanScratchBlock, "sieve: scan blocks below the scratch rule");
static_assert(ScanShape::kChunks % ScanShape::kGroup == 0, "sieve: scan groups must tile the chunks");

template <class Exec, class T>
using Raw = Kokkos::View<T*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class Exec, class T>
using TeamShared = Kokkos::View<T*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Whether a block goes through team scratch (coalesced loads and stores on
/// devices); host threads read their chunks in place.
template <class Exec>
inline constexpr bool kScanStages = !Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;

/// Team scratch bytes of one block: the staged block (when staging), the chunk
/// totals and the group totals, allocated in this order by the kernels.
template <class Exec, class T>
std::size_t scanTeamBytes() {
  using Shared = TeamShared<Exec, T>;
  return Shared::shmem_size(kScanStages<Exec> ? ScanShape::kStaged : 0) + Shared::shmem_size(ScanShape::kChunks) +
         Shared::shmem_size(ScanShape::kGroups);
}

/// One team per block, at most one thread per chunk (the team size changes
/// no result).
template <class Exec, class Body>
void launchBlocks(const Exec& exec, const std::string& label, i64 nb, std::size_t bytes, const Body& body) {
  using Team = Kokkos::TeamPolicy<Exec>;
  Team probe(exec, static_cast<int>(nb), Kokkos::AUTO);
  probe.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const int rec = probe.team_size_recommended(body, Kokkos::ParallelForTag());
  const int size = rec < 1 ? 1 : (rec < ScanShape::kChunks ? rec : ScanShape::kChunks);
  Team policy(exec, static_cast<int>(nb), size);
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(label, policy, body);
}

/// Chunk totals ct[0, nc) and group totals gt[0, ng) of block elements
/// x(0 .. cnt), each a left-to-right fold; ends with a team barrier.
template <class Member, class X, class Shared, class Op>
KOKKOS_INLINE_FUNCTION void chunkTotals(const Member& m, const X& x, int cnt, const Shared& ct, const Shared& gt,
                                        const Op& op) {
  using T = typename Shared::non_const_value_type;
  const int nc = (cnt + ScanShape::kChunk - 1) / ScanShape::kChunk;
  const int ng = (nc + ScanShape::kGroup - 1) / ScanShape::kGroup;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(m, nc), [&](const int c) {
    const int a = c * ScanShape::kChunk;
    T acc = x(a);
    if (a + ScanShape::kChunk <= cnt) {
      for (int i = 1; i < ScanShape::kChunk; ++i) acc = op(acc, x(a + i));
    } else {
      for (int i = a + 1; i < cnt; ++i) acc = op(acc, x(i));
    }
    ct(c) = acc;
  });
  m.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ng), [&](const int g) {
    const int a = g * ScanShape::kGroup;
    const int e = a + ScanShape::kGroup < nc ? a + ScanShape::kGroup : nc;
    T acc = ct(a);
    for (int c = a + 1; c < e; ++c) acc = op(acc, ct(c));
    gt(g) = acc;
  });
  m.team_barrier();
}

/// totals[b] = fold of block b of src[0, len).
template <class Exec, class Src, class T, class Op>
void blockReduce(const Exec& exec, const std::string& label, const Src& src, i64 len, T* totals, const Op& op) {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Shared = TeamShared<Exec, T>;
  const i64 nb = (len + ScanShape::kBlock - 1) / ScanShape::kBlock;
  const auto body = KOKKOS_LAMBDA(const Member& m) {
    const i64 lo = static_cast<i64>(m.league_rank()) * ScanShape::kBlock;
    const int cnt = static_cast<int>(len - lo < ScanShape::kBlock ? len - lo : ScanShape::kBlock);
    const Shared staged(m.team_scratch(0), kScanStages<Exec> ? ScanShape::kStaged : 0);
    const Shared ct(m.team_scratch(0), ScanShape::kChunks);
    const Shared gt(m.team_scratch(0), ScanShape::kGroups);
    if (kScanStages<Exec>) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt),
                           [&](const int i) { staged(ScanShape::pad(i)) = src(lo + i); });
      m.team_barrier();
    }
    chunkTotals(
        m,
        [&](const int i) -> T {
          if (kScanStages<Exec>) return staged(ScanShape::pad(i));
          return src(lo + i);
        },
        cnt, ct, gt, op);
    const int ng = ((cnt + ScanShape::kChunk - 1) / ScanShape::kChunk + ScanShape::kGroup - 1) / ScanShape::kGroup;
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      T acc = gt(0);
      for (int g = 1; g < ng; ++g) acc = op(acc, gt(g));
      totals[m.league_rank()] = acc;
    });
  };
  launchBlocks(exec, label + "::reduce", nb, scanTeamBytes<Exec, T>(), body);
}

/// Scan every block of src[0, len) into dst from its prefix: prefix[b], or
/// init when prefix is null (a single block).
template <bool Inclusive, class Exec, class Src, class Dst, class T, class Op>
void blockScan(const Exec& exec, const std::string& label, const Src& src, const Dst& dst, i64 len, const T* prefix,
               const T& init, const Op& op) {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Shared = TeamShared<Exec, T>;
  const i64 nb = (len + ScanShape::kBlock - 1) / ScanShape::kBlock;
  const T first = init;
  const auto body = KOKKOS_LAMBDA(const Member& m) {
    const i64 lo = static_cast<i64>(m.league_rank()) * ScanShape::kBlock;
    const int cnt = static_cast<int>(len - lo < ScanShape::kBlock ? len - lo : ScanShape::kBlock);
    const int nc = (cnt + ScanShape::kChunk - 1) / ScanShape::kChunk;
    const int ng = (nc + ScanShape::kGroup - 1) / ScanShape::kGroup;
    const Shared staged(m.team_scratch(0), kScanStages<Exec> ? ScanShape::kStaged : 0);
    const Shared ct(m.team_scratch(0), ScanShape::kChunks);
    const Shared gt(m.team_scratch(0), ScanShape::kGroups);
    if (kScanStages<Exec>) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt),
                           [&](const int i) { staged(ScanShape::pad(i)) = src(lo + i); });
      m.team_barrier();
    }
    const auto x = [&](const int i) -> T {
      if (kScanStages<Exec>) return staged(ScanShape::pad(i));
      return src(lo + i);
    };
    chunkTotals(m, x, cnt, ct, gt, op);
    // group totals -> exclusive group prefixes, from the block's prefix
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      T acc = prefix != nullptr ? prefix[m.league_rank()] : first;
      for (int g = 0; g < ng; ++g) {
        const T v = gt(g);
        gt(g) = acc;
        acc = op(acc, v);
      }
    });
    m.team_barrier();
    // chunk totals -> exclusive chunk prefixes, from their group's prefix
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, ng), [&](const int g) {
      const int a = g * ScanShape::kGroup;
      const int e = a + ScanShape::kGroup < nc ? a + ScanShape::kGroup : nc;
      T acc = gt(g);
      for (int c = a; c < e; ++c) {
        const T v = ct(c);
        ct(c) = acc;
        acc = op(acc, v);
      }
    });
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, nc), [&](const int c) {
      const int a = c * ScanShape::kChunk;
      T acc = ct(c);
      // (plain `if`s on the constants: nvcc's extended lambdas cannot
      // first-capture inside `if constexpr`)
      const auto step = [&](const int i) {
        const T v = x(i);
        if (Inclusive) acc = op(acc, v);
        if (kScanStages<Exec>)
          staged(ScanShape::pad(i)) = acc;
        else
          dst(lo + i) = acc;
        if (!Inclusive) acc = op(acc, v);
      };
      if (a + ScanShape::kChunk <= cnt) {
        for (int i = 0; i < ScanShape::kChunk; ++i) step(a + i);
      } else {
        for (int i = a; i < cnt; ++i) step(i);
      }
    });
    if (kScanStages<Exec>) {
      m.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, cnt),
                           [&](const int i) { dst(lo + i) = staged(ScanShape::pad(i)); });
    }
  };
  launchBlocks(exec, label + "::scan", nb, scanTeamBytes<Exec, T>(), body);
}

/// Scan src[0, len) into dst (src == dst allowed) from init, using work[] for
/// the levels of block totals (each level scanned exclusively in place).
template <bool Inclusive, class Exec, class Src, class Dst, class T, class Op>
void scanLevels(const Exec& exec, const std::string& label, const Src& src, const Dst& dst, i64 len, T* work,
                const T& init, const Op& op) {
  if (len <= ScanShape::kBlock) {
    blockScan<Inclusive>(exec, label, src, dst, len, static_cast<const T*>(nullptr), init, op);
    return;
  }
  const i64 nb = (len + ScanShape::kBlock - 1) / ScanShape::kBlock;
  blockReduce(exec, label, src, len, work, op);
  const Raw<Exec, T> totals(work, static_cast<std::size_t>(nb));
  scanLevels<false>(exec, label, totals, totals, nb, work + nb, init, op);
  blockScan<Inclusive>(exec, label, src, dst, len, static_cast<const T*>(work), init, op);
}

/// Scan in[0, n) into out (in == out allowed). `blockSums` holds at least
/// sieve::scanScratchElems(n) elements.
template <bool Inclusive, class Exec, class InView, class OutView, class T, class Op>
void scan(const Exec& exec, const std::string& label, const InView& in, const OutView& out, const Op& op, const T& init,
          T* blockSums, i64 n) {
  if (n == 0) return;
  scanLevels<Inclusive>(exec, label, in, out, n, blockSums, init, op);
}


} // namespace Portable
} // namespace Impl
} // namespace sieve
