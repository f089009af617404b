// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::inclusive_scan / sieve::exclusive_scan.
//
//   inclusive_scan([label,] exec, in, out[, op[, init]][, scratch][, total])
//   exclusive_scan([label,] exec, in, out, init[, op][, scratch][, total])
//   T inclusive_scan([label,] in, out[, op[, init]][, scratch])   // fences, returns the total
//   T exclusive_scan([label,] in, out, init[, op][, scratch])     // fences, returns the total
//
// The argument order is the std one (std::inclusive_scan(first, last, d, op,
// init), std::exclusive_scan(first, last, d, init, op)). As with std, an
// inclusive scan needs no init nor identity: without both, in(0) starts the
// fold; an exclusive scan always takes init.
#pragma once

#include <sieve/impl/scan.hpp>

#include <string>
#include <type_traits>

namespace sieve {

// sieve::scan_scratch_size<T>(n), the block-sum scratch a scan of n elements
// needs, is defined with the internals in <sieve/impl/scan.hpp>.

/// Inclusive scan `out(i) = init (+) in(0) (+) ... (+) in(i)` of rank-1 Views,
/// asynchronously on `exec`: `inclusive_scan([label,] exec, in, out[, op[,
/// init]][, scratch][, total])`.
///
/// `op` is an associative functor callable as T(T, T) on the execution space
/// (sieve::Sum — the default —, Min, Max or a user's); `init` defaults to its
/// identity (`template <class T> static constexpr T identity()`). An
/// operator without identity needs no init: as std::inclusive_scan(first,
/// last, d, op), the first element starts the fold, `out(0) = in(0)`,
/// `out(i) = out(i-1) (+) in(i)`, with the folds of a scan from init, init
/// left out (nothing is read back: asynchronous as any other). `out` may be
/// `in` (in place). `scratch`: a rank-1 View of at
/// least scan_scratch_size<T>(n) elements of T; with it the call allocates
/// nothing and stays asynchronous (capture-safe on Cuda); without it the
/// block sums are allocated ("<label>::block_sums") and the call fences the
/// instance before freeing them. `total`: a rank-0 View of T that receives the fold
/// of init and every element (as Kokkos::parallel_scan's total), written
/// asynchronously (without init nor identity: the fold of every element, and
/// T{} when n == 0). Integer results are bit-identical on every backend;
/// floating-point ones are deterministic on each. O(n) work. Blocks on
/// Kokkos::OpenMP (the twins are synchronous) and without `scratch`;
/// asynchronous otherwise.
/// Throws std::invalid_argument (nothing enqueued) for mismatched extents, a
/// short or strided scratch, an empty total, or overlapping arrays.
/// A failed allocation (without scratch) or a throwing operator (host spaces)
/// leaves `in` as it was and `out` unspecified (docs/conventions.md).
template <class ExecSpace, class InView, class OutView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> inclusive_scan(const ExecSpace& exec, const InView& in,
                                                          const OutView& out, const Args&... args) {
  Impl::scanEntry<true>(Impl::Names("", "sieve::inclusive_scan"), exec, in, out, args...);
}

/// sieve::inclusive_scan with a label naming its profiling region and
/// prefixing its kernel and allocation labels.
template <class ExecSpace, class InView, class OutView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> inclusive_scan(const std::string& label,
                                                          const ExecSpace& exec, const InView& in,
                                                          const OutView& out, const Args&... args) {
  Impl::scanEntry<true>(Impl::Names(label, "sieve::inclusive_scan"), exec, in, out, args...);
}

/// sieve::inclusive_scan on a default instance of `in`'s execution space:
/// fences it and returns the total (as the `total` View: T{} for an empty
/// scan without init nor identity). Blocking.
template <class InView, class OutView, class... Args>
std::enable_if_t<Impl::IsView<InView>::value, Impl::ScanValueOf<OutView>> inclusive_scan(
    const InView& in, const OutView& out, const Args&... args) {
  return Impl::scanFenced<true>(Impl::Names("", "sieve::inclusive_scan"), in, out, args...);
}

/// The fencing sieve::inclusive_scan with a label.
template <class InView, class OutView, class... Args>
std::enable_if_t<Impl::IsView<InView>::value, Impl::ScanValueOf<OutView>> inclusive_scan(
    const std::string& label, const InView& in, const OutView& out, const Args&... args) {
  return Impl::scanFenced<true>(Impl::Names(label, "sieve::inclusive_scan"), in, out, args...);
}

/// Exclusive scan `out(0) = init`, `out(i) = init (+) in(0) (+) ... (+)
/// in(i-1)`, asynchronously on `exec`: `exclusive_scan([label,] exec, in,
/// out, init[, op][, scratch][, total])` (init required, before the
/// operator, as std::exclusive_scan, even when the operator has an
/// identity: a missing init is a compile-time error). `total` receives init
/// (+) every element. Otherwise as sieve::inclusive_scan.
template <class ExecSpace, class InView, class OutView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> exclusive_scan(const ExecSpace& exec, const InView& in,
                                                          const OutView& out, const Args&... args) {
  Impl::scanEntry<false>(Impl::Names("", "sieve::exclusive_scan"), exec, in, out, args...);
}

/// sieve::exclusive_scan with a label.
template <class ExecSpace, class InView, class OutView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> exclusive_scan(const std::string& label,
                                                          const ExecSpace& exec, const InView& in,
                                                          const OutView& out, const Args&... args) {
  Impl::scanEntry<false>(Impl::Names(label, "sieve::exclusive_scan"), exec, in, out, args...);
}

/// sieve::exclusive_scan on a default instance of `in`'s execution space:
/// fences it and returns the total. Blocking.
template <class InView, class OutView, class... Args>
std::enable_if_t<Impl::IsView<InView>::value, Impl::ScanValueOf<OutView>> exclusive_scan(
    const InView& in, const OutView& out, const Args&... args) {
  return Impl::scanFenced<false>(Impl::Names("", "sieve::exclusive_scan"), in, out, args...);
}

/// The fencing sieve::exclusive_scan with a label.
template <class InView, class OutView, class... Args>
std::enable_if_t<Impl::IsView<InView>::value, Impl::ScanValueOf<OutView>> exclusive_scan(
    const std::string& label, const InView& in, const OutView& out, const Args&... args) {
  return Impl::scanFenced<false>(Impl::Names(label, "sieve::exclusive_scan"), in, out, args...);
}

} // namespace sieve
