// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what a sieve::Population owns (its State) and its steps:
// its birth, compaction, reorder, restore and spawn with a given scratch (the
// population's own, or a sieve::Graph node's arena slot), the sample-order
// compaction that spawn and mpi::rebalance share, and the compile-time rules
// of the entries' arguments. Population, Graph and the distributed calls reach
// a population's State through PopulationAccess (access.hpp) only.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/compact/entry.hpp>
#include <sieve/impl/constraints.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/planes.hpp>
#include <sieve/impl/population/kernels.hpp>
#include <sieve/impl/reorder/entry.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>

namespace sieve {

template <class MemorySpace>
struct Trigger; // trigger.hpp: a State holds one

namespace Impl {

/// The state of a sieve::Population<ExecSpace> (its copies share one) and its
/// steps, each a static function of the State it works on.
template <class ExecSpace>
struct PopulationState {
  using memory_space = typename ExecSpace::memory_space;
  using index_view = Kokkos::View<std::int32_t*, memory_space>;
  using count_view = Kokkos::View<std::uint32_t, memory_space>;
  using scratch_view = Kokkos::View<unsigned char*, memory_space>;
  using mask_view =
      Kokkos::View<std::uint8_t*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;

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

  /// A Population's birth (see its constructor): the checks, the Views, the
  /// identity maps, span = n; fences `exec`.
  static void born(PopulationState& s, const std::string& label, const ExecSpace& exec,
                   std::int64_t n, float theta, std::uint32_t maxElemBytes) {
    constexpr const char* fn = "sieve::Population";
    checkSamples(fn, n);
    if (maxElemBytes != 0) checkElemBytes(fn, maxElemBytes, "options.max_elem_bytes");
    s.label = label;
    s.n = n;
    s.trigger = Trigger<memory_space>(label, theta);
    const std::string pre = "sieve::" + label + "::";
    s.map =
        allocate<index_view>(Kokkos::view_alloc(Kokkos::WithoutInitializing, pre + "index_map"), n);
    s.perm = allocate<index_view>(Kokkos::view_alloc(Kokkos::WithoutInitializing, pre + "perm"), n);
    s.inv = allocate<index_view>(Kokkos::view_alloc(Kokkos::WithoutInitializing, pre + "inv"), n);
    s.count = allocate<count_view>(pre + "count");
    s.spawnK = allocate<count_view>(pre + "spawn_k");
    s.spawned = allocate<count_view>(pre + "spawned");
    if (maxElemBytes != 0) {
      growScratch(s, maxElemBytes);
      touchScratch(s, exec);
    }
    identity(s, exec);
    Kokkos::deep_copy(exec, s.trigger.span, static_cast<std::uint32_t>(n));
    exec.fence();
  }

  // The steps themselves, with a given scratch: the direct calls give the
  // population's own, a sieve::Graph node its arena slot.
  template <class Scratch, class MaskView>
  static void compactWith(PopulationState& s, const ExecSpace& exec, const Scratch& scratch,
                          const MaskView& mask, MaskPolarity polarity) {
    // The mask's handle is made first: once the compaction ran, nothing
    // may fail before the population remembers which mask it compacted.
    auto owner = std::make_shared<const MaskView>(mask);
    compactEntry(Names(s.label, "sieve::compact"), exec, bytesOf(mask), polarity, s.map, s.count,
                 scratch, s.trigger);
    remember(s, mask, polarity, std::move(owner));
    s.spawnedSinceCompact = false;
  }
  template <class Scratch, class Set>
  static void reorderWith(PopulationState& s, const ExecSpace& exec, const Scratch& scratch,
                          const Set& planes) {
    if (s.mask.data() == nullptr && s.n > 0)
      fail("sieve::Population::reorder",
           "no compaction since the population was made (or cloned); call compact first");
    checkNoSpawnPending(s, "sieve::Population::reorder");
    std::apply(
        [&](const auto&... v) {
          reorderEntry(Names(s.label, "sieve::reorder"), exec, s.mask, s.polarity, s.perm, s.inv,
                       s.map, s.count, s.trigger, scratch, v...);
        },
        planes.views);
    s.permIdentity = false;
  }
  template <class Scratch, class Set>
  static void restoreWith(PopulationState& s, const ExecSpace& exec, const Scratch& scratch,
                          const Set& planes) {
    checkNoSpawnPending(s, "sieve::Population::restore");
    std::apply(
        [&](const auto&... v) {
          restoreDispatch(Names(s.label, "sieve::restore"), exec, s.trigger, s.perm, s.inv, scratch,
                          v...);
        },
        planes.views);
    s.permIdentity = !s.graphReorders;
    if (s.mask.data() != nullptr)
      compactEntry(Names(s.label, "sieve::compact"), exec, s.mask, s.polarity, s.map, s.count,
                   scratch, s.trigger);
  }

