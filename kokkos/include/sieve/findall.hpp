// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::findall: stream compaction of a mask or a predicate to
// indices or values, for Views of any rank and layout (seed 001,
// AcceleratedKernels.findall).
//
//   View findall([label,] exec, mask[, options...])          // blocks for the count
//   View findall([label,] exec, pred, view[, options...])
//   View findall([label,] exec, n, pred(i)[, options...])    // index form: i in [0, n)
//   void findall([label,] exec, input..., options..., into(result, count))  // asynchronous
//   View findall([label,] input...[, options...])             // default instance, fenced
//   int64 findall([label,] input..., options..., into(result, count))
//   (input...: mask | pred, view | n, pred; the index form's default instance is
//   Kokkos::DefaultExecutionSpace's)
//
// Options, in any order, each at most once:
//   items:     (default) the indices — int64 for rank 1 and the index form,
//              Kokkos::Array<int64, R> otherwise (rank 0 included); sieve::linear_indices —
//              ordinal positions (int64); sieve::items(A) — the values of A (A[mask] in one
//              pass), A of the input's size
//   algorithm: sieve::Auto{} (default), sieve::ScanScatter{block_size, items_per_thread},
//              sieve::Partitioned{} (host spaces)
//   workspace: a sieve::FindallWorkspace<ExecSpace> made for this call shape; the forms that
//              return a View then return a View into a result buffer the workspace keeps
//   into:      sieve::into(result, count) — write into the caller's View instead of a new one
//              (int64 or int32 result for rank-1 indices and linear indices)
//
// Ordinal order is the layout order: LayoutLeft walks the first index
// fastest, LayoutRight and LayoutStride the last index fastest (a
// LayoutStride View is ordered by its indices, whatever its strides).
#pragma once

#include <sieve/impl/args.hpp>
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

/// findall items: the ordinal positions (int64) of the selected elements.
struct LinearIndices {};
inline constexpr LinearIndices linear_indices{};

/// findall items: the values of a View of the input's size (any rank and
/// layout, read in its own ordinal order). Made by sieve::items(A).
template <class View>
struct Items {
  View view;
};

/// findall items: select the values of `view` (`findall(mask, items(A))` is
/// A[mask], in one pass). O(1).
template <class View>
Items<View> items(const View& view) {
  return Items<View>{view};
}

/// findall output: write the selected items to `result(0 .. count)` and their
/// number to the rank-0 View `count` (int64, left on the device), instead of
/// returning a new View. Made by sieve::into(result, count).
template <class Result, class Count>
struct Into {
  Result result;
  Count count;
};

/// findall output into the caller's Views (see sieve::Into). O(1).
template <class Result, class Count>
Into<Result, Count> into(const Result& result, const Count& count) {
  return Into<Result, Count>{result, count};
}

namespace Impl {
template <class A>
inline constexpr bool kFindallAlg =
    std::is_same_v<A, Auto> || std::is_same_v<A, ScanScatter> || std::is_same_v<A, Partitioned>;
} // namespace Impl

/// The scratch of sieve::findall for one call shape — execution space (and,
/// for Partitioned, its concurrency), element count and algorithm: the
/// predicate's mask (n bytes) and the tile counts with their scan; one
/// workspace serves the mask, predicate and index forms of its shape. With
/// sieve::into a call given it allocates nothing.
///
/// It also keeps a result buffer for the calls that return a View: such a
/// call returns a View into it (the usual type, Kokkos::View<Item*,
/// LayoutRight, MemSpace>, of exactly the selected length), grown when a
/// result does not fit (to max(count, 1.5 x its capacity), never more than
/// the n items a call can select; a call with another item type gets a new
/// buffer of its type) and reused otherwise, so that findall in a loop stops
/// allocating (and first-touching pages) once the buffer fits. The returned
/// View is valid until the next findall call with this workspace or any copy
/// of it (copies share the buffer and the scratch): that call overwrites it,
/// so its inputs — a predicate included — must not read it (a mask, view or
/// items View lying in the buffer is detected, and that call then takes a
/// fresh buffer). Copy the result (Kokkos::deep_copy) to keep it longer. The
/// buffer is freed with the last workspace copy and the last View into it.
///
/// A call of another shape, or one whose Views share a byte with the
/// workspace's scratch, throws std::invalid_argument. One call at a time.
template <class ExecSpace>
class FindallWorkspace {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using bytes_view = Kokkos::View<unsigned char*, memory_space>;

