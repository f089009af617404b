// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — one sieve::findall call, after its checks: the
// predicate's mask (predicate form), the tile counts (the portable
// compaction's count phase), their scan (sieve's scan, on the space's scan
// face), the count word, and the write phase (the portable compaction's,
// with findall's item writer). Everything is enqueued on the instance.
#pragma once

#include <sieve/core/select.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/findall/ordinal.hpp>
#include <sieve/impl/findall/plan.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace sieve {
namespace Impl {
namespace Findall {

/// The workspace's regions, typed, in the space's memory.
struct Regions {
  unsigned char* mask = nullptr;
  i64* tileEnd = nullptr;
  i64* sums = nullptr;
  i64* total = nullptr;
  void* native = nullptr; ///< the native selection's scratch
  std::size_t nativeBytes = 0;

  Regions() = default;
  Regions(void* base, const Plan& p)
      : mask(carve<unsigned char>(base, FindallLayout::mask(p.maskElems()))),
        tileEnd(carve<i64>(base, FindallLayout::tileEnd(p.maskElems(), p.tiles()))),
        sums(carve<i64>(base, FindallLayout::sums(p.maskElems(), p.tiles()))),
        total(carve<i64>(base, FindallLayout::total(p.maskElems(), p.tiles()))),
        native(carve<unsigned char>(base, FindallLayout::native(p.maskElems(), p.tiles(), p.n))),
        nativeBytes(FindallLayout::native(p.maskElems(), p.tiles(), p.n).bytes) {}
};

/// Predicate form: mask[k] = pred(view's k-th element), once per element.
template <class Exec, class Pred, class At>
void fillMaskWith(const Exec& exec, const Names& names, const Pred& f, const At& at,
                  unsigned char* mask, i64 n) {
  // Host spaces: a run of elements per call, from local copies (the byte
  // stores could alias the functor's members, which would be reloaded for
  // every element otherwise); devices: one element per thread.
  constexpr i64 run = Findall::kHostSpace<Exec> ? Tuning::Findall::kHostPredicateRun : 1;
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
    dispatch<Exec, Primitive::Scan>("sieve::findall", true, [&](auto tag) {
      Faces<decltype(tag)::value>::template scan<true>(exec, names, ends, ends, Sum{}, i64(0),
                                                       r.sums, tiles);
    });
  }
  Kokkos::parallel_for(
      names("total"), Portable::Range<Exec>(exec, 0, 1),
      KOKKOS_LAMBDA(const i64) { *word = tiles > 0 ? tileEnd[tiles - 1] : 0; });
}

/// What a native selection (core/select.hpp) writes for Items: int64
/// indices (rank-1 indices, linear positions), the same as int32
/// (Narrow32), or values of 1, 2, 4 or 8 bytes read through a pointer
/// (`source`: null when the View is strided); `ok` false for anything else.
template <class Items>
struct SelectOf {
  static constexpr bool ok = false;
};
template <>
struct SelectOf<LinearItems> {
  static constexpr bool ok = true;
  static constexpr SelectItem item = SelectItem::Index64;
  static const void* source(const LinearItems&) { return nullptr; }
};
template <bool Left>
struct SelectOf<IndexItems<1, Left>> {
  static constexpr bool ok = true;
  static constexpr SelectItem item = SelectItem::Index64;
  static const void* source(const IndexItems<1, Left>&) { return nullptr; }
};
template <class Items>
struct SelectOf<Narrow32<Items>> {
  static constexpr bool ok = SelectOf<Items>::ok && SelectOf<Items>::item == SelectItem::Index64;
  static constexpr SelectItem item = SelectItem::Index32;
  static const void* source(const Narrow32<Items>&) { return nullptr; }
};
template <class T>
inline constexpr bool kBitCopyable = std::is_trivially_copyable_v<T> &&
                                     (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                                      sizeof(T) == 8);
template <class V>
struct SelectOf<ValueItems<FlatAt<V>>> {
  static constexpr bool ok = kBitCopyable<typename V::value_type>;
  static constexpr SelectItem item = SelectItem::Value;
  static const void* source(const ValueItems<FlatAt<V>>& it) { return it.at.p; }
};
template <class V>
struct SelectOf<ValueItems<ViewAt<V>>> {
  static constexpr bool ok = V::rank == 1 && kBitCopyable<typename V::value_type>;
  static constexpr SelectItem item = SelectItem::Value;
  static const void* source(const ValueItems<ViewAt<V>>& it) {
    if constexpr (V::rank == 1) {
      if (it.at.v.extent(0) <= 1 || it.at.v.stride(0) == 1) return it.at.v.data();
    }
    return nullptr;
  }
};

/// The predicate form's keep bits for a face that fuses them into its
/// selection (SelectFilled): pred(element k) for the samples of a block
/// (fill: a host face's mask bytes), or for one sample (operator(): a device
/// face's kernel).
template <class Pred, class At>
struct PredFill {
  Pred pred;
  At at;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 k) const { return pred(at(k)); }
  static void fill(const void* ctx, const i64 a, const i64 b, std::uint8_t* dst) {
    const auto* self = static_cast<const PredFill*>(ctx);
    // Local copies: the byte stores could alias the functor's members.
    const Pred g = self->pred;
    const At x = self->at;
    for (i64 k = a; k < b; ++k) dst[k - a] = g(x(k)) ? 1 : 0;
  }
};

