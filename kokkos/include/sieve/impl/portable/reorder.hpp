// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: reorder / restore.
//
// Data-parallel form (every space but Kokkos::Serial): the keep bits of the
// span and their word offsets, then per pass a "stage" kernel (the planes'
// slots into staging planes) and a "place" kernel (each slot to its
// destination, reorderDstFromBits, once per slot for the pass). A pass moves
// two planes of one element size where the second staging plane fits in the
// compaction part of the scratch (pairStage): interleaved columns of one
// View then share their cache-line reads, and the launches halve. perm's
// place kernel also writes inv and the identity index map.
//
// Sequential form (Kokkos::Serial, kSequential): one in-place pass per plane
// (moveSequential: kept slots move left, dead ones go through the stage) and
// a restore that stages and gathers in one kernel; the same bytes.
#pragma once

#include <sieve/impl/portable/base.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Portable {

/// The state of one reorder call (keep bits, word offsets, kept count, span
/// and fire words, in the space's memory): core's ReorderState.
using ::sieve::Impl::ReorderState;

/// Element i of a plane, moved as an opaque word of its size (any
/// trivially-copyable element, Kokkos::Array included, strided or not; a
/// column or the rows of a rank-2 plane).
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

/// Element i of a contiguous plane (the sequential forms' fast path).
template <class W>
struct DenseWords {
  W* base;
  KOKKOS_INLINE_FUNCTION W& operator()(const i64 i) const { return base[i]; }
};

/// Call `f(words)` with the plane as DenseWords when its elements are
/// contiguous, else as PlaneWords (host code: the sequential forms).
template <class W, class F>
inline void withDense(const PlaneWords<W>& plane, F&& f) {
  if (plane.stride == static_cast<i64>(sizeof(W)))
    f(DenseWords<W>{reinterpret_cast<W*>(plane.base)});
  else f(plane);
}

/// `K` word planes of one element size moved in one pass (K = 1 or 2), each
/// with its own staging plane.
template <class W, int K>
struct PlaneGroup {
  PlaneWords<W> plane[K];
  W* stage[K];
};

/// Stage the K planes of `g` over the span, then place every slot of each at
/// its destination (computed once per slot for the K planes).
template <class Exec, class W, int K>
void moveWords(const Exec& exec, const std::string& label, const PlaneGroup<W, K>& g,
               const ReorderState& s) {
  Kokkos::parallel_for(
      label + "::stage", Range<Exec>(exec, 0, s.n), KOKKOS_LAMBDA(const i64 i) {
        if (!s.active() || i >= s.sp()) return;
        for (int k = 0; k < K; ++k) g.stage[k][i] = g.plane[k](i);
      });
  Kokkos::parallel_for(
      label + "::place", Range<Exec>(exec, 0, s.n), KOKKOS_LAMBDA(const i64 i) {
        if (!s.active() || i >= s.sp()) return;
        const i64 d = s.dst(i);
        for (int k = 0; k < K; ++k) g.plane[k](d) = g.stage[k][i];
      });
}

/// Call `move(group)` over the word planes, two planes of one element size
/// per group where the second staging plane fits (`pairFrom`: where it may
/// start, pairStage), else one.
template <class Move>
void forPlaneGroups(const ReorderPlane* desc, const std::size_t* strideBytes, std::uint32_t nPlanes,
                    unsigned char* scratch, unsigned char* stage, i64 n, std::size_t pairFrom,
                    const Move& move) {
  for (std::uint32_t p = 0; p < nPlanes;) {
    const std::uint32_t eb = desc[p].elemBytes;
    const ScratchRegion second = ReorderLayout::pairStage(n, pairFrom, eb);
    const bool pair = p + 1 < nPlanes && desc[p + 1].elemBytes == eb && second.bytes != 0;
    withElem(eb, [&](auto tag) {
      using W = typename decltype(tag)::type;
      const auto words = [&](std::uint32_t q) {
        return PlaneWords<W>{static_cast<unsigned char*>(desc[q].data),
                             static_cast<i64>(strideBytes[q])};
      };
      if (pair)
        move(PlaneGroup<W, 2>{{words(p), words(p + 1)},
                              {reinterpret_cast<W*>(stage), carve<W>(scratch, second)}});
      else move(PlaneGroup<W, 1>{{words(p)}, {reinterpret_cast<W*>(stage)}});
    });
    p += pair ? 2 : 1;
  }
}

