// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::reorder / sieve::restore: the physical reorder of
// structure-of-arrays planes, and its undo.
#pragma once

#include <sieve/debug.hpp>
#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/constraints.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/planes.hpp>
#include <sieve/trigger.hpp>

#include <cstdint>
#include <string>

namespace sieve {

// The scratch sieve::reorder and sieve::restore need:
// sieve::reorder_scratch_bytes(n, widest plane), the rule every face shares
// (core/rules.hpp).

namespace Impl {

#define SIEVE_PLANE_ASSERT(call, bad, k)                                                    \
  static_assert(bad != k, call ": plane " #k                                                \
                               " (counting from 0 after 'scratch') must be a "              \
                               "writable rank-1 View of trivially-copyable 1, 2, 4, 8 or "  \
                               "16-byte elements, or a rank-2 View of them (extent(0) the " \
                               "samples, one row each), accessible from the execution "     \
                               "space (on Kokkos < 4.4 a View of Kokkos::Array must be "    \
                               "rank 1 and LayoutRight)")
#define SIEVE_PLANES_ASSERT(call, bad)                                              \
  SIEVE_PLANE_ASSERT(call, bad, 0);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 1);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 2);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 3);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 4);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 5);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 6);                                                 \
  SIEVE_PLANE_ASSERT(call, bad, 7);                                                 \
  static_assert(bad < 8, call                                                       \
                ": a plane after the 8th (counting after 'scratch') must be a "     \
                "writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte " \
                "elements, or a rank-2 View of them (extent(0) the samples), "      \
                "accessible from the execution space")

template <class Exec, class Perm, class Inv>
void checkPermutation(const char* fn, const Names& names, const Exec& exec, std::int64_t n,
                      const Perm& perm, const Inv& inv) {
  if (extent64(perm) < n || extent64(inv) < n)
    fail(fn, "perm.extent(0) = " + std::to_string(perm.extent(0)) + " and inv.extent(0) = " +
                 std::to_string(inv.extent(0)) + " must both be at least n = " + std::to_string(n));
  if (!debug_checks() || n == 0) return;
  // inv(perm(i)) == i for every i makes perm one-to-one on [0, n), so a
  // permutation, and inv its inverse there. Blocks (a reduction read back).
  std::int64_t bad = n;
  Kokkos::parallel_reduce(
      names("check_permutation"), Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& first) {
        const std::int32_t p = perm(i);
        if ((!slotInRange(p, n) || inv(p) != i) && i < first) first = i;
      },
      Kokkos::Min<std::int64_t>(bad));
  if (bad >= n) return;
  std::int32_t p = 0, back = -1;
  Kokkos::deep_copy(p, Kokkos::subview(perm, bad));
  if (slotInRange(p, n)) Kokkos::deep_copy(back, Kokkos::subview(inv, p));
  fail(fn, "perm and inv are not inverse permutations of [0, " + std::to_string(n) + "): perm(" +
               std::to_string(bad) + ") = " + std::to_string(p) +
               (slotInRange(p, n) ? ", inv(" + std::to_string(p) + ") = " + std::to_string(back)
                                  : std::string(", outside [0, n)")) +
               " (debug check; pass the perm and inv that reorder maintains, in that order)");
}

template <class Exec, class Mask, class Perm, class Inv, class Map, class Count, class Span,
          class Fire, class Scratch, class... Planes>
