// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::inclusive_scan / sieve::exclusive_scan.
//
//   inclusive_scan([label,] exec, in, out[, op[, init]][, scratch][, total])
//   exclusive_scan([label,] exec, in, out, init[, op][, scratch][, total])
//   T inclusive_scan([label,] in, out[, op[, init]][, scratch])   // fences, returns the total
//   T exclusive_scan([label,] in, out, init[, op][, scratch])     // fences, returns the total
//
// The argument order is the std one (std::inclusive_scan(first, last, d, op,
// init), std::exclusive_scan(first, last, d, init, op)).
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/faces.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace sieve {

/// Elements of block-sum scratch a scan of `n` elements needs, on every
/// backend: about n / 1023 (sieve::scanScratchElems, blocks of 1024). A
/// scratch View of at least this many elements of the scan's value type makes
/// the scan allocation-free. O(log n). Throws std::invalid_argument for n < 0
/// or n > INT32_MAX.
template <class T>
std::size_t scan_scratch_size(std::int64_t n) {
  Impl::checkSamples("sieve::scan_scratch_size", n);
  return static_cast<std::size_t>(scanScratchElems(n));
}

namespace Impl {

/// What an argument after `out` is, for a scan of T.
enum class ScanArg { Op, Init, Scratch, Total, Bad };

template <class T, class A>
constexpr ScanArg scanArgKind() {
  if constexpr (IsView<A>::value) {
    if constexpr (static_cast<int>(A::rank) == 1) return ScanArg::Scratch;
    else if constexpr (static_cast<int>(A::rank) == 0) return ScanArg::Total;
    else return ScanArg::Bad;
  } else if constexpr (std::is_invocable_r_v<T, const A&, const T&, const T&>) {
    return ScanArg::Op;
  } else if constexpr (std::is_convertible_v<const A&, T>) {
    return ScanArg::Init;
  } else {
    return ScanArg::Bad;
  }
}

/// The shape of the optional arguments of one scan call: where each is, and
/// whether they come in the allowed order.
template <bool Inclusive, class T, class... Args>
struct ScanArgs {
  static constexpr std::size_t count = sizeof...(Args);
  static constexpr ScanArg kinds[count + 1] = {scanArgKind<T, Args>()..., ScanArg::Bad};

  static constexpr int find(ScanArg k) {
    for (int i = 0; i < static_cast<int>(count); ++i)
      if (kinds[i] == k) return i;
    return -1;
  }
  static constexpr int op = find(ScanArg::Op);
  static constexpr int init = find(ScanArg::Init);
  static constexpr int scratch = find(ScanArg::Scratch);
  static constexpr int total = find(ScanArg::Total);

  /// The allowed order: inclusive [op [init]] [scratch] [total];
  /// exclusive init [op] [scratch] [total]; each at most once.
  static constexpr bool ordered() {
    const ScanArg order[4] = {Inclusive ? ScanArg::Op : ScanArg::Init,
                              Inclusive ? ScanArg::Init : ScanArg::Op, ScanArg::Scratch,
                              ScanArg::Total};
    std::size_t at = 0;
    for (int i = 0; i < static_cast<int>(count); ++i) {
      while (at < 4 && order[at] != kinds[i]) ++at;
      if (at == 4) return false;
      ++at;
    }
    // An inclusive init needs the operator before it.
    return !Inclusive || init < 0 || op >= 0;
  }
  static constexpr bool noBad = find(ScanArg::Bad) < 0;
  /// The common mistake: the init of an inclusive scan passed before (or
  /// instead of) the operator, or an exclusive scan without an init first.
  static constexpr bool initFirstOk =
      Inclusive ? count == 0 || kinds[0] != ScanArg::Init : count > 0 && kinds[0] == ScanArg::Init;
};

template <int I, class Default, class... Args>
decltype(auto) argOr(const Default& d, const Args&... args) {
  if constexpr (I < 0) return (d);
  else return std::get<I>(std::forward_as_tuple(args...));
}

/// Marks "no caller scratch" / "no total".
struct None {};
inline constexpr None kNone{};

/// total = in(n-1) before an exclusive scan (it may run in place), and the
/// total from out(n-1) after it; total = init when n == 0. On the OpenMP face
/// (synchronous, host memory) directly, elsewhere as one-element kernels on
/// the instance.
template <bool Inclusive, bool Before, Face F, class Exec, class In, class Out, class Tot, class Op,
          class T>
void scanTotal(const Exec& exec, const Names& names, const In& in, const Out& out, const Tot& total,
               const Op& op, const T& init, std::int64_t n) {
  const Op f = op;
  const T i0 = init;
  onOneThread<F>(
      exec, names(Before ? "total_in" : "total"), KOKKOS_LAMBDA(const int) {
        if (n == 0) total() = i0;
        else if (Before) total() = in(n - 1);
        else total() = Inclusive ? out(n - 1) : f(out(n - 1), total());
      });
}

/// The body of every scan entry point: checks (static first, then run time),
/// then one dispatch.
template <bool Inclusive, class Exec, class In, class Out, class... Args>
void scanEntry(const Names& names, const Exec& exec, const In& in, const Out& out,
               const Args&... args) {
  constexpr const char* fn = Inclusive ? "sieve::inclusive_scan" : "sieve::exclusive_scan";
  using T = typename Safe<Out>::value;
  constexpr bool views = IsView<In>::value && IsView<Out>::value;
  static_assert(views, "sieve::*_scan: 'in' and 'out' must be Kokkos::Views");
  static_assert(!views || (Safe<In>::rank == 1 && Safe<Out>::rank == 1),
                "sieve::*_scan: 'in' and 'out' must be rank-1 Views");
  static_assert(!views || std::is_same_v<typename Safe<In>::value, T>,
                "sieve::*_scan: 'in' and 'out' must hold the same value type");
  static_assert(!views || (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>),
                "sieve::*_scan: scans take arithmetic value types other than bool (scan an "
                "integer type to count flags)");
  static_assert(!views || Safe<Out>::writable, "sieve::*_scan: 'out' is written: no const View");
  static_assert(
      !views || (Safe<In>::template accessible<Exec>() && Safe<Out>::template accessible<Exec>()),
      "sieve::*_scan: 'in' or 'out' is not accessible from the execution space");
  using A = ScanArgs<Inclusive, std::conditional_t<views, T, int>, Args...>;
  static_assert(!Inclusive || A::initFirstOk,
                "sieve::inclusive_scan: the argument after 'out' is a value, not an operator. "
                "The order is inclusive_scan(exec, in, out, op, init), as std::inclusive_scan: "
                "pass the operator (callable as T(T, T)) before init");
  static_assert(Inclusive || A::initFirstOk,
                "sieve::exclusive_scan: init is required and comes right after 'out', before the "
                "operator: exclusive_scan(exec, in, out, init[, op]), as std::exclusive_scan");
  static_assert(A::noBad,
                "sieve::*_scan: an argument after 'out' is neither an operator callable as T(T, "
                "T), a value convertible to T, a rank-1 scratch View nor a rank-0 total View");
  static_assert(!A::noBad || !A::initFirstOk || A::ordered(),
                "sieve::*_scan: the optional arguments come in this order: inclusive_scan(exec, "
                "in, out[, op[, init]][, scratch][, total]) / exclusive_scan(exec, in, out, init[, "
                "op][, scratch][, total])");
  constexpr bool argsOk = views && A::noBad && A::initFirstOk && A::ordered();
  if constexpr (argsOk) {
    using Scratch = std::decay_t<decltype(argOr<A::scratch>(kNone, args...))>;
    using Total = std::decay_t<decltype(argOr<A::total>(kNone, args...))>;
    constexpr bool hasScratch = !std::is_same_v<Scratch, None>;
    constexpr bool hasTotal = !std::is_same_v<Total, None>;
    if constexpr (hasScratch) {
      static_assert(kViewOf<Exec, Scratch, 1, T, true>,
                    "sieve::*_scan: scratch must be a writable rank-1 View of the scan's value "
                    "type, accessible from the execution space");
    }
    if constexpr (hasTotal) {
      static_assert(kViewOf<Exec, Total, 0, T, true>,
                    "sieve::*_scan: total must be a writable rank-0 View of the scan's value "
                    "type, accessible from the execution space");
    }
    using Op = std::decay_t<decltype(argOr<A::op>(std::declval<Sum>(), args...))>;
    const Op op = argOr<A::op>(Sum{}, args...);
    if constexpr (A::init < 0) {
      static_assert(HasIdentity<Op, T>::value,
                    "sieve::inclusive_scan: this operator has no identity(); pass init after it");
    }
    const T init = [&] {
      if constexpr (A::init >= 0) return static_cast<T>(argOr<A::init>(0, args...));
      else return identityOf<Op, T>();
    }();

    const std::int64_t n = extent64(in);
    checkSamples(fn, n, "in.extent(0)");
    if (extent64(out) != n)
      fail(fn, "out.extent(0) = " + std::to_string(out.extent(0)) +
                   " differs from in.extent(0) = " + std::to_string(n));
    const bool contiguousViews = contiguous(in) && contiguous(out);
    const std::int64_t need = scanScratchElems(n);
    const auto& total = argOr<A::total>(kNone, args...);
    if constexpr (hasTotal) checkWord(fn, total, "total");
    const Face face = faceFor<Exec, Primitive::Scan>(contiguousViews);
    const CallRegion region(names, face);

    dispatch<Exec, Primitive::Scan>(contiguousViews, [&](auto tag) {
      constexpr Face F = decltype(tag)::value;
      auto run = [&](T* sums, std::int64_t sumsElems) {
        checkScan(fn, in.data(), out.data(), sums, n, in.stride(0), out.stride(0), sumsElems);
        const CallClaims claims(fn, {out.data(), sums}, {"out", "scratch"});
        if constexpr (hasTotal) {
          if (!Inclusive && n > 0)
            scanTotal<Inclusive, true, F>(exec, names, in, out, total, op, init, n);
        }
        if (n > 0) Faces<F>::template scan<Inclusive>(exec, names, in, out, op, init, sums, n);
        if constexpr (hasTotal)
          scanTotal<Inclusive, false, F>(exec, names, in, out, total, op, init, n);
      };
      if constexpr (hasScratch) {
        const auto& scratch = argOr<A::scratch>(kNone, args...);
        if (extent64(scratch) < need)
          fail(fn, "scratch.extent(0) = " + std::to_string(scratch.extent(0)) +
                       "; scan_scratch_size<T>(n) = " + std::to_string(need) +
                       " are needed for n = " + std::to_string(n));
        if (n > 0 && !contiguous(scratch)) fail(fn, "scratch must be a contiguous View");
        run(scratch.data(), extent64(scratch));
      } else {
        Kokkos::View<T*, typename Exec::memory_space> own(
            Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("block_sums")),
            static_cast<std::size_t>(need));
        run(own.data(), need);
        // The block sums are freed on return: wait for the kernels that use
        // them (a free without a fence could race them on an asynchronous
        // space). Pass a scratch View to keep the call asynchronous.
        fence(exec,
              std::string(Inclusive ? "inclusive_scan" : "exclusive_scan") + ": block sums freed");
      }
    });
  }
}

/// The fencing forms: a default instance of `in`'s space, the total returned.
template <bool Inclusive, class In, class Out, class... Args>
auto scanFenced(const Names& names, const In& in, const Out& out, const Args&... args) {
  using T = typename Safe<Out>::value;
  if constexpr (IsView<In>::value && IsView<Out>::value && !std::is_void_v<T>) {
    using Exec = typename In::execution_space;
    const Exec exec{};
    Kokkos::View<T, typename Exec::memory_space> total(names("total"));
    scanEntry<Inclusive>(names, exec, in, out, args..., total);
    fence(exec, std::string(Inclusive ? "inclusive_scan" : "exclusive_scan") +
                    ": the call without an instance");
    T value{};
    Kokkos::deep_copy(value, total);
    return value;
  } else {
    scanEntry<Inclusive>(names, typename Kokkos::DefaultHostExecutionSpace{}, in, out, args...);
  }
}

template <class V>
using ScanValueOf = typename Safe<V>::value;

} // namespace Impl