  /// The slots a spawn handed out are filled by the caller and become live at
  /// the next compaction: until then nothing may move them.
  static void checkNoSpawnPending(const PopulationState& s, const char* fn) {
    if (s.spawnedSinceCompact)
      fail(fn,
           "samples were spawned since the last compaction: fill their slots and "
           "compact first (this call moves slots, and the slots the spawn handed out "
           "would no longer be theirs)");
  }

  /// Population::spawn after its compile-time checks and checkKernelsAllowed:
  /// k on the host, what was placed read back (blocking).
  template <class Slots>
  static void spawnChecked(PopulationState& s, const ExecSpace& exec, std::int64_t k,
                           const Slots& slots) {
    constexpr const char* fn = "sieve::Population::spawn";
    checkSlots(fn, slots);
    if (k < 0 || k > static_cast<std::int64_t>(slots.extent(0)))
      fail(fn, "k = " + std::to_string(k) +
                   " must be in [0, slots.extent(0) = " + std::to_string(slots.extent(0)) + "]");
    if (k > s.n)
      fail(fn, "k = " + std::to_string(k) + " exceeds the population's n = " + std::to_string(s.n) +
                   " slots");
    growScratch(s, 1);
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
      fail(fn, "k = " + std::to_string(k) + " samples to spawn, but only " + std::to_string(free) +
                   " of the " + std::to_string(s.n) +
                   " slots are free (dead in the mask); nothing was spawned");
    }
  }

  /// The spawn itself, with a given scratch (spawnLayout) and k in a device
  /// word; `range` bounds k (the place kernel's extent). `replayed`: a graph
  /// node, captured once on Cuda and launched after reorders: it always reads
  /// the mask through inv (identity or not).
  template <class Scratch, class Slots>
  static void spawnWith(PopulationState& s, const ExecSpace& exec, const Scratch& scratch,
                        const count_view& k, const Slots& slots, std::int64_t range,
                        bool replayed = false) {
    constexpr const char* fn = "sieve::Population::spawn";
    checkKernelsAllowed<ExecSpace>(fn); // its gather and place are Kokkos kernels
    if (s.mask.data() == nullptr && s.n > 0)
      fail(fn,
           "no compaction since the population was made (or cloned): the population "
           "knows no mask yet; call compact first");
    if (!s.maskWritable)
      fail(fn,
           "the mask of the last compaction is a View of const bytes, and a spawn "
           "writes it (the spawned samples become kept); compact a writable mask");
    const SpawnLayout l = spawnLayout(s.n);
    unsigned char* base = reinterpret_cast<unsigned char*>(scratch.data());
    if (k.data() == s.trigger.span.data() || k.data() == s.spawned.data() ||
        k.data() == s.count.data() || k.data() == s.trigger.fire.data() ||
        k.data() == s.trigger.live32.data())
      fail(fn,
           "k is one of the population's own words (count, spawned or a trigger "
           "word), which the spawn writes; give it a word of its own");
    const Names names(s.label, fn);
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
        PlaceSpawn<index_view, Slots, count_view>{s.inv, slots, k, s.spawned, s.trigger.span,
                                                  freeMap.data(), freeCount.data(), s.mask.data(),
                                                  maskByte(s.polarity, true), identity});
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
  static bool compactBySample(const PopulationState& s, const ExecSpace& exec,
                              MaskPolarity polarity, std::uint8_t* order, const Map& map,
                              const Count& count, const Scratch& scratch, bool assumeNone = false) {
    const bool identity = s.permIdentity && !assumeNone;
    mask_view bytes = s.mask;
    if (!identity && s.n > 0) {
      Kokkos::parallel_for(Names(s.label, "sieve::Population")("gather"), Policy(exec, 0, s.n),
                           GatherBySample<index_view>{s.inv, s.mask.data(), order});
      bytes = mask_view(order, static_cast<std::size_t>(s.n));
    }
    compactEntry(Names(s.label, "sieve::compact"), exec, bytes, polarity, map, count, scratch);
    return identity;
  }