void reorderBody(const Names& names, const Exec& exec, const Mask& mask, std::uint32_t flags,
                 const Perm& perm, const Inv& inv, const Map& map, const Count& count,
                 const Span& span, const Fire& fire, const Scratch& scratch,
                 const Planes&... planes) {
  constexpr const char* fn = "sieve::reorder";
  const std::int64_t n = extent64(mask);
  checkSamples(fn, n, "mask.extent(0)");
  checkWord(fn, count, "count");
  checkWord(fn, span, "span");
  checkPermutation(fn, names, exec, n, perm, inv);
  if (extent64(map) < n)
    fail(fn, "index_map.extent(0) = " + std::to_string(map.extent(0)) +
                 " is smaller than mask.extent(0) = " + std::to_string(n));
  const PlaneSet<Planes...> set(fn, n, perm, inv, map, planes...);
  checkScratch(fn, scratch, n == 0 ? 0 : reorder_scratch_bytes(n, set.maxElem),
               "reorder_scratch_bytes(n, widest plane)");
  std::uint32_t* firePtr = fire.data(); // an empty View: unconditional
  checkReorder(fn, set.desc.data(), set.count, mask.data(), flags, perm.data(), inv.data(),
               map.data(), count.data(), span.data(), firePtr, scratch.data(), n, set.bytes.data(),
               set.stride.data());
  const bool contiguousViews =
      set.contiguous && contiguous(mask) && contiguous(perm) && contiguous(inv) && contiguous(map);
  // The faces take the word planes (the native ones ignore the strides:
  // they run only when every word plane is contiguous).
  runCall<Exec, Primitive::Reorder>(
      fn, names, contiguousViews,
      {{perm.data(), "perm"}, {map.data(), "index_map"}, {scratch.data(), "scratch"}},
      [&](auto face) {
        Faces<decltype(face)::value>::reorder(exec, names, mask, flags, perm, inv, map,
                                              count.data(), span.data(), firePtr, scratch.data(), n,
                                              set.desc.data(), set.count, set.stride.data());
      });
}

/// Every sieve::reorder overload ends here: compile-time checks of the whole
/// argument list (readable assertions, then nothing else), then the body.
template <class Exec, class Mask, class... Args>
void reorderEntry(const Names& names, const Exec& exec, const Mask& mask, const Args&... args) {
  constexpr std::size_t p = kLeadingPolarity<Args...> ? 1 : 0;
  using Perm = Nth<p, Args...>;
  using Inv = Nth<p + 1, Args...>;
  using Map = Nth<p + 2, Args...>;
  using Count = Nth<p + 3, Args...>;
  constexpr bool withTrigger = IsTrigger<Nth<p + 4, Args...>>::value;
  using Span = std::conditional_t<withTrigger, Absent, Nth<p + 4, Args...>>;
  using Fire = std::conditional_t<withTrigger, Absent, Nth<p + 5, Args...>>;
  constexpr std::size_t s = withTrigger ? p + 5 : p + 6; // scratch
  using Scratch = Nth<s, Args...>;
  constexpr std::size_t planes0 = s + 1;
  constexpr bool shape = sizeof...(Args) > planes0;
  static_assert(
      !std::is_integral_v<Nth<0, Args...>>,
      "sieve::reorder: the argument after 'mask' is an integer; the mask polarity is a "
      "sieve::MaskPolarity (keep, the default, or drop), not the native layer's flag word");
  static_assert(shape,
                "sieve::reorder: the arguments are reorder([label,] exec, mask[, polarity], "
                "perm, inv, index_map, count, trigger | span, fire, scratch, planes...) "
                "with at least one plane (the mask among them)");
  constexpr bool maskOk = kMovedMaskArg<Exec, Mask>;
  constexpr bool permOk = kSlotsArg<Exec, Perm>;
  constexpr bool invOk = kSlotsArg<Exec, Inv>;
  constexpr bool mapOk = kSlotsArg<Exec, Map>;
  constexpr bool countOk = kWordArg<Exec, Count>;
  constexpr bool trigOk = !withTrigger || kTriggerFor<Exec, Nth<p + 4, Args...>>;
  constexpr bool spanOk = withTrigger || kWordArg<Exec, Span>;
  constexpr bool fireOk = withTrigger || kWordArg<Exec, Fire>;
  constexpr bool scratchOk = kByteScratch<Exec, Scratch>;
  static_assert(maskOk,
                "sieve::reorder: 'mask' must be a writable rank-1 View of std::uint8_t "
                "accessible from the execution space (it moves with the planes)");
  static_assert(permOk,
                "sieve::reorder: 'perm' must be a writable rank-1 View of std::int32_t "
                "accessible from the execution space");
  static_assert(invOk,
                "sieve::reorder: 'inv' must be a writable rank-1 View of std::int32_t "
                "accessible from the execution space");
  static_assert(mapOk,
                "sieve::reorder: 'index_map' must be a writable rank-1 View of "
                "std::int32_t accessible from the execution space");
  static_assert(countOk,
                "sieve::reorder: 'count' must be a writable rank-0 View of "
                "std::uint32_t accessible from the execution space");
  static_assert(trigOk,
                "sieve::reorder: the trigger's words are not accessible from the execution space");
  static_assert(spanOk,
                "sieve::reorder: the argument after 'count' must be a sieve::Trigger, or the "
                "'span' word (a writable rank-0 View of std::uint32_t) followed by 'fire'");
  static_assert(fireOk,
                "sieve::reorder: 'fire' must be a writable rank-0 View of std::uint32_t "
                "accessible from the execution space (an empty View: unconditional)");
  static_assert(scratchOk,
                "sieve::reorder: 'scratch' must be a writable rank-1 View of bytes "
                "accessible from the execution space");
  constexpr int bad = firstBadTail<Exec, planes0, std::tuple<std::decay_t<Args>...>>(
      std::make_index_sequence<(shape ? sizeof...(Args) - planes0 : 0)>());
  SIEVE_PLANES_ASSERT("sieve::reorder", bad);
  constexpr bool ok = shape && bad < 0 && maskOk && permOk && invOk && mapOk && countOk && trigOk &&
                      spanOk && fireOk && scratchOk;
  if constexpr (ok) {
    const std::uint32_t flags = flagsOf(polarityOf(args...));
    const auto& perm = nth<p>(args...);
    const auto& inv = nth<p + 1>(args...);
    const auto& map = nth<p + 2>(args...);
    const auto& count = nth<p + 3>(args...);
    const auto& scratch = nth<s>(args...);
    applyTail<planes0>(
        [&](const auto&... planes) {
          if constexpr (withTrigger) {
            const auto& trigger = nth<p + 4>(args...);
            // A trigger's fire word gates the reorder: it must exist (an
            // empty View would silently mean "unconditional").
            checkWord("sieve::reorder", trigger.fire, "trigger.fire");
            checkWord("sieve::reorder", trigger.span, "trigger.span");
            const std::int64_t n = extent64(mask);
            Record::check("sieve::reorder", trigger, n, perm, inv, planes...);
            reorderBody(names, exec, mask, flags, perm, inv, map, count, trigger.span, trigger.fire,
                        scratch, planes...);
            Record::remember(trigger, n, perm, inv, planes...);
          } else {
            reorderBody(names, exec, mask, flags, perm, inv, map, count, nth<p + 4>(args...),
                        nth<p + 5>(args...), scratch, planes...);
          }
        },
        args...);
  }
}

