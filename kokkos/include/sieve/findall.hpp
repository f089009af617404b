// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::findall: stream compaction of a mask or a predicate to
// indices or values, for Views of any rank and layout (the model: the
// findall of the Julia package AcceleratedKernels.jl).
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
#include <sieve/impl/findall/call.hpp>

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

/// findall algorithm: the space's default — Partitioned on host spaces,
/// ScanScatter{256, 8} (Tuning::Findall) on device spaces.
struct Auto {};

/// findall algorithm: stable tiled compaction. Each tile of block_size x
/// items_per_thread elements is counted by one team (block_size threads on
/// devices, items_per_thread consecutive elements each), the tile counts are
/// scanned, then each tile scatters its selected items. block_size: a power
/// of two <= 1024; items_per_thread >= 1; their product <= INT32_MAX.
struct ScanScatter {
  int block_size = Tuning::Findall::kBlock;
  int items_per_thread = Tuning::Findall::kItems;
};

/// findall algorithm (host spaces only): one contiguous partition per thread;
/// each counts its selected elements, the counts are scanned, each writes its
/// items at its offset. Stable.
struct Partitioned {};

/// The scratch of sieve::findall for one call shape — execution space (and,
/// for Partitioned, its concurrency), element count and algorithm: the
/// predicate's mask (n bytes) and the tile counts with their scan; one
/// workspace serves the mask, predicate and index forms of its shape. With
/// sieve::into a call given it allocates nothing (on a GPU space, once this
/// workspace's allocating constructor or sieve::reserve ran on the instance:
/// Kokkos sizes its team scratch lazily).
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
  /// bytes_for(exec, n, alg) bytes ("sieve::findall::workspace"), O(1) work
  /// (on a GPU space also Kokkos' team scratch of the instance, once: see
  /// sieve::reserve).
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
    bytes_ = Impl::allocate<bytes_view>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("workspace")), plan_.bytes());
    Impl::keepTeamScratch(exec, names); // GPU spaces: the portable kernels allocate nothing
  }

  /// The workspace in the caller's bytes (at least bytes_for(exec, n, alg),
  /// 8-byte aligned): allocates nothing (call sieve::reserve(exec) once for
  /// the calls given it to allocate nothing either). Throws std::invalid_argument for a
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
    static_assert(Impl::Findall::kAlgorithm<Alg>,
                  "sieve::FindallWorkspace: the algorithm must be sieve::Auto, sieve::ScanScatter "
                  "or sieve::Partitioned");
    if (n < 0) Impl::fail("sieve::FindallWorkspace", "n = " + std::to_string(n) + " is negative");
    if constexpr (Impl::Findall::kAlgorithm<Alg>)
      return Impl::Findall::planFor("sieve::FindallWorkspace", exec,
                                    Impl::Findall::OptionOf<Alg>::algorithm(alg), n);
    else return {};
  }

  Impl::Findall::Plan plan_{};
  bytes_view bytes_{};
  std::shared_ptr<Impl::Findall::KeptResult> kept_ = std::make_shared<Impl::Findall::KeptResult>();
};

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
/// gives the same bytes on every backend and thread count. A contiguous byte mask (or the
/// predicate's) with int64 indices (rank 1), linear indices (int64 or int32) or contiguous values
/// of 1, 2, 4 or 8 bytes, into a contiguous result, is selected by the space's native face where
/// it has one: on Kokkos::OpenMP the host select (one pass over the mask, block by block in the
/// L2; with into(), the predicate is evaluated inside it, no n-byte mask), on Kokkos::Cuda the
/// single-pass look-back select (with into(), the predicate is evaluated inside its kernel;
/// otherwise the predicate form fills its mask first). Elsewhere the portable
/// kernels: tile counts, their scan, the write. O(n) work, O(n / tile) scratch. Blocks: it fences
/// `exec` once to read the count (and again before freeing a workspace of its own); the write is
/// then enqueued on `exec`
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
/// another array of the call (the bytes their elements touch: two columns
/// of one LayoutRight View share none and may be given together).
/// A failed allocation or a throwing predicate (host spaces) leaves the inputs
/// and a workspace as they were; `into`'s result and count are then unspecified
/// (docs/conventions.md).
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::IsView<MaskView>::value,
                 Impl::Findall::Return<ExecSpace, MaskView, Args...>>
findall(const ExecSpace& exec, const MaskView& mask, const Args&... args) {
  return Impl::findallEntry(Impl::Names("", "sieve::findall"), exec, mask, args...);
}

/// Select, in ordinal order, the items of the elements of `view` for which
/// `pred` returns true: `findall([label,] exec, pred, view[, options...])`.
/// `pred` is called exactly once per element, on the execution space, with
/// the element; it must return bool. Its results are kept in a mask (the
/// workspace's, or one allocated for the call); otherwise as the mask form.
/// O(n) work and calls of pred. Blocks and throws as the mask form.
template <class ExecSpace, class Pred, class View, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsView<Pred>::value &&
                     !Impl::kFindallCount<Pred>,
                 Impl::Findall::Return<ExecSpace, Pred, View, Args...>>
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
                 Impl::Findall::Return<ExecSpace, N, Pred, Args...>>
findall(const ExecSpace& exec, const N& n, const Pred& pred, const Args&... args) {
  return Impl::findallEntry(Impl::Names("", "sieve::findall"), exec, n, pred, args...);
}

