// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::keys: move elements into key order in parallel, so that the
// elements of every key are contiguous, then work on every key (the model:
// VTK's vtk::keys). The results (DenseKeys, SparseKeys, ReducedKeys,
// Grouping), DenseWorkspace, SparseWorkspace and ReduceWorkspace are in
// <sieve/keys_results.hpp>.
//
//   DenseKeys  scatter_dense([label,] [exec,] input[, min_key, max_key], output)
//   DenseKeys  scatter_dense([label,] exec, input, output, DenseWorkspace&)  (asynchronous)
//   DenseKeys  sort_permutation([label,] [exec,] n, key_fn[, min_key, max_key], perm)
//   DenseKeys  sort_permutation([label,] exec, n | count, key_fn, perm, DenseWorkspace&)  (async)
//   SparseKeys scatter_sparse([label,] [exec,] input, output)
//   SparseKeys scatter_sparse([label,] exec, input, output, SparseWorkspace&)  (no result alloc;
//                             a fixed workspace, made with elements: asynchronous)
//   int64      count_elements([label,] [exec,] input)
//   void       for_each_key_range([label,] [exec,] keys, output, functor, args...)
//   ReducedKeys reduce([label,] [exec,] keys, output, functor | SortUnique{})  (a filter)
//   void       reduce_by_key([label,] [exec,] keys, values | project(output, fn), init, op,
//                            result)  (per-key sums, min, max, ...)
//   void       reduce_by_key([label,] exec, keys, values | project(output, fn), init, op,
//                            result, ReduceWorkspace&)  (asynchronous)
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
// Backends: the dense scatter of contiguous Views runs natively where it pays
// (Kokkos::OpenMP: denseScatterHost; Kokkos::Cuda, blocking form:
// cuda::DenseScatter) and the sparse scatter's sort on the native radix
// order (radixOrderHost, radixOrderDevice); everything else, and every other
// space, runs portable Kokkos patterns (parallel_for / parallel_reduce,
// sieve's exclusive scan on each space's scan face). Every face gives the
// same bytes (tested on Serial, OpenMP and, on an H200, Cuda).
#pragma once

#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/keys/entry.hpp>
#include <sieve/keys_results.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace sieve {
namespace keys {

/// The values of reduce_by_key projected from a View of elements: value(p) =
/// fn(view(p)). Made by sieve::keys::project(view, fn).
template <class View, class Fn>
struct Projected {
  View view;
  Fn fn;
};

/// The values fn(view(p)) for reduce_by_key (e.g. the weight of a scattered
/// particle); fn is copied to the execution space and called there. O(1).
template <class View, class Fn>
Projected<View, Fn> project(const View& view, const Fn& fn) {
  return Projected<View, Fn>{view, fn};
}

/// A View of elements with a key functor: made by sieve::keys::keyed(view, key).
template <class View, class KeyFn>
struct Keyed {
  View view;
  KeyFn key;
};

/// The elements of `view`, keyed by `key(element)` (a functor callable on the
/// execution space) instead of their key() member. O(1).
template <class View, class KeyFn>
Keyed<View, KeyFn> keyed(const View& view, const KeyFn& key) {
  return Keyed<View, KeyFn>{view, key};
}

/// The ready reduce functor: keeps one element of every run of equal ones of
/// each key (sort, then unique). Elements need a device-callable operator<
/// (a == b means !(a < b) && !(b < a)); of equal elements the first in the
/// key's order is kept. reduce runs it as one parallel stable sort of all
/// elements by (key id, element): balanced whatever the distribution.
struct SortUnique {};

/// The ready group functor: sorts the elements of each key and flags those
/// that differ from the previous one (operator<, as SortUnique). group runs
/// it as one parallel stable sort, as SortUnique.
struct SortGroup {};

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
/// A failed allocation or a throwing functor (host spaces) leaves the inputs as
/// they were and the outputs unspecified (docs/conventions.md).
template <class ExecSpace, class Input, class Output>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::DenseResult<ExecSpace, Input>> scatter_dense(
    const ExecSpace& exec, const Input& input, const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names("", Impl::Keys::kScatterDense), exec, input, output);
}

/// scatter_dense over the given key range [min_key, max_key].
template <class ExecSpace, class Input, class MinKey, class MaxKey, class Output>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::DenseResult<ExecSpace, Input>> scatter_dense(
    const ExecSpace& exec, const Input& input, const MinKey& min_key, const MaxKey& max_key,
    const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names("", Impl::Keys::kScatterDense), exec, input, min_key,
                                max_key, output);
}

