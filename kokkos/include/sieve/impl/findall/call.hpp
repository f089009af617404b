// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — one sieve::findall call, in the steps every overload
// takes (sieve::Impl::findallEntry, <sieve/findall.hpp>): Call, what the
// call is from its argument types; staticChecks, its compile-time checks;
// checkInputs, the run-time checks of what it reads; callPlan, the
// algorithm resolved to a tile shape; checkOutputs, the run-time checks of
// what it writes (the workspace, into()); runCall, the phases (run.hpp);
// then findallEntry and findallFenced, which take them in turn.
//
// The option types are public (<sieve/findall.hpp>); this header declares
// them and knows them only through OptionOf, which it specializes for each.
#pragma once

#include <sieve/impl/common.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/findall/ordinal.hpp>
#include <sieve/impl/findall/plan.hpp>
#include <sieve/impl/findall/run.hpp>

#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sieve {

// The public option types (<sieve/findall.hpp>), known here through OptionOf.
struct LinearIndices;
template <class View>
struct Items;
template <class Result, class Count>
struct Into;
struct Auto;
struct ScanScatter;
struct Partitioned;
template <class ExecSpace>
class FindallWorkspace;

namespace Impl {

/// Whether T is the element count of the index form (an integer, not bool).
template <class T>
inline constexpr bool kFindallCount =
    std::is_integral_v<std::decay_t<T>> && !std::is_same_v<std::decay_t<T>, bool>;

namespace Findall {

/// The kinds of findall options.
enum class Opt { Items, Alg, Workspace, Into, Bad };

/// What an option type is: Bad unless specialized below for a public option
/// (linear: sieve::linear_indices; values: sieve::items(A); Alg options
/// convert to an Algorithm; a Workspace option names its execution space).
template <class T>
struct OptionOf {
  static constexpr Opt kind = Opt::Bad;
  static constexpr bool linear = false;
  static constexpr bool values = false;
  template <class Exec>
  static constexpr bool kForSpace = false;
};

/// What each public option type is.
template <Opt Kind, bool Linear = false, bool Values = false>
struct OptionIs {
  static constexpr Opt kind = Kind;
  static constexpr bool linear = Linear;
  static constexpr bool values = Values;
  template <class Exec>
  static constexpr bool kForSpace = false;
};
template <>
struct OptionOf<LinearIndices> : OptionIs<Opt::Items, true> {};
template <class V>
struct OptionOf<Items<V>> : OptionIs<Opt::Items, false, true> {};
template <class R, class C>
struct OptionOf<Into<R, C>> : OptionIs<Opt::Into> {};
template <>
struct OptionOf<Auto> : OptionIs<Opt::Alg> {
  static Algorithm algorithm(const Auto&) { return Algorithm{}; }
};
template <>
struct OptionOf<ScanScatter> : OptionIs<Opt::Alg> {
  template <class A> // (A = ScanScatter, complete where it is called)
  static Algorithm algorithm(const A& a) {
    return Algorithm{Algorithm::Which::ScanScatter, a.block_size, a.items_per_thread};
  }
};
template <>
struct OptionOf<Partitioned> : OptionIs<Opt::Alg> {
  static Algorithm algorithm(const Partitioned&) {
    return Algorithm{Algorithm::Which::Partitioned};
  }
};
template <class E>
struct OptionOf<FindallWorkspace<E>> : OptionIs<Opt::Workspace> {
  template <class Exec>
  static constexpr bool kForSpace = std::is_same_v<E, Exec>;
};

/// Whether A is a findall algorithm (sieve::Auto, ScanScatter or Partitioned).
template <class A>
inline constexpr bool kAlgorithm = OptionOf<A>::kind == Opt::Alg;

/// What one findall call is, from its argument types alone (safe on any
/// types: a wrong argument gives a readable static_assert, nothing else).
template <class Exec, class First, class... Args>
struct Call {
  /// The index form: the first argument is the element count n, then pred(i).
  static constexpr bool index = kFindallCount<First>;
  /// The predicate form: the first argument is neither a View nor a count.
  static constexpr bool pred = !IsView<First>::value && !index;
  static constexpr std::size_t from = pred || index ? 1 : 0; // the first option in Args
  using Input = std::conditional_t<pred, Nth<0, Args...>, First>;
  /// The index form's predicate.
  using IndexPred = std::conditional_t<index, Nth<0, Args...>, Absent>;
  static constexpr int rank = index ? 1 : Safe<Input>::rank;
  static constexpr std::size_t nopts = sizeof...(Args) >= from ? sizeof...(Args) - from : 0;
  static constexpr Opt kinds[sizeof...(Args) + 1] = {OptionOf<std::decay_t<Args>>::kind...,
                                                     Opt::Bad};
  static constexpr int count = static_cast<int>(sizeof...(Args));
  static constexpr int find(Opt k) {
    for (int i = static_cast<int>(from); i < count; ++i)
      if (kinds[i] == k) return i;
    return -1;
  }
  static constexpr int howMany(Opt k) {
    int c = 0;
    for (int i = static_cast<int>(from); i < count; ++i) c += kinds[i] == k ? 1 : 0;
    return c;
  }
  static constexpr bool noBad = howMany(Opt::Bad) == 0;
  static constexpr bool once = howMany(Opt::Items) <= 1 && howMany(Opt::Alg) <= 1 &&
                               howMany(Opt::Workspace) <= 1 && howMany(Opt::Into) <= 1;
  static constexpr int itemsAt = find(Opt::Items);
  static constexpr int algAt = find(Opt::Alg);
  static constexpr int wsAt = find(Opt::Workspace);
  static constexpr int intoAt = find(Opt::Into);
  static constexpr bool hasInto = intoAt >= 0;