/// Inclusive scan `out(i) = init (+) in(0) (+) ... (+) in(i)` of rank-1 Views,
/// asynchronously on `exec`: `inclusive_scan([label,] exec, in, out[, op[,
/// init]][, scratch][, total])`.
///
/// `op` is an associative functor callable as T(T, T) on the execution space
/// (sieve::Sum — the default —, Min, Max or a user's); `init` defaults to its
/// identity. `out` may be `in` (in place). `scratch`: a rank-1 View of at
/// least scan_scratch_size<T>(n) elements of T; with it the call allocates
/// nothing and stays asynchronous (capture-safe on Cuda); without it the
/// block sums are allocated ("<label>::block_sums") and the call fences the
/// instance before freeing them. `total`: a rank-0 View of T that receives the fold
/// of init and every element (as Kokkos::parallel_scan's total), written
/// asynchronously. Integer results are bit-identical on every backend;
/// floating-point ones are deterministic on each. O(n) work. Blocks on
/// Kokkos::OpenMP (the twins are synchronous) and without `scratch`;
/// asynchronous otherwise.
/// Throws std::invalid_argument (nothing enqueued) for mismatched extents, a
/// short or strided scratch, an empty total, or overlapping arrays.
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
/// fences it and returns the total. Blocking.
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
/// operator, as std::exclusive_scan). `total` receives init (+) every
/// element. Otherwise as sieve::inclusive_scan.
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