template <class Exec, class Perm, class Inv, class Scratch, class... Planes>
void restoreEntry(const Names& names, const Exec& exec, const Perm& perm, const Inv& inv,
                  const Scratch& scratch, const Planes&... planes) {
  constexpr const char* fn = "sieve::restore";
  static_assert(sizeof...(Planes) >= 1,
                "sieve::restore: give the planes to move back: restore([label,] exec, perm, inv, "
                "scratch, planes...) (without them perm and inv would be reset and the order "
                "lost)");
  constexpr bool permOk = kSlotsArg<Exec, Perm>;
  constexpr bool invOk = kSlotsArg<Exec, Inv>;
  constexpr bool scratchOk = kByteScratch<Exec, Scratch>;
  static_assert(permOk,
                "sieve::restore: 'perm' must be a writable rank-1 View of std::int32_t "
                "accessible from the execution space");
  static_assert(invOk,
                "sieve::restore: 'inv' must be a writable rank-1 View of std::int32_t "
                "accessible from the execution space");
  static_assert(scratchOk,
                "sieve::restore: 'scratch' must be a writable rank-1 View of bytes "
                "accessible from the execution space");
  constexpr int bad = firstBadPlane<Exec, Planes...>();
  SIEVE_PLANES_ASSERT("sieve::restore", bad);
  constexpr bool ok = sizeof...(Planes) >= 1 && bad < 0 && permOk && invOk && scratchOk;
  if constexpr (ok) {
    // n: the planes' extent (perm / inv may be longer, as in reorder).
    const std::int64_t n = extent64(nth<0>(planes...));
    checkSamples(fn, n, "planes' extent");
    checkPermutation(fn, names, exec, n, perm, inv);
    const PlaneSet<Planes...> set(fn, n, perm, inv, perm, planes...); // (no map: its entry unused)
    checkScratch(fn, scratch, n == 0 ? 0 : reorder_scratch_bytes(n, set.maxElem),
                 "reorder_scratch_bytes(n, widest plane)");
    checkRestore(fn, set.desc.data(), set.count, perm.data(), inv.data(), scratch.data(), n,
                 set.bytes.data(), set.stride.data());
    const bool contiguousViews = set.contiguous && contiguous(perm) && contiguous(inv);
    runCall<Exec, Primitive::Restore>(
        fn, names, contiguousViews, {{perm.data(), "perm"}, {scratch.data(), "scratch"}},
        [&](auto face) {
          Faces<decltype(face)::value>::restore(exec, names, perm, inv, scratch.data(), n,
                                                set.desc.data(), set.count, set.stride.data());
        });
  }
}

