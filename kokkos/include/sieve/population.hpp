// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::Population: the filtering state a simulation keeps (index
// map, count, perm / inv, trigger, scratch), owned in one object, with the
// plane set made once by sieve::planes(...).
//
//   sieve::Population<Exec> pop("particles", exec, n, {/*theta=*/0.5f});
//   auto planes = sieve::planes(alive, x, y, z, energy);  // the mask is a plane
//   std::uint32_t live = pop.compact(exec, alive);        // fenced: returns the count
//   pop.compact_async(exec, alive);                       // device words only
//   pop.reorder(exec, planes);                            // a no-op unless the trigger fired
//   pop.restore(exec, planes);                            // every plane back in sample order
//   auto idx = pop.indices();                             // the kept indices [0, count)
//
// The free functions (sieve::compact / reorder / restore) stay underneath as
// the expert layer; a Population calls them with its own words, so what they
// check it checks too, and what they leave to the caller it keeps itself.
#pragma once

#include <sieve/compact.hpp>
#include <sieve/impl/population/access.hpp>
#include <sieve/impl/population/state.hpp>
#include <sieve/reorder.hpp>
#include <sieve/trigger.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace sieve {

/// A plane set: the Views a reorder moves and a restore moves back, made once
/// (sieve::planes) and given to every Population::reorder / restore. Holds
/// View handles (cheap to copy).
template <class... Views>
struct Planes {
  std::tuple<Views...> views;
};

/// The plane set of `views` (rank-1 Views of 1, 2, 4, 8 or 16-byte elements,
/// or rank-2 Views of them whose extent(0) is the samples, e.g. View<double*
/// [3]> positions, each row moving with its sample; the mask among them).
/// O(1); checked when used.
template <class... Views>
Planes<Views...> planes(const Views&... views) {
  static_assert(sizeof...(Views) > 0, "sieve::planes: give at least one plane (the mask)");
  return Planes<Views...>{std::tuple<Views...>(views...)};
}

/// The options of a Population.
struct PopulationOptions {
  /// The trigger's locality threshold, in (0, 1).
  float theta = 0.5f;
  /// The widest plane element the scratch is sized for at birth (1, 2, 4, 8
  /// or 16 bytes; a rank-2 plane whose contiguous rows move whole counts its
  /// row, e.g. 16 for View<double* [2]>); a plane set with wider elements
  /// grows it once. 0: no
  /// scratch at birth (a population used only through a sieve::Graph, whose
  /// arena gives the scratch; a direct call then allocates it once).
  std::uint32_t max_elem_bytes = 8;
};