/// The sequential move of one plane over the span [0, sp) (kSequential
/// spaces; host code): one pass in slot order, in place. A kept slot goes to
/// the next kept position (never right of it: a slot already read), a dead
/// one to the stage; then the staged slots follow the kept ones. The same
/// stable partition as moveWords, with one read of the plane.
template <class W, class P>
inline void moveSequential(const P& plane, W* stage, const std::uint32_t* bits, i64 sp, i64 kept) {
  i64 k = 0, d = 0;
  for (i64 base = 0; base < sp; base += 32) {
    const std::uint32_t b = bits[base >> 5];
    const int len = static_cast<int>(sp - base < 32 ? sp - base : 32);
    const std::uint32_t all = len == 32 ? 0xFFFFFFFFu : (1u << len) - 1u;
    if (b == all) { // every slot kept: a run (nothing to do while none was dropped)
      if (k != base)
        for (int j = 0; j < len; ++j) plane(k + j) = plane(base + j);
      k += len;
    } else if (b == 0u) { // every slot dead
      for (int j = 0; j < len; ++j) stage[d + j] = plane(base + j);
      d += len;
    } else { // branchless: both stores, one of them kept
      for (int j = 0; j < len; ++j) {
        const W v = plane(base + j);
        const i64 keep = static_cast<i64>((b >> j) & 1u);
        plane(k) = v;
        stage[d] = v;
        k += keep;
        d += 1 - keep;
      }
    }
  }
  for (i64 t = 0; t < d; ++t) plane(kept + t) = stage[t];
}

/// The word planes of typed rank-1 planes (the descriptors and strides the
/// list form takes). No allocation.
template <class... Planes>
struct TypedPlanes {
  std::array<ReorderPlane, sizeof...(Planes)> desc;
  std::array<std::size_t, sizeof...(Planes)> stride;
  explicit TypedPlanes(const Planes&... planes)
      : desc{ReorderPlane{static_cast<void*>(planes.data()),
                          static_cast<std::uint32_t>(sizeof(typename Planes::value_type))}...},
        stride{strideBytes(planes)...} {}
};

