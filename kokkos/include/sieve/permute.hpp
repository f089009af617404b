// SPDX-License-Identifier: Apache-2.0
// Sieve — sieve::keys::permute / unpermute: apply a permutation to planes in
// place (rank-1 Views of any trivially-copyable element, Kokkos::Array rows
// included, and rank-2 Views whose extent(0) is the sample count), through
// the caller's scratch.
//
//   Kokkos::View<double* [3], Mem> x("x", n);            // positions: one row per sample
//   Kokkos::View<int*, Mem> type("type", n);
//   Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::permute_scratch_bytes(x, type));
//   sieve::keys::permute(exec, perm, scratch, x, type);  // x(j, :) = old x(perm(j), :)
#pragma once

#include <sieve/debug.hpp>
#include <sieve/impl/permute/entry.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace sieve {

/// Bytes of scratch sieve::keys::permute / unpermute need for `n` samples
/// whose widest row holds `max_row_bytes` bytes (a rank-1 plane's row is its
/// element, a rank-2 plane's with contiguous rows extent(1) elements, one of
/// strided columns one element): max(n, 1) bytes rounded up to 16, then
/// max(n, 1) rows of max_row_bytes. O(1). Throws std::invalid_argument for
/// n < 0.
inline std::size_t permute_scratch_bytes(std::int64_t n, std::size_t max_row_bytes) {
  if (n < 0)
    Impl::fail("sieve::permute_scratch_bytes",
               "n = " + std::to_string(n) + " is negative; it must be the sample count");
  return Impl::permuteScratchBytes(n, max_row_bytes);
}

/// Bytes of scratch sieve::keys::permute / unpermute need for these planes
/// (n = extent(0) of the first): permute_scratch_bytes(n, widest row). O(1).
template <class Plane, class... Planes>
std::enable_if_t<Impl::IsView<Plane>::value, std::size_t> permute_scratch_bytes(
    const Plane& plane, const Planes&... planes) {
  static_assert(((Impl::Safe<Plane>::rank == 1 || Impl::Safe<Plane>::rank == 2) && ... &&
                 (Impl::Safe<Planes>::rank == 1 || Impl::Safe<Planes>::rank == 2)),
                "sieve::permute_scratch_bytes: every plane must be a rank-1 or rank-2 View");
  return permute_scratch_bytes(Impl::extent64(plane), Impl::Permute::widestRow(plane, planes...));
}

namespace keys {

/// The scratch of asynchronous permute / unpermute calls and their range
/// word: a call given it checks perm's range on the device, counts the
/// entries outside [0, n) into the word and then writes no plane; while the
/// word is not 0 every later call given it writes no plane either. check()
/// reads the word back and throws. Copies share the scratch and the word.
template <class ExecSpace>
class PermuteWorkspace {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scratch_view = Kokkos::View<unsigned char*, memory_space>;
  using status_view = Kokkos::View<std::int64_t, memory_space>;

