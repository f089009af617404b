// Sieve (internal) — the portable implementation: Kokkos parallel patterns
// only, for every execution space without a native face (Serial, Threads, HIP,
// SYCL, OpenMPTarget) and for Views a native face cannot take (strided).
// It makes the same moves and writes the same words as the native faces, by
// the same rules (core/), so integer results are bit-identical. Everything is
// enqueued on the instance; nothing is fenced, allocated or read back.
#pragma once

#include <sieve/core/bits.hpp>
#include <sieve/core/elem.hpp>
#include <sieve/core/rules.hpp>
#include <sieve/impl/common.hpp>

#include <cstdint>

namespace sieve {
namespace Impl {
namespace Portable {

using i64 = std::int64_t;

template <class Exec>
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;

/// Compaction tiles: 128 groups of 32 samples.
inline constexpr i64 kTileGroups = 128;
/// Scan blocks (the host twin's default block size).
inline constexpr i64 kScanBlock = 1024;

// ----------------------------------------------------------------- compact --

/// Compact mask[0, n) into map: per tile, count kept samples and live groups
/// (team reduction over groups); scan the tiles; per tile, write the indices
/// (team scan over groups). Words are raw pointers into the space's memory.
template <class Exec, class MaskView, class MapView>
void compact(const Exec& exec, const MaskView& mask, std::uint32_t flags, const MapView& map,
             std::uint32_t* count, void* scratch, const ReorderTrigger* trig, i64 n) {
  using Team = Kokkos::TeamPolicy<Exec>;
  using Member = typename Team::member_type;
  const bool hasTrig = trig != nullptr;
  const ReorderTrigger t = hasTrig ? *trig : ReorderTrigger{};
  if (n == 0) {
    Kokkos::parallel_for(
        "sieve::compact::empty", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(i64) {
          *count = 0u;
          if (hasTrig) {
            *t.live32 = 0u;
            *t.fire = triggerFires(0u, 0u, *t.span, t.theta);
          }
        });
    return;
  }
  const i64 ngroups = groups32(n);
  const i64 ntiles = (ngroups + kTileGroups - 1) / kTileGroups;
  // Three words per tile (ntiles <= n): within the 12 * max(n, 1) bytes.
  auto* tileKept = static_cast<std::uint32_t*>(scratch);
  std::uint32_t* tileLive = tileKept + ntiles;
  std::uint32_t* tileOff = tileLive + ntiles;

  Kokkos::parallel_for(
      "sieve::compact::count", Team(exec, static_cast<int>(ntiles), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& m) {
        const i64 g0 = m.league_rank() * kTileGroups;
        const i64 g1 = g0 + kTileGroups < ngroups ? g0 + kTileGroups : ngroups;
        std::uint64_t sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, g0, g1),
            [&](const i64 g, std::uint64_t& acc) {
              const std::uint32_t bits =
                  groupKeepBits([&](i64 i) { return mask(i); }, g * 32, n, flags);
              acc += static_cast<std::uint64_t>(popcount32(bits)) +
                     (static_cast<std::uint64_t>(bits != 0u) << 32);
            },
            sum);
        Kokkos::single(Kokkos::PerTeam(m), [&]() {
          tileKept[m.league_rank()] = static_cast<std::uint32_t>(sum & 0xFFFFFFFFu);
          tileLive[m.league_rank()] = static_cast<std::uint32_t>(sum >> 32);
        });
      });

  Kokkos::parallel_scan(
      "sieve::compact::offsets", Range<Exec>(exec, 0, ntiles),
      KOKKOS_LAMBDA(const i64 k, std::uint64_t& upd, const bool final) {
        // kept in the low word, live groups in the high word (no carry: the
        // kept total is below 2^31)
        const std::uint64_t v = tileKept[k] | (static_cast<std::uint64_t>(tileLive[k]) << 32);
        if (final) {
          tileOff[k] = static_cast<std::uint32_t>(upd & 0xFFFFFFFFu);
          if (k == ntiles - 1) {
            const std::uint64_t total = upd + v;
            const auto kept = static_cast<std::uint32_t>(total & 0xFFFFFFFFu);
            *count = kept;
            if (hasTrig) {
              const auto live = static_cast<std::uint32_t>(total >> 32);
              *t.live32 = live;
              *t.fire = triggerFires(kept, live, *t.span, t.theta);
            }
          }
        }
        upd += v;
      });

  Kokkos::parallel_for(
      "sieve::compact::write", Team(exec, static_cast<int>(ntiles), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& m) {
        const i64 g0 = m.league_rank() * kTileGroups;
        const i64 g1 = g0 + kTileGroups < ngroups ? g0 + kTileGroups : ngroups;
        const auto base = static_cast<i64>(tileOff[m.league_rank()]);
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(m, g0, g1),
                              [&](const i64 g, std::uint32_t& upd, const bool final) {
                                const std::uint32_t bits = groupKeepBits(
                                    [&](i64 i) { return mask(i); }, g * 32, n, flags);
                                if (final) {
                                  i64 pos = base + upd;
                                  for (std::uint32_t b = bits; b != 0u; b &= b - 1u)
                                    map(pos++) = static_cast<std::int32_t>(g * 32 + ctz32(b));
                                }
                                upd += static_cast<std::uint32_t>(popcount32(bits));
                              });
      });
}

