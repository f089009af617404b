// Sieve — sieve::reorder / sieve::restore: the physical reorder of
// structure-of-arrays planes, and its undo.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/native.hpp>
#include <sieve/impl/portable.hpp>
#include <sieve/trigger.hpp>

#include <array>

namespace sieve {

/// Bytes of scratch sieve::reorder / sieve::restore need for `n` samples whose
/// widest plane has `max_elem_bytes`-byte elements: the compaction scratch
/// rounded up to 16 bytes, then one staging plane of max(n, 1) elements of
/// max(max_elem_bytes, 4) bytes. O(1). Throws std::invalid_argument for a bad
/// n or an element size other than 1, 2, 4, 8 or 16.
inline std::size_t reorder_scratch_bytes(std::int64_t n, std::uint32_t max_elem_bytes) {
  Impl::checkSamples("sieve::reorder_scratch_bytes", n);
  if (!Impl::supportedElem(max_elem_bytes))
    Impl::fail("sieve::reorder_scratch_bytes",
               "max_elem_bytes = " + std::to_string(max_elem_bytes) + "; it must be 1, 2, 4, 8 or 16");
  return reorderScratchBytes(n, max_elem_bytes);
}

namespace Impl {

template <class T>
struct IsKokkosArray : std::false_type {};
template <class T, std::size_t N>
struct IsKokkosArray<Kokkos::Array<T, N>> : std::true_type {};

template <class Exec, class P>
constexpr void assertPlaneView() {
  static_assert(IsView<P>::value, "sieve: reorder planes must be Kokkos::Views");
  static_assert(viewRank<P>() == 1, "sieve: reorder planes must be rank-1 Views");
  static_assert(kWritable<P>, "sieve: reorder planes are moved in place: no const View");
  static_assert(std::is_trivially_copyable_v<ValueOf<P>>,
                "sieve: reorder plane elements must be trivially copyable");
  static_assert(sizeof(ValueOf<P>) == 1 || sizeof(ValueOf<P>) == 2 || sizeof(ValueOf<P>) == 4 ||
                    sizeof(ValueOf<P>) == 8 || sizeof(ValueOf<P>) == 16,
                "sieve: reorder plane elements must be 1, 2, 4, 8 or 16 bytes");
  static_assert(kAccessible<Exec, P>, "sieve: a reorder plane is not accessible from the execution space");
#if KOKKOS_VERSION < 40400
  // Before 4.4 Kokkos maps a View of Kokkos::Array specially: only with
  // LayoutRight are the arrays stored whole, one after the other.
  static_assert(!IsKokkosArray<ValueOf<P>>::value ||
                    std::is_same_v<typename P::array_layout, Kokkos::LayoutRight>,
                "sieve: on Kokkos < 4.4 a reorder plane of Kokkos::Array must be LayoutRight");
#endif
}

template <class Exec, class V>
constexpr void assertOptionalWord() {
  assertWordView<Exec, V>();
}

/// What reorder and restore check of their planes at run time: the element
/// descriptors (for the native faces), the memory each plane covers, equal
/// extents.
template <class... Planes>
struct PlaneSet {
  static constexpr std::size_t count = sizeof...(Planes);
  std::array<ReorderPlane, count> desc;
  std::array<std::size_t, count + 3> bytes;  // memory covered: planes, perm, inv, map
  std::array<std::size_t, count + 3> stride; // bytes between elements
  bool contiguous = true;
  std::uint32_t maxElem = 1;

