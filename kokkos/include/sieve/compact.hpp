// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::compact: stream compaction of a mask to an index map.
//
//   compact([label,] exec, mask[, polarity], index_map, count, scratch[, trigger])
//   std::uint32_t compact([label,] mask[, polarity], index_map, count, scratch[, trigger])
#pragma once

#include <sieve/impl/compact/entry.hpp>
#include <sieve/trigger.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {

// The scratch sieve::compact needs: sieve::compact_scratch_bytes(n), the
// rule every face shares (core/rules.hpp).

/// Compact the samples of `mask` to an index map, asynchronously on `exec`.
///
/// `mask`: rank-1 View of std::uint8_t; a non-zero byte keeps its sample
/// (`polarity` = sieve::MaskPolarity::keep, the default) or drops it
/// (MaskPolarity::drop). `index_map(0..count)` receives the kept sample
/// indices in ascending order (rank-1 View of std::int32_t, extent >= n);
/// slots at or past the count are never written. `count`: rank-0 View of
/// std::uint32_t. `scratch`: a View of at least compact_scratch_bytes(n)
/// bytes; the call allocates nothing. With a `trigger` (sieve::Trigger) it
/// also writes trigger.live32 and trigger.fire, and reads trigger.span and
/// widens it to just past the last kept sample when a kept sample lies at or
/// past it (a sample revived or spawned there, or a restore since the last
/// reorder): the next reorder then never drops a live sample.
///
/// O(n) work. Blocks on Kokkos::OpenMP (the twins are synchronous);
/// asynchronous elsewhere (capture-safe on Kokkos::Cuda). Integer results are
/// bit-identical on every backend. Throws std::invalid_argument (nothing
/// enqueued) for a bad extent, a short scratch, an empty word View,
/// overlapping arrays, empty trigger words or theta outside (0, 1).
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const ExecSpace& exec, const MaskView& mask,
                                                   const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch) {
  Impl::compactEntry(Impl::Names("", "sieve::compact"), exec, mask, index_map, count, scratch);
}

/// sieve::compact with the mask's `polarity`. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const ExecSpace& exec, const MaskView& mask,
                                                   MaskPolarity polarity, const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch) {
  Impl::compactEntry(Impl::Names("", "sieve::compact"), exec, mask, polarity, index_map, count,
                     scratch);
}

/// sieve::compact with a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const ExecSpace& exec, const MaskView& mask,
                                                   const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch,
                                                   const TriggerType& trigger) {
  Impl::compactEntry(Impl::Names("", "sieve::compact"), exec, mask, index_map, count, scratch,
                     trigger);
}

/// sieve::compact with the mask's `polarity` and a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const ExecSpace& exec, const MaskView& mask,
                                                   MaskPolarity polarity, const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch,
                                                   const TriggerType& trigger) {
  Impl::compactEntry(Impl::Names("", "sieve::compact"), exec, mask, polarity, index_map, count,
                     scratch, trigger);
}

/// sieve::compact with a label naming its profiling region and prefixing its
/// kernel labels. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const std::string& label, const ExecSpace& exec,
                                                   const MaskView& mask, const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch) {
  Impl::compactEntry(Impl::Names(label, "sieve::compact"), exec, mask, index_map, count, scratch);
}

/// sieve::compact with a label and the mask's `polarity`. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const std::string& label, const ExecSpace& exec,
                                                   const MaskView& mask, MaskPolarity polarity,
                                                   const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch) {
  Impl::compactEntry(Impl::Names(label, "sieve::compact"), exec, mask, polarity, index_map, count,
                     scratch);
}

/// sieve::compact with a label and a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const std::string& label, const ExecSpace& exec,
                                                   const MaskView& mask, const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch,
                                                   const TriggerType& trigger) {
  Impl::compactEntry(Impl::Names(label, "sieve::compact"), exec, mask, index_map, count, scratch,
                     trigger);
}

/// sieve::compact with a label, the mask's `polarity` and a trigger. As above.
template <class ExecSpace, class MaskView, class IndexMap, class CountView, class ScratchView,
          class TriggerType>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const std::string& label, const ExecSpace& exec,
                                                   const MaskView& mask, MaskPolarity polarity,
                                                   const IndexMap& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch,
                                                   const TriggerType& trigger) {
  Impl::compactEntry(Impl::Names(label, "sieve::compact"), exec, mask, polarity, index_map, count,
                     scratch, trigger);
}