/// scatter_dense on a DenseWorkspace: asynchronous (see above).
template <class ExecSpace, class Input, class Output, class Workspace>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::DenseResult<ExecSpace, Input>> scatter_dense(
    const ExecSpace& exec, const Input& input, const Output& output, const Workspace& workspace) {
  return Impl::Keys::denseEntry(Impl::Names("", Impl::Keys::kScatterDense), exec, input, output,
                                workspace);
}

/// The instance forms with a label naming the profiling region and prefixing
/// the kernel and allocation labels ("<label>: sieve::keys::scatter_dense").
template <class Label, class ExecSpace, class Input, class Output>
std::enable_if_t<Impl::Keys::kLabel<Label> && Impl::kIsExec<ExecSpace>,
                 Impl::Keys::DenseResult<ExecSpace, Input>>
scatter_dense(const Label& label, const ExecSpace& exec, const Input& input, const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names(label, Impl::Keys::kScatterDense), exec, input, output);
}
template <class Label, class ExecSpace, class Input, class MinKey, class MaxKey, class Output>
std::enable_if_t<Impl::Keys::kLabel<Label> && Impl::kIsExec<ExecSpace>,
                 Impl::Keys::DenseResult<ExecSpace, Input>>
scatter_dense(const Label& label, const ExecSpace& exec, const Input& input, const MinKey& min_key,
              const MaxKey& max_key, const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names(label, Impl::Keys::kScatterDense), exec, input, min_key,
                                max_key, output);
}
template <class Label, class ExecSpace, class Input, class Output, class Workspace>
std::enable_if_t<Impl::Keys::kLabel<Label> && Impl::kIsExec<ExecSpace>,
                 Impl::Keys::DenseResult<ExecSpace, Input>>
scatter_dense(const Label& label, const ExecSpace& exec, const Input& input, const Output& output,
              const Workspace& workspace) {
  return Impl::Keys::denseEntry(Impl::Names(label, Impl::Keys::kScatterDense), exec, input, output,
                                workspace);
}

/// scatter_dense on a default instance of the output's execution space
/// (fenced): `scatter_dense([label,] input[, min_key, max_key], output)`.
/// Blocking. Throws as the instance form.
template <class Input, class Output>
std::enable_if_t<Impl::Keys::kNoInstance<Input>,
                 Impl::Keys::DenseResult<typename Output::execution_space, Input>>
scatter_dense(const Input& input, const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names("", Impl::Keys::kScatterDense),
                                typename Output::execution_space{}, input, output);
}
template <class Input, class MinKey, class MaxKey, class Output>
std::enable_if_t<Impl::Keys::kNoInstance<Input>,
                 Impl::Keys::DenseResult<typename Output::execution_space, Input>>
scatter_dense(const Input& input, const MinKey& min_key, const MaxKey& max_key,
              const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names("", Impl::Keys::kScatterDense),
                                typename Output::execution_space{}, input, min_key, max_key,
                                output);
}
template <class Label, class Input, class Output>
std::enable_if_t<Impl::Keys::kLabel<Label> && !Impl::kIsExec<Input>,
                 Impl::Keys::DenseResult<typename Output::execution_space, Input>>
scatter_dense(const Label& label, const Input& input, const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names(label, Impl::Keys::kScatterDense),
                                typename Output::execution_space{}, input, output);
}
template <class Label, class Input, class MinKey, class MaxKey, class Output>
std::enable_if_t<Impl::Keys::kLabel<Label> && !Impl::kIsExec<Input>,
                 Impl::Keys::DenseResult<typename Output::execution_space, Input>>
scatter_dense(const Label& label, const Input& input, const MinKey& min_key, const MaxKey& max_key,
              const Output& output) {
  return Impl::Keys::denseEntry(Impl::Names(label, Impl::Keys::kScatterDense),
                                typename Output::execution_space{}, input, min_key, max_key,
                                output);
}

/// Any other argument list: Sieve's own error, naming the forms.
template <class First, class... Rest>
void scatter_dense(const First&, const Rest&...) {
  static_assert(Impl::kNever<First>,
                "sieve::keys::scatter_dense: the arguments are ([label,] [exec,] input[, min_key, "
                "max_key], output) or ([label,] exec, input, output, workspace)");
}