  template <class Perm, class Inv, class Map>
  PlaneSet(const char* fn, std::int64_t n, const Perm& perm, const Inv& inv, const Map& map,
           const Planes&... planes)
      : desc{ReorderPlane{static_cast<void*>(planes.data()),
                          static_cast<std::uint32_t>(sizeof(ValueOf<Planes>))}...},
        bytes{coveredBytes(planes)..., coveredBytes(perm), coveredBytes(inv), coveredBytes(map)},
        stride{strideBytes(planes)..., strideBytes(perm), strideBytes(inv), strideBytes(map)} {
    std::size_t k = 0;
    const std::array<std::int64_t, count> extents{extent64(planes)...};
    for (const std::int64_t e : extents) {
      if (e != n)
        fail(fn, "plane " + std::to_string(k) + " has extent " + std::to_string(e) +
                     "; every plane must have n = " + std::to_string(n) + " samples");
      ++k;
    }
    const std::array<bool, count> c{Impl::contiguous(planes)...};
    for (bool x : c) contiguous = contiguous && x;
    for (const auto& d : desc) maxElem = d.elemBytes > maxElem ? d.elemBytes : maxElem;
  }
};

template <class Exec, class Perm, class Inv>
void checkPermutation(const char* fn, std::int64_t n, const Perm& perm, const Inv& inv) {
  assertIndexView<Exec, Perm>("perm");
  assertIndexView<Exec, Inv>("inv");
  if (extent64(perm) < n || extent64(inv) < n)
    fail(fn, "perm.extent(0) = " + std::to_string(perm.extent(0)) + " and inv.extent(0) = " +
                 std::to_string(inv.extent(0)) + " must both be at least n = " + std::to_string(n));
}

template <class Exec, class Mask, class Perm, class Inv, class Map, class Count, class Span,
          class Fire, class Scratch, class... Planes>
void reorderOn(const Exec& exec, const Mask& mask, std::uint32_t flags, const Perm& perm,
               const Inv& inv, const Map& map, const Count& count, const Span& span,
               const Fire& fire, const Scratch& scratch, const Planes&... planes) {
  constexpr const char* fn = "sieve::reorder";
  static_assert(sizeof...(Planes) >= 1, "sieve: reorder needs its planes, the mask among them");
  assertMaskView<Exec, Mask>();
  assertIndexView<Exec, Map>("index_map");
  assertWordView<Exec, Count>();
  assertWordView<Exec, Span>();
  assertOptionalWord<Exec, Fire>();
  assertScratchView<Exec, Scratch>();
  (assertPlaneView<Exec, Planes>(), ...);
  const std::int64_t n = extent64(mask);
  checkSamples(fn, n, "mask.extent(0)");
  checkWord(fn, count, "count");
  checkWord(fn, span, "span");
  checkPermutation<Exec>(fn, n, perm, inv);
  if (extent64(map) < n)
    fail(fn, "index_map.extent(0) = " + std::to_string(map.extent(0)) +
                 " is smaller than mask.extent(0) = " + std::to_string(n));
  const PlaneSet<Planes...> set(fn, n, perm, inv, map, planes...);
  checkScratch(fn, scratch, n == 0 ? 0 : reorderScratchBytes(n, set.maxElem),
               "reorder_scratch_bytes(n, widest plane)");
  std::uint32_t* firePtr = fire.data(); // an empty View: unconditional
  checkReorder(fn, set.desc.data(), static_cast<std::uint32_t>(set.count), mask.data(), flags,
               perm.data(), inv.data(), map.data(), count.data(), span.data(), firePtr,
               scratch.data(), n, set.bytes.data(), set.stride.data());

  constexpr Backend backend = backendOf<Exec>();
  const bool native = backend != Backend::Portable && set.contiguous && contiguous(mask) &&
                      contiguous(perm) && contiguous(inv) && contiguous(map);
  Region region("reorder", native ? backend : Backend::Portable);
  if (native) {
    if constexpr (backend == Backend::OpenMP) {
      reorderHost(hostTeamOf(exec), set.desc.data(), static_cast<std::uint32_t>(set.count),
                  mask.data(), flags, perm.data(), inv.data(), map.data(), count.data(),
                  span.data(), firePtr, scratch.data(), n);
      return;
    }
#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
    if constexpr (backend == Backend::Cuda) {
      reorderDevice(set.desc.data(), static_cast<std::uint32_t>(set.count), mask.data(), flags,
                    perm.data(), inv.data(), map.data(), count.data(), span.data(), firePtr,
                    scratch.data(), n, exec.cuda_stream());
      return;
    }
#endif
  }
  Portable::reorder(exec, std::string("sieve::reorder"), mask, flags, perm, inv, map, count.data(), span.data(), firePtr,
                    reinterpret_cast<unsigned char*>(scratch.data()), n, planes...);
}

template <class Exec, class Perm, class Inv, class Scratch, class... Planes>
void restoreOn(const Exec& exec, const Perm& perm, const Inv& inv, const Scratch& scratch,
               const Planes&... planes) {
  constexpr const char* fn = "sieve::restore";
  assertScratchView<Exec, Scratch>();
  (assertPlaneView<Exec, Planes>(), ...);
  // n: the planes' extent (perm / inv may be longer, as in reorder).
  const std::array<std::int64_t, sizeof...(Planes) + 1> extents{extent64(planes)..., extent64(perm)};
  const std::int64_t n = extents[0];
  checkSamples(fn, n, sizeof...(Planes) > 0 ? "planes' extent" : "perm.extent(0)");
  checkPermutation<Exec>(fn, n, perm, inv);
  const PlaneSet<Planes...> set(fn, n, perm, inv, perm, planes...); // (no map: its entry unused)
  checkScratch(fn, scratch, n == 0 ? 0 : reorderScratchBytes(n, set.maxElem),
               "reorder_scratch_bytes(n, widest plane)");
  checkRestore(fn, set.desc.data(), static_cast<std::uint32_t>(set.count), perm.data(), inv.data(),
               scratch.data(), n, set.bytes.data(), set.stride.data());

  constexpr Backend backend = backendOf<Exec>();
  const bool native =
      backend != Backend::Portable && set.contiguous && contiguous(perm) && contiguous(inv);
  Region region("restore", native ? backend : Backend::Portable);
  if (native) {
    if constexpr (backend == Backend::OpenMP) {
      restoreHost(hostTeamOf(exec), set.desc.data(), static_cast<std::uint32_t>(set.count),
                  perm.data(), inv.data(), scratch.data(), n);
      return;
    }
#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
    if constexpr (backend == Backend::Cuda) {
      restoreDevice(set.desc.data(), static_cast<std::uint32_t>(set.count), perm.data(),
                    inv.data(), scratch.data(), n, exec.cuda_stream());
      return;
    }
#endif
  }
  Portable::restore(exec, std::string("sieve::restore"), perm, inv, reinterpret_cast<unsigned char*>(scratch.data()), n,
                    planes...);
}

} // namespace Impl

/// Physically reorder per-sample planes in place, asynchronously on `exec`: a
/// stable partition of the slots [0, min(span, n)), the samples `mask` keeps
/// first (n = mask.extent(0)). Kept slot i goes to incl(i) - 1, dropped slot i
/// to cnt + (i - incl(i)); slots at or past the span never move. `perm` (slot
/// -> sample id) moves like a plane, then inv(perm(s)) = s over the moved
/// slots; `index_map` becomes the identity over [0, cnt); finally
/// count = span = cnt and fire = 0.
///
/// `planes...` are rank-1 Views of n elements of any trivially-copyable type of
/// 1, 2, 4, 8 or 16 bytes (double, int, Kokkos::Array<float, 4>, ...), moved
/// bit for bit, each aligned to its element size (a 16-byte element to 16
/// bytes); the mask View must be one of them (it moves with them). `perm` and
/// `inv` start as the identity (they are after a restore) and are maintained
/// by the reorders: they must not be modified in between.
/// `fire` may be an empty View (unconditional); otherwise the whole call is a
/// no-op on the device while fire == 0. `scratch`: a View of at least
/// reorder_scratch_bytes(n, widest plane) bytes; nothing is allocated.
/// O(n * planes). Throws std::invalid_argument for bad extents, a short
/// scratch, overlapping planes or a mask not among the planes.
template <class ExecSpace, class MaskView, class PermView, class InvView, class MapView,
          class CountView, class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::IsView<SpanView>::value &&
                 Impl::IsView<FireView>::value>
reorder(const ExecSpace& exec, const MaskView& mask, std::uint32_t flags, const PermView& perm,
        const InvView& inv, const MapView& index_map, const CountView& count, const SpanView& span,
        const FireView& fire, const ScratchView& scratch, const Planes&... planes) {
  Impl::reorderOn(exec, mask, flags, perm, inv, index_map, count, span, fire, scratch, planes...);
}

/// sieve::reorder reading span and fire from a trigger (trigger.span,
/// trigger.fire), as the compaction left them.
template <class ExecSpace, class MaskView, class PermView, class InvView, class MapView,
          class CountView, class TriggerMemory, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reorder(const ExecSpace& exec, const MaskView& mask,
                                                   std::uint32_t flags, const PermView& perm,
                                                   const InvView& inv, const MapView& index_map,
                                                   const CountView& count,
                                                   const Trigger<TriggerMemory>& trigger,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  // A trigger's fire word gates the reorder: it must exist (an empty View would
  // silently mean "unconditional").
  Impl::checkWord("sieve::reorder", trigger.fire, "trigger.fire");
  Impl::checkWord("sieve::reorder", trigger.span, "trigger.span");
  Impl::reorderOn(exec, mask, flags, perm, inv, index_map, count, trigger.span, trigger.fire,
                  scratch, planes...);
}

/// sieve::reorder on a default instance of the mask's execution space; fences it.
template <class MaskView, class PermView, class InvView, class MapView, class CountView,
          class SpanView, class FireView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value && Impl::IsView<SpanView>::value &&
                 Impl::IsView<FireView>::value>
reorder(const MaskView& mask, std::uint32_t flags, const PermView& perm, const InvView& inv,
        const MapView& index_map, const CountView& count, const SpanView& span,
        const FireView& fire, const ScratchView& scratch, const Planes&... planes) {
  const typename MaskView::execution_space exec{};
  reorder(exec, mask, flags, perm, inv, index_map, count, span, fire, scratch, planes...);
  Impl::fence(exec, "reorder");
}

/// sieve::reorder with a trigger on a default instance; fences it.
template <class MaskView, class PermView, class InvView, class MapView, class CountView,
          class TriggerMemory, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<MaskView>::value> reorder(
    const MaskView& mask, std::uint32_t flags, const PermView& perm, const InvView& inv,
    const MapView& index_map, const CountView& count, const Trigger<TriggerMemory>& trigger,
    const ScratchView& scratch, const Planes&... planes) {
  const typename MaskView::execution_space exec{};
  reorder(exec, mask, flags, perm, inv, index_map, count, trigger, scratch, planes...);
  Impl::fence(exec, "reorder");
}

/// Undo every reorder since the last restore, asynchronously on `exec`:
/// sample i back at slot i in every plane (a gather through `inv` over all
/// n slots, n = the planes' extent), then perm = inv = identity over [0, n). The index map, count
/// and span are not touched. `perm` / `inv` must be as the reorders left them
/// (or the identity). Scratch and planes as sieve::reorder. O(n * planes).
/// Throws std::invalid_argument as sieve::reorder.
template <class ExecSpace, class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> restore(const ExecSpace& exec, const PermView& perm,
                                                   const InvView& inv, const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::restoreOn(exec, perm, inv, scratch, planes...);
}

/// sieve::restore on a default instance of perm's execution space; fences it.
template <class PermView, class InvView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> restore(const PermView& perm, const InvView& inv,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename PermView::execution_space exec{};
  restore(exec, perm, inv, scratch, planes...);
  Impl::fence(exec, "restore");
}

} // namespace sieve