/// The filtering state of `n` samples, on `ExecSpace`: an index map, its
/// count, perm / inv (identity at birth and after every restore), a trigger
/// (span = n at birth and after every restore) and a scratch for the widest
/// plane it is given. Copies are handles to the same state (View semantics);
/// clone() deep-copies.
///
/// What the free functions leave to the caller a Population keeps: perm and
/// inv are its own (never swapped, never stale), the span is its own (a
/// compaction widens it over every kept sample), a reorder uses the mask and
/// index map of the last compaction, a restore must move the plane set the
/// reorders moved (else std::invalid_argument), every plane must have n
/// samples (else std::invalid_argument), and after a restore the index map is
/// made again from the restored mask, so indices() never names a stale slot.
/// A call that fails to allocate throws std::bad_alloc and changes nothing
/// (compact: the old compaction or the new one, whole; docs/conventions.md).
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class Population {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using index_view = Kokkos::View<std::int32_t*, memory_space>;
  using count_view = Kokkos::View<std::uint32_t, memory_space>;
  using scratch_view = Kokkos::View<unsigned char*, memory_space>;
  using mask_view =
      Kokkos::View<std::uint8_t*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// An empty handle (size() == 0, no state); assign a constructed one.
  Population() = default;

  /// The state of `n` samples, labelled `label` (its Views "sieve::<label>::...",
  /// and every call's profiling region "<label>: sieve::<call>[<face>]").
  /// Allocates the index map, perm, inv (identity), the count (0), the
  /// trigger (span = n) and a scratch for `options.max_elem_bytes`-byte
  /// planes; initialises them on `exec` (on host spaces it also touches the
  /// scratch's pages there, so that the first step faults none in) and
  /// fences it. Throws
  /// std::invalid_argument for n outside [0, INT32_MAX], theta outside (0, 1)
  /// or an element size other than 1, 2, 4, 8, 16.
  Population(const std::string& label, const ExecSpace& exec, std::int64_t n,
             const PopulationOptions& options = {})
      : s_(std::make_shared<State>()) {
    State::born(*s_, label, exec, n, options.theta, options.max_elem_bytes);
  }

  /// The same on a default instance of ExecSpace.
  Population(const std::string& label, std::int64_t n, const PopulationOptions& options = {})
      : Population(label, ExecSpace(), n, options) {}

  /// Samples. O(1).
  std::int64_t size() const { return s_ ? s_->n : 0; }
  const std::string& label() const { return state("label").label; }

  /// Compact `mask` (n samples, non-zero keeps, or drops with
  /// MaskPolarity::drop) into the index map, with the trigger; remembers the
  /// mask for the next reorder and restore. Fences `exec` and returns the
  /// count. Throws std::invalid_argument for a mask of another extent, and
  /// what sieve::compact throws.
  template <class MaskView>
  std::uint32_t compact(const ExecSpace& exec, const MaskView& mask,
                        MaskPolarity polarity = MaskPolarity::keep) const {
    compact_async(exec, mask, polarity);
    std::uint32_t c = 0;
    Kokkos::deep_copy(exec, c, state("compact").count);
    exec.fence();
    return c;
  }

  /// sieve::Population::compact without the fence: the count stays in
  /// count() (and the trigger's words) on the device. Asynchronous on `exec`
  /// (as sieve::compact: blocks on Kokkos::OpenMP); capture-safe on Cuda.
  template <class MaskView>
  void compact_async(const ExecSpace& exec, const MaskView& mask,
                     MaskPolarity polarity = MaskPolarity::keep) const {
    static_assert(State::template maskOk<MaskView>(),
                  "sieve::Population::compact: the mask must be a rank-1 View of std::uint8_t or "
                  "bool (non-zero keeps), accessible from the execution space");
    if constexpr (State::template maskOk<MaskView>()) {
      State& s = state("compact");
      State::checkMask(s, "sieve::Population::compact", mask);
      State::growScratch(s, 1);
      State::compactWith(s, exec, s.scratch, mask, polarity);
    }
  }

  /// When the trigger fired at the last compaction: move the kept samples of
  /// every plane to the front (sieve::reorder with this population's mask,
  /// perm, inv, index map, count, trigger and scratch). A no-op on the device
  /// otherwise. Asynchronous on `exec` (blocks on Kokkos::OpenMP). Allocates
  /// only when the planes are wider than the scratch (once). Throws
  /// std::invalid_argument before any compaction, for a plane set without
  /// the compacted mask, planes of another extent than n, a plane set other
  /// than the one the reorders since the last restore moved, and what
  /// sieve::reorder throws.
  template <class... Views>
  void reorder(const ExecSpace& exec, const Planes<Views...>& planes) const {
    static_assert(State::template planesOk<Views...>(),
                  "sieve::Population::reorder: every plane of the plane set (sieve::planes) must "
                  "be a writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte "
                  "elements, or a rank-2 View of them (extent(0) the samples, one row each), "
                  "accessible from the execution space");
    if constexpr (State::template planesOk<Views...>()) {
      State& s = state("reorder");
      State::growScratch(s, State::widest(planes));
      State::reorderWith(s, exec, s.scratch, planes);
    }
  }

  /// Move every plane back to sample order (sieve::restore with the
  /// trigger: the planes must be those the reorders moved), reset perm = inv
  /// = identity, span = n, fire = 0, then make the index map again from the
  /// restored mask (count() and indices() stay true). Asynchronous on `exec`.
  /// Throws std::invalid_argument for another plane set than the reorders
  /// moved, planes of another extent, and what sieve::restore throws.
  template <class... Views>
  void restore(const ExecSpace& exec, const Planes<Views...>& planes) const {
    static_assert(State::template planesOk<Views...>(),
                  "sieve::Population::restore: every plane of the plane set (sieve::planes) must "
                  "be a writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte "
                  "elements, or a rank-2 View of them (extent(0) the samples, one row each), "
                  "accessible from the execution space");
    if constexpr (State::template planesOk<Views...>()) {
      State& s = state("restore");
      State::growScratch(s, State::widest(planes));
      State::restoreWith(s, exec, s.scratch, planes);
    }
  }

  /// Spawn `k` samples into free slots: the first k dead samples in sample-id
  /// order (dead by the mask of the last compaction, as it reads now) are
  /// revived: slots(i), i < k, receives the slot of the i-th, its mask byte
  /// becomes "kept" and the span covers it, so the next compaction keeps it
  /// and no reorder drops it. The same slots, in the same order, on every
  /// face. Fill the new samples' planes at those slots, then compact: until
  /// then count() and indices() describe the last compaction, and a reorder
  /// throws. Blocking (reads one word back); allocates only when the scratch
  /// is short (once). Throws std::invalid_argument before any compaction,
  /// for k < 0, slots.extent(0) < k, or when fewer than k slots are free
  /// (then nothing was changed).
  template <class Slots>
  void spawn(const ExecSpace& exec, std::int64_t k, const Slots& slots) const {
    static_assert(State::template slotsOk<Slots>(),
                  "sieve::Population::spawn: slots must be a writable rank-1 "
                  "View of std::int32_t accessible from the execution space");
    if constexpr (State::template slotsOk<Slots>()) {
      Impl::checkKernelsAllowed<ExecSpace>("sieve::Population::spawn"); // before k is written
      State::spawnChecked(state("spawn"), exec, k, slots);
    }
  }

  /// sieve::Population::spawn with k in a device word, asynchronous on
  /// `exec` (capture-safe on Cuda; blocks on Kokkos::OpenMP as a compaction
  /// does): spawned() reads k when the k samples were placed, 0 when fewer
  /// than k slots were free or k > slots.extent(0) (then nothing changed).
  /// Throws std::invalid_argument before any compaction.
  template <class Slots>
  void spawn_async(const ExecSpace& exec, const count_view& k, const Slots& slots) const {
    static_assert(State::template slotsOk<Slots>(),
                  "sieve::Population::spawn_async: slots must be a writable "
                  "rank-1 View of std::int32_t accessible from the execution "
                  "space");
    if constexpr (State::template slotsOk<Slots>()) {
      State& s = state("spawn");
      State::checkSlots("sieve::Population::spawn_async", slots);
      State::growScratch(s, 1);
      State::spawnWith(s, exec, s.scratch, k, slots, static_cast<std::int64_t>(slots.extent(0)));
    }
  }

  /// What the last spawn placed: k, or 0 when it placed nothing. On the
  /// device. O(1).
  count_view spawned() const { return state("spawned").spawned; }

  /// The kept count of the last compaction (0 before the first), on the
  /// device. O(1).
  count_view count() const { return state("count").count; }
  /// The index map: slots [0, count) hold the kept samples, ascending. O(1).
  index_view index_map() const { return state("index_map").map; }
  /// The kept indices: index_map() over [0, count). Blocking: fences every
  /// instance (Kokkos::deep_copy of the count) to read the count.
  Kokkos::View<std::int32_t*, memory_space> indices() const {
    const State& s = state("indices");
    std::uint32_t c = 0;
    Kokkos::deep_copy(c, s.count);
    return Kokkos::subview(s.map, std::make_pair(std::size_t(0), std::size_t(c)));
  }
  /// Slot of sample id: inv; sample id of a slot: perm (read-only: only the
  /// population's reorders and restores write them). O(1).
  Kokkos::View<const std::int32_t*, memory_space> perm() const { return state("perm").perm; }
  Kokkos::View<const std::int32_t*, memory_space> inv() const { return state("inv").inv; }
  /// The trigger (its words: live32, span, fire). O(1).
  const Trigger<memory_space>& trigger() const { return state("trigger").trigger; }

  /// A deep copy on `exec` (fenced): its own index map, count, perm, inv,
  /// trigger words and scratch. The copy forgets the mask (compact it before
  /// its first reorder) and the plane set (its restore takes any set until
  /// its first reorder). Throws std::invalid_argument on an empty handle.
  Population clone(const ExecSpace& exec) const {
    const State& s = state("clone");
    Population c(s.label, exec, s.n, PopulationOptions{s.trigger.theta, s.scratchElem}); // 0: none
    State& d = *c.s_;
    Kokkos::deep_copy(exec, d.map, s.map);
    Kokkos::deep_copy(exec, d.perm, s.perm);
    Kokkos::deep_copy(exec, d.inv, s.inv);
    Kokkos::deep_copy(exec, d.count, s.count);
    Kokkos::deep_copy(exec, d.trigger.live32, s.trigger.live32);
    Kokkos::deep_copy(exec, d.trigger.span, s.trigger.span);
    Kokkos::deep_copy(exec, d.trigger.fire, s.trigger.fire);
    exec.fence();
    d.permIdentity = s.permIdentity;
    return c;
  }

 private:
  using State = Impl::PopulationState<ExecSpace>;
  friend struct Impl::PopulationAccess;

  std::shared_ptr<State> s_;

  State& state(const char* what) const {
    if (!s_)
      Impl::fail("sieve::Population", std::string("an empty Population handle (") + what +
                                          "); construct it with a label and a size first");
    return *s_;
  }
};

} // namespace sieve