// ---------------------------------------------------------------------------
// sort_permutation

/// The stable order of the indices 0 .. n - 1 by the integer key key_fn(i),
/// with the offsets of every key (what Kokkos::BinSort's permute vector and
/// bin offsets give): `sort_permutation([label,] exec, n, key_fn[, min_key,
/// max_key], perm)`. key_fn: callable as key_fn(std::int64_t i) on the
/// execution space (e.g. a KOKKOS_LAMBDA computing a cell from positions),
/// returning an integer key; called twice per index, so it must answer the
/// same both times. perm: a rank-1 View of std::int64_t or std::int32_t of
/// at least n entries; perm(j) = the index i of the j-th element in key
/// order (gather convention: plane_sorted(j) = plane(perm(j))), equal keys in
/// index order. Returns the DenseKeys of [min_key, max_key] (without a
/// range: the keys' own min and max, one extra pass): key id k = key min_key
/// + k, its indices at [offset(k), offset(k + 1)) of perm. The same bytes on
/// every backend and thread count. O(n + keys * chunks) work, O(keys *
/// chunks) scratch. Blocks (reads back the histogram check; fences `exec`).
/// Throws std::invalid_argument, with nothing written to perm, for n < 0, a
/// perm shorter than n or of int32 with n - 1 > INT32_MAX, min_key > max_key,
/// a min_key or max_key that is not a value of the key type, a range of more
/// than 2^31 - 2 keys, or a key outside the range. A key_fn that answers
/// differently on its second call (e.g. it reads perm) also throws: every
/// key's slot of every chunk is checked to be filled exactly (nothing is
/// written outside perm, whose contents are then unspecified).
///
/// The asynchronous form `sort_permutation([label,] exec, n, key_fn, perm,
/// workspace)` takes a DenseWorkspace<Key, ExecSpace> made for a capacity
/// (its elements()) and any n up to it; n may also be a rank-0 View of
/// std::int64_t holding the count on the device (e.g. findall's count), read
/// by the kernels (perm must then hold the capacity). It allocates nothing,
/// fences nothing and reads nothing back (capture-safe as far as Kokkos'
/// kernel launches are). A key outside the range, or a device count outside
/// [0, capacity], cannot throw there: nothing is written to perm, every key
/// is empty, and workspace.check(exec), keys.offset(k), reduce and group
/// throw. The returned keys share the workspace's offsets (the next call on it
/// overwrites them); num_elements() is n (with a device count: the capacity;
/// offset(num_keys()) is the count). Throws std::invalid_argument (nothing
/// enqueued) for an empty workspace, n above its capacity or a short perm.
/// A failed allocation or a throwing functor (host spaces) leaves the inputs as
/// they were and the outputs unspecified (docs/conventions.md).
template <class ExecSpace, class N, class KeyFn, class Perm>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::PermResult<ExecSpace, KeyFn>>
sort_permutation(const ExecSpace& exec, const N& n, const KeyFn& key_fn, const Perm& perm) {
  return Impl::Keys::permEntry(Impl::Names("", Impl::Keys::kSortPermutation), exec, n, key_fn,
                               perm);
}

/// sort_permutation over the given key range [min_key, max_key].
template <class ExecSpace, class N, class KeyFn, class MinKey, class MaxKey, class Perm>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::PermResult<ExecSpace, KeyFn>>
sort_permutation(const ExecSpace& exec, const N& n, const KeyFn& key_fn, const MinKey& min_key,
                 const MaxKey& max_key, const Perm& perm) {
  return Impl::Keys::permEntry(Impl::Names("", Impl::Keys::kSortPermutation), exec, n, key_fn,
                               min_key, max_key, perm);
}

/// sort_permutation on a DenseWorkspace: asynchronous (see above).
template <class ExecSpace, class N, class KeyFn, class Perm, class Workspace>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::PermResult<ExecSpace, KeyFn>>
sort_permutation(const ExecSpace& exec, const N& n, const KeyFn& key_fn, const Perm& perm,
                 const Workspace& workspace) {
  return Impl::Keys::permEntry(Impl::Names("", Impl::Keys::kSortPermutation), exec, n, key_fn, perm,
                               workspace);
}