/// restore([label,] exec, [trigger,] perm, inv, scratch, planes...): with a
/// trigger, the plane set is checked against its record first, and after the
/// restore span = n and fire = 0 (asynchronously on exec) and the record is
/// cleared.
template <class Exec, class First, class... Rest>
void restoreDispatch(const Names& names, const Exec& exec, const First& first,
                     const Rest&... rest) {
  if constexpr (IsTrigger<First>::value) {
    static_assert(sizeof...(Rest) >= 4 && kTriggerFor<Exec, First>,
                  "sieve::restore: the arguments are restore([label,] exec, trigger, perm, inv, "
                  "scratch, planes...), the trigger's words accessible from the execution space");
    if constexpr (sizeof...(Rest) >= 4 && kTriggerFor<Exec, First>) {
      applyTail<3>(
          [&](const auto&... planes) {
            const auto& perm = nth<0>(rest...);
            const auto& inv = nth<1>(rest...);
            checkWord("sieve::restore", first.span, "trigger.span");
            checkWord("sieve::restore", first.fire, "trigger.fire");
            const std::int64_t n = extent64(nth<0>(planes...));
            Record::check("sieve::restore", first, n, perm, inv, planes...);
            restoreEntry(names, exec, perm, inv, nth<2>(rest...), planes...);
            Kokkos::deep_copy(exec, first.span, static_cast<std::uint32_t>(n));
            Kokkos::deep_copy(exec, first.fire, std::uint32_t(0));
            Record::forget(first);
          },
          rest...);
    }
  } else {
    restoreEntry(names, exec, first, rest...);
  }
}

/// The execution space of the restore forms without an instance: perm's.
template <class First, class Second, bool = IsTrigger<First>::value>
struct RestoreSpace {
  using type = typename First::execution_space;
};
template <class First, class Second>
struct RestoreSpace<First, Second, true> {
  using type = typename Second::execution_space;
};
template <class T>
inline constexpr bool kRestoreFirst = IsView<T>::value || IsTrigger<T>::value;

#undef SIEVE_PLANES_ASSERT
#undef SIEVE_PLANE_ASSERT

} // namespace Impl