  /// An empty workspace (matches no call).
  FindallWorkspace() = default;

  /// Allocate the workspace of findall calls over `n` elements with algorithm
  /// `alg` (sieve::Auto, ScanScatter or Partitioned) on `exec`. Allocates
  /// bytes_for(exec, n, alg) bytes ("sieve::findall::workspace"), O(1) work.
  /// Throws std::invalid_argument for n < 0 or an invalid algorithm.
  template <class Alg = Auto>
  FindallWorkspace(const ExecSpace& exec, std::int64_t n, const Alg& alg = Alg{})
      : FindallWorkspace(std::string(), exec, n, alg) {}

  /// As above, with a label prefixing the allocation's ("<label>: sieve::findall::workspace").
  template <class Alg = Auto>
  FindallWorkspace(const std::string& label, const ExecSpace& exec, std::int64_t n,
                   const Alg& alg = Alg{})
      : plan_(makePlan(exec, n, alg)) {
    const Impl::Names names(label, "sieve::findall");
    bytes_ = bytes_view(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("workspace")),
                        plan_.bytes());
  }

  /// The workspace in the caller's bytes (at least bytes_for(exec, n, alg),
  /// 8-byte aligned): allocates nothing. Throws std::invalid_argument for a
  /// short or misaligned View, n < 0 or an invalid algorithm.
  template <class Alg>
  FindallWorkspace(const ExecSpace& exec, std::int64_t n, const Alg& alg, const bytes_view& bytes)
      : plan_(makePlan(exec, n, alg)), bytes_(bytes) {
    constexpr const char* fn = "sieve::FindallWorkspace";
    if (bytes.extent(0) < plan_.bytes())
      Impl::fail(fn, "bytes holds " + std::to_string(bytes.extent(0)) +
                         " bytes; bytes_for(exec, n, alg) = " + std::to_string(plan_.bytes()) +
                         " are needed");
    if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 8 != 0)
      Impl::fail(fn, "bytes is misaligned; it must be aligned to 8 bytes");
  }

  /// Bytes of the workspace of findall calls over `n` elements with `alg` on
  /// `exec`: n (the predicate's mask) plus about 8 per tile, 64-byte aligned regions. O(1). Throws
  /// as the constructor.
  template <class Alg = Auto>
  static std::size_t bytes_for(const ExecSpace& exec, std::int64_t n, const Alg& alg = Alg{}) {
    return makePlan(exec, n, alg).bytes();
  }

  /// The element count it was made for (-1 when empty).
  std::int64_t size() const { return bytes_.data() ? plan_.n : -1; }
  /// Its bytes.
  const bytes_view& bytes() const { return bytes_; }
  /// (internal) the call shape.
  const Impl::Findall::Plan& plan() const { return plan_; }
  /// (internal) the result buffer kept for the calls that return a View.
  const std::shared_ptr<Impl::Findall::KeptResult>& kept() const { return kept_; }

 private:
  template <class Alg>
  static Impl::Findall::Plan makePlan(const ExecSpace& exec, std::int64_t n, const Alg& alg) {
    static_assert(Impl::kFindallAlg<Alg>,
                  "sieve::FindallWorkspace: the algorithm must be sieve::Auto, sieve::ScanScatter "
                  "or sieve::Partitioned");
    if (n < 0) Impl::fail("sieve::FindallWorkspace", "n = " + std::to_string(n) + " is negative");
    return Impl::Findall::planFor("sieve::FindallWorkspace", exec, alg, n);
  }

  Impl::Findall::Plan plan_{};
  bytes_view bytes_{};
  std::shared_ptr<Impl::Findall::KeptResult> kept_ = std::make_shared<Impl::Findall::KeptResult>();
};