/// The instance forms with a label naming the profiling region and prefixing
/// the kernel and allocation labels ("<label>: sieve::keys::sort_permutation").
template <class Label, class ExecSpace, class N, class KeyFn, class Perm>
std::enable_if_t<Impl::Keys::kLabel<Label> && Impl::kIsExec<ExecSpace>,
                 Impl::Keys::PermResult<ExecSpace, KeyFn>>
sort_permutation(const Label& label, const ExecSpace& exec, const N& n, const KeyFn& key_fn,
                 const Perm& perm) {
  return Impl::Keys::permEntry(Impl::Names(label, Impl::Keys::kSortPermutation), exec, n, key_fn,
                               perm);
}
template <class Label, class ExecSpace, class N, class KeyFn, class MinKey, class MaxKey,
          class Perm>
std::enable_if_t<Impl::Keys::kLabel<Label> && Impl::kIsExec<ExecSpace>,
                 Impl::Keys::PermResult<ExecSpace, KeyFn>>
sort_permutation(const Label& label, const ExecSpace& exec, const N& n, const KeyFn& key_fn,
                 const MinKey& min_key, const MaxKey& max_key, const Perm& perm) {
  return Impl::Keys::permEntry(Impl::Names(label, Impl::Keys::kSortPermutation), exec, n, key_fn,
                               min_key, max_key, perm);
}
template <class Label, class ExecSpace, class N, class KeyFn, class Perm, class Workspace>
std::enable_if_t<Impl::Keys::kLabel<Label> && Impl::kIsExec<ExecSpace>,
                 Impl::Keys::PermResult<ExecSpace, KeyFn>>
sort_permutation(const Label& label, const ExecSpace& exec, const N& n, const KeyFn& key_fn,
                 const Perm& perm, const Workspace& workspace) {
  return Impl::Keys::permEntry(Impl::Names(label, Impl::Keys::kSortPermutation), exec, n, key_fn,
                               perm, workspace);
}

/// sort_permutation on a default instance of perm's execution space
/// (fenced): `sort_permutation(n, key_fn[, min_key, max_key], perm)`.
/// Blocking. Throws as the instance form.
template <class N, class KeyFn, class Perm>
std::enable_if_t<Impl::Keys::kNoInstance<N>,
                 Impl::Keys::PermResult<typename Perm::execution_space, KeyFn>>
sort_permutation(const N& n, const KeyFn& key_fn, const Perm& perm) {
  const typename Perm::execution_space exec{};
  auto keys =
      Impl::Keys::permEntry(Impl::Names("", Impl::Keys::kSortPermutation), exec, n, key_fn, perm);
  Impl::fence(exec, "keys::sort_permutation: the call without an instance");
  return keys;
}
template <class N, class KeyFn, class MinKey, class MaxKey, class Perm>
std::enable_if_t<Impl::Keys::kNoInstance<N>,
                 Impl::Keys::PermResult<typename Perm::execution_space, KeyFn>>
sort_permutation(const N& n, const KeyFn& key_fn, const MinKey& min_key, const MaxKey& max_key,
                 const Perm& perm) {
  const typename Perm::execution_space exec{};
  auto keys = Impl::Keys::permEntry(Impl::Names("", Impl::Keys::kSortPermutation), exec, n, key_fn,
                                    min_key, max_key, perm);
  Impl::fence(exec, "keys::sort_permutation: the call without an instance");
  return keys;
}

/// Any other argument list: Sieve's own error, naming the forms.
template <class First, class... Rest>
void sort_permutation(const First&, const Rest&...) {
  static_assert(Impl::kNever<First>,
                "sieve::keys::sort_permutation: the arguments are ([label,] exec, n, key_fn[, "
                "min_key, max_key], perm), (n, key_fn[, min_key, max_key], perm) or ([label,] "
                "exec, n, key_fn, perm, workspace)");
}

// ---------------------------------------------------------------------------
// reduce_by_key