/// Physically reorder per-sample planes in place, asynchronously on `exec`:
/// `reorder([label,] exec, mask[, polarity], perm, inv, index_map, count,
/// trigger, scratch, planes...)`, or with the `span` and `fire` words in place
/// of the trigger.
///
/// A stable partition of the slots [0, min(span, n)), the samples `mask`
/// keeps first (n = mask.extent(0); polarity as sieve::compact). Kept slot i
/// goes to incl(i) - 1, dropped slot i to cnt + (i - incl(i)); slots at or
/// past the span never move. `perm` (slot -> sample id) moves like a plane,
/// then inv(perm(s)) = s over the moved slots; `index_map` becomes the
/// identity over [0, cnt); finally count = span = cnt and fire = 0.
///
/// `planes...` are rank-1 Views of n elements of any trivially-copyable type of
/// 1, 2, 4, 8 or 16 bytes (double, int, Kokkos::Array<float, 4>, ...), or
/// rank-2 Views of such elements with extent(0) = n (View<double* [3]>
/// positions, View<int**>; LayoutRight, LayoutLeft or LayoutStride), whose
/// rows move whole with their sample; all moved bit for bit, each aligned to
/// its element size; the mask View must be one of them (it moves with them).
/// A rank-2 plane moves as its rows when they are contiguous and of 1, 2, 4,
/// 8 or 16 bytes (View<double* [2]>), else as its columns: on Kokkos::OpenMP
/// and Cuda the native face takes the call when every row and column plane is
/// contiguous (LayoutLeft columns, such rows), the portable face otherwise
/// (e.g. the interleaved columns of a LayoutRight View<double* [3]>). The
/// scratch rule is unchanged: the widest plane is the widest row or element
/// moved (at most 16 bytes). `perm` and `inv` start as the identity (they are
/// after a restore) and must not be modified in between. With a trigger (or a
/// non-empty `fire`) the whole call is a no-op on the device while fire == 0;
/// an empty `fire` View means unconditional. `scratch`: a View of at least
/// reorder_scratch_bytes(n, widest plane) bytes; nothing is allocated.
/// O(n * planes) (a rank-2 plane moved as columns counts one per column).
/// Blocks on Kokkos::OpenMP; asynchronous elsewhere. Throws
/// std::invalid_argument for bad extents (a plane whose extent(0) is not n,
/// named), a short scratch, overlapping arrays or a mask not among the planes.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(const ExecSpace& exec, const MaskView& mask,
                                                   const Args&... args) {
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, args...);
}

/// sieve::reorder with a label naming its profiling region and prefixing its
/// kernel labels.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(const std::string& label, const ExecSpace& exec,
                                                   const MaskView& mask, const Args&... args) {
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, args...);
}

/// sieve::reorder on a default instance of the mask's execution space; fences
/// it. Blocking.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(const MaskView& mask, const Args&... args) {
  const typename MaskView::execution_space exec{};
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, args...);
  Impl::fence(exec, "reorder: the call without an instance");
}

/// The fencing sieve::reorder with a label.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(const std::string& label,
                                                        const MaskView& mask, const Args&... args) {
  const typename MaskView::execution_space exec{};
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, args...);
  Impl::fence(exec, "reorder: the call without an instance");
}

/// Undo every reorder since the last restore, asynchronously on `exec`:
/// `restore([label,] exec, [trigger,] perm, inv, scratch, planes...)`. Sample
/// i goes back to slot i in every plane (a gather through `inv` over all n
/// slots, n = the planes' extent), then perm = inv = identity over [0, n). The
/// index map and count are not touched. With the trigger the reorders used,
/// perm, inv and the planes must be those its reorders moved (else
/// std::invalid_argument, nothing moved), and the trigger's span is reset to n
/// and fire to 0 (asynchronously); without it, span and fire are not touched. At least one plane (a
/// compile error otherwise); `perm` / `inv` must be as the reorders left them (or the identity).
/// Scratch and planes as sieve::reorder. O(n * planes). Blocks on Kokkos::OpenMP; asynchronous
/// elsewhere. Throws std::invalid_argument as sieve::reorder.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const ExecSpace& exec, const PermView& perm,
                                                   const InvView& inv, const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names("", "sieve::restore"), exec, perm, inv, scratch, planes...);
}

/// sieve::restore with a label.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const std::string& label, const ExecSpace& exec,
                                                   const PermView& perm, const InvView& inv,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names(label, "sieve::restore"), exec, perm, inv, scratch, planes...);
}

/// sieve::restore on a default instance of perm's execution space; fences it.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kRestoreFirst<PermView>> restore(const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename Impl::RestoreSpace<PermView, InvView>::type exec{};
  Impl::restoreDispatch(Impl::Names("", "sieve::restore"), exec, perm, inv, scratch, planes...);
  Impl::fence(exec, "restore: the call without an instance");
}

/// The fencing sieve::restore with a label.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kRestoreFirst<PermView>> restore(const std::string& label,
                                                        const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename Impl::RestoreSpace<PermView, InvView>::type exec{};
  Impl::restoreDispatch(Impl::Names(label, "sieve::restore"), exec, perm, inv, scratch, planes...);
  Impl::fence(exec, "restore: the call without an instance");
}

} // namespace sieve