  /// The free count a spawn with this scratch found.
  template <class Scratch>
  static Kokkos::View<std::uint32_t, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
  freeCountOf(const PopulationState& s, const Scratch& scratch) {
    return Kokkos::View<std::uint32_t, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(scratch.data()) +
                                         spawnLayout(s.n).count));
  }

  template <class Slots>
  static void checkSlots(const char* fn, const Slots& slots) {
    if (!contiguous(slots)) fail(fn, "slots must be contiguous (stride 1)");
  }

  template <class MaskView>
  static void checkMask(const PopulationState& s, const char* fn, const MaskView& mask) {
    if (static_cast<std::int64_t>(mask.extent(0)) != s.n)
      fail(fn, "mask.extent(0) = " + std::to_string(mask.extent(0)) +
                   "; the population has n = " + std::to_string(s.n) +
                   " samples (compact the whole mask: a sample revived anywhere is found)");
    if (!contiguous(mask)) fail(fn, "the mask must be contiguous (stride 1)");
  }

  // The compile-time rules of the entries' arguments, each written once (the
  // Graph's nodes assert the same): asserted first, so that Sieve's sentence
  // is the first error and nothing else is instantiated.
  template <class Slots>
  static constexpr bool slotsOk() {
    return kSlotsArg<ExecSpace, Slots>;
  }
  template <class MaskView>
  static constexpr bool maskOk() {
    return kByteMaskArg<ExecSpace, MaskView>;
  }
  template <class... Views>
  static constexpr bool planesOk() {
    return firstBadPlane<ExecSpace, Views...>() < 0;
  }

  /// The mask of the last compaction, for the next reorder and restore: an
  /// alias of its bytes, and a copy of the caller's handle, so that the bytes
  /// outlive the caller's View (a restore compacts them again).
  template <class MaskView>
  static void remember(PopulationState& s, const MaskView& mask, MaskPolarity polarity,
                       std::shared_ptr<const MaskView> owner) noexcept {
    s.mask = bytesOf(mask);
    s.maskOwner = std::move(owner);
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

  /// The widest word the planes move (an element, or the contiguous row of
  /// a rank-2 plane that moves whole: at most 16 bytes): what the reorder
  /// scratch is sized by. O(planes), no allocation.
  template <class Set>
  static std::uint32_t widest(const Set& planes) {
    std::uint32_t w = 1;
    std::apply([&](const auto&... v) { ((w = std::max(w, widestWord(v))), ...); }, planes.views);
    return w;
  }

  /// The scratch for planes of `elem` bytes (grown, never shrunk).
  static void growScratch(PopulationState& s, std::uint32_t elem) {
    if (s.scratch.data() != nullptr && elem <= s.scratchElem) return;
    const std::uint32_t e = elem > s.scratchElem ? elem : s.scratchElem;
    s.scratch = scratch_view();
    s.scratch = allocate<scratch_view>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sieve::" + s.label + "::scratch"),
        scratchBytes(s.n, e));
    s.scratchElem = e;
  }

  /// On host spaces, the scratch's pages faulted in now, on `exec`'s threads
  /// (one byte written per page, after the huge-page hint), not in the first
  /// step that uses them; each page is then placed near the thread that
  /// touched it. Elsewhere nothing. Asynchronous on `exec`.
  static void touchScratch(const PopulationState& s, const ExecSpace& exec) {
    if constexpr (std::is_same_v<memory_space, Kokkos::HostSpace>) {
      adviseHugePages(s.scratch);
      const auto bytes = static_cast<std::int64_t>(s.scratch.size());
      const std::int64_t pages = (bytes + TouchPages::kPage - 1) / TouchPages::kPage;
      Kokkos::parallel_for("sieve::" + s.label + "::first_touch", Policy(exec, 0, pages),
                           TouchPages{s.scratch.data()});
    } else {
      (void)s;
      (void)exec;
    }
  }

  /// The scratch of every step (reorder / restore of `elem`-byte planes,
  /// compaction, spawn): the larger rule. Sized once at birth, a spawn or a
  /// graph never allocates it.
  static std::size_t scratchBytes(std::int64_t n, std::uint32_t elem) {
    if (n == 0) return 1;
    return std::max(reorder_scratch_bytes(n, elem), spawnScratchBytes(n));
  }

  /// perm = inv = identity, the index map too, on `exec`.
  static void identity(const PopulationState& s, const ExecSpace& exec) {
    Kokkos::parallel_for("sieve::" + s.label + "::identity", Policy(exec, 0, s.n),
                         IdentityMaps<index_view>{s.perm, s.inv, s.map});
  }
};

} // namespace Impl
} // namespace sieve
