// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::keys: move elements into key order in parallel, so that the
// elements of every key are contiguous, then work on every key (seed 002,
// VTK vtk::keys; SPEC §3).
//
//   DenseKeys  scatter_dense([label,] [exec,] input[, min_key, max_key], output)
//   DenseKeys  scatter_dense([label,] exec, input, output, DenseWorkspace&)  (asynchronous)
//   SparseKeys scatter_sparse([label,] [exec,] input, output)
//   int64      count_elements([label,] [exec,] input)
//   void       for_each_key_range([label,] [exec,] keys, output, functor, args...)
//   ReducedKeys reduce([label,] [exec,] keys, output, functor | SortUnique{})
//   int64      compact([label,] [exec,] keys, reduced, input, output)
//   Grouping   group([label,] [exec,] keys, output, functor | SortGroup{})
//   int64      compact([label,] [exec,] groups, input, output)
//
// The elements of key id k are [keys.offset(k), keys.offset(k + 1)) of the
// output. A key id is the position of a key: in [min_key, max_key] for
// DenseKeys, among the distinct keys for SparseKeys.
//
// Inputs (`input`):
//  - a rank-1 View of elements that carry their key: an integer type (its own
//    key) or a type with a device-callable `key()` member;
//  - sieve::keys::keyed(view, key_fn): a View with a key functor key_fn(e);
//  - a mapper, from records to 0..M elements each (e.g. the faces of cells):
//        struct Mapper {
//          using element_type = E;                                   // copyable
//          std::int64_t size() const;                                // records (host)
//          KOKKOS_FUNCTION int count(std::int64_t i) const;          // elements of record i
//          KOKKOS_FUNCTION E element(std::int64_t i, int j) const;   // element j < count(i)
//          KOKKOS_FUNCTION Key key(const E&) const;  // optional; else E::key() or E itself
//        };
//    The elements are numbered in record order, then j. A mapper is copied to
//    the execution space and called there (count twice, element twice per
//    element on the dense path).
//
// Determinism: within a key, the elements keep record order on every backend
// and thread count (both scatters are stable sorts, whose output is unique),
// and SortUnique / SortGroup are stable too: every call writes the same
// bytes everywhere.
//
// Backends: portable Kokkos patterns only (parallel_for / parallel_reduce,
// sieve's exclusive scan on each space's scan face); they would run on Cuda
// as written (no native kernels; not tested without a GPU here).
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/keys/results.hpp>
#include <sieve/impl/keys/scatter.hpp>
#include <sieve/impl/keys/segments.hpp>
#include <sieve/impl/keys/source.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace sieve {
namespace keys {
namespace Impl {

template <class T>
using KeyOr = std::conditional_t<std::is_void_v<T>, int, T>;
template <class Exec, class In>
using DenseResult = DenseKeys<KeyOr<typename InputOf<In>::key_type>, Exec>;
template <class Exec, class In>
using SparseResult = SparseKeys<KeyOr<typename InputOf<In>::key_type>, Exec>;

template <class T>
inline constexpr bool kLabel = std::is_convertible_v<const T&, std::string>;

/// The compile-time checks of a scatter: readable assertions, then `ok`.
template <bool Dense, class Exec, class In, class Out>
constexpr bool scatterChecks() {
  using I = InputOf<In>;
  using E = typename I::element_type;
  static_assert(sieve::Impl::kIsExec<Exec>,
                "sieve::keys::scatter_*: the first argument (after a label) must be a Kokkos "
                "execution space instance");
  static_assert(I::ok,
                "sieve::keys::scatter_*: 'input' must be a rank-1 View of elements with a "
                "device-callable key() member (or of integers), sieve::keys::keyed(view, key_fn), "
                "or a mapper (element_type, size(), count(i), element(i, j))");
  static_assert(!I::ok || I::template accessible<Exec>(),
                "sieve::keys::scatter_*: 'input' is not accessible from the execution space");
  static_assert(!I::ok || sieve::Impl::kViewOf<Exec, Out, 1, E, true>,
                "sieve::keys::scatter_*: 'output' must be a writable rank-1 View of the input's "
                "element type, accessible from the execution space");
  static_assert(!Dense || !I::ok || sieve::Impl::Keys::kIntegralKey<typename I::key_type>,
                "sieve::keys::scatter_dense: the keys must be integers (other than bool); use "
                "scatter_sparse for other key types");
  return sieve::Impl::kIsExec<Exec> && I::ok && I::template accessible<Exec>() &&
         sieve::Impl::kViewOf<Exec, Out, 1, E, true> &&
         (!Dense || sieve::Impl::Keys::kIntegralKey<typename I::key_type>);
}

template <class Exec, class In, class... Rest>
DenseResult<Exec, In> denseEntry(const sieve::Impl::Names& names, const Exec& exec, const In& input,
                                 const Rest&... rest) {
  static_assert(sizeof...(Rest) == 1 || sizeof...(Rest) == 3 || sizeof...(Rest) == 2,
                "sieve::keys::scatter_dense: the arguments are (exec, input, output), (exec, "
                "input, min_key, max_key, output) or (exec, input, output, workspace)");
  sieve::Impl::checkKernelsAllowed<Exec>("sieve::keys::scatter_dense");
  if constexpr (sizeof...(Rest) == 2) {
    using Out = sieve::Impl::Nth<0, Rest...>;
    using Ws = sieve::Impl::Nth<1, Rest...>;
    using Key = KeyOr<typename InputOf<In>::key_type>;
    static_assert(IsDenseWorkspace<Ws>::value,
                  "sieve::keys::scatter_dense: the argument after the output must be a "
                  "sieve::keys::DenseWorkspace<Key, ExecSpace>");
    static_assert(!IsDenseWorkspace<Ws>::value || std::is_same_v<Ws, DenseWorkspace<Key, Exec>>,
                  "sieve::keys::scatter_dense: the workspace must be a DenseWorkspace of the "
                  "input's key type and of the instance's execution space");
    if constexpr (std::is_same_v<Ws, DenseWorkspace<Key, Exec>> &&
                  scatterChecks<true, Exec, In, Out>()) {
      return scatterDenseAsync(names, exec, input, sieve::Impl::nth<0>(rest...),
                               sieve::Impl::nth<1>(rest...));
    } else {
      return {};
    }
  } else {
    using Out = sieve::Impl::Nth<sizeof...(Rest) - 1, Rest...>;
    if constexpr ((sizeof...(Rest) == 1 || sizeof...(Rest) == 3) &&
                  scatterChecks<true, Exec, In, Out>()) {
      using Key = typename InputOf<In>::key_type;
      if constexpr (sizeof...(Rest) == 1) {
        return scatterDense(names, exec, input, false, Key{}, Key{}, sieve::Impl::nth<0>(rest...));
      } else {
        static_assert(
            std::is_convertible_v<sieve::Impl::Nth<0, Rest...>, Key> &&
                std::is_convertible_v<sieve::Impl::Nth<1, Rest...>, Key>,
            "sieve::keys::scatter_dense: min_key and max_key must convert to the key type");
        constexpr const char* fn = "sieve::keys::scatter_dense";
        sieve::Impl::Keys::checkKeyValue<Key>(fn, "min_key", sieve::Impl::nth<0>(rest...));
        sieve::Impl::Keys::checkKeyValue<Key>(fn, "max_key", sieve::Impl::nth<1>(rest...));
        return scatterDense(
            names, exec, input, true, static_cast<Key>(sieve::Impl::nth<0>(rest...)),
            static_cast<Key>(sieve::Impl::nth<1>(rest...)), sieve::Impl::nth<2>(rest...));
      }
    } else {
      return {};
    }
  }
}

template <class Exec, class In, class Out>
SparseResult<Exec, In> sparseEntry(const sieve::Impl::Names& names, const Exec& exec,
                                   const In& input, const Out& output) {
  if constexpr (scatterChecks<false, Exec, In, Out>()) {
    sieve::Impl::checkKernelsAllowed<Exec>("sieve::keys::scatter_sparse");
    return scatterSparse(names, exec, input, output);
  } else {
    return {};
  }
}

/// The execution space of the no-instance scatter forms: the output's.
template <class... Rest>
using OutputExec = typename sieve::Impl::Nth<sizeof...(Rest) - 1, Rest...>::execution_space;

template <class Exec, class Keys, class Out>
constexpr bool keysChecks(const char* = nullptr) {
  static_assert(kIsKeys<Keys>,
                "sieve::keys: 'keys' must be the DenseKeys, SparseKeys or ReducedKeys of a call");
  static_assert(sieve::Impl::Safe<Out>::rank == 1 && sieve::Impl::Safe<Out>::writable,
                "sieve::keys: 'output' must be a writable rank-1 View (the scattered elements)");
  static_assert(sieve::Impl::Safe<Out>::template accessible<Exec>(),
                "sieve::keys: 'output' is not accessible from the execution space");
  return kIsKeys<Keys> && sieve::Impl::Safe<Out>::rank == 1 && sieve::Impl::Safe<Out>::writable &&
         sieve::Impl::Safe<Out>::template accessible<Exec>();
}

template <class Exec, class Keys, class Out, class F>
ReducedKeys<Keys> reduceEntry(const sieve::Impl::Names& n, const Exec& exec, const Keys& keys,
                              const Out& output, const F& functor) {
  if constexpr (keysChecks<Exec, Keys, Out>()) {
    keys.check("sieve::keys::reduce");
    sieve::Impl::checkKernelsAllowed<Exec>("sieve::keys::reduce");
    return reduce(n, exec, keys, output, functor);
  } else {
    return {};
  }
}
template <class Exec, class Keys, class Out, class F>
Grouping<Keys> groupEntry(const sieve::Impl::Names& n, const Exec& exec, const Keys& keys,
                          const Out& output, const F& functor) {
  if constexpr (keysChecks<Exec, Keys, Out>()) {
    keys.check("sieve::keys::group");
    sieve::Impl::checkKernelsAllowed<Exec>("sieve::keys::group");
    return group(n, exec, keys, output, functor);
  } else {
    return {};
  }
}

template <class Exec, class In, class Out>
constexpr bool compactChecks() {
  static_assert(
      sieve::Impl::Safe<In>::rank == 1 && sieve::Impl::Safe<In>::template accessible<Exec>(),
      "sieve::keys::compact: 'input' must be a rank-1 View accessible from the "
      "execution space");
  static_assert(sieve::Impl::kViewOf<Exec, Out, 1, typename sieve::Impl::Safe<In>::value, true>,
                "sieve::keys::compact: 'output' must be a writable rank-1 View of the input's "
                "value type, accessible from the execution space");
  return sieve::Impl::Safe<In>::rank == 1 && sieve::Impl::Safe<In>::template accessible<Exec>() &&
         sieve::Impl::kViewOf<Exec, Out, 1, typename sieve::Impl::Safe<In>::value, true>;
}

} // namespace Impl

// ---------------------------------------------------------------------------
// scatter_dense

/// Scatter the elements of `input` to `output` in key order by a stable
/// counting sort over the key range [min_key, max_key] (integer keys):
/// `scatter_dense([label,] exec, input[, min_key, max_key], output)`. Without
/// a range it is the keys' min and max (one extra pass). Returns the
/// DenseKeys: key id k = key min_key + k, its elements at [offset(k),
/// offset(k + 1)) of `output`, in record order (the same bytes on every
/// backend and thread count). O(n + keys * chunks) work (chunks: about one
/// per thread), O(keys * chunks) scratch. Blocks: reads back the histogram
/// check, and fences `exec` before returning.
/// Throws std::invalid_argument, with nothing written to `output`, for
/// min_key > max_key, a min_key or max_key that is not a value of the key
/// type (never truncated), a range of more than 2^31 - 2 keys or one whose
/// histograms cannot be allocated, a key outside the range, a mapper count(i)
/// < 0, an `output` shorter than the elements, or an `output` overlapping the
/// input View. A mapper whose count, element or key answers differently on
/// the second pass also throws (nothing is written outside `output`, whose
/// contents are then unspecified).
///
/// The asynchronous form `scatter_dense([label,] exec, input, output,
/// workspace)` (input: a View of `workspace.elements()` elements; the range
/// is the workspace's) enqueues the same sort on `exec` and returns at once:
/// it allocates nothing, fences nothing and reads nothing back (capture-safe
/// on device spaces as far as Kokkos' kernel launches are). The returned
/// keys share the workspace's offsets (the next call on it overwrites them).
/// Keys outside the range cannot throw there: the output is then left
/// untouched, every key empty, and the error is thrown by
/// workspace.check(exec), keys.offset(k), reduce and group. Throws
/// std::invalid_argument (nothing enqueued) for an empty workspace, an input
/// of another size, an output too short or overlapping the input.
template <class ExecSpace, class Input, class... Rest>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Impl::DenseResult<ExecSpace, Input>>
scatter_dense(const ExecSpace& exec, const Input& input, const Rest&... rest) {
  return Impl::denseEntry(sieve::Impl::Names("", "sieve::keys::scatter_dense"), exec, input,
                          rest...);
}

/// scatter_dense with a label naming its profiling region and prefixing its
/// kernel and allocation labels ("<label>: sieve::keys::scatter_dense").
template <class ExecSpace, class Input, class... Rest>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Impl::DenseResult<ExecSpace, Input>>
scatter_dense(const std::string& label, const ExecSpace& exec, const Input& input,
              const Rest&... rest) {
  return Impl::denseEntry(sieve::Impl::Names(label, "sieve::keys::scatter_dense"), exec, input,
                          rest...);
}

/// scatter_dense on a default instance of the output's execution space
/// (fenced). Throws as the instance form.
template <class Input, class... Rest>
std::enable_if_t<!sieve::Impl::kIsExec<Input> && !Impl::kLabel<Input> &&
                     (sizeof...(Rest) == 1 || sizeof...(Rest) == 3),
                 Impl::DenseResult<Impl::OutputExec<Rest...>, Input>>
scatter_dense(const Input& input, const Rest&... rest) {
  return Impl::denseEntry(sieve::Impl::Names("", "sieve::keys::scatter_dense"),
                          Impl::OutputExec<Rest...>{}, input, rest...);
}

/// The no-instance scatter_dense with a label.
template <class Input, class... Rest>
std::enable_if_t<!sieve::Impl::kIsExec<Input> && (sizeof...(Rest) == 1 || sizeof...(Rest) == 3),
                 Impl::DenseResult<Impl::OutputExec<Rest...>, Input>>
scatter_dense(const std::string& label, const Input& input, const Rest&... rest) {
  return Impl::denseEntry(sieve::Impl::Names(label, "sieve::keys::scatter_dense"),
                          Impl::OutputExec<Rest...>{}, input, rest...);
}

// ---------------------------------------------------------------------------
// scatter_sparse

/// Scatter the elements of `input` to `output` sorted by key (stable; any key
/// type with a device-callable operator<, e.g. 64-bit hashes or
/// Kokkos::pair): `scatter_sparse([label,] exec, input, output)`. Returns the
/// SparseKeys: the distinct keys ascending (keys()), key id k's elements at
/// [offset(k), offset(k + 1)) of `output`, in record order. Integer keys: LSD
/// radix passes of <= 16 bits over the bits of max - min (one pass when the
/// keys span < 2^16), O(n * passes); other keys: a parallel stable merge
/// sort, O(n log n). O(n) scratch. Blocks (reads back the number of keys,
/// fences `exec`). Throws std::invalid_argument (nothing written) for an
/// `output` shorter than the elements, more than 2^31 - 2 elements, an
/// `output` overlapping the input View, a mapper count(i) < 0 or changing
/// between calls, or keys that operator< does not order (a floating-point
/// NaN, or an operator< that is not a strict weak order).
template <class ExecSpace, class Input, class Output>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Impl::SparseResult<ExecSpace, Input>>
scatter_sparse(const ExecSpace& exec, const Input& input, const Output& output) {
  return Impl::sparseEntry(sieve::Impl::Names("", "sieve::keys::scatter_sparse"), exec, input,
                           output);
}

/// scatter_sparse with a label.
template <class ExecSpace, class Input, class Output>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Impl::SparseResult<ExecSpace, Input>>
scatter_sparse(const std::string& label, const ExecSpace& exec, const Input& input,
               const Output& output) {
  return Impl::sparseEntry(sieve::Impl::Names(label, "sieve::keys::scatter_sparse"), exec, input,
                           output);
}

/// scatter_sparse on a default instance of the output's execution space.
template <class Input, class Output>
std::enable_if_t<!sieve::Impl::kIsExec<Input> && !Impl::kLabel<Input>,
                 Impl::SparseResult<typename Output::execution_space, Input>>
scatter_sparse(const Input& input, const Output& output) {
  return Impl::sparseEntry(sieve::Impl::Names("", "sieve::keys::scatter_sparse"),
                           typename Output::execution_space{}, input, output);
}

/// The no-instance scatter_sparse with a label.
template <class Input, class Output>
std::enable_if_t<!sieve::Impl::kIsExec<Input>,
                 Impl::SparseResult<typename Output::execution_space, Input>>
scatter_sparse(const std::string& label, const Input& input, const Output& output) {
  return Impl::sparseEntry(sieve::Impl::Names(label, "sieve::keys::scatter_sparse"),
                           typename Output::execution_space{}, input, output);
}

// ---------------------------------------------------------------------------
// count_elements

/// The number of elements of an input (a View: its extent; a mapper: the sum
/// of count(i), one parallel reduction on `exec`), without storing them, e.g.
/// to size the output of a scatter. O(records). Blocks for a mapper.
template <class ExecSpace, class Input>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, std::int64_t> count_elements(
    const ExecSpace& exec, const Input& input) {
  static_assert(Impl::InputOf<Input>::ok,
                "sieve::keys::count_elements: 'input' must be a View of keyed elements, "
                "sieve::keys::keyed(view, key_fn) or a mapper");
  if constexpr (Impl::InputOf<Input>::ok)
    return Impl::countElements(sieve::Impl::Names("", "sieve::keys::count_elements"), exec, input);
  else return 0;
}

/// count_elements with a label.
template <class ExecSpace, class Input>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, std::int64_t> count_elements(
    const std::string& label, const ExecSpace& exec, const Input& input) {
  static_assert(Impl::InputOf<Input>::ok,
                "sieve::keys::count_elements: 'input' must be a View of keyed elements, "
                "sieve::keys::keyed(view, key_fn) or a mapper");
  if constexpr (Impl::InputOf<Input>::ok)
    return Impl::countElements(sieve::Impl::Names(label, "sieve::keys::count_elements"), exec,
                               input);
  else return 0;
}

/// count_elements on a default instance of Kokkos::DefaultExecutionSpace.
template <class Input>
std::enable_if_t<!sieve::Impl::kIsExec<Input> && !Impl::kLabel<Input>, std::int64_t> count_elements(
    const Input& input) {
  return count_elements(Kokkos::DefaultExecutionSpace{}, input);
}

// ---------------------------------------------------------------------------
// for_each_key_range

/// Call `functor(output, begin, end, offsets, args...)` on disjoint ranges
/// [begin, end) of key ids covering every key, concurrently:
/// `for_each_key_range([label,] exec, keys, output, functor, args...)`. The
/// elements of key id k are [offsets(k), offsets(k + 1)) of `output`. The
/// ranges are balanced by elements plus keys (about 8 per thread, each about
/// (elements + keys) / ranges), a key is never split: a key holding most
/// elements is one call (SortUnique and SortGroup avoid this, see reduce).
/// `functor` is copied to the space; its operator() must be const and
/// callable there; `args` are copied too (Views, scalars). O(ranges * log
/// keys) besides the functor. Asynchronous: enqueued on `exec`, allocates
/// nothing. Throws std::invalid_argument for an `output` shorter than the
/// keys' elements.
template <class ExecSpace, class Keys, class Output, class Functor, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>> for_each_key_range(const ExecSpace& exec,
                                                                     const Keys& keys,
                                                                     const Output& output,
                                                                     const Functor& functor,
                                                                     const Args&... args) {
  if constexpr (Impl::keysChecks<ExecSpace, Keys, Output>())
    Impl::forEachKeyRange(sieve::Impl::Names("", "sieve::keys::for_each_key_range"), exec, keys,
                          output, functor, args...);
}

/// for_each_key_range with a label.
template <class ExecSpace, class Keys, class Output, class Functor, class... Args>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>> for_each_key_range(
    const std::string& label, const ExecSpace& exec, const Keys& keys, const Output& output,
    const Functor& functor, const Args&... args) {
  if constexpr (Impl::keysChecks<ExecSpace, Keys, Output>())
    Impl::forEachKeyRange(sieve::Impl::Names(label, "sieve::keys::for_each_key_range"), exec, keys,
                          output, functor, args...);
}

/// for_each_key_range on a default instance of the keys' execution space,
/// fenced. Blocking.
template <class Keys, class Output, class Functor, class... Args>
std::enable_if_t<Impl::kIsKeys<Keys>> for_each_key_range(const Keys& keys, const Output& output,
                                                         const Functor& functor,
                                                         const Args&... args) {
  const typename Keys::execution_space exec{};
  for_each_key_range(exec, keys, output, functor, args...);
  sieve::Impl::fence(exec, "keys::for_each_key_range: the call without an instance");
}

// ---------------------------------------------------------------------------
// reduce

/// Keep the survivors of every key at the front of its elements in `output`:
/// `reduce([label,] exec, keys, output, functor)`, where `functor` is called
/// as in for_each_key_range with one extra argument `counts` (a View of
/// int64, num_keys() + 1 words, zeroed), and writes the survivors of key id
/// k to counts(k); or SortUnique{} (one of every run of equal elements of a
/// key, the first in record order; the duplicates follow the survivors, so
/// every key stays a permutation of its elements) — run as one parallel
/// stable merge sort of all elements by (key id, element), balanced whatever
/// the distribution. Returns the ReducedKeys (survivors of key id k at
/// [offset(k), offset(k + 1)) once compacted). O(n) + the functor's work;
/// SortUnique O(n log n). Blocks (reads back the survivors' count).
/// Throws std::invalid_argument for an `output` shorter than the keys'
/// elements, a functor that writes a count outside [0, size of the key], or
/// (SortUnique) elements whose operator< is not a strict weak order, e.g.
/// NaN (then `output` is unchanged).
template <class ExecSpace, class Keys, class Output, class Functor>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, ReducedKeys<Keys>> reduce(
    const ExecSpace& exec, const Keys& keys, const Output& output, const Functor& functor) {
  return Impl::reduceEntry(sieve::Impl::Names("", "sieve::keys::reduce"), exec, keys, output,
                           functor);
}

/// reduce with a label.
template <class ExecSpace, class Keys, class Output, class Functor>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, ReducedKeys<Keys>> reduce(
    const std::string& label, const ExecSpace& exec, const Keys& keys, const Output& output,
    const Functor& functor) {
  return Impl::reduceEntry(sieve::Impl::Names(label, "sieve::keys::reduce"), exec, keys, output,
                           functor);
}

/// reduce on a default instance of the keys' execution space.
template <class Keys, class Output, class Functor>
std::enable_if_t<Impl::kIsKeys<Keys>, ReducedKeys<Keys>> reduce(const Keys& keys,
                                                                const Output& output,
                                                                const Functor& functor) {
  return Impl::reduceEntry(sieve::Impl::Names("", "sieve::keys::reduce"),
                           typename Keys::execution_space{}, keys, output, functor);
}

// ---------------------------------------------------------------------------
// group

/// Make the equal elements of every key contiguous in `output` and flag the
/// first of each: `group([label,] exec, keys, output, functor)`, where
/// `functor` is called as in for_each_key_range with one extra argument
/// `starts` (a View of int64, num_elements() + 1 words, zeroed) and sets
/// starts(p) != 0 at every element p that starts a group (the first element
/// of every key always does); or SortGroup{} (sort by operator<, stable, as
/// one parallel merge sort of all elements). Returns Grouping{groups, keys}:
/// group g at [groups.group_offset(g), groups.group_offset(g + 1)) of
/// `output`, the groups of key id k at [keys.offset(k), keys.offset(k + 1)).
/// O(n) + the functor's work; SortGroup O(n log n). Blocks (reads back the
/// number of groups). Throws std::invalid_argument for a short `output`,
/// more than 2^31 - 2 elements, or (SortGroup) elements whose operator< is
/// not a strict weak order, e.g. NaN (then `output` is unchanged).
template <class ExecSpace, class Keys, class Output, class Functor>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Grouping<Keys>> group(const ExecSpace& exec,
                                                                        const Keys& keys,
                                                                        const Output& output,
                                                                        const Functor& functor) {
  return Impl::groupEntry(sieve::Impl::Names("", "sieve::keys::group"), exec, keys, output,
                          functor);
}

/// group with a label.
template <class ExecSpace, class Keys, class Output, class Functor>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, Grouping<Keys>> group(const std::string& label,
                                                                        const ExecSpace& exec,
                                                                        const Keys& keys,
                                                                        const Output& output,
                                                                        const Functor& functor) {
  return Impl::groupEntry(sieve::Impl::Names(label, "sieve::keys::group"), exec, keys, output,
                          functor);
}

/// group on a default instance of the keys' execution space.
template <class Keys, class Output, class Functor>
std::enable_if_t<Impl::kIsKeys<Keys>, Grouping<Keys>> group(const Keys& keys, const Output& output,
                                                            const Functor& functor) {
  return Impl::groupEntry(sieve::Impl::Names("", "sieve::keys::group"),
                          typename Keys::execution_space{}, keys, output, functor);
}

// ---------------------------------------------------------------------------
// compact

/// Copy the survivors of a reduced `input` (the output of reduce) contiguously
/// to `output`: `compact([label,] exec, keys, reduced, input, output)`; the
/// survivors of key id k land at [reduced.offset(k), reduced.offset(k + 1)).
/// Returns their number (reduced.num_elements()). O(m log keys) for m
/// survivors. Asynchronous (enqueued on `exec`). Throws
/// std::invalid_argument for `reduced` not made by reduce(keys, ...) (other
/// keys, or the keys of a Grouping), a short input or a short output, or an
/// `output` overlapping `input` (nothing enqueued).
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && Impl::kIsKeys<Keys>, std::int64_t> compact(
    const ExecSpace& exec, const Keys& keys, const ReducedKeys<Keys>& reduced, const Input& input,
    const Output& output) {
  if constexpr (Impl::compactChecks<ExecSpace, Input, Output>())
    return Impl::compactReduced(sieve::Impl::Names("", "sieve::keys::compact"), exec, keys, reduced,
                                input, output);
  else return 0;
}

/// compact (survivors) with a label.
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace> && Impl::kIsKeys<Keys>, std::int64_t> compact(
    const std::string& label, const ExecSpace& exec, const Keys& keys,
    const ReducedKeys<Keys>& reduced, const Input& input, const Output& output) {
  if constexpr (Impl::compactChecks<ExecSpace, Input, Output>())
    return Impl::compactReduced(sieve::Impl::Names(label, "sieve::keys::compact"), exec, keys,
                                reduced, input, output);
  else return 0;
}

/// compact (survivors) on a default instance of the keys' space, fenced.
template <class Keys, class Input, class Output>
std::enable_if_t<Impl::kIsKeys<Keys>, std::int64_t> compact(const Keys& keys,
                                                            const ReducedKeys<Keys>& reduced,
                                                            const Input& input,
                                                            const Output& output) {
  const typename Keys::execution_space exec{};
  const std::int64_t m = compact(exec, keys, reduced, input, output);
  sieve::Impl::fence(exec, "keys::compact: the call without an instance");
  return m;
}

/// Copy the first element of every group of a grouped `input` (the output of
/// group) to `output`, group g to output(g): `compact([label,] exec, groups,
/// input, output)`. Returns the number of groups. O(groups). Asynchronous.
/// Throws std::invalid_argument for a short input or output, or an `output`
/// overlapping `input`.
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, std::int64_t> compact(
    const ExecSpace& exec, const GroupedElements<Keys>& groups, const Input& input,
    const Output& output) {
  if constexpr (Impl::compactChecks<ExecSpace, Input, Output>())
    return Impl::compactGroups(sieve::Impl::Names("", "sieve::keys::compact"), exec, groups, input,
                               output);
  else return 0;
}

/// compact (groups) with a label.
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<sieve::Impl::kIsExec<ExecSpace>, std::int64_t> compact(
    const std::string& label, const ExecSpace& exec, const GroupedElements<Keys>& groups,
    const Input& input, const Output& output) {
  if constexpr (Impl::compactChecks<ExecSpace, Input, Output>())
    return Impl::compactGroups(sieve::Impl::Names(label, "sieve::keys::compact"), exec, groups,
                               input, output);
  else return 0;
}

/// compact (groups) on a default instance of the keys' space, fenced.
template <class Keys, class Input, class Output>
std::int64_t compact(const GroupedElements<Keys>& groups, const Input& input,
                     const Output& output) {
  const typename Keys::execution_space exec{};
  const std::int64_t m = compact(exec, groups, input, output);
  sieve::Impl::fence(exec, "keys::compact: the call without an instance");
  return m;
}

} // namespace keys
} // namespace sieve