  /// Empty: a call given it throws. O(1).
  PermuteWorkspace() = default;
  /// For calls of up to `elements` samples whose widest row holds up to
  /// `max_row_bytes` bytes: allocates permute_scratch_bytes(elements,
  /// max_row_bytes) bytes and the word (zero) on `exec`; blocking, as an
  /// allocation is. Throws std::invalid_argument for elements < 0.
  PermuteWorkspace(const ExecSpace& exec, std::int64_t elements, std::size_t max_row_bytes) {
    constexpr const char* fn = "sieve::keys::PermuteWorkspace";
    const std::size_t bytes = sieve::permute_scratch_bytes(elements, max_row_bytes);
    const Impl::Names names("", fn);
    scratch_ = Impl::allocate<scratch_view>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("scratch")), bytes);
    status_ = Impl::allocate<status_view>(Kokkos::view_alloc(exec, names("rejected")));
    Impl::fence(exec, "keys::PermuteWorkspace: zeroed");
    n_ = elements;
    row_ = max_row_bytes;
  }
  /// For calls on these planes (or fewer samples, or narrower rows):
  /// PermuteWorkspace(exec, extent(0) of the first, widest row).
  template <class Plane, class... Planes,
            class = std::enable_if_t<Impl::IsView<Plane>::value>>
  PermuteWorkspace(const ExecSpace& exec, const Plane& plane, const Planes&... planes)
      : PermuteWorkspace(exec, Impl::extent64(plane), Impl::Permute::widestRow(plane, planes...)) {}

  /// The most samples of a call given it (-1: empty). O(1).
  std::int64_t elements() const { return n_; }
  /// The widest row, in bytes, of a call given it. O(1).
  std::size_t max_row_bytes() const { return row_; }
  /// The entries of perm found outside [0, n) since the last check(), on the
  /// device (read it after a fence).
  const status_view& rejected() const { return status_; }
  /// Fences `exec`, reads the word and sets it back to 0; throws
  /// std::invalid_argument when a call since the last check() found an entry
  /// of perm outside [0, n) (that call and the later ones given this
  /// workspace wrote no plane). Blocking.
  void check(const ExecSpace& exec) const {
    Impl::fence(exec, "keys::PermuteWorkspace::check");
    std::int64_t v = 0;
    if (status_.data() != nullptr) Kokkos::deep_copy(v, status_);
    if (v == 0) return;
    Kokkos::deep_copy(status_, std::int64_t(0));
    Impl::fail("sieve::keys::permute / unpermute",
               (v == 1 ? std::string("1 entry") : std::to_string(v) + " entries") +
                   " of perm lay outside [0, n) in the calls given this workspace since its "
                   "last check(); from the first of those calls on, no plane was written");
  }

  /// (internal) the scratch of a call.
  const scratch_view& scratch() const { return scratch_; }

 private:
  scratch_view scratch_;
  status_view status_;
  std::int64_t n_ = -1;
  std::size_t row_ = 0;
};

} // namespace keys

namespace Impl {
namespace Permute {

template <class T>
struct IsWorkspace : std::false_type {};
template <class E>
struct IsWorkspace<sieve::keys::PermuteWorkspace<E>> : std::true_type {};

/// A public call: `scratch` a View (the range read back: blocking), or a
/// PermuteWorkspace (checked against the planes, then asynchronous).
template <bool Gather, class Exec, class Perm, class Scratch, class... Planes>
void call(const Names& names, const Exec& exec, const Perm& perm, const Scratch& scratch,
          const Planes&... planes) {
  if constexpr (IsWorkspace<Scratch>::value) {
    static_assert(std::is_same_v<typename Scratch::execution_space, Exec>,
                  "sieve::keys::permute / unpermute: the PermuteWorkspace must be of the call's "
                  "execution space");
    constexpr const char* fn = Gather ? "sieve::keys::permute" : "sieve::keys::unpermute";
    if (scratch.elements() < 0)
      fail(fn, "the workspace is empty; make it with PermuteWorkspace(exec, elements, "
               "max_row_bytes) or PermuteWorkspace(exec, planes...)");
    if constexpr (sizeof...(Planes) > 0) {
      const std::int64_t n = extent64(std::get<0>(std::tie(planes...)));
      const std::size_t row = widestRow(planes...);
      if (n > scratch.elements() || row > scratch.max_row_bytes())
        fail(fn, "the workspace was made for " + std::to_string(scratch.elements()) +
                     " samples of rows up to " + std::to_string(scratch.max_row_bytes()) +
                     " bytes; these planes have " + std::to_string(n) + " samples of rows up to " +
                     std::to_string(row) + " bytes");
    }
    entry<Gather>(names, exec, perm, scratch.scratch(), scratch.rejected().data(), planes...);
  } else {
    entry<Gather>(names, exec, perm, scratch, nullptr, planes...);
  }
}

/// The fencing calls' tail: fence, then a workspace's check().
template <class Exec, class Scratch>
void fenceAndCheck(const Exec& exec, const Scratch& scratch, const char* what) {
  fence(exec, what);
  if constexpr (IsWorkspace<Scratch>::value) scratch.check(exec);
  else (void)scratch;
}

} // namespace Permute
} // namespace Impl

