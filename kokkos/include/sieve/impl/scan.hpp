// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the body of sieve::inclusive_scan / exclusive_scan: the
// optional arguments sorted out, the checks (compile time, then run time) and
// one dispatch to the scan face of the execution space. The public overloads
// are in <sieve/scan.hpp>; internal callers (sieve::keys) use scanEntry here.
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

/// The compile-time facts of one scan call: the value type, where each
/// optional argument is, the types of the operator, scratch and total.
template <bool Inclusive, class Exec, class In, class Out, class... Args>
struct ScanCall {
  static constexpr bool inclusive = Inclusive;
  static constexpr const char* fn = Inclusive ? "sieve::inclusive_scan" : "sieve::exclusive_scan";
  static constexpr bool views = IsView<In>::value && IsView<Out>::value;
  using T = typename Safe<Out>::value;
  using A = ScanArgs<Inclusive, std::conditional_t<views, T, int>, Args...>;
  /// The optional arguments are well formed (their positions can be used).
  static constexpr bool argsOk = views && A::noBad && A::initFirstOk && A::ordered();
  using Op =
      std::decay_t<decltype(argOr<A::op>(std::declval<Sum>(), std::declval<const Args&>()...))>;
  using Scratch = std::decay_t<decltype(argOr<A::scratch>(kNone, std::declval<const Args&>()...))>;
  using Total = std::decay_t<decltype(argOr<A::total>(kNone, std::declval<const Args&>()...))>;
  static constexpr bool hasScratch = !std::is_same_v<Scratch, None>;
  static constexpr bool hasTotal = !std::is_same_v<Total, None>;
  static constexpr bool hasInit = A::init >= 0;
  /// Whether the fold starts from a value: init, or else the operator's
  /// identity. Unseeded (an inclusive scan whose operator has no identity,
  /// without init), the first element starts it, as std::inclusive_scan(first,
  /// last, d, op): out(0) = in(0), out(i) = out(i-1) (+) in(i).
  static constexpr bool seeded = hasInit || HasIdentity<Op, T>::value;
  static constexpr bool scratchOk = !hasScratch || kViewOf<Exec, Scratch, 1, T, true>;
  static constexpr bool totalOk = !hasTotal || kViewOf<Exec, Total, 0, T, true>;
};

/// Step 1 of a scan: every compile-time check, each with its own message.
/// True when the call is well formed (and only then is the rest compiled).
template <class C, class Exec, class In, class Out>
constexpr bool scanStaticChecks() {
  using T = typename C::T;
  using A = typename C::A;
  constexpr bool views = C::views;
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
  static_assert(!C::inclusive || A::initFirstOk,
                "sieve::inclusive_scan: the argument after 'out' is a value, not an operator. "
                "The order is inclusive_scan(exec, in, out, op, init), as std::inclusive_scan: "
                "pass the operator (callable as T(T, T)) before init");
  static_assert(C::inclusive || A::initFirstOk,
                "sieve::exclusive_scan: init is required and comes right after 'out', before the "
                "operator: exclusive_scan(exec, in, out, init[, op]), as std::exclusive_scan");
  static_assert(A::noBad,
                "sieve::*_scan: an argument after 'out' is neither an operator callable as T(T, "
                "T), a value convertible to T, a rank-1 scratch View nor a rank-0 total View");
  static_assert(!A::noBad || !A::initFirstOk || A::ordered(),
                "sieve::*_scan: the optional arguments come in this order: inclusive_scan(exec, "
                "in, out[, op[, init]][, scratch][, total]) / exclusive_scan(exec, in, out, init[, "
                "op][, scratch][, total])");
  if constexpr (C::argsOk) {
    static_assert(C::scratchOk,
                  "sieve::*_scan: scratch must be a writable rank-1 View of the scan's value "
                  "type, accessible from the execution space");
    static_assert(C::totalOk,
                  "sieve::*_scan: total must be a writable rank-0 View of the scan's value "
                  "type, accessible from the execution space");
    // An exclusive scan always has its init (initFirstOk above: std's rule,
    // even for an operator with identity). Without init, an inclusive scan
    // starts from the operator's identity, or from in(0) when it has none.
    static_assert(C::inclusive || C::seeded,
                  "sieve::exclusive_scan: init is required (out(0) is init)");
    return C::scratchOk && C::totalOk;
  } else {
    return false;
  }
}