/// reorder over a list of `nPlanes` word planes (`desc`: data and element
/// size, 1, 2, 4, 8 or 16 bytes; `strideBytes`: bytes between elements),
/// what sieve::reorder hands every face (rank-2 planes expanded into their
/// rows or columns).
template <class Exec, class MaskView, class PermView, class InvView, class MapView>
void reorderPlanes(const Exec& exec, const std::string& label, const MaskView& mask,
                   std::uint32_t flags, const PermView& perm, const InvView& inv,
                   const MapView& map, std::uint32_t* count, std::uint32_t* span,
                   std::uint32_t* fire, unsigned char* scratch, i64 n, const ReorderPlane* desc,
                   const std::size_t* strideBytes, std::uint32_t nPlanes) {
  if (n == 0) {
    Kokkos::parallel_for(
        label + "::empty", Range<Exec>(exec, 0, 1),
        KOKKOS_LAMBDA(const i64) { reorderEpilogue(count, span, fire, 0u); });
    return;
  }
  const i64 nwords = ReorderLayout::words(n);
  std::uint32_t* bits = carve<std::uint32_t>(scratch, ReorderLayout::bits(n));
  std::uint32_t* wordOff = carve<std::uint32_t>(scratch, ReorderLayout::wordOff(n));
  std::uint32_t* cnt = carve<std::uint32_t>(scratch, ReorderLayout::cnt(n));
  const ReorderState s{bits, wordOff, cnt, span, fire, n};
  // One staging plane for every plane (and perm): it starts at the same
  // offset whatever the element size (sized for the widest by the caller).
  unsigned char* stage = carve<unsigned char>(scratch, ReorderLayout::stage(n, 4));

  if constexpr (kSequential<Exec>) {
    // One pass per plane, in place (moveSequential); the keep bits and the
    // kept count first (the mask is one of the planes).
    const std::uint8_t* maskBytes = contiguousBytes(mask);
    runOnce(exec, label + "::bits", [=]() {
      if (!s.active()) return;
      const i64 sp = s.sp();
      std::uint32_t kept = 0;
      for (i64 base = 0; base < sp; base += 32) {
        const std::uint32_t b = hostKeepBits(mask, maskBytes, base, sp, flags);
        bits[base >> 5] = b;
        kept += static_cast<std::uint32_t>(popcount32(b));
      }
      *cnt = kept;
    });
    for (std::uint32_t p = 0; p < nPlanes; ++p)
      withElem(desc[p].elemBytes, [&](auto tag) {
        using W = typename decltype(tag)::type;
        const PlaneWords<W> plane{static_cast<unsigned char*>(desc[p].data),
                                  static_cast<i64>(strideBytes[p])};
        runOnce(exec, label + "::move", [=]() {
          if (!s.active()) return;
          withDense(plane, [&](const auto& words) {
            moveSequential(words, reinterpret_cast<W*>(stage), bits, s.sp(), s.kept());
          });
        });
      });
    const auto permWords = planeWords(perm);
    runOnce(exec, label + "::perm", [=]() {
      if (!s.active()) return;
      const i64 sp = s.sp(), kept = s.kept();
      using W = std::remove_reference_t<decltype(permWords(0))>;
      withDense(permWords, [&](const auto& words) {
        moveSequential(words, reinterpret_cast<W*>(stage), bits, sp, kept);
      });
      for (i64 i = 0; i < sp; ++i) {
        const std::int32_t q = perm(i);
        if (slotInRange(q, n)) inv(q) = static_cast<std::int32_t>(i);
      }
      for (i64 i = 0; i < kept; ++i) map(i) = static_cast<std::int32_t>(i);
      reorderEpilogue(count, span, fire, static_cast<std::uint32_t>(kept));
    });
    return;
  }

  Kokkos::parallel_for(
      label + "::bits", Range<Exec>(exec, 0, nwords), KOKKOS_LAMBDA(const i64 w) {
        if (!s.active()) return;
        const i64 sp = s.sp();
        bits[w] = w * 32 < sp ? groupKeepBits(MaskAt{mask}, w * 32, sp, flags) : 0u;
      });
  Kokkos::parallel_scan(
      label + "::offsets", Range<Exec>(exec, 0, nwords),
      KOKKOS_LAMBDA(const i64 w, std::uint32_t& upd, const bool final) {
        if (!s.active()) return;
        const auto v = static_cast<std::uint32_t>(popcount32(bits[w]));
        if (final) {
          wordOff[w] = upd;
          if (w == nwords - 1) *cnt = upd + v;
        }
        upd += v;
      });
  // The planes, two per pass where they pair (one read of their shared
  // cache lines, one destination per slot), then perm, whose place kernel
  // also writes inv and the identity index map.
  forPlaneGroups(desc, strideBytes, nPlanes, scratch, stage, n, ReorderLayout::cnt(n).end(),
                 [&](const auto& group) { moveWords(exec, label, group, s); });
  const PlaneWords<std::int32_t> permWords{reinterpret_cast<unsigned char*>(perm.data()),
                                           static_cast<i64>(::sieve::Impl::strideBytes(perm))};
  std::int32_t* permStage = reinterpret_cast<std::int32_t*>(stage);
  Kokkos::parallel_for(
      label + "::stage", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        if (s.active() && i < s.sp()) permStage[i] = permWords(i);
      });
  Kokkos::parallel_for(
      label + "::place", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        if (!s.active() || i >= s.sp()) return;
        const i64 d = s.dst(i);
        const std::int32_t q = permStage[i];
        permWords(d) = q;
        if (slotInRange(q, s.n)) inv(q) = static_cast<std::int32_t>(d);
        if (i < s.kept()) map(i) = static_cast<std::int32_t>(i);
      });
  Kokkos::parallel_for(
      label + "::words", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
        if (s.active()) reorderEpilogue(count, span, fire, *cnt);
      });
}