/// The selection of n samples into `out` (at most `cap` items, the count to
/// `*word`) on the native face of Exec, when it has primitive P and the
/// items and the result are plain arrays: the mask bytes from `mask`
/// (Select), or from `from` (SelectFilled: a PredFill; its fill on a host
/// face, from(k) in a device kernel). Returns false,
/// with nothing done, when the call stays on the portable face.
template <Primitive P, class Exec, class Items, class Out, class From>
bool selectNative(const Exec& exec, const Names& names, const Regions& r, const i64 n,
                  const From& from, const Items& items, const Out& out, const i64 cap, i64* word) {
  using S = SelectOf<Items>;
  if constexpr (!S::ok) {
    return false;
  } else {
    using OutT = typename Out::value_type;
    SelectSpec spec;
    spec.n = n;
    spec.item = S::item;
    spec.elemBytes = static_cast<std::uint32_t>(sizeof(OutT));
    spec.values = S::source(items);
    spec.out = static_cast<void*>(out.data());
    spec.cap = cap;
    spec.count = word;
    const bool plain = (S::item != SelectItem::Value || spec.values != nullptr || n == 0) &&
                       (out.extent(0) <= 1 || out.stride(0) == 1) &&
                       selectItemBytes(S::item, spec.elemBytes) == spec.elemBytes;
    return runNative<Exec, P>(plain, [&](auto tag) {
      constexpr Face F = decltype(tag)::value;
      if constexpr (P == Primitive::SelectFilled) {
        Faces<F>::selectFilled(exec, names, spec, r.native, r.nativeBytes, from);
      } else {
        spec.mask = reinterpret_cast<const std::uint8_t*>(from);
        Faces<F>::select(exec, names, spec, r.native, r.nativeBytes);
      }
    });
  }
}

/// Phases 1-3 for a call that returns a View: the count word `*word`, by the
/// native selection of nothing (cap 0) where the mask is a byte array and
/// the face has one, else by the tile counts. Returns whether the tile ends
/// were counted (the portable write phase needs them).
template <class Exec, class Keep>
bool countWord(const Exec& exec, const Names& names, const Plan& p, const Regions& r,
               const Keep& keep, i64* word) {
  if constexpr (std::is_same_v<Keep, ByteKeep>) {
    const Kokkos::View<i64*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        none(static_cast<i64*>(nullptr), 0);
    if (selectNative<Primitive::Select>(exec, names, r, p.n, keep.p, LinearItems{}, none, 0, word))
      return false;
  }
  countPhase(exec, names, p, r, keep, word);
  return true;
}