/// Per-key reduction (a segmented reduce): `reduce_by_key([label,] exec,
/// keys, values, init, op, result)` sets result(k), for every key id k of
/// `keys` (DenseKeys, SparseKeys or ReducedKeys), to the fold by `op` of init
/// and the values of key k's elements (init for an empty key). values: a
/// rank-1 View with a value per element position of the keys' output (at
/// least num_elements()), or sieve::keys::project(output, fn) (value =
/// fn(output(p)), e.g. a particle's weight). op: an associative functor
/// callable as op(T, T) -> T on the execution space (sieve::Sum{}, Min{},
/// Max{} or a user's); T is the result's value type (values and init are
/// converted to T). The fold order is fixed, whatever the backend or thread
/// count: the positions are cut at the multiples of 2048, each piece of a key
/// is folded left to right from its first value, and result(k) = init op
/// piece_0 op piece_1 ... — so floating-point sums are the same bytes on every
/// backend. O(elements + keys) work, O(elements / 2048) scratch. Blocks
/// (fences `exec` before freeing its scratch; with a ReduceWorkspace, below,
/// it allocates nothing and is asynchronous). Throws std::invalid_argument
/// (nothing written) for values shorter than num_elements(), a result shorter
/// than num_keys(), a result sharing a byte with the values or the keys'
/// offsets, or keys whose asynchronous scatter rejected its input.
/// (keys::reduce, by contrast, is a per-key survivor filter.)
/// A failed allocation or a throwing functor (host spaces) leaves the inputs as
/// they were and the outputs unspecified (docs/conventions.md).
template <class ExecSpace, class Keys, class Values, class Init, class Op, class Result>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reduce_by_key(const ExecSpace& exec, const Keys& keys,
                                                         const Values& values, const Init& init,
                                                         const Op& op, const Result& result) {
  Impl::Keys::foldEntry(Impl::Names("", "sieve::keys::reduce_by_key"), exec, keys, values, init, op,
                        result);
}

/// reduce_by_key with a label naming its profiling region and prefixing its
/// kernel and allocation labels ("<label>: sieve::keys::reduce_by_key").
template <class ExecSpace, class Keys, class Values, class Init, class Op, class Result>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reduce_by_key(const std::string& label,
                                                         const ExecSpace& exec, const Keys& keys,
                                                         const Values& values, const Init& init,
                                                         const Op& op, const Result& result) {
  Impl::Keys::foldEntry(Impl::Names(label, "sieve::keys::reduce_by_key"), exec, keys, values, init,
                        op, result);
}

/// reduce_by_key with its scratch in `workspace` (a ReduceWorkspace<T,
/// ExecSpace>, T the result's value type, made for at least the keys'
/// num_elements()): allocates nothing, fences nothing, reads nothing back:
/// asynchronous on `exec` and capture-safe. The same bytes as the form
/// without it. Keys whose asynchronous call rejected its input (a key
/// outside a DenseWorkspace's range, more keys than a fixed SparseWorkspace
/// holds) are not read back here: the fold then writes nothing, and the
/// workspace's check() throws. Throws as that form otherwise, and
/// std::invalid_argument (nothing written) for an empty workspace, keys of
/// more elements than it was made for, or a result, values or offsets
/// sharing a byte with its scratch.
template <class ExecSpace, class Keys, class Values, class Init, class Op, class Result, class T,
          class WorkspaceExec>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reduce_by_key(
    const ExecSpace& exec, const Keys& keys, const Values& values, const Init& init, const Op& op,
    const Result& result, const ReduceWorkspace<T, WorkspaceExec>& workspace) {
  Impl::Keys::foldEntry(Impl::Names("", "sieve::keys::reduce_by_key"), exec, keys, values, init, op,
                        result, workspace);
}

/// reduce_by_key with a workspace and a label (as the labelled form).
template <class ExecSpace, class Keys, class Values, class Init, class Op, class Result, class T,
          class WorkspaceExec>
std::enable_if_t<Impl::kIsExec<ExecSpace>> reduce_by_key(
    const std::string& label, const ExecSpace& exec, const Keys& keys, const Values& values,
    const Init& init, const Op& op, const Result& result,
    const ReduceWorkspace<T, WorkspaceExec>& workspace) {
  Impl::Keys::foldEntry(Impl::Names(label, "sieve::keys::reduce_by_key"), exec, keys, values, init,
                        op, result, workspace);
}