// -------------------------------------------------------------------- scan --

template <class Exec, class T>
using Raw = Kokkos::View<T*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// totals[b] = left-to-right fold of block b of src[0, len).
template <class Exec, class Src, class T, class Op>
void blockTotals(const Exec& exec, const Src& src, i64 len, T* totals, const Op& op) {
  const i64 nb = (len + kScanBlock - 1) / kScanBlock;
  Kokkos::parallel_for(
      "sieve::scan::totals", Range<Exec>(exec, 0, nb), KOKKOS_LAMBDA(const i64 b) {
        const i64 lo = b * kScanBlock, hi = lo + kScanBlock < len ? lo + kScanBlock : len;
        T acc = src(lo);
        for (i64 i = lo + 1; i < hi; ++i) acc = op(acc, src(i));
        totals[b] = acc;
      });
}

/// Scan every block of src[0, len) into dst from its prefix.
template <bool Inclusive, class Exec, class Src, class Dst, class T, class Op>
void blockScan(const Exec& exec, const Src& src, const Dst& dst, i64 len, const T* prefix,
               const Op& op) {
  const i64 nb = (len + kScanBlock - 1) / kScanBlock;
  Kokkos::parallel_for(
      "sieve::scan::blocks", Range<Exec>(exec, 0, nb), KOKKOS_LAMBDA(const i64 b) {
        const i64 lo = b * kScanBlock, hi = lo + kScanBlock < len ? lo + kScanBlock : len;
        T acc = prefix[b];
        for (i64 i = lo; i < hi; ++i) {
          const T v = src(i);
          // (a plain `if` on the constant: nvcc's extended lambdas cannot
          // first-capture inside `if constexpr`)
          if (Inclusive) {
            acc = op(acc, v);
            dst(i) = acc;
          } else {
            dst(i) = acc;
            acc = op(acc, v);
          }
        }
      });
}

/// Exclusive scan of a[0, len) in place from `init`, using work[] (at most
/// len elements) for the levels above.
template <class Exec, class T, class Op>
void scanTotals(const Exec& exec, T* a, i64 len, T* work, const T& init, const Op& op) {
  if (len <= kScanBlock) {
    Kokkos::parallel_for(
        "sieve::scan::top", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
          T acc = init;
          for (i64 i = 0; i < len; ++i) {
            const T v = a[i];
            a[i] = acc;
            acc = op(acc, v);
          }
        });
    return;
  }
  const Raw<Exec, T> av(a, static_cast<std::size_t>(len));
  const i64 nb = (len + kScanBlock - 1) / kScanBlock;
  blockTotals(exec, av, len, work, op);
  scanTotals(exec, work, nb, work + nb, init, op);
  blockScan<false>(exec, av, av, len, work, op);
}

/// Scan in[0, n) into out (in == out allowed). `blockSums` holds at least
/// scratchElems(n) elements.
template <bool Inclusive, class Exec, class InView, class OutView, class T, class Op>
void scan(const Exec& exec, const InView& in, const OutView& out, const Op& op, const T& init,
          T* blockSums, i64 n) {
  if (n == 0) return;
  const i64 nb = (n + kScanBlock - 1) / kScanBlock;
  blockTotals(exec, in, n, blockSums, op);
  scanTotals(exec, blockSums, nb, blockSums + nb, init, op);
  blockScan<Inclusive>(exec, in, out, n, blockSums, op);
}

/// Elements of block sums the portable scan uses (always <= n).
inline i64 scanScratchElems(i64 n) {
  i64 total = 0;
  for (i64 len = n; len > 0;) {
    const i64 nb = (len + kScanBlock - 1) / kScanBlock;
    total += nb;
    if (len <= kScanBlock) break;
    len = nb;
  }
  return total;
}

// ------------------------------------------------------- reorder / restore --

/// The state of one reorder call, in the space's memory: keep bits (one word
/// per 32 samples), the exclusive kept count before each word, the kept count
/// of the span, and the words. span and fire are read on the device by every
/// kernel (fire == 0 makes each a no-op), so nothing is read back.
struct ReorderState {
  const std::uint32_t* bits;
  const std::uint32_t* wordOff;
  const std::uint32_t* cnt;
  const std::uint32_t* span;
  const std::uint32_t* fire; // may be null: unconditional
  i64 n;

  KOKKOS_INLINE_FUNCTION bool active() const { return fire == nullptr || *fire != 0u; }
  KOKKOS_INLINE_FUNCTION i64 sp() const { return effectiveSpan(*span, n); }
  /// Where slot i (< sp) goes.
  KOKKOS_INLINE_FUNCTION i64 dst(i64 i) const {
    return reorderDstFromBits(bits, wordOff, i, static_cast<i64>(*cnt));
  }
};

