// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::reorder's and sieve::restore's entries: the
// compile-time and run-time checks of their argument lists (the plane set,
// perm / inv, the trigger's record) and the dispatch to a face.
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/constraints.hpp>
#include <sieve/impl/debug/flag.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/planes.hpp>
#include <sieve/impl/trigger.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace sieve {
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
  if (!debugChecksOn() || n == 0) return;
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
            auto moved = Record::pending(n, perm, inv, planes...);
            reorderBody(names, exec, mask, flags, perm, inv, map, count, trigger.span, trigger.fire,
                        scratch, planes...);
            Record::remember(trigger, std::move(moved));
          } else {
            reorderBody(names, exec, mask, flags, perm, inv, map, count, nth<p + 4>(args...),
                        nth<p + 5>(args...), scratch, planes...);
          }
        },
        args...);
  }
}

/// The forms without an instance: a default instance of the mask's
/// execution space, fenced after the call.
template <class Mask, class... Args>
void reorderFenced(const Names& names, const Mask& mask, const Args&... args) {
  const typename Mask::execution_space exec{};
  reorderEntry(names, exec, mask, args...);
  fence(exec, "reorder: the call without an instance");
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

/// The restore forms without an instance: a default instance of perm's
/// execution space, fenced after the call.
template <class First, class Second, class... Rest>
void restoreFenced(const Names& names, const First& first, const Second& second,
                   const Rest&... rest) {
  const typename RestoreSpace<First, Second>::type exec{};
  restoreDispatch(names, exec, first, second, rest...);
  fence(exec, "restore: the call without an instance");
}

#undef SIEVE_PLANES_ASSERT
#undef SIEVE_PLANE_ASSERT

} // namespace Impl
} // namespace sieve