  template <int I>
  using OptT =
      std::conditional_t<(I >= 0), Nth<static_cast<std::size_t>(I < 0 ? 0 : I), Args...>, Absent>;
  using ItemsOpt = OptT<itemsAt>;
  static constexpr bool linear = OptionOf<ItemsOpt>::linear;
  static constexpr bool values = OptionOf<ItemsOpt>::values;

  template <class O, bool = OptionOf<O>::values>
  struct ValuesOf {
    using type = void;
  };
  template <class O>
  struct ValuesOf<O, true> {
    using type = decltype(std::declval<O>().view);
  };
  using ValuesView = typename ValuesOf<ItemsOpt>::type;
  using ValueT = typename Safe<ValuesView>::value;

  using IndexT = std::conditional_t < rank == 1 ||
                 rank<0, std::int64_t,
                      Kokkos::Array<std::int64_t, static_cast<std::size_t>(rank < 0 ? 0 : rank)>>;
  using Item =
      std::conditional_t<values, std::conditional_t<std::is_void_v<ValueT>, std::int64_t, ValueT>,
                         std::conditional_t<linear, std::int64_t, IndexT>>;

  template <class E, bool = kIsExec<E>>
  struct ResultOf {
    using type = void;
  };
  template <class E>
  struct ResultOf<E, true> {
    using type = Kokkos::View<Item*, Kokkos::LayoutRight, typename E::memory_space>;
  };
  using Result = typename ResultOf<Exec>::type;
  /// What the asynchronous (instance) form returns.
  using type = std::conditional_t<hasInto, void, Result>;
  /// What the fencing form returns.
  using fenced = std::conditional_t<hasInto, std::int64_t, Result>;

  /// The workspace option's type (Absent without one).
  using Ws = OptT<wsAt>;