/// sieve::findall (index form) with a label naming its profiling region and
/// prefixing its kernel and allocation labels. O(n) calls of pred. Blocks
/// and throws as the index form.
template <class ExecSpace, class N, class Pred, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::kFindallCount<N>,
                 Impl::Findall::Return<ExecSpace, N, Pred, Args...>>
findall(const std::string& label, const ExecSpace& exec, const N& n, const Pred& pred,
        const Args&... args) {
  return Impl::findallEntry(Impl::Names(label, "sieve::findall"), exec, n, pred, args...);
}

/// sieve::findall (mask form) with a label naming its profiling region
/// ("<label>: sieve::findall[<face>]") and prefixing its kernel and
/// allocation labels. O(n) work. Blocks and throws as the mask form.
template <class ExecSpace, class MaskView, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && Impl::IsView<MaskView>::value,
                 Impl::Findall::Return<ExecSpace, MaskView, Args...>>
findall(const std::string& label, const ExecSpace& exec, const MaskView& mask,
        const Args&... args) {
  return Impl::findallEntry(Impl::Names(label, "sieve::findall"), exec, mask, args...);
}

/// sieve::findall (predicate form) with a label (as the mask form's). O(n)
/// work and calls of pred. Blocks and throws as the predicate form.
template <class ExecSpace, class Pred, class View, class... Args>
std::enable_if_t<Impl::kIsExec<ExecSpace> && !Impl::IsView<Pred>::value &&
                     !Impl::kFindallCount<Pred>,
                 Impl::Findall::Return<ExecSpace, Pred, View, Args...>>
findall(const std::string& label, const ExecSpace& exec, const Pred& pred, const View& view,
        const Args&... args) {
  return Impl::findallEntry(Impl::Names(label, "sieve::findall"), exec, pred, view, args...);
}

/// sieve::findall (mask form) on a default instance of the mask's execution
/// space, fenced: returns the new View, or with sieve::into the count. O(n)
/// work. Blocking (fences the instance). Throws as the instance form.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value,
                 typename Impl::Findall::FencedReturn<MaskView, Args...>::type>
findall(const MaskView& mask, const Args&... args) {
  return Impl::findallFenced(Impl::Names("", "sieve::findall"), mask, args...);
}

/// sieve::findall (predicate form) on a default instance of the view's
/// execution space, fenced: returns the new View, or with sieve::into the
/// count. O(n) work and calls of pred. Blocking (fences the instance).
/// Throws as the instance form.
template <class Pred, class View, class... Args>
std::enable_if_t<!Impl::IsView<Pred>::value && !Impl::kIsExec<Pred> &&
                     !Impl::Findall::kLabelLike<Pred> && !Impl::kFindallCount<Pred> &&
                     Impl::IsView<View>::value,
                 typename Impl::Findall::FencedReturn<Pred, View, Args...>::type>
findall(const Pred& pred, const View& view, const Args&... args) {
  return Impl::findallFenced(Impl::Names("", "sieve::findall"), pred, view, args...);
}

/// The fencing sieve::findall (mask form) with a label. O(n) work. Blocking.
/// Throws as the instance form.
template <class MaskView, class... Args>
std::enable_if_t<Impl::IsView<MaskView>::value,
                 typename Impl::Findall::FencedReturn<MaskView, Args...>::type>
findall(const std::string& label, const MaskView& mask, const Args&... args) {
  return Impl::findallFenced(Impl::Names(label, "sieve::findall"), mask, args...);
}

/// The fencing sieve::findall (predicate form) with a label. O(n) work and
/// calls of pred. Blocking. Throws as the instance form.
template <class Pred, class View, class... Args>
std::enable_if_t<!Impl::IsView<Pred>::value && !Impl::kIsExec<Pred> &&
                     !Impl::Findall::kLabelLike<Pred> && !Impl::kFindallCount<Pred> &&
                     Impl::IsView<View>::value,
                 typename Impl::Findall::FencedReturn<Pred, View, Args...>::type>
findall(const std::string& label, const Pred& pred, const View& view, const Args&... args) {
  return Impl::findallFenced(Impl::Names(label, "sieve::findall"), pred, view, args...);
}

/// sieve::findall (index form) on a default instance of
/// Kokkos::DefaultExecutionSpace (pred must be callable there), fenced:
/// returns the new View, or with sieve::into the count. O(n) calls of pred.
/// Blocking (fences the instance). Throws as the instance form.
template <class N, class Pred, class... Args>
std::enable_if_t<Impl::kFindallCount<N>,
                 typename Impl::Findall::FencedReturn<N, Pred, Args...>::type>
findall(const N& n, const Pred& pred, const Args&... args) {
  return Impl::findallFenced(Impl::Names("", "sieve::findall"), n, pred, args...);
}

/// The fencing sieve::findall (index form) with a label. O(n) calls of pred.
/// Blocking. Throws as the instance form.
template <class N, class Pred, class... Args>
std::enable_if_t<Impl::kFindallCount<N>,
                 typename Impl::Findall::FencedReturn<N, Pred, Args...>::type>
findall(const std::string& label, const N& n, const Pred& pred, const Args&... args) {
  return Impl::findallFenced(Impl::Names(label, "sieve::findall"), n, pred, args...);
}

} // namespace sieve