/// Element i of a plane, moved as an opaque word of its size (any
/// trivially-copyable element, Kokkos::Array included, strided or not).
template <class W>
struct PlaneWords {
  unsigned char* base;
  i64 stride; // bytes
  KOKKOS_INLINE_FUNCTION W& operator()(const i64 i) const {
    return *reinterpret_cast<W*>(base + i * stride);
  }
};

template <class PlaneView>
auto planeWords(const PlaneView& v) {
  using W = ElemOf<sizeof(typename PlaneView::non_const_value_type)>;
  return PlaneWords<W>{reinterpret_cast<unsigned char*>(v.data()),
                       static_cast<i64>(strideBytes(v))};
}

/// Stage one plane over the span, then place every slot at its destination.
template <class Exec, class PlaneView>
void movePlane(const Exec& exec, const PlaneView& view, unsigned char* stageBytes,
               const ReorderState& s) {
  const auto plane = planeWords(view);
  using T = std::remove_reference_t<decltype(plane(0))>;
  T* stage = reinterpret_cast<T*>(stageBytes);
  Kokkos::parallel_for(
      "sieve::reorder::stage", Range<Exec>(exec, 0, s.n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.sp()) stage[i] = plane(i);
      });
  Kokkos::parallel_for(
      "sieve::reorder::place", Range<Exec>(exec, 0, s.n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.sp()) plane(s.dst(i)) = stage[i];
      });
}

template <class Exec, class MaskView, class PermView, class InvView, class MapView,
          class... Planes>
void reorder(const Exec& exec, const MaskView& mask, std::uint32_t flags, const PermView& perm,
             const InvView& inv, const MapView& map, std::uint32_t* count, std::uint32_t* span,
             std::uint32_t* fire, unsigned char* scratch, i64 n, const Planes&... planes) {
  if (n == 0) {
    Kokkos::parallel_for(
        "sieve::reorder::empty", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
          *count = 0u;
          *span = 0u;
          if (fire != nullptr) *fire = 0u;
        });
    return;
  }
  const i64 nwords = groups32(n);
  auto* bits = reinterpret_cast<std::uint32_t*>(scratch);
  std::uint32_t* wordOff = bits + nwords;
  std::uint32_t* cnt = wordOff + nwords;
  const ReorderState s{bits, wordOff, cnt, span, fire, n};

  Kokkos::parallel_for(
      "sieve::reorder::bits", Range<Exec>(exec, 0, nwords), KOKKOS_LAMBDA(const i64 w) {
        if (!s.active()) return;
        const i64 sp = s.sp();
        bits[w] = w * 32 < sp ? groupKeepBits([&](i64 i) { return mask(i); }, w * 32, sp, flags)
                              : 0u;
      });
  Kokkos::parallel_scan(
      "sieve::reorder::offsets", Range<Exec>(exec, 0, nwords),
      KOKKOS_LAMBDA(const i64 w, std::uint32_t& upd, const bool final) {
        if (!s.active()) return;
        const auto v = static_cast<std::uint32_t>(popcount32(bits[w]));
        if (final) {
          wordOff[w] = upd;
          if (w == nwords - 1) *cnt = upd + v;
        }
        upd += v;
      });
  unsigned char* stage = scratch + reorderStageOffset(n);
  (movePlane(exec, planes, stage, s), ...);
  movePlane(exec, perm, stage, s);
  Kokkos::parallel_for(
      "sieve::reorder::inverse", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.sp()) inv(perm(i)) = static_cast<std::int32_t>(i);
      });
  Kokkos::parallel_for(
      "sieve::reorder::identity", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < static_cast<i64>(*s.cnt)) map(i) = static_cast<std::int32_t>(i);
      });
  Kokkos::parallel_for(
      "sieve::reorder::words", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
        if (!s.active()) return;
        *count = *cnt;
        *span = *cnt;
        if (fire != nullptr) *fire = 0u;
      });
}

template <class Exec, class PlaneView, class InvView>
void restorePlane(const Exec& exec, const PlaneView& view, const InvView& inv,
                  unsigned char* stageBytes, i64 n) {
  const auto plane = planeWords(view);
  using T = std::remove_reference_t<decltype(plane(0))>;
  T* stage = reinterpret_cast<T*>(stageBytes);
  Kokkos::parallel_for(
      "sieve::restore::stage", Range<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i) { stage[i] = plane(i); });
  Kokkos::parallel_for(
      "sieve::restore::gather", Range<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i) { plane(i) = stage[inv(i)]; });
}

template <class Exec, class PermView, class InvView, class... Planes>
void restore(const Exec& exec, const PermView& perm, const InvView& inv, unsigned char* scratch,
             i64 n, const Planes&... planes) {
  if (n == 0) return;
  unsigned char* stage = scratch + reorderStageOffset(n);
  (restorePlane(exec, planes, inv, stage, n), ...);
  Kokkos::parallel_for(
      "sieve::restore::identity", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        perm(i) = static_cast<std::int32_t>(i);
        inv(i) = static_cast<std::int32_t>(i);
      });
}

} // namespace Portable
} // namespace Impl
} // namespace sieve