/// sieve::compact on a default instance of the mask's execution space: fences
/// it and returns the count. Blocking; throws as above.
template <class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(const MaskView& mask,
                                                                       const IndexMap& index_map,
                                                                       const CountView& count,
                                                                       const ScratchView& scratch) {
  return Impl::compactFenced(Impl::Names("", "sieve::compact"), mask, index_map, count, scratch);
}

/// The fencing sieve::compact with the mask's `polarity`.
template <class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(const MaskView& mask,
                                                                       MaskPolarity polarity,
                                                                       const IndexMap& index_map,
                                                                       const CountView& count,
                                                                       const ScratchView& scratch) {
  return Impl::compactFenced(Impl::Names("", "sieve::compact"), mask, polarity, index_map, count,
                             scratch);
}

/// The fencing sieve::compact with a trigger.
template <class MaskView, class IndexMap, class CountView, class ScratchView, class TriggerType>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(const MaskView& mask,
                                                                       const IndexMap& index_map,
                                                                       const CountView& count,
                                                                       const ScratchView& scratch,
                                                                       const TriggerType& trigger) {
  return Impl::compactFenced(Impl::Names("", "sieve::compact"), mask, index_map, count, scratch,
                             trigger);
}

/// The fencing sieve::compact with the mask's `polarity` and a trigger.
template <class MaskView, class IndexMap, class CountView, class ScratchView, class TriggerType>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(
    const MaskView& mask, MaskPolarity polarity, const IndexMap& index_map, const CountView& count,
    const ScratchView& scratch, const TriggerType& trigger) {
  return Impl::compactFenced(Impl::Names("", "sieve::compact"), mask, polarity, index_map, count,
                             scratch, trigger);
}

/// The fencing sieve::compact with a label.
template <class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(const std::string& label,
                                                                       const MaskView& mask,
                                                                       const IndexMap& index_map,
                                                                       const CountView& count,
                                                                       const ScratchView& scratch) {
  return Impl::compactFenced(Impl::Names(label, "sieve::compact"), mask, index_map, count, scratch);
}

/// The fencing sieve::compact with a label and the mask's `polarity`.
template <class MaskView, class IndexMap, class CountView, class ScratchView>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(
    const std::string& label, const MaskView& mask, MaskPolarity polarity,
    const IndexMap& index_map, const CountView& count, const ScratchView& scratch) {
  return Impl::compactFenced(Impl::Names(label, "sieve::compact"), mask, polarity, index_map, count,
                             scratch);
}

/// The fencing sieve::compact with a label and a trigger.
template <class MaskView, class IndexMap, class CountView, class ScratchView, class TriggerType>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(
    const std::string& label, const MaskView& mask, const IndexMap& index_map,
    const CountView& count, const ScratchView& scratch, const TriggerType& trigger) {
  return Impl::compactFenced(Impl::Names(label, "sieve::compact"), mask, index_map, count, scratch,
                             trigger);
}

/// The fencing sieve::compact with a label, the mask's `polarity` and a trigger.
template <class MaskView, class IndexMap, class CountView, class ScratchView, class TriggerType>
std::enable_if_t<Impl::IsView<MaskView>::value, std::uint32_t> compact(
    const std::string& label, const MaskView& mask, MaskPolarity polarity,
    const IndexMap& index_map, const CountView& count, const ScratchView& scratch,
    const TriggerType& trigger) {
  return Impl::compactFenced(Impl::Names(label, "sieve::compact"), mask, polarity, index_map, count,
                             scratch, trigger);
}

/// Any other argument list: Sieve's own error, naming the forms (the
/// spelled-out forms above are more specialized, so they win every call
/// they take).
template <class First, class... Rest>
std::enable_if_t<!Impl::kLabelLike<First>> compact(const First&, const Rest&...) {
  static_assert(Impl::kNever<First, Rest...>,
                "sieve::compact: the arguments are compact([label,] [exec,] mask[, polarity], "
                "index_map, count, scratch[, trigger])");
}
template <class... Rest>
void compact(const std::string&, const Rest&...) {
  static_assert(Impl::kNever<Rest...>,
                "sieve::compact: the arguments are compact([label,] [exec,] mask[, polarity], "
                "index_map, count, scratch[, trigger])");
}

} // namespace sieve
