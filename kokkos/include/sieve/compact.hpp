// Sieve — sieve::compact: stream compaction of a mask to an index map.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/native.hpp>
#include <sieve/impl/portable.hpp>
#include <sieve/trigger.hpp>

namespace sieve {

/// Bytes of scratch sieve::compact needs for `n` samples: three int32 planes
/// of max(n, 1). O(1). Throws std::invalid_argument for n < 0 or n > INT32_MAX.
inline std::size_t compact_scratch_bytes(std::int64_t n) {
  Impl::checkSamples("sieve::compact_scratch_bytes", n);
  return compactScratchBytes(n);
}

namespace Impl {

template <class Exec, class MaskView, class MapView, class CountView, class ScratchView>
void compactOn(const Exec& exec, const MaskView& mask, std::uint32_t flags, const MapView& map,
               const CountView& count, const ScratchView& scratch, const ReorderTrigger* trig) {
  constexpr const char* fn = "sieve::compact";
  assertMaskView<Exec, MaskView>();
  assertIndexView<Exec, MapView>("index_map");
  assertWordView<Exec, CountView>();
  assertScratchView<Exec, ScratchView>();
  const std::int64_t n = extent64(mask);
  checkSamples(fn, n, "mask.extent(0)");
  checkFlags(fn, flags);
  checkWord(fn, count, "count");
  if (extent64(map) < n)
    fail(fn, "index_map.extent(0) = " + std::to_string(map.extent(0)) +
                 " is smaller than mask.extent(0) = " + std::to_string(n));
  // An empty batch addresses no scratch: an empty View is fine then.
  checkScratch(fn, scratch, n == 0 ? 0 : compactScratchBytes(n), "compact_scratch_bytes(n)");
  checkCompact(fn, mask.data(), flags, map.data(), count.data(), scratch.data(), n, strideBytes(mask),
               strideBytes(map));

  constexpr Backend backend = backendOf<Exec>();
  const bool native = backend != Backend::Portable && contiguous(mask) && contiguous(map);
  Region region("compact", native ? backend : Backend::Portable);
  if (native) {
    if constexpr (backend == Backend::OpenMP) {
      compactHost(hostTeamOf(exec), mask.data(), flags, map.data(), count.data(), scratch.data(), n,
                  trig);
      return;
    }
#if defined(KOKKOS_ENABLE_CUDA) && SIEVE_HAVE_CUDA
    if constexpr (backend == Backend::Cuda) {
      compactDevice(mask.data(), flags, map.data(), count.data(), scratch.data(), n,
                    exec.cuda_stream(), trig);
      return;
    }
#endif
  }
  Portable::compact(exec, std::string("sieve::compact"), mask, flags, map, count.data(), scratch.data(), trig, n);
}

} // namespace Impl

/// Compact the samples of `mask` (rank-1 View of std::uint8_t) to an index map,
/// asynchronously on `exec`.
///
/// `index_map(0..count)` receives the kept sample indices in ascending order
/// (rank-1 View of std::int32_t, extent >= mask.extent(0)) and `count` (rank-0
/// View of std::uint32_t) their number; slots at or past the count are never
/// written. A non-zero mask byte keeps its sample, or drops it with
/// sieve::kCompactMaskIsDrop in `flags`. `scratch` is a View of bytes of at
/// least compact_scratch_bytes(n); the call allocates nothing.
///
/// Dispatch: Kokkos::OpenMP runs the OpenMP twins on the instance's threads
/// (synchronously), Kokkos::Cuda the native CUDA kernels on the instance's
/// stream, every other space (or strided Views) the portable Kokkos
/// implementation; all write the same words. O(n) work.
/// Throws std::invalid_argument (nothing enqueued) for a bad extent, flag,
/// scratch size or empty word View.
template <class ExecSpace, class MaskView, class MapView, class CountView, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const ExecSpace& exec, const MaskView& mask,
                                                   std::uint32_t flags, const MapView& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch) {
  Impl::compactOn(exec, mask, flags, index_map, count, scratch, nullptr);
}

/// sieve::compact that also computes the locality trigger: writes
/// trigger.live32 and trigger.fire, reads trigger.span (see sieve::Trigger).
/// Throws as above, and for empty trigger words or theta outside (0, 1).
template <class ExecSpace, class MaskView, class MapView, class CountView, class ScratchView,
          class TriggerMemory>
std::enable_if_t<Impl::kIsExec<ExecSpace>> compact(const ExecSpace& exec, const MaskView& mask,
                                                   std::uint32_t flags, const MapView& index_map,
                                                   const CountView& count,
                                                   const ScratchView& scratch,
                                                   const Trigger<TriggerMemory>& trigger) {
  const ReorderTrigger trig = Impl::nativeTrigger<ExecSpace>("sieve::compact", trigger);
  Impl::compactOn(exec, mask, flags, index_map, count, scratch, &trig);
}

/// sieve::compact on a default instance of the mask's execution space; fences
/// that instance before returning.
template <class MaskView, class MapView, class CountView, class ScratchView>
std::enable_if_t<Impl::IsView<MaskView>::value> compact(const MaskView& mask, std::uint32_t flags,
                                                        const MapView& index_map,
                                                        const CountView& count,
                                                        const ScratchView& scratch) {
  const typename MaskView::execution_space exec{};
  compact(exec, mask, flags, index_map, count, scratch);
  Impl::fence(exec, "compact");
}

/// sieve::compact with a trigger, on a default instance; fences it.
template <class MaskView, class MapView, class CountView, class ScratchView, class TriggerMemory>
std::enable_if_t<Impl::IsView<MaskView>::value> compact(const MaskView& mask, std::uint32_t flags,
                                                        const MapView& index_map,
                                                        const CountView& count,
                                                        const ScratchView& scratch,
                                                        const Trigger<TriggerMemory>& trigger) {
  const typename MaskView::execution_space exec{};
  compact(exec, mask, flags, index_map, count, scratch, trigger);
  Impl::fence(exec, "compact");
}

} // namespace sieve