/// Step 2 of a scan: every run-time check of the arguments (nothing is
/// enqueued before they pass). Returns n. The overlap checks of the arrays
/// follow in the dispatch, on the pointers the face uses.
template <class C, class In, class Out, class Scratch, class Total>
std::int64_t scanRunChecks(const In& in, const Out& out, const Scratch& scratch,
                           const Total& total) {
  const std::int64_t n = extent64(in);
  checkSamples(C::fn, n, "in.extent(0)");
  if (extent64(out) != n)
    fail(C::fn, "out.extent(0) = " + std::to_string(out.extent(0)) +
                    " differs from in.extent(0) = " + std::to_string(n));
  if constexpr (C::hasTotal) checkWord(C::fn, total, "total");
  if constexpr (C::hasScratch) {
    const std::int64_t need = scanScratchElems(n);
    if (extent64(scratch) < need)
      fail(C::fn, "scratch.extent(0) = " + std::to_string(scratch.extent(0)) +
                      "; scan_scratch_size<T>(n) = " + std::to_string(need) +
                      " are needed for n = " + std::to_string(n));
    if (n > 0 && !contiguous(scratch)) fail(C::fn, "scratch must be a contiguous View");
  }
  (void)scratch;
  (void)total;
  return n;
}

/// total = in(n-1) before an exclusive scan (it may run in place), and the
/// total from out(n-1) after it; total = init when n == 0 (T{} for an
/// unseeded scan, whose `init` is T{}). On the OpenMP face
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

/// Step 3 of a scan: the block sums (the caller's scratch, or an allocation
/// of its own, freed after a fence), the last check (no array overlaps
/// another), then the call's claims and region (runCall) and, on the face of
/// the execution space, the total and the face's scan.
template <class C, class Exec, class In, class Out, class Op, class T, class Scratch, class Total>
void scanDispatch(const Names& names, const Exec& exec, const In& in, const Out& out, const Op& op,
                  const T& init, const Scratch& scratch, const Total& total, std::int64_t n) {
  constexpr bool Inclusive = C::inclusive;
  const bool contiguousViews = contiguous(in) && contiguous(out);
  auto run = [&](T* sums, std::int64_t sumsElems) {
    checkScan(C::fn, in.data(), out.data(), sums, n, in.stride(0), out.stride(0), sumsElems);
    runCall<Exec, Primitive::Scan>(
        C::fn, names, contiguousViews, {{out.data(), "out"}, {sums, "scratch"}}, [&](auto tag) {
          constexpr Face F = decltype(tag)::value;
          if constexpr (C::hasTotal) {
            if (!Inclusive && n > 0)
              scanTotal<Inclusive, true, F>(exec, names, in, out, total, op, init, n);
          }
          if (n > 0)
            Faces<F>::template scan<Inclusive, C::seeded>(exec, names, in, out, op, init, sums, n);
          if constexpr (C::hasTotal)
            scanTotal<Inclusive, false, F>(exec, names, in, out, total, op, init, n);
        });
  };
  if constexpr (C::hasScratch) {
    run(scratch.data(), extent64(scratch));
  } else {
    const std::int64_t need = scanScratchElems(n);
    auto own = allocate<Kokkos::View<T*, typename Exec::memory_space>>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("block_sums")),
        static_cast<std::size_t>(need));
    run(own.data(), need);
    // The block sums are freed on return: wait for the kernels that use
    // them (a free without a fence could race them on an asynchronous
    // space). Pass a scratch View to keep the call asynchronous.
    fence(exec,
          std::string(Inclusive ? "inclusive_scan" : "exclusive_scan") + ": block sums freed");
  }
}

/// The body of every scan entry point: the compile-time checks, the
/// optional arguments picked out, the run-time checks, then one dispatch.
template <bool Inclusive, class Exec, class In, class Out, class... Args>
void scanEntry(const Names& names, const Exec& exec, const In& in, const Out& out,
               const Args&... args) {
  using C = ScanCall<Inclusive, Exec, In, Out, Args...>;
  if constexpr (scanStaticChecks<C, Exec, In, Out>()) {
    using T = typename C::T;
    using Op = typename C::Op;
    using A = typename C::A;
    const Op op = argOr<A::op>(Sum{}, args...);
    // The fold's seed: init, or the operator's identity; unseeded, T{}
    // (unused by the faces; the total of an empty scan).
    const T init = [&] {
      if constexpr (C::hasInit) return static_cast<T>(argOr<A::init>(0, args...));
      else if constexpr (C::seeded) return identityOf<Op, T>();
      else return T{};
    }();
    const auto& scratch = argOr<A::scratch>(kNone, args...);
    const auto& total = argOr<A::total>(kNone, args...);
    const std::int64_t n = scanRunChecks<C>(in, out, scratch, total);
    scanDispatch<C>(names, exec, in, out, op, init, scratch, total, n);
  }
}

/// The fencing forms: a default instance of `in`'s space, the total returned.
template <bool Inclusive, class In, class Out, class... Args>
auto scanFenced(const Names& names, const In& in, const Out& out, const Args&... args) {
  using T = typename Safe<Out>::value;
  if constexpr (IsView<In>::value && IsView<Out>::value && !std::is_void_v<T>) {
    using Exec = typename In::execution_space;
    const Exec exec{};
    auto total = allocate<Kokkos::View<T, typename Exec::memory_space>>(names("total"));
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
} // namespace sieve