namespace Impl {

template <class T>
struct IsItems : std::false_type {};
template <class V>
struct IsItems<Items<V>> : std::true_type {};
template <class T>
struct IsInto : std::false_type {};
template <class R, class C>
struct IsInto<Into<R, C>> : std::true_type {};
template <class T>
struct IsFindallWs : std::false_type {};
template <class E>
struct IsFindallWs<FindallWorkspace<E>> : std::true_type {};

enum class FindallOpt { Items, Alg, Workspace, Into, Bad };

template <class A>
constexpr FindallOpt findallOptKind() {
  if constexpr (std::is_same_v<A, LinearIndices> || IsItems<A>::value) return FindallOpt::Items;
  else if constexpr (kFindallAlg<A>) return FindallOpt::Alg;
  else if constexpr (IsFindallWs<A>::value) return FindallOpt::Workspace;
  else if constexpr (IsInto<A>::value) return FindallOpt::Into;
  else return FindallOpt::Bad;
}

/// Whether T is the element count of the index form (an integer, not bool).
template <class T>
inline constexpr bool kFindallCount =
    std::is_integral_v<std::decay_t<T>> && !std::is_same_v<std::decay_t<T>, bool>;

/// What one findall call is, from its argument types alone (safe on any
/// types: a wrong argument gives a readable static_assert, nothing else).
template <class Exec, class First, class... Args>
struct FindallCall {
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
  static constexpr FindallOpt kinds[sizeof...(Args) + 1] = {findallOptKind<std::decay_t<Args>>()...,
                                                            FindallOpt::Bad};
  static constexpr int count = static_cast<int>(sizeof...(Args));
  static constexpr int find(FindallOpt k) {
    for (int i = static_cast<int>(from); i < count; ++i)
      if (kinds[i] == k) return i;
    return -1;
  }
  static constexpr int howMany(FindallOpt k) {
    int c = 0;
    for (int i = static_cast<int>(from); i < count; ++i) c += kinds[i] == k ? 1 : 0;
    return c;
  }
  static constexpr bool noBad = howMany(FindallOpt::Bad) == 0;
  static constexpr bool once = howMany(FindallOpt::Items) <= 1 && howMany(FindallOpt::Alg) <= 1 &&
                               howMany(FindallOpt::Workspace) <= 1 &&
                               howMany(FindallOpt::Into) <= 1;
  static constexpr int itemsAt = find(FindallOpt::Items);
  static constexpr int algAt = find(FindallOpt::Alg);
  static constexpr int wsAt = find(FindallOpt::Workspace);
  static constexpr int intoAt = find(FindallOpt::Into);
  static constexpr bool hasInto = intoAt >= 0;

  template <int I>
  using OptT =
      std::conditional_t<(I >= 0), Nth<static_cast<std::size_t>(I < 0 ? 0 : I), Args...>, Absent>;
  using ItemsOpt = OptT<itemsAt>;
  static constexpr bool linear = std::is_same_v<ItemsOpt, LinearIndices>;
  static constexpr bool values = IsItems<ItemsOpt>::value;

  template <class O, bool = IsItems<O>::value>
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