/// reduce_by_key on a default instance of the keys' execution space
/// (fenced). Blocking. Throws as the instance form.
template <class Keys, class Values, class Init, class Op, class Result>
std::enable_if_t<Impl::Keys::kIsKeys<Keys>> reduce_by_key(const Keys& keys, const Values& values,
                                                          const Init& init, const Op& op,
                                                          const Result& result) {
  const typename Keys::execution_space exec{};
  Impl::Keys::foldEntry(Impl::Names("", "sieve::keys::reduce_by_key"), exec, keys, values, init, op,
                        result);
  Impl::fence(exec, "keys::reduce_by_key: the call without an instance");
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
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::SparseResult<ExecSpace, Input>>
scatter_sparse(const ExecSpace& exec, const Input& input, const Output& output) {
  return Impl::Keys::sparseEntry(Impl::Names("", "sieve::keys::scatter_sparse"), exec, input,
                                 output);
}

/// scatter_sparse with a label.
template <class ExecSpace, class Input, class Output>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::SparseResult<ExecSpace, Input>>
scatter_sparse(const std::string& label, const ExecSpace& exec, const Input& input,
               const Output& output) {
  return Impl::Keys::sparseEntry(Impl::Names(label, "sieve::keys::scatter_sparse"), exec, input,
                                 output);
}

/// scatter_sparse in a loop: `scatter_sparse([label,] exec, input, output,
/// workspace)` writes the returned SparseKeys into the buffers of `workspace`
/// (a SparseWorkspace<Key, ExecSpace> of the input's key type) instead of new
/// Views, and keeps there the scratch of the native radix order (integer keys
/// the record scatter does not take, e.g. skewed ones: about 32 bytes an
/// element, scratch_bytes()): once they fit, the call allocates no result or
/// scratch memory (unless its input or output lies in them). The keys are
/// valid until the next call given the workspace (see SparseWorkspace).
/// Otherwise as the form without it (the same bytes); blocks; throws the
/// same. A fixed workspace (made with elements) makes the call asynchronous
/// instead: integer keys, a View or keyed input of at most its elements;
/// allocates, fences and reads back nothing (capture-safe); its keys hold
/// the count on the device (see SparseKeys); more distinct keys than the
/// workspace's capacity surface at its check(). It throws
/// std::invalid_argument (nothing enqueued) for more elements than the
/// workspace's, a mapper input, or an input or output in its buffers.
template <class ExecSpace, class Input, class Output, class Workspace>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::SparseResult<ExecSpace, Input>>
scatter_sparse(const ExecSpace& exec, const Input& input, const Output& output,
               const Workspace& workspace) {
  return Impl::Keys::sparseEntry(Impl::Names("", "sieve::keys::scatter_sparse"), exec, input,
                                 output, workspace);
}

/// scatter_sparse with a workspace and a label.
template <class ExecSpace, class Input, class Output, class Workspace>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Impl::Keys::SparseResult<ExecSpace, Input>>
scatter_sparse(const std::string& label, const ExecSpace& exec, const Input& input,
               const Output& output, const Workspace& workspace) {
  return Impl::Keys::sparseEntry(Impl::Names(label, "sieve::keys::scatter_sparse"), exec, input,
                                 output, workspace);
}

/// scatter_sparse on a default instance of the output's execution space.
template <class Input, class Output>
std::enable_if_t<!Impl::kIsExec<Input> && !Impl::Keys::kLabel<Input>,
                 Impl::Keys::SparseResult<typename Output::execution_space, Input>>
scatter_sparse(const Input& input, const Output& output) {
  return Impl::Keys::sparseEntry(Impl::Names("", "sieve::keys::scatter_sparse"),
                                 typename Output::execution_space{}, input, output);
}

/// The no-instance scatter_sparse with a label.
template <class Input, class Output>
std::enable_if_t<!Impl::kIsExec<Input>,
                 Impl::Keys::SparseResult<typename Output::execution_space, Input>>
scatter_sparse(const std::string& label, const Input& input, const Output& output) {
  return Impl::Keys::sparseEntry(Impl::Names(label, "sieve::keys::scatter_sparse"),
                                 typename Output::execution_space{}, input, output);
}

// ---------------------------------------------------------------------------
// count_elements

/// The number of elements of an input (a View: its extent; a mapper: the sum
/// of count(i), one parallel reduction on `exec`), without storing them, e.g.
/// to size the output of a scatter. O(records). Blocks for a mapper.
template <class ExecSpace, class Input>
std::enable_if_t<Impl::kIsExec<ExecSpace>, std::int64_t> count_elements(const ExecSpace& exec,
                                                                        const Input& input) {
  static_assert(Impl::Keys::InputOf<Input>::ok,
                "sieve::keys::count_elements: 'input' must be a View of keyed elements, "
                "sieve::keys::keyed(view, key_fn) or a mapper");
  if constexpr (Impl::Keys::InputOf<Input>::ok)
    return Impl::Keys::countElements(Impl::Names("", "sieve::keys::count_elements"), exec, input);
  else return 0;
}

/// count_elements with a label.
template <class ExecSpace, class Input>
std::enable_if_t<Impl::kIsExec<ExecSpace>, std::int64_t> count_elements(const std::string& label,
                                                                        const ExecSpace& exec,
                                                                        const Input& input) {
  static_assert(Impl::Keys::InputOf<Input>::ok,
                "sieve::keys::count_elements: 'input' must be a View of keyed elements, "
                "sieve::keys::keyed(view, key_fn) or a mapper");
  if constexpr (Impl::Keys::InputOf<Input>::ok)
    return Impl::Keys::countElements(Impl::Names(label, "sieve::keys::count_elements"), exec,
                                     input);
  else return 0;
}

/// count_elements on a default instance of Kokkos::DefaultExecutionSpace.
template <class Input>
std::enable_if_t<!Impl::kIsExec<Input> && !Impl::Keys::kLabel<Input>, std::int64_t> count_elements(
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
std::enable_if_t<Impl::kIsExec<ExecSpace>> for_each_key_range(const ExecSpace& exec,
                                                              const Keys& keys,
                                                              const Output& output,
                                                              const Functor& functor,
                                                              const Args&... args) {
  if constexpr (Impl::Keys::keysChecks<ExecSpace, Keys, Output>())
    Impl::Keys::forEachKeyRange(Impl::Names("", "sieve::keys::for_each_key_range"), exec, keys,
                                output, functor, args...);
}

/// for_each_key_range with a label.
template <class ExecSpace, class Keys, class Output, class Functor, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace>> for_each_key_range(
    const std::string& label, const ExecSpace& exec, const Keys& keys, const Output& output,
    const Functor& functor, const Args&... args) {
  if constexpr (Impl::Keys::keysChecks<ExecSpace, Keys, Output>())
    Impl::Keys::forEachKeyRange(Impl::Names(label, "sieve::keys::for_each_key_range"), exec, keys,
                                output, functor, args...);
}

/// for_each_key_range on a default instance of the keys' execution space,
/// fenced. Blocking.
template <class Keys, class Output, class Functor, class... Args>
std::enable_if_t<Impl::Keys::kIsKeys<Keys>> for_each_key_range(const Keys& keys,
                                                               const Output& output,
                                                               const Functor& functor,
                                                               const Args&... args) {
  const typename Keys::execution_space exec{};
  for_each_key_range(exec, keys, output, functor, args...);
  Impl::fence(exec, "keys::for_each_key_range: the call without an instance");
}

// ---------------------------------------------------------------------------
// reduce

/// A per-key filter (for per-key sums, minima and the like see
/// reduce_by_key): keep the survivors of every key at the front of its
/// elements in `output`: `reduce([label,] exec, keys, output, functor)`, where `functor` is called
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
std::enable_if_t<Impl::kIsExec<ExecSpace>, ReducedKeys<Keys>> reduce(const ExecSpace& exec,
                                                                     const Keys& keys,
                                                                     const Output& output,
                                                                     const Functor& functor) {
  return Impl::Keys::reduceEntry(Impl::Names("", "sieve::keys::reduce"), exec, keys, output,
                                 functor);
}

/// reduce with a label.
template <class ExecSpace, class Keys, class Output, class Functor>
std::enable_if_t<Impl::kIsExec<ExecSpace>, ReducedKeys<Keys>> reduce(const std::string& label,
                                                                     const ExecSpace& exec,
                                                                     const Keys& keys,
                                                                     const Output& output,
                                                                     const Functor& functor) {
  return Impl::Keys::reduceEntry(Impl::Names(label, "sieve::keys::reduce"), exec, keys, output,
                                 functor);
}

/// reduce on a default instance of the keys' execution space.
template <class Keys, class Output, class Functor>
std::enable_if_t<Impl::Keys::kIsKeys<Keys>, ReducedKeys<Keys>> reduce(const Keys& keys,
                                                                      const Output& output,
                                                                      const Functor& functor) {
  return Impl::Keys::reduceEntry(Impl::Names("", "sieve::keys::reduce"),
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
std::enable_if_t<Impl::kIsExec<ExecSpace>, Grouping<Keys>> group(const ExecSpace& exec,
                                                                 const Keys& keys,
                                                                 const Output& output,
                                                                 const Functor& functor) {
  return Impl::Keys::groupEntry(Impl::Names("", "sieve::keys::group"), exec, keys, output, functor);
}

/// group with a label.
template <class ExecSpace, class Keys, class Output, class Functor>
std::enable_if_t<Impl::kIsExec<ExecSpace>, Grouping<Keys>> group(const std::string& label,
                                                                 const ExecSpace& exec,
                                                                 const Keys& keys,
                                                                 const Output& output,
                                                                 const Functor& functor) {
  return Impl::Keys::groupEntry(Impl::Names(label, "sieve::keys::group"), exec, keys, output,
                                functor);
}

/// group on a default instance of the keys' execution space.
template <class Keys, class Output, class Functor>
std::enable_if_t<Impl::Keys::kIsKeys<Keys>, Grouping<Keys>> group(const Keys& keys,
                                                                  const Output& output,
                                                                  const Functor& functor) {
  return Impl::Keys::groupEntry(Impl::Names("", "sieve::keys::group"),
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
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::Keys::kIsKeys<Keys>, std::int64_t> compact(
    const ExecSpace& exec, const Keys& keys, const ReducedKeys<Keys>& reduced, const Input& input,
    const Output& output) {
  if constexpr (Impl::Keys::compactChecks<ExecSpace, Input, Output>())
    return Impl::Keys::compactReduced(Impl::Names("", "sieve::keys::compact"), exec, keys, reduced,
                                      input, output);
  else return 0;
}

/// compact (survivors) with a label.
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::Keys::kIsKeys<Keys>, std::int64_t> compact(
    const std::string& label, const ExecSpace& exec, const Keys& keys,
    const ReducedKeys<Keys>& reduced, const Input& input, const Output& output) {
  if constexpr (Impl::Keys::compactChecks<ExecSpace, Input, Output>())
    return Impl::Keys::compactReduced(Impl::Names(label, "sieve::keys::compact"), exec, keys,
                                      reduced, input, output);
  else return 0;
}

/// compact (survivors) on a default instance of the keys' space, fenced.
template <class Keys, class Input, class Output>
std::enable_if_t<Impl::Keys::kIsKeys<Keys>, std::int64_t> compact(const Keys& keys,
                                                                  const ReducedKeys<Keys>& reduced,
                                                                  const Input& input,
                                                                  const Output& output) {
  const typename Keys::execution_space exec{};
  const std::int64_t m = compact(exec, keys, reduced, input, output);
  Impl::fence(exec, "keys::compact: the call without an instance");
  return m;
}

/// Copy the first element of every group of a grouped `input` (the output of
/// group) to `output`, group g to output(g): `compact([label,] exec, groups,
/// input, output)`. Returns the number of groups. O(groups). Asynchronous.
/// Throws std::invalid_argument for a short input or output, or an `output`
/// overlapping `input`.
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<Impl::kIsExec<ExecSpace>, std::int64_t> compact(
    const ExecSpace& exec, const GroupedElements<Keys>& groups, const Input& input,
    const Output& output) {
  if constexpr (Impl::Keys::compactChecks<ExecSpace, Input, Output>())
    return Impl::Keys::compactGroups(Impl::Names("", "sieve::keys::compact"), exec, groups, input,
                                     output);
  else return 0;
}

/// compact (groups) with a label.
template <class ExecSpace, class Keys, class Input, class Output>
std::enable_if_t<Impl::kIsExec<ExecSpace>, std::int64_t> compact(
    const std::string& label, const ExecSpace& exec, const GroupedElements<Keys>& groups,
    const Input& input, const Output& output) {
  if constexpr (Impl::Keys::compactChecks<ExecSpace, Input, Output>())
    return Impl::Keys::compactGroups(Impl::Names(label, "sieve::keys::compact"), exec, groups,
                                     input, output);
  else return 0;
}

/// compact (groups) on a default instance of the keys' space, fenced.
template <class Keys, class Input, class Output>
std::int64_t compact(const GroupedElements<Keys>& groups, const Input& input,
                     const Output& output) {
  const typename Keys::execution_space exec{};
  const std::int64_t m = compact(exec, groups, input, output);
  Impl::fence(exec, "keys::compact: the call without an instance");
  return m;
}

} // namespace keys
} // namespace sieve