  /// The into option's Views.
  template <class O, bool = OptionOf<O>::kind == Opt::Into>
  struct IntoOf {
    using R = void;
    using C = void;
  };
  template <class O>
  struct IntoOf<O, true> {
    using R = decltype(std::declval<O>().result);
    using C = decltype(std::declval<O>().count);
  };
  using IntoR = typename IntoOf<OptT<intoAt>>::R;
  using IntoC = typename IntoOf<OptT<intoAt>>::C;
  /// into() may take an int32 result: rank-1 indices or linear indices.
  static constexpr bool narrowable = !values && (linear || rank == 1);
  /// into() takes a result of the item type, or int32 where narrowable.
  template <class E>
  static constexpr bool intoResultOk() {
    return kViewOf<E, IntoR, 1, Item, true> ||
           (narrowable && kViewOf<E, IntoR, 1, std::int32_t, true>);
  }
  /// The result is int32 indices (narrowed from int64).
  static constexpr bool narrow =
      hasInto && narrowable && std::is_same_v<typename Safe<IntoR>::value, std::int32_t>;
};

template <class P, class T, class = void>
struct PredOn {
  static constexpr bool callable = false;
  static constexpr bool returnsBool = false;
};
template <class P, class T>
struct PredOn<P, T, std::enable_if_t<std::is_invocable_v<const P&, const T&>>> {
  static constexpr bool callable = true;
  static constexpr bool returnsBool =
      std::is_same_v<std::invoke_result_t<const P&, const T&>, bool>;
};

/// The element count of the index form, checked (>= 0, fits int64).
template <class N>
std::int64_t findallCount(const char* fn, const N& n) {
  if constexpr (std::is_signed_v<N>) {
    if (n < 0) fail(fn, "n = " + std::to_string(n) + " is negative; it must be >= 0");
  } else {
    if (static_cast<std::uint64_t>(n) > static_cast<std::uint64_t>(INT64_MAX))
      fail(fn, "n = " + std::to_string(n) + " exceeds INT64_MAX");
  }
  return static_cast<std::int64_t>(n);
}

/// The mask or view of a call (not the index form).
template <class C, class First, class... Args>
const typename C::Input& inputOf(const First& first, const Args&... args) {
  if constexpr (C::pred) return nth<0>(args...);
  else return first;
}

/// Step 1, the compile-time checks: readable assertions, then whether the
/// call is well-formed (nothing else is compiled when it is not).
template <class C, class Exec, class First>
constexpr bool staticChecks() {
  using Input = typename C::Input;
  using T = typename Safe<Input>::value;
  using IndexPred = typename C::IndexPred;
  constexpr bool inputView = IsView<Input>::value;
  // --- the input
  static_assert(C::pred || C::index || std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>,
                "sieve::findall: mask values must be bool (or std::uint8_t, read as bool)");
  static_assert(!C::pred || inputView,
                "sieve::findall: the argument after a predicate must be a Kokkos::View "
                "(findall([label,] exec, pred, view[, options]))");
  static_assert(!inputView || Safe<Input>::template accessible<Exec>(),
                "sieve::findall: the mask (or view) is not accessible from the execution space");
  static_assert(!C::pred || !inputView || PredOn<First, T>::callable,
                "sieve::findall: the predicate must be callable with an element of the view");
  static_assert(
      !C::pred || !inputView || !PredOn<First, T>::callable || PredOn<First, T>::returnsBool,
      "sieve::findall: the predicate must return bool (compare explicitly, e.g. x > 0, "
      "instead of returning a number)");
  static_assert(!C::index || PredOn<IndexPred, std::int64_t>::callable,
                "sieve::findall: the index predicate must be callable as pred(std::int64_t i) "
                "(findall([label,] exec, n, pred[, options]))");
  static_assert(!C::index || !PredOn<IndexPred, std::int64_t>::callable ||
                    PredOn<IndexPred, std::int64_t>::returnsBool,
                "sieve::findall: the index predicate must return bool (compare explicitly, e.g. "
                "x(i) > 0, instead of returning a number)");
  // --- the options
  static_assert(C::noBad,
                "sieve::findall: an option is none of sieve::linear_indices, sieve::items(A), "
                "sieve::Auto{}, sieve::ScanScatter{block_size, items_per_thread}, "
                "sieve::Partitioned{}, a sieve::FindallWorkspace or sieve::into(result, count)");
  static_assert(C::once,
                "sieve::findall: each kind of option (items, algorithm, workspace, into) "
                "may be given at most once");
  using ValuesView = typename C::ValuesView;
  static_assert(!C::values || Safe<ValuesView>::template accessible<Exec>(),
                "sieve::findall: items(A): A must be a Kokkos::View accessible from the execution "
                "space");
  constexpr bool wsOk = C::wsAt < 0 || OptionOf<typename C::Ws>::template kForSpace<Exec>;
  static_assert(wsOk,
                "sieve::findall: the workspace was made for another execution space "
                "(FindallWorkspace<ExecSpace> must match the instance's type)");
  using IntoC = typename C::IntoC;
  static_assert(!C::hasInto || C::template intoResultOk<Exec>(),
                "sieve::findall: into(result, count): result must be a writable rank-1 View of "
                "the item type (int64 indices for rank 1, Kokkos::Array<int64, R> for rank R, "
                "int64 linear indices, or the items View's value type; std::int32_t also for "
                "rank-1 and linear indices), accessible from the execution space");
  static_assert(!C::hasInto || kViewOf<Exec, IntoC, 0, std::int64_t, true>,
                "sieve::findall: into(result, count): count must be a writable rank-0 View of "
                "std::int64_t accessible from the execution space");
  constexpr bool inputOk =
      C::index ? PredOn<IndexPred, std::int64_t>::returnsBool
               : inputView && Safe<Input>::template accessible<Exec>() &&
                     (C::pred ? PredOn<First, T>::returnsBool
                              : (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>));
  return inputOk && C::noBad && C::once &&
         (!C::values || Safe<ValuesView>::template accessible<Exec>()) && wsOk &&
         (!C::hasInto ||
          (C::template intoResultOk<Exec>() && kViewOf<Exec, IntoC, 0, std::int64_t, true>));
}

/// Step 2, the run-time checks of what the call reads: returns the element
/// count n; appends the input Views to `arrays` (for the overlap check).
/// Throws for a negative count, items of another size, or an int32 result
/// that cannot hold the largest index.
template <class C, class First, class... Args>
std::int64_t checkInputs(const char* fn, std::vector<ArrayBytes>& arrays, const First& first,
                         const Args&... args) {
  std::int64_t n = 0;
  if constexpr (C::index) {
    n = findallCount(fn, first);
  } else {
    const auto& input = inputOf<C>(first, args...);
    n = size64(input);
    arrays.push_back(viewBytes(C::pred ? "view" : "mask", input));
  }
  if constexpr (C::values) {
    const auto& a = nth<C::itemsAt>(args...).view;
    if (size64(a) != n)
      fail(fn, "items(A): A has " + std::to_string(size64(a)) +
                   " elements; it must have the input's size, " + std::to_string(n));
    arrays.push_back(viewBytes("items", a));
  }
  if constexpr (C::narrow) {
    if (n - 1 > static_cast<std::int64_t>(INT32_MAX))
      fail(fn,
           "into(result, count): result holds std::int32_t, but the largest index, n - 1 "
           "= " +
               std::to_string(n - 1) +
               ", exceeds INT32_MAX (2147483647); use a std::int64_t result");
  }
  return n;
}

/// Step 3, the plan: the call's algorithm (Auto without one) resolved to a
/// tile shape for n elements on exec, with its mask or bits regions. Throws
/// for an invalid ScanScatter, or Partitioned on a device space.
template <class C, class Exec, class... Args>
Plan callPlan(const char* fn, const Exec& exec, std::int64_t n, const Args&... args) {
  const Algorithm alg = [&]() {
    if constexpr (C::algAt >= 0) {
      using A = std::decay_t<Nth<static_cast<std::size_t>(C::algAt), Args...>>;
      return OptionOf<A>::algorithm(nth<C::algAt>(args...));
    } else {
      return Algorithm{};
    }
  }();
  Plan plan = planFor(fn, exec, alg, n);
  // A workspace of the call's own needs no mask region for the mask and
  // index forms; the caller's workspace always has one (so that one
  // workspace serves every form), and its regions are carved after it.
  plan.withMask = C::pred || C::wsAt >= 0;
  // The index form on host spaces: pred once per index, its answers kept
  // as bits (n / 8 bytes) between the count and the write phases, when
  // every tile holds whole 32-bit words (one thread per tile) — except for
  // into() with one tile, which counts as it writes (one pass, no bits).
  plan.withBits = C::index && kHostSpace<Exec> &&
                  (plan.tiles() <= 1 || plan.tileElems() % 32 == 0) &&
                  !(C::hasInto && plan.tiles() == 1);
  return plan;
}

/// Step 4, the run-time checks of what the call writes: the count word and
/// the result of into(), the caller's workspace (made for this plan), none
/// sharing a byte with another array of the call (`arrays`: the inputs,
/// then these). Returns the caller's workspace (null without one).
template <class C, class... Args>
const typename C::Ws* checkOutputs(const char* fn, const Plan& plan,
                                   std::vector<ArrayBytes>& arrays, const Args&... args) {
  const std::size_t written = arrays.size();
  if constexpr (C::hasInto) {
    const auto& o = nth<C::intoAt>(args...);
    checkWord(fn, o.count, "into(result, count): count");
    arrays.push_back(viewBytes("result", o.result));
    arrays.push_back(viewBytes("count", o.count));
  }
  const typename C::Ws* ws = nullptr;
  if constexpr (C::wsAt >= 0) {
    ws = &nth<C::wsAt>(args...);
    if (ws->size() < 0) fail(fn, "the workspace is empty (default-constructed)");
    if (!(ws->plan() == plan))
      fail(fn, "the workspace was made for " + ws->plan().describe() + "; this call is " +
                   plan.describe() + " (a workspace serves one call shape)");
    arrays.push_back(
        arrayBytes("workspace", ws->bytes().data(), static_cast<std::int64_t>(plan.bytes()), 1));
  }
  checkApart(fn, arrays, written, true,
             "the workspace, result and count must not share a byte with each other or with "
             "the inputs");
  return ws;
}

/// Step 5, the run: the workspace's regions (the caller's, or allocated for
/// the call), the predicate's mask, the count phase, then (returning a View)
/// the count read back, the result allocated (or the workspace's kept
/// buffer), the write phase; (into) count and write on the device. `arrays`
/// [0, inputs): the inputs, which a kept buffer must not overlap.
template <class C, class Exec, class First, class... Args>
typename C::type runCall(const Names& names, const Exec& exec, const Plan& plan,
                         const std::vector<ArrayBytes>& arrays, std::size_t inputs,
                         const typename C::Ws* ws, const First& first, const Args&... args) {
  using Mem = typename Exec::memory_space;
  using Input = typename C::Input;
  using IndexPred = typename C::IndexPred;
  const std::int64_t n = plan.n;
  Kokkos::View<unsigned char*, Mem> ownBytes;
  void* base = nullptr;
  if constexpr (C::wsAt < 0) {
    ownBytes = allocate<Kokkos::View<unsigned char*, Mem>>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("workspace")), plan.bytes());
    base = static_cast<void*>(ownBytes.data());
  } else {
    base = static_cast<void*>(ws->bytes().data());
  }
  const Regions r(base, plan);
  const CallRegion region(names, faceFor<Exec, Primitive::Select>(true));

