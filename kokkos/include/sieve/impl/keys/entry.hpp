// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the entry of every sieve::keys call: its compile-time
// checks (the first error of a misuse is Sieve's sentence), its run-time
// argument checks, then the call's implementation (dense.hpp, sparse.hpp,
// fold.hpp, segments.hpp).
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/keys/fold.hpp>
#include <sieve/impl/keys/scatter.hpp>
#include <sieve/impl/keys/segments.hpp>
#include <sieve/impl/keys/source.hpp>
#include <sieve/keys_results.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve {
namespace keys {
// The public inputs and ready functors (defined in <sieve/keys.hpp>).
template <class View, class Fn>
struct Projected;
template <class View, class KeyFn>
struct Keyed;
struct SortUnique;
struct SortGroup;
} // namespace keys

namespace Impl {
namespace Keys {

// The public inputs and ready functors, as the impl headers see them.
template <class V, class F>
struct IsKeyed<sieve::keys::Keyed<V, F>> : std::true_type {
  using view_type = V;
  using key_fn_type = F;
};
template <>
struct IsSortUnique<sieve::keys::SortUnique> : std::true_type {};
template <>
struct IsSortGroup<sieve::keys::SortGroup> : std::true_type {};

template <class T>
using KeyOr = std::conditional_t<std::is_void_v<T>, int, T>;
template <class Exec, class In>
using DenseResult = sieve::keys::DenseKeys<KeyOr<typename InputOf<In>::key_type>, Exec>;
template <class Exec, class In>
using SparseResult = sieve::keys::SparseKeys<KeyOr<typename InputOf<In>::key_type>, Exec>;

template <class T>
inline constexpr bool kLabel = std::is_convertible_v<const T&, std::string>;
/// The first argument of a no-instance form: neither an instance nor a label.
template <class T>
inline constexpr bool kNoInstance = !Impl::kIsExec<T> && !kLabel<T>;
/// The names of the variadic-free entry points, for their Names.
inline constexpr const char* kScatterDense = "sieve::keys::scatter_dense";
inline constexpr const char* kSortPermutation = "sieve::keys::sort_permutation";

/// A host count: not negative.
template <class N>
i64 checkCount(const char* fn, const N& n) {
  if constexpr (std::is_signed_v<N>) {
    if (n < 0) Impl::fail(fn, "n = " + std::to_string(n) + " is negative");
  }
  if (static_cast<std::uint64_t>(n) > static_cast<std::uint64_t>(INT64_MAX))
    Impl::fail(fn, "n = " + std::to_string(n) + " exceeds INT64_MAX");
  return static_cast<i64>(n);
}

/// A perm holds the indices 0 .. n - 1 (n: the workspace's capacity with a
/// count on the device).
template <class Perm>
void checkPerm(const char* fn, const Perm& perm, i64 n, bool deviceCount) {
  using T = typename Perm::value_type;
  if (Impl::extent64(perm) < n)
    Impl::fail(fn, "perm.extent(0) = " + std::to_string(Impl::extent64(perm)) +
                       " is smaller than " + (deviceCount ? "the workspace's capacity, " : "n = ") +
                       std::to_string(n) + "; nothing was written");
  if (n > 0 && n - 1 > static_cast<i64>(std::numeric_limits<T>::max()))
    Impl::fail(fn, "perm holds " + std::to_string(8 * sizeof(T)) + "-bit indices; n = " +
                       std::to_string(n) + " has indices beyond their largest value, " +
                       std::to_string(std::numeric_limits<T>::max()) +
                       " (use a View of std::int64_t)");
}

/// The compile-time checks of a scatter: readable assertions, then `ok`.
template <bool Dense, class Exec, class In, class Out>
constexpr bool scatterChecks() {
  using I = InputOf<In>;
  using E = typename I::element_type;
  static_assert(Impl::kIsExec<Exec>,
                "sieve::keys::scatter_*: the first argument (after a label) must be a Kokkos "
                "execution space instance");
  static_assert(I::ok,
                "sieve::keys::scatter_*: 'input' must be a rank-1 View of elements with a "
                "device-callable key() member (or of integers), sieve::keys::keyed(view, key_fn), "
                "or a mapper (element_type, size(), count(i), element(i, j))");
  static_assert(!I::ok || I::template accessible<Exec>(),
                "sieve::keys::scatter_*: 'input' is not accessible from the execution space");
  static_assert(!I::ok || Impl::kViewOf<Exec, Out, 1, E, true>,
                "sieve::keys::scatter_*: 'output' must be a writable rank-1 View of the input's "
                "element type, accessible from the execution space");
  static_assert(!Dense || !I::ok || kIntegralKey<typename I::key_type>,
                "sieve::keys::scatter_dense: the keys must be integers (other than bool); use "
                "scatter_sparse for other key types");
  return Impl::kIsExec<Exec> && I::ok && I::template accessible<Exec>() &&
         Impl::kViewOf<Exec, Out, 1, E, true> && (!Dense || kIntegralKey<typename I::key_type>);
}

template <class Exec, class In, class... Rest>
DenseResult<Exec, In> denseEntry(const Impl::Names& names, const Exec& exec, const In& input,
                                 const Rest&... rest) {
  static_assert(sizeof...(Rest) == 1 || sizeof...(Rest) == 3 || sizeof...(Rest) == 2,
                "sieve::keys::scatter_dense: the arguments are (exec, input, output), (exec, "
                "input, min_key, max_key, output) or (exec, input, output, workspace)");
  Impl::checkKernelsAllowed<Exec>("sieve::keys::scatter_dense");
  if constexpr (sizeof...(Rest) == 2) {
    using Out = Impl::Nth<0, Rest...>;
    using Ws = Impl::Nth<1, Rest...>;
    using Key = KeyOr<typename InputOf<In>::key_type>;
    static_assert(IsDenseWorkspace<Ws>::value,
                  "sieve::keys::scatter_dense: the argument after the output must be a "
                  "sieve::keys::DenseWorkspace<Key, ExecSpace>");
    static_assert(
        !IsDenseWorkspace<Ws>::value || std::is_same_v<Ws, sieve::keys::DenseWorkspace<Key, Exec>>,
        "sieve::keys::scatter_dense: the workspace must be a DenseWorkspace of the "
        "input's key type and of the instance's execution space");
    if constexpr (std::is_same_v<Ws, sieve::keys::DenseWorkspace<Key, Exec>> &&
                  scatterChecks<true, Exec, In, Out>()) {
      return scatterDenseAsync<DenseResult<Exec, In>>(names, exec, input, Impl::nth<0>(rest...),
                                                      Impl::nth<1>(rest...));
    } else {
      return {};
    }
  } else {
    using Out = Impl::Nth<sizeof...(Rest) - 1, Rest...>;
    if constexpr ((sizeof...(Rest) == 1 || sizeof...(Rest) == 3) &&
                  scatterChecks<true, Exec, In, Out>()) {
      using Key = typename InputOf<In>::key_type;
      if constexpr (sizeof...(Rest) == 1) {
        return scatterDense<DenseResult<Exec, In>>(names, exec, input, false, Key{}, Key{},
                                                   Impl::nth<0>(rest...));
      } else {
        static_assert(
            std::is_convertible_v<Impl::Nth<0, Rest...>, Key> &&
                std::is_convertible_v<Impl::Nth<1, Rest...>, Key>,
            "sieve::keys::scatter_dense: min_key and max_key must convert to the key type");
        constexpr const char* fn = "sieve::keys::scatter_dense";
        checkKeyValue<Key>(fn, "min_key", Impl::nth<0>(rest...));
        checkKeyValue<Key>(fn, "max_key", Impl::nth<1>(rest...));
        return scatterDense<DenseResult<Exec, In>>(
            names, exec, input, true, static_cast<Key>(Impl::nth<0>(rest...)),
            static_cast<Key>(Impl::nth<1>(rest...)), Impl::nth<2>(rest...));
      }
    } else {
      return {};
    }
  }
}

template <class Exec, class In, class Out, class... Ws>
SparseResult<Exec, In> sparseEntry(const Impl::Names& names, const Exec& exec, const In& input,
                                   const Out& output, const Ws&... ws) {
  static_assert(sizeof...(Ws) <= 1,
                "sieve::keys::scatter_sparse: the arguments are (exec, input, "
                "output) or (exec, input, output, workspace)");
  using Key = KeyOr<typename InputOf<In>::key_type>;
  using Want = sieve::keys::SparseWorkspace<Key, Exec>;
  constexpr bool wsOk = (std::is_same_v<Ws, Want> && ...);
  static_assert(((IsSparseWorkspace<Ws>::value) && ...),
                "sieve::keys::scatter_sparse: the argument after the output must be a "
                "sieve::keys::SparseWorkspace<Key, ExecSpace>");
  // (After the input's own checks: an invalid input has no key type to match.)
  static_assert(!((IsSparseWorkspace<Ws>::value) && ...) || !InputOf<In>::ok || wsOk,
                "sieve::keys::scatter_sparse: the workspace must be a SparseWorkspace of the "
                "input's key type and of the instance's execution space");
  if constexpr (scatterChecks<false, Exec, In, Out>() && wsOk) {
    Impl::checkKernelsAllowed<Exec>("sieve::keys::scatter_sparse");
    if constexpr (sizeof...(Ws) == 1) {
      const Want& w = Impl::nth<0>(ws...);
      return scatterSparse<SparseResult<Exec, In>>(names, exec, input, output, &w.kept(),
                                                   w.generation());
    } else {
      return scatterSparse<SparseResult<Exec, In>>(names, exec, input, output);
    }
  } else {
    return {};
  }
}

/// The key type of sort_permutation's key_fn (int when it has none).
template <class KeyFn>
using PermKey = KeyOr<typename IndexKey<KeyFn>::type>;
template <class Exec, class KeyFn>
using PermResult = sieve::keys::DenseKeys<PermKey<KeyFn>, Exec>;

/// sort_permutation's count: an integer, or a rank-0 View of int64 on the device.
template <class N, class = void>
struct PermCount {
  static constexpr bool integer = std::is_integral_v<N> && !std::is_same_v<N, bool>;
  static constexpr bool device = false;
};
template <class N>
struct PermCount<N, std::enable_if_t<IsView<N>::value>> {
  static constexpr bool integer = false;
  static constexpr bool device =
      Safe<N>::rank == 0 && std::is_same_v<typename Safe<N>::value, std::int64_t>;
};

/// Every sort_permutation form ends here: compile-time checks, then the
/// dense counting sort of the indices 0 .. n - 1 by key_fn(i) into perm.
template <class Exec, class N, class KeyFn, class... Rest>
PermResult<Exec, KeyFn> permEntry(const Impl::Names& names, const Exec& exec, const N& n,
                                  const KeyFn& keyFn, const Rest&... rest) {
  constexpr const char* fn = "sieve::keys::sort_permutation";
  constexpr std::size_t nr = sizeof...(Rest);
  static_assert(nr >= 1 && nr <= 3,
                "sieve::keys::sort_permutation: the arguments are (exec, n, key_fn, perm), (exec, "
                "n, key_fn, min_key, max_key, perm) or (exec, n, key_fn, perm, workspace)");
  using Key = typename IndexKey<KeyFn>::type;
  static_assert(kIntegralKey<Key>,
                "sieve::keys::sort_permutation: key_fn must be callable as key_fn(std::int64_t i) "
                "on the execution space and return an integer key (other than bool)");
  using Perm = Impl::Nth<nr == 3 ? 2 : 0, Rest...>;
  using PermT = typename Safe<Perm>::value;
  constexpr bool permOk =
      Safe<Perm>::rank == 1 && Safe<Perm>::writable &&
      (std::is_same_v<PermT, std::int64_t> ||
       std::is_same_v<PermT, std::int32_t>)&&Safe<Perm>::template accessible<Exec>();
  static_assert(permOk,
                "sieve::keys::sort_permutation: perm must be a writable rank-1 View of "
                "std::int64_t or std::int32_t accessible from the execution space");
  static_assert(PermCount<N>::integer || PermCount<N>::device,
                "sieve::keys::sort_permutation: n must be an integer, or (with a workspace) a "
                "rank-0 View of std::int64_t holding the count on the device");
  static_assert(!PermCount<N>::device || nr == 2,
                "sieve::keys::sort_permutation: a count on the device (a rank-0 View) needs the "
                "workspace form (exec, count, key_fn, perm, workspace)");
  using KeyOrInt = PermKey<KeyFn>;
  if constexpr (kIntegralKey<Key> && permOk &&
                (PermCount<N>::integer || (PermCount<N>::device && nr == 2))) {
    Impl::checkKernelsAllowed<Exec>(fn);
    const Perm& perm = Impl::nth < nr == 3 ? 2 : 0 > (rest...);
    if constexpr (nr == 2) {
      using Ws = Impl::Nth<1, Rest...>;
      static_assert(std::is_same_v<Ws, sieve::keys::DenseWorkspace<KeyOrInt, Exec>>,
                    "sieve::keys::sort_permutation: the argument after perm must be a "
                    "sieve::keys::DenseWorkspace of key_fn's key type and of the instance's "
                    "execution space");
      if constexpr (std::is_same_v<Ws, sieve::keys::DenseWorkspace<KeyOrInt, Exec>>) {
        const Ws& ws = Impl::nth<1>(rest...);
        if (ws.elements() < 0) Impl::fail(fn, "the workspace is empty (default-constructed)");
        Indices<KeyFn> in{0, keyFn, nullptr};
        if constexpr (PermCount<N>::device) {
          static_assert(Safe<N>::template accessible<Exec>(),
                        "sieve::keys::sort_permutation: the count View is not accessible from "
                        "the execution space");
          in.n = ws.elements();
          in.live = n.data();
        } else {
          in.n = checkCount(fn, n);
        }
        checkPerm(fn, perm, in.n, PermCount<N>::device);
        return scatterDenseAsync<PermResult<Exec, KeyFn>>(names, exec, in, perm, ws, fn);
      } else {
        return {};
      }
    } else {
      const Indices<KeyFn> in{checkCount(fn, n), keyFn, nullptr};
      checkPerm(fn, perm, in.n, false);
      if constexpr (nr == 1) {
        return scatterDense<PermResult<Exec, KeyFn>>(names, exec, in, false, Key{}, Key{}, perm,
                                                     fn);
      } else {
        using K1 = Impl::Nth<0, Rest...>;
        using K2 = Impl::Nth<1, Rest...>;
        static_assert(std::is_convertible_v<K1, Key> && std::is_convertible_v<K2, Key>,
                      "sieve::keys::sort_permutation: min_key and max_key must convert to "
                      "key_fn's key type");
        if constexpr (std::is_convertible_v<K1, Key> && std::is_convertible_v<K2, Key>) {
          checkKeyValue<Key>(fn, "min_key", Impl::nth<0>(rest...));
          checkKeyValue<Key>(fn, "max_key", Impl::nth<1>(rest...));
          return scatterDense<PermResult<Exec, KeyFn>>(
              names, exec, in, true, static_cast<Key>(Impl::nth<0>(rest...)),
              static_cast<Key>(Impl::nth<1>(rest...)), perm, fn);
        } else {
          return {};
        }
      }
    }
  } else {
    return {};
  }
}

/// reduce_by_key's values: a rank-1 View, or a Projected one.
template <class V, class = void>
struct FoldValues {
  static constexpr bool ok = false;
  using View = void;
  using type = void;
};
template <class V>
struct FoldValues<V, std::enable_if_t<IsView<V>::value>> {
  static constexpr bool ok = Safe<V>::rank == 1;
  using View = V;
  using type = typename Safe<V>::value;
  static const V& view(const V& v) { return v; }
  static ViewValues<V> reader(const V& v) { return {v}; }
};
template <class V, class F>
struct FoldValues<sieve::keys::Projected<V, F>, std::enable_if_t<IsView<V>::value>> {
  static constexpr bool ok =
      Safe<V>::rank == 1 && std::is_invocable_v<const F&, const typename Safe<V>::value&>;
  using View = V;
  template <bool Ok, class = void>
  struct Of {
    using type = void;
  };
  template <class Dummy>
  struct Of<true, Dummy> {
    using type = std::decay_t<std::invoke_result_t<const F&, const typename Safe<V>::value&>>;
  };
  using type = typename Of<ok>::type;
  static const V& view(const sieve::keys::Projected<V, F>& p) { return p.view; }
  static ProjectedValues<V, F> reader(const sieve::keys::Projected<V, F>& p) {
    return {p.view, p.fn};
  }
};

template <class Op, class T, class = void>
struct FoldOp {
  static constexpr bool ok = false;
};
template <class Op, class T>
struct FoldOp<Op, T, std::void_t<std::invoke_result_t<const Op&, const T&, const T&>>> {
  static constexpr bool ok =
      std::is_convertible_v<std::invoke_result_t<const Op&, const T&, const T&>, T>;
};

/// A ReduceWorkspace for results of type T on Exec (or no workspace).
template <class Kept, class T, class Exec>
struct FoldKept {
  static constexpr bool ok = std::is_same_v<Kept, std::nullptr_t>;
};
template <class V, class E, class T, class Exec>
struct FoldKept<sieve::keys::ReduceWorkspace<V, E>, T, Exec> {
  static constexpr bool ok = std::is_same_v<V, T> && std::is_same_v<E, Exec>;
};

/// Every reduce_by_key form ends here: compile-time checks, run-time checks,
/// then the fold (fold.hpp). kept: a ReduceWorkspace, or nullptr.
template <class Exec, class Keys, class Values, class Init, class Op, class Result,
          class Kept = std::nullptr_t>
void foldEntry(const Impl::Names& names, const Exec& exec, const Keys& keys, const Values& values,
               const Init& init, const Op& op, const Result& result, const Kept& kept = nullptr) {
  constexpr const char* fn = "sieve::keys::reduce_by_key";
  using FV = FoldValues<Values>;
  using T = typename Safe<Result>::value;
  static_assert(FoldKept<Kept, T, Exec>::ok,
                "sieve::keys::reduce_by_key: the workspace must be a "
                "sieve::keys::ReduceWorkspace<T, ExecSpace> of the result's value type T and the "
                "call's execution space");
  static_assert(kIsKeys<Keys>,
                "sieve::keys::reduce_by_key: 'keys' must be the DenseKeys, SparseKeys or "
                "ReducedKeys of a call");
  static_assert(FV::ok,
                "sieve::keys::reduce_by_key: 'values' must be a rank-1 View (a value per element "
                "position of the keys' output) or sieve::keys::project(view, fn) with fn callable "
                "with an element of the view");
  static_assert(!FV::ok || Safe<typename FV::View>::template accessible<Exec>(),
                "sieve::keys::reduce_by_key: 'values' is not accessible from the execution space");
  static_assert(Safe<Result>::rank == 1 && Safe<Result>::writable &&
                    Safe<Result>::template accessible<Exec>(),
                "sieve::keys::reduce_by_key: 'result' must be a writable rank-1 View (one value "
                "per key id) accessible from the execution space");
  static_assert(std::is_convertible_v<Init, T>,
                "sieve::keys::reduce_by_key: 'init' must convert to the result's value type");
  static_assert(!FV::ok || std::is_convertible_v<typename FV::type, T>,
                "sieve::keys::reduce_by_key: a value must convert to the result's value type");
  static_assert(FoldOp<Op, T>::ok,
                "sieve::keys::reduce_by_key: 'op' must be callable as op(T, T) on the execution "
                "space, returning a T (T: the result's value type), e.g. sieve::Sum{}");
  if constexpr (kIsKeys<Keys> && FV::ok && Safe<Result>::rank == 1 && Safe<Result>::writable &&
                std::is_convertible_v<Init, T> && FoldOp<Op, T>::ok &&
                FoldKept<Kept, T, Exec>::ok) {
    if constexpr (std::is_convertible_v<typename FV::type, T> &&
                  Safe<typename FV::View>::template accessible<Exec>() &&
                  Safe<Result>::template accessible<Exec>()) {
      // The workspace form reads nothing back: a rejection by the
      // asynchronous call that made the keys gates its kernels instead.
      constexpr bool kAsync = !std::is_same_v<Kept, std::nullptr_t>;
      if (kAsync) keys.checkCurrent(fn);
      else keys.check(fn);
      Impl::checkKernelsAllowed<Exec>(fn);
      const auto& v = FV::view(values);
      const i64 N = keys.num_elements(), K = keys.num_keys();
      if (Impl::extent64(v) < N)
        Impl::fail(fn, "values.extent(0) = " + std::to_string(Impl::extent64(v)) +
                           " is smaller than the keys' " + std::to_string(N) +
                           " elements; nothing was written");
      if (Impl::extent64(result) < K)
        Impl::fail(fn, "result.extent(0) = " + std::to_string(Impl::extent64(result)) +
                           " is smaller than the " + std::to_string(K) +
                           " key ids; nothing was written");
      std::vector<Impl::ArrayBytes> arrays{
          Impl::arrayBytes("values", v.data(), static_cast<i64>(Impl::coveredBytes(v)), 1),
          Impl::arrayBytes("keys.offsets()", keys.offsets().data(),
                           static_cast<i64>(Impl::coveredBytes(keys.offsets())), 1),
          Impl::arrayBytes("result", result.data(), static_cast<i64>(Impl::coveredBytes(result)),
                           1)};
      if constexpr (!std::is_same_v<Kept, std::nullptr_t>) {
        if (kept.elements() < 0)
          Impl::fail(fn, "the workspace is empty (default-constructed); nothing was written");
        if (N > kept.elements())
          Impl::fail(fn, "the keys' " + std::to_string(N) +
                             " elements exceed the workspace's " +
                             std::to_string(kept.elements()) + "; nothing was written");
        // (the workspace's scratch: apart from the result, which it is written with)
        arrays.push_back(Impl::arrayBytes("the workspace", kept.first().data(),
                                          static_cast<i64>(Impl::coveredBytes(kept.first())), 1));
        arrays.push_back(Impl::arrayBytes("the workspace", kept.last().data(),
                                          static_cast<i64>(Impl::coveredBytes(kept.last())), 1));
      }
      Impl::checkApart(fn, arrays, 2, true,
                       "result must not share a byte with the values, the offsets or the "
                       "workspace");
      const Impl::CallRegion region(names, Impl::Face::Portable);
      foldByKey(names, exec, keys.offsets(), K, N, FV::reader(values), static_cast<T>(init), op,
                result, kept, kAsync ? keys.status().data() : nullptr);
    }
  }
}

/// The execution space of the no-instance scatter forms: the output's.
template <class... Rest>
using OutputExec = typename Impl::Nth<sizeof...(Rest) - 1, Rest...>::execution_space;

template <class Exec, class Keys, class Out>
constexpr bool keysChecks(const char* = nullptr) {
  static_assert(kIsKeys<Keys>,
                "sieve::keys: 'keys' must be the DenseKeys, SparseKeys or ReducedKeys of a call");
  static_assert(Impl::Safe<Out>::rank == 1 && Impl::Safe<Out>::writable,
                "sieve::keys: 'output' must be a writable rank-1 View (the scattered elements)");
  static_assert(Impl::Safe<Out>::template accessible<Exec>(),
                "sieve::keys: 'output' is not accessible from the execution space");
  return kIsKeys<Keys> && Impl::Safe<Out>::rank == 1 && Impl::Safe<Out>::writable &&
         Impl::Safe<Out>::template accessible<Exec>();
}

template <class Exec, class Keys, class Out, class F>
sieve::keys::ReducedKeys<Keys> reduceEntry(const Impl::Names& n, const Exec& exec, const Keys& keys,
                                           const Out& output, const F& functor) {
  if constexpr (keysChecks<Exec, Keys, Out>()) {
    keys.check("sieve::keys::reduce");
    Impl::checkKernelsAllowed<Exec>("sieve::keys::reduce");
    return Impl::Keys::reduce<sieve::keys::ReducedKeys<Keys>>(n, exec, keys, output, functor);
  } else {
    return {};
  }
}
template <class Exec, class Keys, class Out, class F>
sieve::keys::Grouping<Keys> groupEntry(const Impl::Names& n, const Exec& exec, const Keys& keys,
                                       const Out& output, const F& functor) {
  if constexpr (keysChecks<Exec, Keys, Out>()) {
    keys.check("sieve::keys::group");
    Impl::checkKernelsAllowed<Exec>("sieve::keys::group");
    return Impl::Keys::group<sieve::keys::Grouping<Keys>>(n, exec, keys, output, functor);
  } else {
    return {};
  }
}

template <class Exec, class In, class Out>
constexpr bool compactChecks() {
  static_assert(Impl::Safe<In>::rank == 1 && Impl::Safe<In>::template accessible<Exec>(),
                "sieve::keys::compact: 'input' must be a rank-1 View accessible from the "
                "execution space");
  static_assert(Impl::kViewOf<Exec, Out, 1, typename Impl::Safe<In>::value, true>,
                "sieve::keys::compact: 'output' must be a writable rank-1 View of the input's "
                "value type, accessible from the execution space");
  return Impl::Safe<In>::rank == 1 && Impl::Safe<In>::template accessible<Exec>() &&
         Impl::kViewOf<Exec, Out, 1, typename Impl::Safe<In>::value, true>;
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
