// Sieve — sieve::inclusive_scan / sieve::exclusive_scan.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/native.hpp>
#include <sieve/impl/portable.hpp>

namespace sieve {
namespace Impl {

template <class Exec, class In, class Out>
constexpr void assertScanViews() {
  static_assert(IsView<In>::value && IsView<Out>::value, "sieve: scan input and output must be Kokkos::Views");
  static_assert(viewRank<In>() == 1 && viewRank<Out>() == 1,
                "sieve: scan input and output must be rank-1 Views");
  static_assert(std::is_same_v<ValueOf<In>, ValueOf<Out>>,
                "sieve: scan input and output must hold the same value type");
  static_assert(std::is_arithmetic_v<ValueOf<Out>> && !std::is_same_v<ValueOf<Out>, bool>,
                "sieve: scans take arithmetic value types other than bool");
  static_assert(kWritable<Out>, "sieve: the scan output is written: no const View");
  static_assert(kAccessible<Exec, In> && kAccessible<Exec, Out>,
                "sieve: the scan input or output is not accessible from the execution space");
}

/// Block-sum elements a scan of n needs on the backend that will run it.
template <class Exec, class T>
std::int64_t scanScratchElems(std::int64_t n, bool native) {
  constexpr Backend b = backendOf<Exec>();
  if (native && b == Backend::OpenMP) return cpu::Scan::blocksOf(n);
#if defined(SIEVE_KOKKOS_CUDA_SCAN)
  if (native && b == Backend::Cuda) return cuda::Scan::blockSumsElems<T>(n);
#endif
  return Portable::scanScratchElems(n);
}

template <bool Inclusive, class Exec, class In, class Out, class Op, class T>
void scanOn(const Exec& exec, const In& in, const Out& out, const Op& op, const T& init,
            T* blockSums, std::int64_t n, bool native) {
  constexpr Backend backend = backendOf<Exec>();
  Region region(Inclusive ? "inclusive_scan" : "exclusive_scan",
                native ? backend : Backend::Portable);
  if (native) {
    if constexpr (backend == Backend::OpenMP) {
      cpu::Scan::scan<T, Op, Inclusive>(hostTeamOf(exec), in.data(), out.data(), blockSums, n, init,
                                        op);
      return;
    }
#if defined(SIEVE_KOKKOS_CUDA_SCAN)
    if constexpr (backend == Backend::Cuda) {
      cuda::Scan::enqueue<T, Op, Inclusive>(in.data(), out.data(), blockSums, n, init,
                                            exec.cuda_stream(), op);
      return;
    }
#endif
  }
  Portable::scan<Inclusive>(exec, std::string("sieve::scan"), in, out, op, init, blockSums, n);
}

/// Marks "no caller scratch".
struct NoScratch {};

template <bool Inclusive, class Exec, class In, class Out, class Op, class Scratch>
void scanEntry(const Exec& exec, const In& in, const Out& out, const Op& op,
               const ValueOf<Out>& init, const Scratch* scratch) {
  using T = ValueOf<Out>;
  constexpr const char* fn = Inclusive ? "sieve::inclusive_scan" : "sieve::exclusive_scan";
  assertScanViews<Exec, In, Out>();
  const std::int64_t n = extent64(in);
  checkSamples(fn, n, "in.extent(0)");
  if (extent64(out) != n)
    fail(fn, "out.extent(0) = " + std::to_string(out.extent(0)) + " differs from in.extent(0) = " +
                 std::to_string(n));
  constexpr Backend backend = backendOf<Exec>();
#if defined(SIEVE_KOKKOS_CUDA_SCAN)
  constexpr bool haveNative = backend != Backend::Portable;
#else
  constexpr bool haveNative = backend == Backend::OpenMP; // cuda::Scan needs nvcc
#endif
  const bool native = haveNative && contiguous(in) && contiguous(out);
  if (n == 0) return;
  if constexpr (!std::is_same_v<Scratch, NoScratch>) {
    static_assert(IsView<Scratch>::value && viewRank<Scratch>() == 1,
                  "sieve: scan scratch must be a rank-1 View");
    static_assert(std::is_same_v<typename Scratch::value_type, T>,
                  "sieve: scan scratch must be a non-const View of the scan's value type");
    static_assert(kAccessible<Exec, Scratch>,
                  "sieve: scan scratch is not accessible from the execution space");
    (void)scratch;
    if (extent64(*scratch) < n)
      fail(fn, "scratch.extent(0) = " + std::to_string(scratch->extent(0)) +
                   " is smaller than n = " + std::to_string(n) +
                   "; block sums scratch holds at least n elements");
    if (!contiguous(*scratch)) fail(fn, "scratch must be a contiguous View");
    checkScan(fn, in.data(), out.data(), scratch->data(), n, in.stride(0), out.stride(0),
              extent64(*scratch));
    scanOn<Inclusive>(exec, in, out, op, init, scratch->data(), n, native);
  } else {
    const std::int64_t elems = scanScratchElems<Exec, T>(n, native);
    Kokkos::View<T*, typename Exec::memory_space> own(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "sieve::scan::block_sums"),
        static_cast<std::size_t>(elems));
    checkScan(fn, in.data(), out.data(), own.data(), n, in.stride(0), out.stride(0), elems);
    scanOn<Inclusive>(exec, in, out, op, init, own.data(), n, native);
  }
}

} // namespace Impl