/// Phase 4: every tile writes its selected items from its offset (slots at
/// or past `cap` are never written): by the native selection where it takes
/// the call, else by the tiles (counted first when `counted` is false).
template <class Exec, class Keep, class Items, class Out>
void writePhase(const Exec& exec, const Names& names, const Plan& p, const Regions& r,
                const Keep& keep, const Items& items, const Out& out, i64 cap,
                bool counted = true) {
  if (p.tiles() == 0) return;
  if constexpr (std::is_same_v<Keep, ByteKeep>) {
    // (The count word is rewritten with the count it already holds.)
    if (selectNative<Primitive::Select>(exec, names, r, p.n, keep.p, items, out, cap, r.total))
      return;
  }
  if (!counted) countPhase(exec, names, p, r, keep, r.total);
  const Units<Keep, Items, Out> units{keep, items, out, p.n, p.unit, cap};
  const i64* tileEnd = r.tileEnd;
  Portable::tileWrite(
      exec, names("write"), p.shape,
      KOKKOS_LAMBDA(const int t) { return t == 0 ? i64(0) : tileEnd[t - 1]; },
      KOKKOS_LAMBDA(const i64 u) { return units.count(u); },
      KOKKOS_LAMBDA(const i64 u, const i64 pos) { return units.write(u, pos); });
}

/// Phases 1-4 of a call writing into the caller's result: the count word
/// `*word` and the items. One tile on a host space (Serial; one thread) is
/// written in a single pass that counts as it writes (the count phase would
/// only give tile 0 its offset, 0). A byte mask goes to the native
/// selection first, where the space's face has one (one pass over the mask).
template <class Exec, class CountKeep, class Keep, class Items, class Out>
void countAndWrite(const Exec& exec, const Names& names, const Plan& p, const Regions& r,
                   const CountKeep& countKeep, const Keep& keep, const Items& items, const Out& out,
                   i64 cap, i64* word) {
  if constexpr (std::is_same_v<Keep, ByteKeep> && std::is_same_v<CountKeep, ByteKeep>) {
    if (selectNative<Primitive::Select>(exec, names, r, p.n, keep.p, items, out, cap, word)) return;
  }
  if constexpr (kHostSpace<Exec> && std::is_same_v<CountKeep, Keep>) {
    if (p.tiles() == 1) {
      const Units<Keep, Items, Out> units{keep, items, out, p.n, p.unit, cap};
      const i64 allUnits = p.shape.units;
      Kokkos::parallel_for(
          names("write"), Portable::Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
            i64 pos = 0;
            for (i64 u = 0; u < allUnits; ++u) pos += units.write(u, pos);
            *word = pos;
          });
      return;
    }
  }
  countPhase(exec, names, p, r, countKeep, word);
  writePhase(exec, names, p, r, keep, items, out, cap);
}

/// The result buffer a FindallWorkspace keeps for the calls that return a
/// View: a Kokkos::View<Item*, LayoutRight, Mem> of any Item, type-erased
/// (`type` tells which), shared by the workspace's copies.
struct KeptResult {
  std::shared_ptr<void> view;
  const void* type = nullptr;
  std::size_t capacity = 0; // items
};
template <class R>
struct TypeTag {
  static constexpr char tag = 0;
};

/// The first `count` items of the workspace's kept result of type R, grown
/// (to max(count, 1.5 x its capacity), at most n items) when it is short,
/// of another item type, or shares a byte with one of the call's inputs
/// (which the write would overwrite while they are read). A managed
/// subview: the caller's View keeps its buffer alive after a regrowth.
template <class R, class Exec>
R keptResult(const Exec& exec, const Names& names, KeptResult& kept, i64 count, i64 n,
             const ArrayBytes* inputs, std::size_t inputCount) {
  using T = typename R::non_const_value_type;
  const void* tag = &TypeTag<R>::tag;
  const R* have = kept.type == tag ? static_cast<const R*>(kept.view.get()) : nullptr;
  bool fits = have != nullptr && static_cast<i64>(have->extent(0)) >= count;
  if (fits && count > 0) {
    const ArrayBytes span = arrayBytes("result", have->data(), count, sizeof(T));
    for (std::size_t a = 0; a < inputCount; ++a) fits = fits && !shareBytes(inputs[a], span);
  }
  if (!fits) {
    const i64 cap = grownCapacity(static_cast<i64>(kept.capacity), count, n);
    auto fresh = std::make_shared<R>(
        allocate<R>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("result")),
                    static_cast<std::size_t>(cap)));
    adviseHugePages(*fresh);
    kept.view = fresh;
    kept.type = tag;
    kept.capacity = static_cast<std::size_t>(cap);
    have = fresh.get();
  }
  return Kokkos::subview(*have, std::make_pair(std::size_t(0), static_cast<std::size_t>(count)));
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
