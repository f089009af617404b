// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — one sieve::findall call, after its checks: the
// predicate's mask (predicate form), the tile counts (the portable
// compaction's count phase), their scan (sieve's scan, on the space's scan
// face), the count word, and the write phase (the portable compaction's,
// with findall's item writer). Everything is enqueued on the instance.
#pragma once

#include <sieve/impl/faces.hpp>
#include <sieve/impl/findall/ordinal.hpp>
#include <sieve/impl/findall/plan.hpp>

namespace sieve {
namespace Impl {
namespace Findall {

/// The workspace's regions, typed, in the space's memory.
struct Regions {
  unsigned char* mask = nullptr;
  i64* tileEnd = nullptr;
  i64* sums = nullptr;
  i64* total = nullptr;

  Regions() = default;
  Regions(void* base, const Plan& p)
      : mask(carve<unsigned char>(base, FindallLayout::mask(p.maskElems()))),
        tileEnd(carve<i64>(base, FindallLayout::tileEnd(p.maskElems(), p.tiles()))),
        sums(carve<i64>(base, FindallLayout::sums(p.maskElems(), p.tiles()))),
        total(carve<i64>(base, FindallLayout::total(p.maskElems(), p.tiles()))) {}
};

/// Predicate form: mask[k] = pred(view's k-th element), once per element.
template <class Exec, class Pred, class At>
void fillMaskWith(const Exec& exec, const Names& names, const Pred& f, const At& at,
                  unsigned char* mask, i64 n) {
  // Host spaces: a run of elements per call, from local copies (the byte
  // stores could alias the functor's members, which would be reloaded for
  // every element otherwise); devices: one element per thread.
  constexpr i64 run = Findall::kHostSpace<Exec> ? 1024 : 1;
  Kokkos::parallel_for(
      names("predicate"), Portable::Range<Exec>(exec, 0, (n + run - 1) / run),
      KOKKOS_LAMBDA(const i64 c) {
        const Pred g = f;
        const At a = at;
        unsigned char* const m = mask;
        const i64 k1 = (c + 1) * run < n ? (c + 1) * run : n;
        for (i64 k = c * run; k < k1; ++k) m[k] = g(a(k)) ? 1 : 0;
      });
}
template <class Exec, class Pred, class V>
void fillMask(const Exec& exec, const Names& names, const Pred& pred, const V& view,
              unsigned char* mask, i64 n) {
  withReader(view, [&](const auto& at) { fillMaskWith(exec, names, pred, at, mask, n); });
}

/// Phases 1-3: the tile counts, scanned in place to inclusive ends, and the
/// count word `*word` = the number selected.
template <class Exec, class Keep>
void countPhase(const Exec& exec, const Names& names, const Plan& p, const Regions& r,
                const Keep& keep, i64* word) {
  const i64 n = p.n, w = p.unit;
  const i64 tiles = p.tiles();
  i64* tileEnd = r.tileEnd;
  if (tiles > 0) {
    Portable::tileCount<i64>(
        exec, names("count"), p.shape,
        KOKKOS_LAMBDA(const i64 u) {
          const i64 a = u * w, b = a + w < n ? a + w : n;
          return keep.count(a, b);
        },
        KOKKOS_LAMBDA(const int t, const i64 c) { tileEnd[t] = c; });
    using Raw =
        Kokkos::View<i64*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const Raw ends(tileEnd, static_cast<std::size_t>(tiles));
    dispatch<Exec, Primitive::Scan>(true, [&](auto tag) {
      Faces<decltype(tag)::value>::template scan<true>(exec, names, ends, ends, Sum{}, i64(0),
                                                       r.sums, tiles);
    });
  }
  Kokkos::parallel_for(
      names("total"), Portable::Range<Exec>(exec, 0, 1),
      KOKKOS_LAMBDA(const i64) { *word = tiles > 0 ? tileEnd[tiles - 1] : 0; });
}

/// Phase 4: every tile writes its selected items from its offset (slots at
/// or past `cap` are never written).
template <class Exec, class Keep, class Items, class Out>
void writePhase(const Exec& exec, const Names& names, const Plan& p, const Regions& r,
                const Keep& keep, const Items& items, const Out& out, i64 cap) {
  if (p.tiles() == 0) return;
  const Units<Keep, Items, Out> units{keep, items, out, p.n, p.unit, cap};
  const i64* tileEnd = r.tileEnd;
  Portable::tileWrite(
      exec, names("write"), p.shape,
      KOKKOS_LAMBDA(const int t) { return t == 0 ? i64(0) : tileEnd[t - 1]; },
      KOKKOS_LAMBDA(const i64 u) { return units.count(u); },
      KOKKOS_LAMBDA(const i64 u, const i64 pos) { return units.write(u, pos); });
}

/// Call f(keep) with the reader of what a mask View selects.
template <class Mask, class F>
void withMaskKeep(const Mask& mask, F&& f) {
  if (flat(mask)) {
    f(ByteKeep{reinterpret_cast<const unsigned char*>(mask.data())});
    return;
  }
  const auto at = viewAt(mask);
  f(ViewKeep<std::decay_t<decltype(at)>>{at});
}

} // namespace Findall
} // namespace Impl
} // namespace sieve