  typename C::Result result;
  // f(items): the writer of the call's items (int32 for a narrowed result).
  const auto withItems = [&](auto&& f) {
    auto narrowed = [&](const auto& items) {
      if constexpr (C::narrow) f(Narrow32<std::decay_t<decltype(items)>>{items});
      else f(items);
    };
    if constexpr (C::values) {
      withReader(nth<C::itemsAt>(args...).view,
                 [&](const auto& at) { f(ValueItems<std::decay_t<decltype(at)>>{at}); });
    } else if constexpr (C::linear || C::index) {
      narrowed(LinearItems{}); // the index form's indices are its positions
    } else {
      constexpr int R = Safe<Input>::rank;
      using Un = Unravel<R, kLeftOrder<Input>>;
      narrowed(IndexItems<R, kLeftOrder<Input>>{Un::of(inputOf<C>(first, args...))});
    }
  };
  const auto run = [&](const auto& countKeep, const auto& keep) {
    if constexpr (C::hasInto) {
      const auto& o = nth<C::intoAt>(args...);
      withItems([&](const auto& items) {
        countAndWrite(exec, names, plan, r, countKeep, keep, items, o.result,
                      static_cast<std::int64_t>(o.result.extent(0)), o.count.data());
      });
    } else {
      const bool counted = countWord(exec, names, plan, r, countKeep, r.total);
      std::int64_t count = 0;
      const Kokkos::View<std::int64_t, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> w(r.total);
      Kokkos::deep_copy(exec, count, w);
      fence(exec, "findall: the count of the result");
      if constexpr (C::wsAt >= 0) {
        result = keptResult<typename C::Result>(exec, names, *ws->kept(), count, n, arrays.data(),
                                                inputs);
      } else {
        result = allocate<typename C::Result>(
            Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("result")),
            static_cast<std::size_t>(count));
        adviseHugePages(result);
      }
      withItems([&](const auto& items) {
        writePhase(exec, names, plan, r, keep, items, result, count, counted);
      });
    }
  };
  if constexpr (C::index) {
    if (plan.withBits) {
      auto* words = reinterpret_cast<std::uint32_t*>(r.mask);
      run(RecordKeep<IndexPred>{nth<0>(args...), words}, BitKeep{words});
    } else {
      const PredKeep<IndexPred> keep{nth<0>(args...)};
      run(keep, keep);
    }
  } else if constexpr (C::pred) {
    const auto& input = nth<0>(args...);
    bool fused = false;
    if constexpr (C::hasInto) {
      // A face that evaluates the predicate inside its selection (a host
      // face block by block, in the cache; a device face in its kernel): no
      // n-byte mask written and reread.
      const auto& o = nth<C::intoAt>(args...);
      withReader(input, [&](const auto& at) {
        const PredFill<std::decay_t<decltype(first)>, std::decay_t<decltype(at)>> from{first, at};
        withItems([&](const auto& items) {
          fused = selectNative<Primitive::SelectFilled>(
              exec, names, r, n, from, items, o.result,
              static_cast<std::int64_t>(o.result.extent(0)), o.count.data());
        });
      });
    }
    if (!fused) {
      if (n > 0) fillMask(exec, names, first, input, r.mask, n);
      run(ByteKeep{r.mask}, ByteKeep{r.mask});
    }
  } else {
    withMaskKeep(first, [&](const auto& keep) { run(keep, keep); });
  }
  // A workspace of its own is freed on return: wait for the kernels that use it.
  if constexpr (C::wsAt < 0) fence(exec, "findall: workspace freed");
  if constexpr (!C::hasInto) return result;
}

