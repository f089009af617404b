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
#include <sieve/impl/constraints.hpp>
#include <sieve/reorder.hpp>
#include <sieve/trigger.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
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

template <class ExecSpace>
class Graph;

namespace mpi {
namespace Impl {
struct PopulationAccess;
} // namespace Impl
} // namespace mpi

namespace Impl {
/// perm = inv = map = identity (a Population's birth). At namespace scope:
/// nvcc launches no functor that is a private member.
template <class V>
struct IdentityMaps {
  V perm, inv, map;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    perm(i) = inv(i) = map(i) = static_cast<std::int32_t>(i);
  }
};

/// A spawn's first step: the mask's bytes in sample-id order (sample s sits
/// in slot inv(s)).
template <class Inv>
struct GatherBySample {
  Inv inv;
  const std::uint8_t* mask;
  std::uint8_t* order;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t s) const { order[s] = mask[inv(s)]; }
};

/// A spawn's last step: when k (a device word) free samples exist and the
/// slots View holds k, free sample i (ascending sample id) becomes slot i's
/// spawn: slots(i) = its slot, its mask byte reads kept, the span covers it;
/// `spawned` = k. Otherwise nothing is written but spawned = 0.
template <class Inv, class Slots, class Word>
struct PlaceSpawn {
  Inv inv;
  Slots slots;
  Word k, spawned, span;
  const std::int32_t* freeMap;
  const std::uint32_t* freeCount;
  std::uint8_t* mask;
  std::uint8_t keep;
  bool identity;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::uint32_t want = k();
    const bool ok = want <= *freeCount && static_cast<std::size_t>(want) <= slots.extent(0);
    if (i == 0) spawned() = ok ? want : 0u;
    if (!ok || i >= static_cast<std::int64_t>(want)) return;
    const std::int32_t sample = freeMap[i];
    const std::int32_t slot = identity ? sample : inv(sample);
    slots(i) = slot;
    mask[slot] = keep;
    Kokkos::atomic_fetch_max(&span(), static_cast<std::uint32_t>(slot) + 1u);
  }
};
} // namespace Impl

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
  /// planes; initialises them on `exec` and fences it. Throws
  /// std::invalid_argument for n outside [0, INT32_MAX], theta outside (0, 1)
  /// or an element size other than 1, 2, 4, 8, 16.
  Population(const std::string& label, const ExecSpace& exec, std::int64_t n,
             const PopulationOptions& options = {})
      : s_(std::make_shared<State>()) {
    constexpr const char* fn = "sieve::Population";
    Impl::checkSamples(fn, n);
    if (options.max_elem_bytes != 0)
      Impl::checkElemBytes(fn, options.max_elem_bytes, "options.max_elem_bytes");
    State& s = *s_;
    s.label = label;
    s.n = n;
    s.trigger = Trigger<memory_space>(label, options.theta);
    const std::string pre = "sieve::" + label + "::";
    s.map = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, pre + "index_map"), n);
    s.perm = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, pre + "perm"), n);
    s.inv = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, pre + "inv"), n);
    s.count = count_view(pre + "count");
    s.spawnK = count_view(pre + "spawn_k");
    s.spawned = count_view(pre + "spawned");
    if (options.max_elem_bytes != 0) growScratch(options.max_elem_bytes);
    identity(exec);
    Kokkos::deep_copy(exec, s.trigger.span, static_cast<std::uint32_t>(n));
    exec.fence();
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
    static_assert(maskOk<MaskView>(),
                  "sieve::Population::compact: the mask must be a rank-1 View of std::uint8_t or "
                  "bool (non-zero keeps), accessible from the execution space");
    if constexpr (maskOk<MaskView>()) {
      State& s = state("compact");
      checkMask("sieve::Population::compact", mask);
      growScratch(1);
      compactWith(s, exec, s.scratch, mask, polarity);
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
    static_assert(planesOk<Views...>(),
                  "sieve::Population::reorder: every plane of the plane set (sieve::planes) must "
                  "be a writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte "
                  "elements, or a rank-2 View of them (extent(0) the samples, one row each), "
                  "accessible from the execution space");
    if constexpr (planesOk<Views...>()) {
      State& s = state("reorder");
      growScratch(widest(planes));
      reorderWith(s, exec, s.scratch, planes);
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
    static_assert(planesOk<Views...>(),
                  "sieve::Population::restore: every plane of the plane set (sieve::planes) must "
                  "be a writable rank-1 View of trivially-copyable 1, 2, 4, 8 or 16-byte "
                  "elements, or a rank-2 View of them (extent(0) the samples, one row each), "
                  "accessible from the execution space");
    if constexpr (planesOk<Views...>()) {
      State& s = state("restore");
      growScratch(widest(planes));
      restoreWith(s, exec, s.scratch, planes);
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
    static_assert(slotsOk<Slots>(),
                  "sieve::Population::spawn: slots must be a writable rank-1 "
                  "View of std::int32_t accessible from the execution space");
    if constexpr (slotsOk<Slots>()) spawnChecked(exec, k, slots);
  }

 private:
  template <class Slots>
  void spawnChecked(const ExecSpace& exec, std::int64_t k, const Slots& slots) const {
    constexpr const char* fn = "sieve::Population::spawn";
    Impl::checkKernelsAllowed<ExecSpace>(fn); // before k is written to the device
    State& s = state("spawn");
    checkSlots(fn, slots);
    if (k < 0 || k > static_cast<std::int64_t>(slots.extent(0)))
      Impl::fail(fn, "k = " + std::to_string(k) + " must be in [0, slots.extent(0) = " +
                         std::to_string(slots.extent(0)) + "]");
    if (k > s.n)
      Impl::fail(fn, "k = " + std::to_string(k) +
                         " exceeds the population's n = " + std::to_string(s.n) + " slots");
    growScratch(1);
    const bool before = s.spawnedSinceCompact;
    Kokkos::deep_copy(exec, s.spawnK, static_cast<std::uint32_t>(k));
    spawnWith(s, exec, s.scratch, s.spawnK, slots, k);
    std::uint32_t placed = 0;
    Kokkos::deep_copy(exec, placed, s.spawned);
    exec.fence();
    s.spawnedSinceCompact = before || placed > 0; // nothing placed: nothing changed
    if (placed != static_cast<std::uint32_t>(k)) {
      std::uint32_t free = 0;
      Kokkos::deep_copy(exec, free, freeCountOf(s, s.scratch));
      exec.fence();
      Impl::fail(fn, "k = " + std::to_string(k) + " samples to spawn, but only " +
                         std::to_string(free) + " of the " + std::to_string(s.n) +
                         " slots are free (dead in the mask); nothing was spawned");
    }
  }

 public:
  /// sieve::Population::spawn with k in a device word, asynchronous on
  /// `exec` (capture-safe on Cuda; blocks on Kokkos::OpenMP as a compaction
  /// does): spawned() reads k when the k samples were placed, 0 when fewer
  /// than k slots were free or k > slots.extent(0) (then nothing changed).
  /// Throws std::invalid_argument before any compaction.
  template <class Slots>
  void spawn_async(const ExecSpace& exec, const count_view& k, const Slots& slots) const {
    static_assert(slotsOk<Slots>(),
                  "sieve::Population::spawn_async: slots must be a writable "
                  "rank-1 View of std::int32_t accessible from the execution "
                  "space");
    if constexpr (slotsOk<Slots>()) {
      State& s = state("spawn");
      checkSlots("sieve::Population::spawn_async", slots);
      growScratch(1);
      spawnWith(s, exec, s.scratch, k, slots, static_cast<std::int64_t>(slots.extent(0)));
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
  friend class Graph<ExecSpace>;
  friend struct mpi::Impl::PopulationAccess;

  struct State {
    std::string label;
    std::int64_t n = 0;
    index_view map, perm, inv;
    count_view count;
    Trigger<memory_space> trigger;
    scratch_view scratch;
    std::uint32_t scratchElem = 0;
    mask_view mask; // the last compacted mask (an alias; maskOwner keeps it allocated)
    std::shared_ptr<const void> maskOwner;
    MaskPolarity polarity = MaskPolarity::keep;
    count_view spawnK, spawned; // a spawn's k and what it placed
    bool spawnedSinceCompact = false;
    bool permIdentity = true; // no reorder since birth, the last restore or rebalance
    // A graph reorder node runs on the device (a CUDA graph's launches run no
    // host code): from its first one on, perm is never taken for the identity.
    bool graphReorders = false;
    bool maskWritable = true; // the last compacted mask is not a View of const bytes
  };

  // The steps themselves, with a given scratch: the direct calls give the
  // population's own, a sieve::Graph node its arena slot.
  template <class Scratch, class MaskView>
  static void compactWith(State& s, const ExecSpace& exec, const Scratch& scratch,
                          const MaskView& mask, MaskPolarity polarity) {
    sieve::compact(s.label, exec, bytesOf(mask), polarity, s.map, s.count, scratch, s.trigger);
    remember(s, mask, polarity);
    s.spawnedSinceCompact = false;
  }
  template <class Scratch, class... Views>
  static void reorderWith(State& s, const ExecSpace& exec, const Scratch& scratch,
                          const Planes<Views...>& planes) {
    if (s.mask.data() == nullptr && s.n > 0)
      Impl::fail("sieve::Population::reorder",
                 "no compaction since the population was made (or cloned); call compact first");
    checkNoSpawnPending(s, "sieve::Population::reorder");
    std::apply(
        [&](const auto&... v) {
          sieve::reorder(s.label, exec, s.mask, s.polarity, s.perm, s.inv, s.map, s.count,
                         s.trigger, scratch, v...);
        },
        planes.views);
    s.permIdentity = false;
  }
  template <class Scratch, class... Views>
  static void restoreWith(State& s, const ExecSpace& exec, const Scratch& scratch,
                          const Planes<Views...>& planes) {
    checkNoSpawnPending(s, "sieve::Population::restore");
    std::apply(
        [&](const auto&... v) {
          sieve::restore(s.label, exec, s.trigger, s.perm, s.inv, scratch, v...);
        },
        planes.views);
    s.permIdentity = !s.graphReorders;
    if (s.mask.data() != nullptr)
      sieve::compact(s.label, exec, s.mask, s.polarity, s.map, s.count, scratch, s.trigger);
  }

  /// The slots a spawn handed out are filled by the caller and become live at
  /// the next compaction: until then nothing may move them.
  static void checkNoSpawnPending(const State& s, const char* fn) {
    if (s.spawnedSinceCompact)
      Impl::fail(fn,
                 "samples were spawned since the last compaction: fill their slots and "
                 "compact first (this call moves slots, and the slots the spawn handed out "
                 "would no longer be theirs)");
  }

  /// The spawn itself, with a given scratch (spawnLayout) and k in a device
  /// word; `range` bounds k (the place kernel's extent). `replayed`: a graph
  /// node, captured once on Cuda and launched after reorders: it always reads
  /// the mask through inv (identity or not).
  template <class Scratch, class Slots>
  static void spawnWith(State& s, const ExecSpace& exec, const Scratch& scratch,
                        const count_view& k, const Slots& slots, std::int64_t range,
                        bool replayed = false) {
    constexpr const char* fn = "sieve::Population::spawn";
    Impl::checkKernelsAllowed<ExecSpace>(fn); // its gather and place are Kokkos kernels
    if (s.mask.data() == nullptr && s.n > 0)
      Impl::fail(fn,
                 "no compaction since the population was made (or cloned): the population "
                 "knows no mask yet; call compact first");
    if (!s.maskWritable)
      Impl::fail(fn,
                 "the mask of the last compaction is a View of const bytes, and a spawn "
                 "writes it (the spawned samples become kept); compact a writable mask");
    using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
    const Impl::SpawnLayout l = Impl::spawnLayout(s.n);
    unsigned char* base = reinterpret_cast<unsigned char*>(scratch.data());
    if (k.data() == s.trigger.span.data() || k.data() == s.spawned.data() ||
        k.data() == s.count.data() || k.data() == s.trigger.fire.data() ||
        k.data() == s.trigger.live32.data())
      Impl::fail(fn,
                 "k is one of the population's own words (count, spawned or a trigger "
                 "word), which the spawn writes; give it a word of its own");
    const Impl::Names names(s.label, fn);
    const Kokkos::View<std::int32_t*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        freeMap(reinterpret_cast<std::int32_t*>(base + l.map), static_cast<std::size_t>(s.n));
    const Kokkos::View<std::uint32_t, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        freeCount(reinterpret_cast<std::uint32_t*>(base + l.count));
    const Kokkos::View<unsigned char*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        cscratch(base, compact_scratch_bytes(s.n));
    // The free samples (those the population's mask drops) in sample-id order.
    const MaskPolarity freePolarity =
        s.polarity == MaskPolarity::keep ? MaskPolarity::drop : MaskPolarity::keep;
    const bool identity =
        compactBySample(s, exec, freePolarity, reinterpret_cast<std::uint8_t*>(base + l.order),
                        freeMap, freeCount, cscratch, replayed);
    Kokkos::parallel_for(
        names("place"), Policy(exec, 0, range > 0 ? range : 1),
        Impl::PlaceSpawn<index_view, Slots, count_view>{
            s.inv, slots, k, s.spawned, s.trigger.span, freeMap.data(), freeCount.data(),
            s.mask.data(), maskByte(s.polarity, true), identity});
    s.spawnedSinceCompact = true;
  }

  /// The samples the population's mask selects under `polarity` (its own
  /// for survivors, the opposite for free samples), compacted in sample-id
  /// order into `map` / `count`: the mask gathered through inv into `order`
  /// (n bytes) first, unless perm is the identity (`assumeNone`: a graph
  /// node, captured once on Cuda and launched after reorders, never takes it
  /// for the identity). Returns whether it was: then map holds slots, else
  /// sample ids (slot = inv(id)). Asynchronous on `exec`. The one sample-order
  /// compaction of spawn and of mpi::rebalance.
  template <class Map, class Count, class Scratch>
  static bool compactBySample(const State& s, const ExecSpace& exec, MaskPolarity polarity,
                              std::uint8_t* order, const Map& map, const Count& count,
                              const Scratch& scratch, bool assumeNone = false) {
    const bool identity = s.permIdentity && !assumeNone;
    mask_view bytes = s.mask;
    if (!identity && s.n > 0) {
      Kokkos::parallel_for(
          Impl::Names(s.label, "sieve::Population")("gather"),
          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, s.n),
          Impl::GatherBySample<index_view>{s.inv, s.mask.data(), order});
      bytes = mask_view(order, static_cast<std::size_t>(s.n));
    }
    sieve::compact(s.label, exec, bytes, polarity, map, count, scratch);
    return identity;
  }

  /// The free count a spawn with this scratch found.
  template <class Scratch>
  static Kokkos::View<std::uint32_t, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
  freeCountOf(const State& s, const Scratch& scratch) {
    return Kokkos::View<std::uint32_t, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(scratch.data()) +
                                         Impl::spawnLayout(s.n).count));
  }

  template <class Slots>
  static void checkSlots(const char* fn, const Slots& slots) {
    if (!Impl::contiguous(slots)) Impl::fail(fn, "slots must be contiguous (stride 1)");
  }

  // The compile-time rules of the entries' arguments, each written once (the
  // Graph's nodes assert the same): asserted first, so that Sieve's sentence
  // is the first error and nothing else is instantiated.
  template <class Slots>
  static constexpr bool slotsOk() {
    return Impl::kSlotsArg<ExecSpace, Slots>;
  }
  template <class MaskView>
  static constexpr bool maskOk() {
    return Impl::kByteMaskArg<ExecSpace, MaskView>;
  }
  template <class... Views>
  static constexpr bool planesOk() {
    return Impl::firstBadPlane<ExecSpace, Views...>() < 0;
  }

  /// The mask of the last compaction, for the next reorder and restore: an
  /// alias of its bytes, and a copy of the caller's handle, so that the bytes
  /// outlive the caller's View (a restore compacts them again).
  template <class MaskView>
  static void remember(State& s, const MaskView& mask, MaskPolarity polarity) {
    s.mask = bytesOf(mask);
    s.maskOwner = std::make_shared<const MaskView>(mask);
    s.maskWritable = !std::is_const_v<typename MaskView::value_type>;
    s.polarity = polarity;
  }

  /// A mask's bytes (std::uint8_t or bool, one byte a sample).
  template <class MaskView>
  static mask_view bytesOf(const MaskView& mask) {
    using T = typename MaskView::value_type;
    static_assert(sizeof(T) == 1, "sieve::Population: a mask byte per sample");
    return mask_view(
        reinterpret_cast<std::uint8_t*>(const_cast<std::remove_const_t<T>*>(mask.data())),
        mask.extent(0));
  }
  std::shared_ptr<State> s_;

  State& state(const char* what) const {
    if (!s_)
      Impl::fail("sieve::Population", std::string("an empty Population handle (") + what +
                                          "); construct it with a label and a size first");
    return *s_;
  }

  /// The widest word the planes move (an element, or the contiguous row of
  /// a rank-2 plane that moves whole: at most 16 bytes): what the reorder
  /// scratch is sized by. O(planes), no allocation.
  template <class... Views>
  static std::uint32_t widest(const Planes<Views...>& planes) {
    std::uint32_t w = 1;
    std::apply([&](const auto&... v) { ((w = std::max(w, Impl::widestWord(v))), ...); },
               planes.views);
    return w;
  }

  /// The scratch for planes of `elem` bytes (grown, never shrunk).
  void growScratch(std::uint32_t elem) const {
    State& s = *s_;
    if (s.scratch.data() != nullptr && elem <= s.scratchElem) return;
    const std::uint32_t e = elem > s.scratchElem ? elem : s.scratchElem;
    s.scratch = scratch_view();
    s.scratch = scratch_view(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sieve::" + s.label + "::scratch"),
        scratchBytes(s.n, e));
    s.scratchElem = e;
  }

  /// The scratch of every step (reorder / restore of `elem`-byte planes,
  /// compaction, spawn): the larger rule. Sized once at birth, a spawn or a
  /// graph never allocates it.
  static std::size_t scratchBytes(std::int64_t n, std::uint32_t elem) {
    if (n == 0) return 1;
    return std::max(reorder_scratch_bytes(n, elem), Impl::spawnScratchBytes(n));
  }

  template <class MaskView>
  void checkMask(const char* fn, const MaskView& mask) const {
    if (static_cast<std::int64_t>(mask.extent(0)) != s_->n)
      Impl::fail(fn, "mask.extent(0) = " + std::to_string(mask.extent(0)) +
                         "; the population has n = " + std::to_string(s_->n) +
                         " samples (compact the whole mask: a sample revived anywhere is found)");
    if (!Impl::contiguous(mask)) Impl::fail(fn, "the mask must be contiguous (stride 1)");
  }

  /// perm = inv = identity, the index map too, on `exec`.
  void identity(const ExecSpace& exec) const {
    const State& s = *s_;
    Kokkos::parallel_for(
        "sieve::" + s.label + "::identity",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, s.n),
        Impl::IdentityMaps<index_view>{s.perm, s.inv, s.map});
  }
};

} // namespace sieve
