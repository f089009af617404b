// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::compact's entry: the compile-time and run-time
// checks of its argument list, the dispatch to a face, the trigger's epilogue.
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/constraints.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/trigger.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {

/// After a compaction with a trigger: widen trigger.span to cover every kept
/// sample (sieve::spanCovering) and, when it widened, decide `fire` again on
/// the new span (on one thread of the call's face; nothing is read back).
template <class Map, class Count, class Word>
struct CoverKept {
  Map map;
  Count count;
  Word span, fire, live32;
  float theta;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    const std::uint32_t c = count();
    const std::uint32_t widened = spanCovering(span(), c, c > 0u ? map(c - 1u) : 0);
    if (widened != span()) {
      span() = widened;
      fire() = triggerFires(c, live32(), widened, theta);
    }
  }
};

template <Face F, class Exec, class Map, class Count, class Trig>
void coverKept(const Exec& exec, const Names& names, const Map& map, const Count& count,
               const Trig& t) {
  const CoverKept<Map, Count, typename Trig::word_view> cover{map,    count,    t.span,
                                                              t.fire, t.live32, t.theta};
  onOneThread<F>(exec, names("cover"), cover);
}

/// Every sieve::compact overload ends here: the argument list is checked at
/// compile time (readable assertions, then nothing else), at run time, then
/// dispatched once.
template <class Exec, class Mask, class... Args>
void compactEntry(const Names& names, const Exec& exec, const Mask& mask, const Args&... args) {
  constexpr const char* fn = "sieve::compact";
  constexpr std::size_t p = kLeadingPolarity<Args...> ? 1 : 0;
  constexpr std::size_t rest = sizeof...(Args) - p;
  using Map = Nth<p, Args...>;
  using Count = Nth<p + 1, Args...>;
  using Scratch = Nth<p + 2, Args...>;
  using Trig = Nth<p + 3, Args...>;
  static_assert(
      !std::is_integral_v<Nth<0, Args...>>,
      "sieve::compact: the argument after 'mask' is an integer; the mask polarity is a "
      "sieve::MaskPolarity (keep, the default, or drop), not the native layer's flag word");
  static_assert(rest == 3 || rest == 4,
                "sieve::compact: the arguments are compact([label,] exec, mask[, polarity], "
                "index_map, count, scratch[, trigger])");
  constexpr bool maskOk = kMaskArg<Exec, Mask>;
  constexpr bool mapOk = kSlotsArg<Exec, Map>;
  constexpr bool countOk = kWordArg<Exec, Count>;
  constexpr bool scratchOk = kByteScratch<Exec, Scratch>;
  constexpr bool trigOk = rest != 4 || kTriggerFor<Exec, Trig>;
  static_assert(maskOk,
                "sieve::compact: 'mask' must be a rank-1 View of std::uint8_t accessible "
                "from the execution space");
  static_assert(mapOk,
                "sieve::compact: 'index_map' must be a writable rank-1 View of "
                "std::int32_t accessible from the execution space");
  static_assert(countOk,
                "sieve::compact: 'count' must be a writable rank-0 View of "
                "std::uint32_t accessible from the execution space");
  static_assert(scratchOk,
                "sieve::compact: 'scratch' must be a writable rank-1 View of bytes "
                "(std::byte, char, unsigned char) accessible from the execution space");
  static_assert(trigOk,
                "sieve::compact: the argument after 'scratch' must be a sieve::Trigger "
                "whose words are accessible from the execution space");
  constexpr bool ok = (rest == 3 || rest == 4) && maskOk && mapOk && countOk && scratchOk && trigOk;
  if constexpr (ok) {
    const std::uint32_t flags = flagsOf(polarityOf(args...));
    const auto& map = nth<p>(args...);
    const auto& count = nth<p + 1>(args...);
    const auto& scratch = nth<p + 2>(args...);
    ReorderTrigger trig{};
    const ReorderTrigger* trigPtr = nullptr;
    if constexpr (rest == 4) {
      trig = nativeTrigger(fn, nth<p + 3>(args...));
      trigPtr = &trig;
    }
    const std::int64_t n = extent64(mask);
    checkSamples(fn, n, "mask.extent(0)");
    checkWord(fn, count, "count");
    if (extent64(map) < n)
      fail(fn, "index_map.extent(0) = " + std::to_string(map.extent(0)) +
                   " is smaller than mask.extent(0) = " + std::to_string(n));
    // An empty batch addresses no scratch: an empty View is fine then.
    checkScratch(fn, scratch, n == 0 ? 0 : compact_scratch_bytes(n), "compact_scratch_bytes(n)");
    checkCompact(fn, mask.data(), flags, map.data(), count.data(), scratch.data(), n,
                 strideBytes(mask), strideBytes(map), trigPtr);
    const bool contiguousViews = contiguous(mask) && contiguous(map);
    runCall<Exec, Primitive::Compact>(
        fn, names, contiguousViews, {{map.data(), "index_map"}, {scratch.data(), "scratch"}},
        [&](auto face) {
          constexpr Face F = decltype(face)::value;
          Faces<F>::compact(exec, names, mask, flags, map, count.data(), scratch.data(), trigPtr,
                            n);
          if constexpr (rest == 4) coverKept<F>(exec, names, map, count, nth<p + 3>(args...));
        });
  }
}

/// The fencing forms: a default instance of the mask's space; returns the count.
template <class Mask, class... Args>
std::uint32_t compactFenced(const Names& names, const Mask& mask, const Args&... args) {
  if constexpr (IsView<Mask>::value) {
    using Exec = typename Mask::execution_space;
    const Exec exec{};
    compactEntry(names, exec, mask, args...);
    fence(exec, "compact: the call without an instance");
    constexpr std::size_t p = kLeadingPolarity<Args...> ? 1 : 0;
    if constexpr (IsView<Nth<p + 1, Args...>>::value) {
      std::uint32_t value = 0;
      Kokkos::deep_copy(value, nth<p + 1>(args...));
      return value;
    }
  }
  return 0;
}

} // namespace Impl
} // namespace sieve
