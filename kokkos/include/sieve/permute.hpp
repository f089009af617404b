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
  std::size_t widest = Impl::Permute::rowBytesOf(plane);
  ((widest = std::max(widest, Impl::Permute::rowBytesOf(planes))), ...);
  return permute_scratch_bytes(Impl::extent64(plane), widest);
}

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
/// and scratch that overlap. A perm with a repeated entry (not a
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
  Impl::Permute::entry<true>(Impl::Names("", "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
}

/// sieve::keys::permute with a label naming its profiling region and
/// prefixing its kernel labels.
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> permute(const std::string& label, const ExecSpace& exec,
                                                   const PermView& perm, const ScratchView& scratch,
                                                   const Planes&... planes) {
  Impl::Permute::entry<true>(Impl::Names(label, "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
}

/// sieve::keys::permute on a default instance of perm's execution space;
/// fences it.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> permute(const PermView& perm,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::entry<true>(Impl::Names("", "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
  Impl::fence(exec, "keys::permute: the call without an instance");
}

/// The fencing sieve::keys::permute with a label.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> permute(const std::string& label,
                                                        const PermView& perm,
                                                        const ScratchView& scratch,
                                                        const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::entry<true>(Impl::Names(label, "sieve::keys::permute"), exec, perm, scratch,
                             planes...);
  Impl::fence(exec, "keys::permute: the call without an instance");
}

/// The inverse of sieve::keys::permute, a scatter: afterwards row perm(j) of
/// every plane holds the row that was at j (plane(perm(j)) = old plane(j)),
/// so unpermute(perm) after permute(perm) gives the planes back. Arguments,
/// checks, cost and blocking as sieve::keys::permute.
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> unpermute(const ExecSpace& exec, const PermView& perm,
                                                     const ScratchView& scratch,
                                                     const Planes&... planes) {
  Impl::Permute::entry<false>(Impl::Names("", "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
}

/// sieve::keys::unpermute with a label.
template <class ExecSpace, class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::kIsExec<ExecSpace>> unpermute(const std::string& label,
                                                     const ExecSpace& exec, const PermView& perm,
                                                     const ScratchView& scratch,
                                                     const Planes&... planes) {
  Impl::Permute::entry<false>(Impl::Names(label, "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
}

/// sieve::keys::unpermute on a default instance of perm's execution space;
/// fences it.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> unpermute(const PermView& perm,
                                                          const ScratchView& scratch,
                                                          const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::entry<false>(Impl::Names("", "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
  Impl::fence(exec, "keys::unpermute: the call without an instance");
}

/// The fencing sieve::keys::unpermute with a label.
template <class PermView, class ScratchView, class... Planes>
std::enable_if_t<Impl::IsView<PermView>::value> unpermute(const std::string& label,
                                                          const PermView& perm,
                                                          const ScratchView& scratch,
                                                          const Planes&... planes) {
  const typename PermView::execution_space exec{};
  Impl::Permute::entry<false>(Impl::Names(label, "sieve::keys::unpermute"), exec, perm, scratch,
                              planes...);
  Impl::fence(exec, "keys::unpermute: the call without an instance");
}

} // namespace keys
} // namespace sieve