/// Inclusive scan `out(i) = init (+) in(0) (+) ... (+) in(i)` of rank-1 Views,
/// asynchronously on `exec`. `op` is an associative functor callable on the
/// execution space (sieve::Sum, Min, Max or a user's); `init` defaults to its
/// identity. `out` may be `in` (in place). Without `scratch` the call
/// allocates its block sums (labelled "sieve::scan::block_sums"); with a
/// `scratch` View of at least n elements of the value type it allocates
/// nothing. Integer results are bit-identical on every backend. O(n) work.
/// Throws std::invalid_argument for mismatched extents, a short scratch, or
/// overlapping arrays.
template <class ExecSpace, class InView, class OutView, class Op = Sum>
std::enable_if_t<Impl::kIsExec<ExecSpace>> inclusive_scan(
    const ExecSpace& exec, const InView& in, const OutView& out, const Op& op = Op(),
    const Impl::ValueOf<OutView>& init = identityOf<Op, Impl::ValueOf<OutView>>()) {
  Impl::scanEntry<true>(exec, in, out, op, init, static_cast<const Impl::NoScratch*>(nullptr));
}

/// Inclusive scan with caller scratch (allocation-free).
template <class ExecSpace, class InView, class OutView, class Op, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> inclusive_scan(const ExecSpace& exec, const InView& in,
                                                          const OutView& out, const Op& op,
                                                          const Impl::ValueOf<OutView>& init,
                                                          const ScratchView& scratch) {
  Impl::scanEntry<true>(exec, in, out, op, init, &scratch);
}

/// Exclusive scan `out(0) = init`, `out(i) = init (+) in(0) (+) ... (+) in(i-1)`;
/// otherwise as sieve::inclusive_scan.
template <class ExecSpace, class InView, class OutView, class Op = Sum>
std::enable_if_t<Impl::kIsExec<ExecSpace>> exclusive_scan(
    const ExecSpace& exec, const InView& in, const OutView& out, const Op& op = Op(),
    const Impl::ValueOf<OutView>& init = identityOf<Op, Impl::ValueOf<OutView>>()) {
  Impl::scanEntry<false>(exec, in, out, op, init, static_cast<const Impl::NoScratch*>(nullptr));
}

/// Exclusive scan with caller scratch (allocation-free).
template <class ExecSpace, class InView, class OutView, class Op, class ScratchView>
std::enable_if_t<Impl::kIsExec<ExecSpace>> exclusive_scan(const ExecSpace& exec, const InView& in,
                                                          const OutView& out, const Op& op,
                                                          const Impl::ValueOf<OutView>& init,
                                                          const ScratchView& scratch) {
  Impl::scanEntry<false>(exec, in, out, op, init, &scratch);
}

/// The scans on a default instance of the input's execution space; they fence
/// that instance before returning.
template <class InView, class OutView, class Op = Sum>
std::enable_if_t<Impl::IsView<InView>::value> inclusive_scan(
    const InView& in, const OutView& out, const Op& op = Op(),
    const Impl::ValueOf<OutView>& init = identityOf<Op, Impl::ValueOf<OutView>>()) {
  const typename InView::execution_space exec{};
  inclusive_scan(exec, in, out, op, init);
  Impl::fence(exec, "inclusive_scan");
}
template <class InView, class OutView, class Op, class ScratchView>
std::enable_if_t<Impl::IsView<InView>::value> inclusive_scan(const InView& in, const OutView& out,
                                                             const Op& op,
                                                             const Impl::ValueOf<OutView>& init,
                                                             const ScratchView& scratch) {
  const typename InView::execution_space exec{};
  inclusive_scan(exec, in, out, op, init, scratch);
  Impl::fence(exec, "inclusive_scan");
}
template <class InView, class OutView, class Op = Sum>
std::enable_if_t<Impl::IsView<InView>::value> exclusive_scan(
    const InView& in, const OutView& out, const Op& op = Op(),
    const Impl::ValueOf<OutView>& init = identityOf<Op, Impl::ValueOf<OutView>>()) {
  const typename InView::execution_space exec{};
  exclusive_scan(exec, in, out, op, init);
  Impl::fence(exec, "exclusive_scan");
}
template <class InView, class OutView, class Op, class ScratchView>
std::enable_if_t<Impl::IsView<InView>::value> exclusive_scan(const InView& in, const OutView& out,
                                                             const Op& op,
                                                             const Impl::ValueOf<OutView>& init,
                                                             const ScratchView& scratch) {
  const typename InView::execution_space exec{};
  exclusive_scan(exec, in, out, op, init, scratch);
  Impl::fence(exec, "exclusive_scan");
}

} // namespace sieve