namespace keys {

/// Apply a permutation to planes in place, a gather: afterwards row j of
/// every plane holds the row that was at perm(j) (plane(j) = old
/// plane(perm(j))). This is the convention of Kokkos::BinSort (Kokkos 3.4
/// BinSort::sort copies sorted(i) = values(sort_order(i)), and
/// get_permute_vector() returns that sort_order) and of every stable sort
/// permutation: perm(j) is the original index of the element now at j.
///
/// `perm`: a rank-1 View of std::int32_t or std::int64_t, of the planes'
/// extent(0) = n, a permutation of [0, n). `planes...`: at least one writable
/// View of n samples: rank 1 of any trivially-copyable element (double, int8,
/// Kokkos::Array<double, 3>, a struct), or rank 2 with extent(0) = n (a
/// View<double* [3]> of positions, LayoutRight rows or LayoutLeft columns,
/// LayoutStride too), moved bit for bit. `scratch`: a contiguous, 16-byte
/// aligned View of at least permute_scratch_bytes(n, widest row) bytes;
/// nothing is allocated. O(n * row bytes) per plane: one gather and one
/// contiguous copy back through the scratch.
///
/// Blocks: the range of perm is checked on the device in the first pass
/// (which writes only the scratch) and the result read back before any
/// plane is written. Throws std::invalid_argument, with no plane written,
/// for an entry of perm outside [0, n), planes of different extent(0), a
/// perm of another extent, a short or misaligned scratch, or planes, perm
/// and scratch that overlap.
///
/// `scratch` may instead be a keys::PermuteWorkspace of the execution space
/// (made for at least these samples and rows). Then the call reads nothing
/// back, allocates nothing and fences nothing (capture-safe on
/// Kokkos::Cuda): an entry of perm outside [0, n) is counted into the
/// workspace's word, no plane is written, and the workspace's check()
/// throws; the overload without an instance fences and checks. The other
/// checks above are made on the host and throw at the call. A perm with a repeated entry (not a
/// permutation: one row copied twice, another lost) is the caller's to
/// avoid: it is detected (std::invalid_argument, nothing written) only with
/// the debug checks on (sieve::set_debug_checks(true) or
/// SIEVE_DEBUG_CHECKS=1), as that check costs 10 - 30 % of a permute (a
/// mark per sample, written in random order, and one more pass).
/// A failed allocation leaves every plane as it was: the planes never fall out
/// of step (docs/conventions.md).
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> permute(const ExecSpace& exec, const PermView& perm,
                                                   const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::Permute::call<true>(Impl::Names("", "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
}

/// sieve::keys::permute with a label naming its profiling region and
/// prefixing its kernel labels.
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> permute(const std::string& label, const ExecSpace& exec,
                                                   const PermView& perm, const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::Permute::call<true>(Impl::Names(label, "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
}

/// sieve::keys::permute on a default instance of perm's execution space;
/// fences it.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> permute(const PermView& perm,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::call<true>(Impl::Names("", "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
  Impl::Permute::fenceAndCheck(exec, scratch, "keys::permute: the call without an instance");
}

/// The fencing sieve::keys::permute with a label.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> permute(const std::string& label,
                                                        const PermView& perm,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::call<true>(Impl::Names(label, "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
  Impl::Permute::fenceAndCheck(exec, scratch, "keys::permute: the call without an instance");
}

/// The inverse of sieve::keys::permute, a scatter: afterwards row perm(j) of
/// every plane holds the row that was at j (plane(perm(j)) = old plane(j)),
/// so unpermute(perm) after permute(perm) gives the planes back. Arguments,
/// checks, cost and blocking as sieve::keys::permute.
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> unpermute(const ExecSpace& exec, const PermView& perm,
                                                     const ScratchView& scratch,
                                                     const Planes&... planes) {
  Impl::Permute::call<false>(Impl::Names("", "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
}

/// sieve::keys::unpermute with a label.
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> unpermute(const std::string& label,
                                                     const ExecSpace& exec, const PermView& perm,
                                                     const ScratchView& scratch,
                                                     const Planes&... planes) {
  Impl::Permute::call<false>(Impl::Names(label, "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
}

/// sieve::keys::unpermute on a default instance of perm's execution space;
/// fences it.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> unpermute(const PermView& perm,
                                                          const ScratchView& scratch,
                                                          const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::call<false>(Impl::Names("", "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
  Impl::Permute::fenceAndCheck(exec, scratch, "keys::unpermute: the call without an instance");
}

/// The fencing sieve::keys::unpermute with a label.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> unpermute(const std::string& label,
                                                          const PermView& perm,
                                                          const ScratchView& scratch,
                                                          const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::call<false>(Impl::Names(label, "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
  Impl::Permute::fenceAndCheck(exec, scratch, "keys::unpermute: the call without an instance");
}

} // namespace keys
} // namespace sieve