/// reorder of typed rank-1 planes (the form the cross-backend test drives).
template <class Exec, class MaskView, class PermView, class InvView, class MapView, class... Planes>
void reorder(const Exec& exec, const std::string& label, const MaskView& mask, std::uint32_t flags,
             const PermView& perm, const InvView& inv, const MapView& map, std::uint32_t* count,
             std::uint32_t* span, std::uint32_t* fire, unsigned char* scratch, i64 n,
             const Planes&... planes) {
  const TypedPlanes<Planes...> list(planes...);
  reorderPlanes(exec, label, mask, flags, perm, inv, map, count, span, fire, scratch, n,
                list.desc.data(), list.stride.data(),
                static_cast<std::uint32_t>(sizeof...(Planes)));
}

/// Stage every slot of the K planes of `g`, then gather them back through
/// inv (one read of inv per slot for the K planes).
template <class Exec, class W, int K, class InvView>
void restoreWords(const Exec& exec, const std::string& label, const PlaneGroup<W, K>& g,
                  const InvView& inv, i64 n) {
  Kokkos::parallel_for(
      label + "::stage", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        for (int k = 0; k < K; ++k) g.stage[k][i] = g.plane[k](i);
      });
  Kokkos::parallel_for(
      label + "::gather", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        const std::int32_t from = inv(i);
        if (!slotInRange(from, n)) return;
        for (int k = 0; k < K; ++k) g.plane[k](i) = g.stage[k][from];
      });
}

/// The sequential restore of one plane (kSequential spaces; host code):
/// stage it, gather it back through inv.
template <class W, class P, class InvView>
inline void restoreSequential(const P& plane, W* stage, const InvView& inv, i64 n) {
  for (i64 i = 0; i < n; ++i) stage[i] = plane(i);
  for (i64 i = 0; i < n; ++i) {
    const std::int32_t from = inv(i);
    if (slotInRange(from, n)) plane(i) = stage[from];
  }
}

/// restore over a list of word planes (as reorderPlanes).
template <class Exec, class PermView, class InvView>
void restorePlanes(const Exec& exec, const std::string& label, const PermView& perm,
                   const InvView& inv, unsigned char* scratch, i64 n, const ReorderPlane* desc,
                   const std::size_t* strideBytes, std::uint32_t nPlanes) {
  if (n == 0) return;
  unsigned char* stage = carve<unsigned char>(scratch, ReorderLayout::stage(n, 4));
  if constexpr (kSequential<Exec>) {
    for (std::uint32_t p = 0; p < nPlanes; ++p)
      withElem(desc[p].elemBytes, [&](auto tag) {
        using W = typename decltype(tag)::type;
        const PlaneWords<W> plane{static_cast<unsigned char*>(desc[p].data),
                                  static_cast<i64>(strideBytes[p])};
        runOnce(exec, label + "::gather", [=]() {
          withDense(plane, [&](const auto& words) {
            restoreSequential(words, reinterpret_cast<W*>(stage), inv, n);
          });
        });
      });
  } else {
    // Two planes per pass where they pair; the second staging plane may
    // start anywhere in the compaction scratch (a restore uses none of it).
    forPlaneGroups(desc, strideBytes, nPlanes, scratch, stage, n, 0,
                   [&](const auto& group) { restoreWords(exec, label, group, inv, n); });
  }
  Kokkos::parallel_for(
      label + "::identity", Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        perm(i) = static_cast<std::int32_t>(i);
        inv(i) = static_cast<std::int32_t>(i);
      });
}

/// restore of typed rank-1 planes.
template <class Exec, class PermView, class InvView, class... Planes>
void restore(const Exec& exec, const std::string& label, const PermView& perm, const InvView& inv,
             unsigned char* scratch, i64 n, const Planes&... planes) {
  const TypedPlanes<Planes...> list(planes...);
  restorePlanes(exec, label, perm, inv, scratch, n, list.desc.data(), list.stride.data(),
                static_cast<std::uint32_t>(sizeof...(Planes)));
}

} // namespace Portable
} // namespace Impl
} // namespace sieve
