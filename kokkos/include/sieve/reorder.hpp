// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::reorder / sieve::restore: the physical reorder of
// structure-of-arrays planes, and its undo.
//
//   reorder([label,] exec, mask[, polarity], perm, inv, index_map, count, trigger, scratch,
//           planes...)
//   reorder([label,] exec, mask[, polarity], perm, inv, index_map, count, span, fire, scratch,
//           planes...)
//   restore([label,] exec, [trigger,] perm, inv, scratch, planes...)
//   (and each without `exec`: a default instance, fenced)
#pragma once

#include <sieve/debug.hpp>
#include <sieve/impl/reorder/entry.hpp>
#include <sieve/trigger.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {

// The scratch sieve::reorder and sieve::restore need:
// sieve::reorder_scratch_bytes(n, widest plane), the rule every face shares
// (core/rules.hpp).

/// Physically reorder per-sample planes in place, asynchronously on `exec`,
/// gated by `trigger` (a no-op on the device while trigger.fire == 0).
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
/// after a restore) and must not be modified in between. The trigger
/// remembers the plane set its reorders moved (a later reorder or restore
/// through it must move the same). `scratch`: a View of at least
/// reorder_scratch_bytes(n, widest plane) bytes; nothing is allocated.
/// O(n * planes) (a rank-2 plane moved as columns counts one per column).
/// Blocks on Kokkos::OpenMP; asynchronous elsewhere. Throws
/// std::invalid_argument for bad extents (a plane whose extent(0) is not n,
/// named), a short scratch, overlapping arrays, a mask not among the planes,
/// or a plane set other than the one the trigger's reorders moved since its
/// last restore.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(
    const ExecSpace& exec, const MaskView& mask, const PermView& perm, const InvView& inv,
    const IndexMap& index_map, const CountView& count, const Trigger<TriggerSpace>& trigger,
    const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, perm, inv, index_map, count,
                     trigger, scratch, planes...);
}

/// sieve::reorder with the `span` and `fire` words in place of a trigger
/// (rank-0 Views of std::uint32_t): the same partition of [0, min(span, n)),
/// a no-op on the device while fire == 0; an empty `fire` View means
/// unconditional. No plane-set record. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsTrigger<SpanView>::value> reorder(
    const ExecSpace& exec, const MaskView& mask, const PermView& perm, const InvView& inv,
    const IndexMap& index_map, const CountView& count, const SpanView& span, const FireView& fire,
    const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, perm, inv, index_map, count,
                     span, fire, scratch, planes...);
}

/// sieve::reorder with the mask's `polarity` and a trigger. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(
    const ExecSpace& exec, const MaskView& mask, MaskPolarity polarity, const PermView& perm,
    const InvView& inv, const IndexMap& index_map, const CountView& count,
    const Trigger<TriggerSpace>& trigger, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, polarity, perm, inv, index_map,
                     count, trigger, scratch, planes...);
}

/// sieve::reorder with the mask's `polarity` and the `span` and `fire` words. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsTrigger<SpanView>::value> reorder(
    const ExecSpace& exec, const MaskView& mask, MaskPolarity polarity, const PermView& perm,
    const InvView& inv, const IndexMap& index_map, const CountView& count, const SpanView& span,
    const FireView& fire, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names("", "sieve::reorder"), exec, mask, polarity, perm, inv, index_map,
                     count, span, fire, scratch, planes...);
}

/// sieve::reorder with a label naming its profiling region and prefixing its
/// kernel labels. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(
    const std::string& label, const ExecSpace& exec, const MaskView& mask, const PermView& perm,
    const InvView& inv, const IndexMap& index_map, const CountView& count,
    const Trigger<TriggerSpace>& trigger, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, perm, inv, index_map, count,
                     trigger, scratch, planes...);
}

/// sieve::reorder with a label and the `span` and `fire` words. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsTrigger<SpanView>::value> reorder(
    const std::string& label, const ExecSpace& exec, const MaskView& mask, const PermView& perm,
    const InvView& inv, const IndexMap& index_map, const CountView& count, const SpanView& span,
    const FireView& fire, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, perm, inv, index_map, count,
                     span, fire, scratch, planes...);
}

/// sieve::reorder with a label, the mask's `polarity` and a trigger. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(
    const std::string& label, const ExecSpace& exec, const MaskView& mask, MaskPolarity polarity,
    const PermView& perm, const InvView& inv, const IndexMap& index_map, const CountView& count,
    const Trigger<TriggerSpace>& trigger, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, polarity, perm, inv,
                     index_map, count, trigger, scratch, planes...);
}