  /// The into option's Views.
  template <class O, bool = IsInto<O>::value>
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

/// The bytes a View's elements cover from its data pointer (coveredBytes:
/// exact, for strided Views too).
template <class V>
ArrayBytes viewBytes(const char* name, const V& v) {
  return arrayBytes(name, v.data(), static_cast<std::int64_t>(coveredBytes(v)), 1);
}

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

/// Every findall overload ends here: compile-time checks (readable
/// assertions, then nothing else), run-time checks, then the phases.
template <class Exec, class First, class... Args>
typename FindallCall<Exec, First, Args...>::type findallEntry(const Names& names, const Exec& exec,
                                                              const First& first,
                                                              const Args&... args) {
  constexpr const char* fn = "sieve::findall";
  using C = FindallCall<Exec, First, Args...>;
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
  using Ws = typename C::template OptT<C::wsAt>;
  static_assert(C::wsAt < 0 || std::is_same_v<Ws, FindallWorkspace<Exec>>,
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
  constexpr bool ok = inputOk && C::noBad && C::once &&
                      (!C::values || Safe<ValuesView>::template accessible<Exec>()) &&
                      (C::wsAt < 0 || std::is_same_v<Ws, FindallWorkspace<Exec>>)&&(
                          !C::hasInto || (C::template intoResultOk<Exec>() &&
                                          kViewOf<Exec, IntoC, 0, std::int64_t, true>));
  if constexpr (ok) {
    using Mem = typename Exec::memory_space;
    checkKernelsAllowed<Exec>(fn);
    std::int64_t n = 0;
    std::vector<ArrayBytes> arrays;
    if constexpr (C::index) {
      n = findallCount(fn, first);
    } else {
      const Input& input = [&]() -> const Input& {
        if constexpr (C::pred) return nth<0>(args...);
        else return first;
      }();
      n = Findall::size64(input);
      arrays.push_back(viewBytes(C::pred ? "view" : "mask", input));
    }
    if constexpr (C::values) {
      const auto& a = nth<C::itemsAt>(args...).view;
      if (Findall::size64(a) != n)
        fail(fn, "items(A): A has " + std::to_string(Findall::size64(a)) +
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
    const auto alg = [&]() {
      if constexpr (C::algAt >= 0) return nth<C::algAt>(args...);
      else return Auto{};
    }();
    Findall::Plan plan = Findall::planFor(fn, exec, alg, n);
    // A workspace of the call's own needs no mask region for the mask and
    // index forms; the caller's workspace always has one (so that one
    // workspace serves every form), and its regions are carved after it.
    plan.withMask = C::pred || C::wsAt >= 0;
    // The index form on host spaces: pred once per index, its answers kept
    // as bits (n / 8 bytes) between the count and the write phases, when
    // every tile holds whole 32-bit words (one thread per tile) — except for
    // into() with one tile, which counts as it writes (one pass, no bits).
    const bool indexBits = C::index && Findall::kHostSpace<Exec> &&
                           (plan.tiles() <= 1 || plan.tileElems() % 32 == 0) &&
                           !(C::hasInto && plan.tiles() == 1);
    plan.withBits = indexBits;
    const std::size_t written = arrays.size();
    if constexpr (C::hasInto) {
      const auto& o = nth<C::intoAt>(args...);
      checkWord(fn, o.count, "into(result, count): count");
      arrays.push_back(viewBytes("result", o.result));
      arrays.push_back(viewBytes("count", o.count));
    }
    const FindallWorkspace<Exec>* ws = nullptr;
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
    typename FindallWorkspace<Exec>::bytes_view ownBytes;
    if constexpr (C::wsAt < 0) {
      ownBytes = typename FindallWorkspace<Exec>::bytes_view(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("workspace")), plan.bytes());
    }
    const Findall::Regions r(
        C::wsAt < 0 ? static_cast<void*>(ownBytes.data()) : static_cast<void*>(ws->bytes().data()),
        plan);
    const CallRegion region(names, faceFor<Exec, Primitive::Scan>(true));

    typename C::Result result;
    const auto run = [&](const auto& countKeep, const auto& keep) {
      // f(items): the writer of the call's items (int32 for a narrowed result).
      auto withItems = [&](auto&& f) {
        auto narrowed = [&](const auto& items) {
          if constexpr (C::narrow) f(Findall::Narrow32<std::decay_t<decltype(items)>>{items});
          else f(items);
        };
        if constexpr (C::values) {
          Findall::withReader(nth<C::itemsAt>(args...).view, [&](const auto& at) {
            f(Findall::ValueItems<std::decay_t<decltype(at)>>{at});
          });
        } else if constexpr (C::linear || C::index) {
          narrowed(Findall::LinearItems{}); // the index form's indices are its positions
        } else {
          constexpr int R = Safe<Input>::rank;
          using Un = Findall::Unravel<R, Findall::kLeftOrder<Input>>;
          const Input& input = [&]() -> const Input& {
            if constexpr (C::pred) return nth<0>(args...);
            else return first;
          }();
          narrowed(Findall::IndexItems<R, Findall::kLeftOrder<Input>>{Un::of(input)});
        }
      };
      if constexpr (C::hasInto) {
        const auto& o = nth<C::intoAt>(args...);
        withItems([&](const auto& items) {
          Findall::countAndWrite(exec, names, plan, r, countKeep, keep, items, o.result,
                                 static_cast<std::int64_t>(o.result.extent(0)), o.count.data());
        });
      } else {
        Findall::countPhase(exec, names, plan, r, countKeep, r.total);
        std::int64_t count = 0;
        const Kokkos::View<std::int64_t, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> w(r.total);
        Kokkos::deep_copy(exec, count, w);
        fence(exec, "findall: the count of the result");
        if constexpr (C::wsAt >= 0) {
          result = Findall::keptResult<typename C::Result>(exec, names, *ws->kept(), count, n,
                                                           arrays.data(), written);
        } else {
          result = typename C::Result(
              Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("result")),
              static_cast<std::size_t>(count));
        }
        withItems([&](const auto& items) {
          Findall::writePhase(exec, names, plan, r, keep, items, result, count);
        });
      }
    };
    if constexpr (C::index) {
      if (indexBits) {
        auto* words = reinterpret_cast<std::uint32_t*>(r.mask);
        run(Findall::RecordKeep<IndexPred>{nth<0>(args...), words}, Findall::BitKeep{words});
      } else {
        const Findall::PredKeep<IndexPred> keep{nth<0>(args...)};
        run(keep, keep);
      }
    } else if constexpr (C::pred) {
      const auto& input = nth<0>(args...);
      if (n > 0) Findall::fillMask(exec, names, first, input, r.mask, n);
      run(Findall::ByteKeep{r.mask}, Findall::ByteKeep{r.mask});
    } else {
      Findall::withMaskKeep(first, [&](const auto& keep) { run(keep, keep); });
    }
    // A workspace of its own is freed on return: wait for the kernels that use it.
    if constexpr (C::wsAt < 0) fence(exec, "findall: workspace freed");
    if constexpr (!C::hasInto) return result;
  } else {
    if constexpr (!C::hasInto) return typename C::type{};
  }
}

/// The execution space of a fencing call: the input View's, or
/// Kokkos::DefaultExecutionSpace for the index form (void if neither).
template <class First, class... Args>
struct FindallFencedExec {
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

/// The fencing forms: a default instance of the input's space.
template <class First, class... Args>
auto findallFenced(const Names& names, const First& first, const Args&... args) {
  using Exec = typename FindallFencedExec<First, Args...>::type;
  using C = FindallCall<Exec, First, Args...>;
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

template <class T>
inline constexpr bool kLabelLike = std::is_convertible_v<const T&, std::string>;

template <class E, class First, class... Args>
using FindallReturn = typename FindallCall<E, First, Args...>::type;

template <class First, class... Args>
struct FindallFencedReturn {
  using Exec = typename FindallFencedExec<First, Args...>::type;
  template <class E, bool = kIsExec<E>>
  struct Of {
    using type = void;
  };
  template <class E>
  struct Of<E, true> {
    using type = typename FindallCall<E, First, Args...>::fenced;
  };
  using type = typename Of<Exec>::type;
};

} // namespace Impl

/// Select, in ordinal order, the items of the elements of `mask` that are
/// true: `findall([label,] exec, mask[, options...])`.
///
/// `mask`: a View of bool (or std::uint8_t, non-zero read as true) of rank 0
/// to 8, any layout, accessible from `exec`; its ordinal order is its layout
/// order (LayoutLeft: first index fastest; LayoutRight and LayoutStride: last
/// index fastest). Options (any order, each at most once): the items —
/// indices by default (int64 for rank 1, Kokkos::Array<int64, R> otherwise,
/// rank 0 included), sieve::linear_indices (ordinal positions, int64), or
/// sieve::items(A) (A's values, A of the mask's size: A[mask] in one pass);
/// the algorithm — sieve::Auto{} (Partitioned on host spaces, ScanScatter
/// with Tuning::Findall's defaults elsewhere), sieve::ScanScatter{block_size,
/// items_per_thread}, sieve::Partitioned{} (host spaces only); a
/// sieve::FindallWorkspace<ExecSpace> made for this call shape (then only the
/// result is allocated); sieve::into(result, count) (see below).
///
/// Returns a new rank-1 View (LayoutRight, the space's memory space) of
/// exactly the selected length; with a workspace, a View into the result
/// buffer it keeps, valid until the next findall call with that workspace
/// (see sieve::FindallWorkspace: no allocation once the buffer fits). Every algorithm is stable and
/// gives the same bytes on every backend and thread count. On Kokkos::OpenMP, a contiguous mask (or
/// the predicate's) with int64 indices (rank 1), linear indices or contiguous values of 1, 2, 4 or
/// 8 bytes is written by the native host select (native/host/select.hpp: vectorised, whole cache
/// lines streamed past the caches for outputs of Tuning::Host::kSelectStreamBytes or more). O(n)
/// work (the mask is read twice), O(n / tile) scratch. Blocks: it fences `exec` once to read the
/// count (and again before freeing a workspace of its own); the write is then enqueued on `exec`
/// (complete after exec.fence(); immediate on host spaces).
///
/// With `sieve::into(result, count)` (result: a rank-1 View of the item type,
/// or of std::int32_t for rank-1 indices and linear indices, which then must
/// fit: n <= 2^31, else std::invalid_argument; count: a rank-0 View of
/// std::int64_t) it returns nothing and is asynchronous: the selected items go to result(0 ..),
/// slots at or past result.extent(0) are never written, and count receives the number selected
/// (compare it with result.extent(0)). With a workspace too it allocates nothing and fences nothing
/// (capture-safe on device spaces).
///
/// Throws std::invalid_argument (nothing enqueued) for items of another size,
/// an int32 result with n > 2^31,
/// an invalid ScanScatter (block_size not a power of two in [1, 1024],
/// items_per_thread < 1, product > INT32_MAX, or more than INT32_MAX tiles),
/// Partitioned on a device space, a workspace for another call shape, an
/// empty count View, or a workspace, result or count sharing a byte with
/// another array of the call.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::IsView<MaskView>::value,
                 Impl::FindallReturn<ExecSpace, MaskView, Args...>>
findall(const ExecSpace& exec, const MaskView& mask, const Args&... args) {
  return Impl::findallEntry(Impl::Names("", "sieve::findall"), exec, mask, args...);
}

/// Select, in ordinal order, the items of the elements of `view` for which
/// `pred` returns true: `findall([label,] exec, pred, view[, options...])`.
/// `pred` is called exactly once per element, on the execution space, with
/// the element; it must return bool. Its results are kept in a mask (the
/// workspace's, or one allocated for the call); otherwise as the mask form.
template <class ExecSpace, class Pred, class View, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsView<Pred>::value &&
                     !Impl::kFindallCount<Pred>,
                 Impl::FindallReturn<ExecSpace, Pred, View, Args...>>
findall(const ExecSpace& exec, const Pred& pred, const View& view, const Args&... args) {
  return Impl::findallEntry(Impl::Names("", "sieve::findall"), exec, pred, view, args...);
}

/// Select, in ascending order, the indices i in [0, n) for which `pred(i)`
/// is true: `findall([label,] exec, n, pred[, options...])` — the index
/// form, for a selection that reads several Views (e.g.
/// `KOKKOS_LAMBDA(std::int64_t i) { return type(i) == t && x(i) < xmax; }`).
///
/// `n`: the element count, any integer type (negative: std::invalid_argument).
/// `pred`: callable on `exec` as pred(std::int64_t i), returning bool. No
/// n-byte mask is written: on host spaces pred is called once per index and
/// its answers kept as bits (n / 8 bytes of the workspace) from the count to
/// the write phase (into() with one tile — Serial, one thread — counts as it
/// writes, in one pass); where tiles are not whole 32-bit words, and on
/// device spaces, it is fused: called again by the write phase (and once more
/// by the write's team scan on devices). So pred must be pure (the same
/// answer every time it is called, as a Kokkos::parallel_scan functor for its
/// two passes) and must not read the call's result or workspace. Items: the
/// indices i (int64, the default), sieve::linear_indices (the same), or
/// sieve::items(A), A a View of n elements (A's values at the selected i).
/// Algorithm, workspace (a FindallWorkspace(exec, n, alg) — the mask form's —
/// serves it) and into options as the mask form; into() may take a
/// std::int32_t result for the indices (n <= 2^31, else
/// std::invalid_argument). O(n) calls of pred, O(n / tile) scratch plus the
/// bits. Blocks and throws as the mask form.
template <class ExecSpace, class N, class Pred, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::kFindallCount<N>,
                 Impl::FindallReturn<ExecSpace, N, Pred, Args...>>
findall(const ExecSpace& exec, const N& n, const Pred& pred, const Args&... args) {
  return Impl::findallEntry(Impl::Names("", "sieve::findall"), exec, n, pred, args...);
}

/// sieve::findall (index form) with a label.
template <class ExecSpace, class N, class Pred, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::kFindallCount<N>,
                 Impl::FindallReturn<ExecSpace, N, Pred, Args...>>
findall(const std::string& label, const ExecSpace& exec, const N& n, const Pred& pred,
        const Args&... args) {
  return Impl::findallEntry(Impl::Names(label, "sieve::findall"), exec, n, pred, args...);
}

/// sieve::findall (mask form) with a label naming its profiling region
/// ("<label>: sieve::findall[<face>]") and prefixing its kernel and
/// allocation labels.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::IsView<MaskView>::value,
                 Impl::FindallReturn<ExecSpace, MaskView, Args...>>
findall(const std::string& label, const ExecSpace& exec, const MaskView& mask,
        const Args&... args) {
  return Impl::findallEntry(Impl::Names(label, "sieve::findall"), exec, mask, args...);
}

/// sieve::findall (predicate form) with a label.
template <class ExecSpace, class Pred, class View, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsView<Pred>::value &&
                     !Impl::kFindallCount<Pred>,
                 Impl::FindallReturn<ExecSpace, Pred, View, Args...>>
findall(const std::string& label, const ExecSpace& exec, const Pred& pred, const View& view,
        const Args&... args) {
  return Impl::findallEntry(Impl::Names(label, "sieve::findall"), exec, pred, view, args...);
}

/// sieve::findall (mask form) on a default instance of the mask's execution
/// space, fenced: returns the new View, or with sieve::into the count.
/// Blocking. Throws as the instance form.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value,
                 typename Impl::FindallFencedReturn<MaskView, Args...>::type>
findall(const MaskView& mask, const Args&... args) {
  return Impl::findallFenced(Impl::Names("", "sieve::findall"), mask, args...);
}

/// sieve::findall (predicate form) on a default instance of the view's
/// execution space, fenced. Blocking. Throws as the instance form.
template <class Pred, class View, class... Args>
std::enable_if_t<!Impl::IsView<Pred>::value && !Impl::kIsExec<Pred> && !Impl::kLabelLike<Pred> &&
                     !Impl::kFindallCount<Pred> && Impl::IsView<View>::value,
                 typename Impl::FindallFencedReturn<Pred, View, Args...>::type>
findall(const Pred& pred, const View& view, const Args&... args) {
  return Impl::findallFenced(Impl::Names("", "sieve::findall"), pred, view, args...);
}

/// The fencing sieve::findall (mask form) with a label.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value,
                 typename Impl::FindallFencedReturn<MaskView, Args...>::type>
findall(const std::string& label, const MaskView& mask, const Args&... args) {
  return Impl::findallFenced(Impl::Names(label, "sieve::findall"), mask, args...);
}

/// The fencing sieve::findall (predicate form) with a label.
template <class Pred, class View, class... Args>
std::enable_if_t<!Impl::IsView<Pred>::value && !Impl::kIsExec<Pred> && !Impl::kLabelLike<Pred> &&
                     !Impl::kFindallCount<Pred> && Impl::IsView<View>::value,
                 typename Impl::FindallFencedReturn<Pred, View, Args...>::type>
findall(const std::string& label, const Pred& pred, const View& view, const Args&... args) {
  return Impl::findallFenced(Impl::Names(label, "sieve::findall"), pred, view, args...);
}

/// sieve::findall (index form) on a default instance of
/// Kokkos::DefaultExecutionSpace (pred must be callable there), fenced:
/// returns the new View, or with sieve::into the count. Blocking. Throws as
/// the instance form.
template <class N, class Pred, class... Args>
std::enable_if_t<Impl::kFindallCount<N>, typename Impl::FindallFencedReturn<N, Pred, Args...>::type>
findall(const N& n, const Pred& pred, const Args&... args) {
  return Impl::findallFenced(Impl::Names("", "sieve::findall"), n, pred, args...);
}

/// The fencing sieve::findall (index form) with a label.
template <class N, class Pred, class... Args>
std::enable_if_t<Impl::kFindallCount<N>, typename Impl::FindallFencedReturn<N, Pred, Args...>::type>
findall(const std::string& label, const N& n, const Pred& pred, const Args&... args) {
  return Impl::findallFenced(Impl::Names(label, "sieve::findall"), n, pred, args...);
}

} // namespace sieve