/// The execution space of a fencing call: the input View's, or
/// Kokkos::DefaultExecutionSpace for the index form (void if neither).
template <class First, class... Args>
struct FencedExec {
  using Input = std::conditional_t<IsView<First>::value, First, Nth<0, Args...>>;
  template <class I, bool = IsView<I>::value>
  struct Of {
    using type = void;
  };
  template <class I>
  struct Of<I, true> {
    using type = typename I::execution_space;
  };
  using type = std::conditional_t<kFindallCount<First>, Kokkos::DefaultExecutionSpace,
                                  typename Of<Input>::type>;
};

template <class T>
inline constexpr bool kLabelLike = std::is_convertible_v<const T&, std::string>;

/// What the instance forms return.
template <class E, class First, class... Args>
using Return = typename Call<E, First, Args...>::type;

/// What the fencing forms return.
template <class First, class... Args>
struct FencedReturn {
  using Exec = typename FencedExec<First, Args...>::type;
  template <class E, bool = kIsExec<E>>
  struct Of {
    using type = void;
  };
  template <class E>
  struct Of<E, true> {
    using type = typename Call<E, First, Args...>::fenced;
  };
  using type = typename Of<Exec>::type;
};

} // namespace Findall

/// Every findall overload ends here: the compile-time checks (readable
/// assertions, then nothing else), the run-time checks of what the call
/// reads, its plan, the run-time checks of what it writes, then the run
/// (steps 1 to 5 above).
template <class Exec, class First, class... Args>
Findall::Return<Exec, First, Args...> findallEntry(const Names& names, const Exec& exec,
                                                   const First& first, const Args&... args) {
  constexpr const char* fn = "sieve::findall";
  using C = Findall::Call<Exec, First, Args...>;
  if constexpr (Findall::staticChecks<C, Exec, First>()) {
    checkKernelsAllowed<Exec>(fn);
    std::vector<ArrayBytes> arrays;
    const std::int64_t n = Findall::checkInputs<C>(fn, arrays, first, args...);
    const Findall::Plan plan = Findall::callPlan<C>(fn, exec, n, args...);
    const std::size_t inputs = arrays.size();
    const auto* ws = Findall::checkOutputs<C>(fn, plan, arrays, args...);
    return Findall::runCall<C>(names, exec, plan, arrays, inputs, ws, first, args...);
  } else {
    if constexpr (!C::hasInto) return typename C::type{};
  }
}

/// The fencing forms: a default instance of the input's space.
template <class First, class... Args>
auto findallFenced(const Names& names, const First& first, const Args&... args) {
  using Exec = typename Findall::FencedExec<First, Args...>::type;
  using C = Findall::Call<Exec, First, Args...>;
  const Exec exec{};
  if constexpr (C::hasInto) {
    findallEntry(names, exec, first, args...);
    fence(exec, "findall: the call without an instance");
    std::int64_t value = 0;
    if constexpr (kViewOf<Exec, typename C::IntoC, 0, std::int64_t, true>)
      Kokkos::deep_copy(value, nth<C::intoAt>(args...).count);
    return value;
  } else {
    auto result = findallEntry(names, exec, first, args...);
    fence(exec, "findall: the call without an instance");
    return result;
  }
}

} // namespace Impl
} // namespace sieve