/// sieve::reorder with a label, the mask's `polarity` and the `span` and `fire` words. As above.
template <class ExecSpace, class MaskView, class PermView, class InvView, class IndexMap,
          class CountView, class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsTrigger<SpanView>::value> reorder(
    const std::string& label, const ExecSpace& exec, const MaskView& mask, MaskPolarity polarity,
    const PermView& perm, const InvView& inv, const IndexMap& index_map, const CountView& count,
    const SpanView& span, const FireView& fire, const ScratchView& scratch,
    const Planes&... planes) {
  Impl::reorderEntry(Impl::Names(label, "sieve::reorder"), exec, mask, polarity, perm, inv,
                     index_map, count, span, fire, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// a trigger; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(
    const MaskView& mask, const PermView& perm, const InvView& inv, const IndexMap& index_map,
    const CountView& count, const Trigger<TriggerSpace>& trigger, const ScratchView& scratch,
    const Planes&... planes) {
  Impl::reorderFenced(Impl::Names("", "sieve::reorder"), mask, perm, inv, index_map, count, trigger,
                      scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// the `span` and `fire` words; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value && !Impl::IsTrigger<SpanView>::value> reorder(
    const MaskView& mask, const PermView& perm, const InvView& inv, const IndexMap& index_map,
    const CountView& count, const SpanView& span, const FireView& fire, const ScratchView& scratch,
    const Planes&... planes) {
  Impl::reorderFenced(Impl::Names("", "sieve::reorder"), mask, perm, inv, index_map, count, span,
                      fire, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// the mask's `polarity` and a trigger; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(
    const MaskView& mask, MaskPolarity polarity, const PermView& perm, const InvView& inv,
    const IndexMap& index_map, const CountView& count, const Trigger<TriggerSpace>& trigger,
    const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderFenced(Impl::Names("", "sieve::reorder"), mask, polarity, perm, inv, index_map,
                      count, trigger, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// the mask's `polarity` and the `span` and `fire` words; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value && !Impl::IsTrigger<SpanView>::value> reorder(
    const MaskView& mask, MaskPolarity polarity, const PermView& perm, const InvView& inv,
    const IndexMap& index_map, const CountView& count, const SpanView& span, const FireView& fire,
    const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderFenced(Impl::Names("", "sieve::reorder"), mask, polarity, perm, inv, index_map,
                      count, span, fire, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// a label and a trigger; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(
    const std::string& label, const MaskView& mask, const PermView& perm, const InvView& inv,
    const IndexMap& index_map, const CountView& count, const Trigger<TriggerSpace>& trigger,
    const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderFenced(Impl::Names(label, "sieve::reorder"), mask, perm, inv, index_map, count,
                      trigger, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// a label and the `span` and `fire` words; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value && !Impl::IsTrigger<SpanView>::value> reorder(
    const std::string& label, const MaskView& mask, const PermView& perm, const InvView& inv,
    const IndexMap& index_map, const CountView& count, const SpanView& span, const FireView& fire,
    const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderFenced(Impl::Names(label, "sieve::reorder"), mask, perm, inv, index_map, count, span,
                      fire, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// a label, the mask's `polarity` and a trigger; fences it. Blocking; throws as above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class TriggerSpace, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(
    const std::string& label, const MaskView& mask, MaskPolarity polarity, const PermView& perm,
    const InvView& inv, const IndexMap& index_map, const CountView& count,
    const Trigger<TriggerSpace>& trigger, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderFenced(Impl::Names(label, "sieve::reorder"), mask, polarity, perm, inv, index_map,
                      count, trigger, scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space, with
/// a label, the mask's `polarity` and the `span` and `fire` words; fences it. Blocking; throws as
/// above.
template <class MaskView, class PermView, class InvView, class IndexMap, class CountView,
          class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value && !Impl::IsTrigger<SpanView>::value> reorder(
    const std::string& label, const MaskView& mask, MaskPolarity polarity, const PermView& perm,
    const InvView& inv, const IndexMap& index_map, const CountView& count, const SpanView& span,
    const FireView& fire, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderFenced(Impl::Names(label, "sieve::reorder"), mask, polarity, perm, inv, index_map,
                      count, span, fire, scratch, planes...);
}

/// Undo every reorder since the last restore, asynchronously on `exec`:
/// sample i goes back to slot i in every plane (a gather through `inv` over
/// all n slots, n = the planes' extent), then perm = inv = identity over
/// [0, n). The index map and count are not touched, nor any span or fire
/// word. At least one plane (a compile error otherwise); `perm` / `inv` must
/// be as the reorders left them (or the identity). Scratch and planes as
/// sieve::reorder. O(n * planes). Blocks on Kokkos::OpenMP; asynchronous
/// elsewhere. Throws std::invalid_argument as sieve::reorder.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const ExecSpace& exec, const PermView& perm,
                                                   const InvView& inv, const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names("", "sieve::restore"), exec, perm, inv, scratch, planes...);
}

/// sieve::restore with the trigger the reorders used: perm, inv and the
/// planes must be those its reorders moved (else std::invalid_argument,
/// nothing moved); afterwards span = n and fire = 0 (asynchronously) and its
/// record is cleared. As above.
template <class ExecSpace, class TriggerSpace, class PermView, class InvView, class ScratchView,
          class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const ExecSpace& exec,
                                                   const Trigger<TriggerSpace>& trigger,
                                                   const PermView& perm, const InvView& inv,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names("", "sieve::restore"), exec, trigger, perm, inv, scratch,
                        planes...);
}

/// sieve::restore with a label. As above.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const std::string& label, const ExecSpace& exec,
                                                   const PermView& perm, const InvView& inv,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names(label, "sieve::restore"), exec, perm, inv, scratch, planes...);
}

/// sieve::restore with a label and the trigger. As above.
template <class ExecSpace, class TriggerSpace, class PermView, class InvView, class ScratchView,
          class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const std::string& label, const ExecSpace& exec,
                                                   const Trigger<TriggerSpace>& trigger,
                                                   const PermView& perm, const InvView& inv,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreDispatch(Impl::Names(label, "sieve::restore"), exec, trigger, perm, inv, scratch,
                        planes...);
}

/// sieve::restore on a default instance of perm's execution space; fences
/// it. Blocking; throws as above.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kRestoreFirst<PermView>> restore(const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  Impl::restoreFenced(Impl::Names("", "sieve::restore"), perm, inv, scratch, planes...);
}

/// sieve::restore on a default instance of perm's execution space, with the trigger; fences
/// it. Blocking; throws as above.
template <class TriggerSpace, class PermView, class InvView, class ScratchView, class... Planes>
void restore(const Trigger<TriggerSpace>& trigger, const PermView& perm, const InvView& inv,
             const ScratchView& scratch, const Planes&... planes) {
  Impl::restoreFenced(Impl::Names("", "sieve::restore"), trigger, perm, inv, scratch, planes...);
}

/// sieve::restore on a default instance of perm's execution space, with a label; fences
/// it. Blocking; throws as above.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kRestoreFirst<PermView>> restore(const std::string& label,
                                                        const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  Impl::restoreFenced(Impl::Names(label, "sieve::restore"), perm, inv, scratch, planes...);
}

/// sieve::restore on a default instance of perm's execution space, with a label and the trigger;
/// fences it. Blocking; throws as above.
template <class TriggerSpace, class PermView, class InvView, class ScratchView, class... Planes>
void restore(const std::string& label, const Trigger<TriggerSpace>& trigger, const PermView& perm,
             const InvView& inv, const ScratchView& scratch, const Planes&... planes) {
  Impl::restoreFenced(Impl::Names(label, "sieve::restore"), trigger, perm, inv, scratch, planes...);
}

/// Any other argument list: Sieve's own error, naming the forms (the
/// spelled-out forms above are more specialized, so they win every call
/// they take).
template <class First, class... Rest>
std::enable_if_t<!Impl::kLabelLike<First>> reorder(const First&, const Rest&...) {
  static_assert(Impl::kNever<First, Rest...>,
                "sieve::reorder: the arguments are reorder([label,] [exec,] mask[, polarity], "
                "perm, inv, index_map, count, trigger | span, fire, scratch, planes...)");
}
template <class... Rest>
void reorder(const std::string&, const Rest&...) {
  static_assert(Impl::kNever<Rest...>,
                "sieve::reorder: the arguments are reorder([label,] [exec,] mask[, polarity], "
                "perm, inv, index_map, count, trigger | span, fire, scratch, planes...)");
}
template <class First, class... Rest>
std::enable_if_t<!Impl::kLabelLike<First>> restore(const First&, const Rest&...) {
  static_assert(Impl::kNever<First, Rest...>,
                "sieve::restore: the arguments are restore([label,] [exec,] [trigger,] perm, inv, "
                "scratch, planes...)");
}
template <class... Rest>
void restore(const std::string&, const Rest&...) {
  static_assert(Impl::kNever<Rest...>,
                "sieve::restore: the arguments are restore([label,] [exec,] [trigger,] perm, inv, "
                "scratch, planes...)");
}

} // namespace sieve
