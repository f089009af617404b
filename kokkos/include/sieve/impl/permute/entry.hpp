// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::keys::permute / unpermute's entry: the
// compile-time checks of the argument list, the run-time checks (extents,
// scratch, overlaps, perm's range and, with the debug checks, that no entry
// repeats), then the moves of impl/permute/rows.hpp.
#pragma once

#include <sieve/core/permute.hpp>
#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/debug/flag.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/permute/rows.hpp>
#include <sieve/impl/portable/base.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sieve {
namespace Impl {
namespace Permute {

/// The index of the first plane that is not a plane moved by bytes (any
/// element size; -1: all are).
template <class Exec, class... Planes>
constexpr int firstBad() {
  const bool ok[] = {bytePlaneOk<Exec, Planes>()..., true};
  return firstFalse(ok);
}

/// Every mark cleared (the scratch's first region).
template <class Exec>
void clearMarks(const Names& names, const Exec& exec, unsigned char* seen, i64 n) {
  Kokkos::parallel_for(
      names("clear_marks"), Range<Exec>(exec, 0, n), KOKKOS_LAMBDA(const i64 i) { seen[i] = 0; });
}

template <class Perm>
[[noreturn]] void failRange(const char* fn, const Perm& perm, i64 bad, i64 n) {
  typename Perm::non_const_value_type v{};
  Kokkos::deep_copy(v, Kokkos::subview(perm, bad));
  fail(fn, "perm(" + std::to_string(bad) + ") = " + std::to_string(v) + " is outside [0, " +
               std::to_string(n) + "); every entry must name a sample of the planes");
}

/// With every entry of perm in [0, n) and marked: every sample marked, i.e.
/// no entry repeated (n entries, n samples). Blocks (a reduction read back).
template <class Exec>
void checkOnce(const char* fn, const Names& names, const Exec& exec, i64 n,
               const unsigned char* seen) {
  i64 missing = n;
  Kokkos::parallel_reduce(
      names("check_once"), Range<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i, i64& first) {
        if (seen[i] == 0 && i < first) first = i;
      },
      Kokkos::Min<i64>(missing));
  if (missing < n)
    fail(fn, "perm is not a permutation of [0, " + std::to_string(n) + "): no entry names sample " +
                 std::to_string(missing) +
                 " (another is repeated), so a sample would be lost; every sample must appear "
                 "exactly once");
}

/// perm must hold n entries in [0, n), each once: blocks (reductions read
/// back), writes only the scratch's marks, throws naming the first entry
/// outside [0, n) or a sample no entry names (some other is repeated).
template <class Exec, class Perm>
void checkPerm(const char* fn, const Names& names, const Exec& exec, const Perm& perm, i64 n,
               unsigned char* seen) {
  clearMarks(names, exec, seen, n);
  i64 bad = n;
  Kokkos::parallel_reduce(
      names("check_range"), Range<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const i64 j, i64& first) {
        const i64 p = static_cast<i64>(perm(j));
        if (p < 0 || p >= n) {
          if (j < first) first = j;
        } else {
          seen[p] = 1;
        }
      },
      Kokkos::Min<i64>(bad));
  if (bad < n) failRange(fn, perm, bad, n);
  checkOnce(fn, names, exec, n, seen);
}

/// The run-time checks and the moves of one call. `status` null: perm's
/// range is read back (blocking, throws); else a workspace's word, counted
/// on the device, and no plane is written while it is not 0.
template <bool Gather, class Exec, class Perm, class Scratch, class... Planes>
void body(const char* fn, const Names& names, const Exec& exec, const Perm& perm,
          const Scratch& scratch, i64* status, const Planes&... planes) {
  const std::array<i64, sizeof...(Planes)> extents{extent64(planes)...};
  const i64 n = extents[0];
  for (std::size_t k = 0; k < extents.size(); ++k)
    if (extents[k] != n)
      fail(fn, "plane " + std::to_string(k) + " has extent(0) = " + std::to_string(extents[k]) +
                   "; every plane must have the samples of plane 0 (" + std::to_string(n) + ")");
  if (extent64(perm) != n)
    fail(fn, "perm.extent(0) = " + std::to_string(perm.extent(0)) +
                 "; it must be the planes' extent(0) = " + std::to_string(n));
  std::vector<Rows> rows;
  (rowsOf(planes, rows), ...);
  std::size_t widest = 0;
  for (const Rows& r : rows) widest = r.row > widest ? r.row : widest;
  const std::size_t need = n == 0 ? 0 : Impl::permuteScratchBytes(n, widest);
  checkScratch(fn, scratch, need, "permute_scratch_bytes(n, widest row)");
  if (n == 0) return;
  if (reinterpret_cast<std::uintptr_t>(scratch.data()) % 16 != 0)
    fail(fn, "scratch is misaligned; it must be aligned to 16 bytes (a View of its own)");
  // Overlaps, by address range (the one rule of every call).
  std::vector<ArrayBytes> arrays;
  {
    std::size_t k = 0;
    ((arrays.push_back(ArrayBytes{"plane " + std::to_string(k++),
                                  reinterpret_cast<std::uintptr_t>(planes.data()),
                                  coveredBytes(planes), 1, 1})),
     ...);
  }
  arrays.push_back(
      ArrayBytes{"perm", reinterpret_cast<std::uintptr_t>(perm.data()), coveredBytes(perm), 1, 1});
  arrays.push_back(
      ArrayBytes{"scratch", reinterpret_cast<std::uintptr_t>(scratch.data()), need, 1, 1});
  checkApart(fn, arrays, 1, true, "the planes, perm and scratch must not share a byte");
  runKernels<Exec>(fn, names, {{scratch.data(), "scratch"}}, [&] {
    auto* base = reinterpret_cast<unsigned char*>(scratch.data());
    unsigned char* seen = carve<unsigned char>(base, PermuteLayout::seen(n));
    unsigned char* stage = carve<unsigned char>(base, PermuteLayout::stage(n, widest));
    // Nothing is written to a plane before perm passed its checks: the range
    // check runs in the first plane's first pass (which writes only the
    // scratch), the check that no entry repeats (debug checks) before it.
    const bool once = debugChecksOn();
    if (once || (rows.empty() && status == nullptr)) {
      checkPerm(fn, names, exec, perm, n, seen);
    } else if (rows.empty()) { // no byte to move: the range is still counted
      moveRows<unsigned char, 0, 0>(exec, names("check_range"), n, perm, seen, 0, seen, 0, 0,
                                    false, Deferred{status, true});
    }
    // The kernels' labels, made before the first plane moves: nothing is
    // allocated between two planes' moves (a failure there would leave the
    // planes out of step).
    const std::string first = names(Gather ? "gather" : "stage");
    const std::string second = names(Gather ? "copy_back" : "scatter");
    for (std::size_t k = 0; k < rows.size(); ++k) {
      withRow(rows[k], [&](auto tag, auto kk) {
        using W = typename decltype(tag)::type;
        constexpr int K = decltype(kk)::value;
        const bool check = k == 0 && !once;
        const Deferred deferred{status, check};
        const i64 bad =
            stageRows<W, K, Gather>(exec, first, rows[k], stage, perm, n, check, deferred);
        if (bad < n) failRange(fn, perm, bad, n);
        placeRows<W, K, Gather>(exec, second, rows[k], stage, perm, n, deferred);
      });
    }
  });
}

#define SIEVE_PERMUTE_PLANE_ASSERT(call, bad, k)                                            \
  static_assert(bad != k, call ": plane " #k                                                \
                               " (counting from 0 after 'scratch') must be a "              \
                               "writable rank-1 or rank-2 View of trivially-copyable "      \
                               "elements accessible from the execution space (on Kokkos < " \
                               "4.4 a View of Kokkos::Array must be rank 1 and LayoutRight)")

/// Every permute / unpermute overload ends here (status: null, or a
/// PermuteWorkspace's word): readable compile-time checks of the whole
/// argument list, then the body.
template <bool Gather, class Exec, class Perm, class Scratch, class... Planes>
void entry(const Names& names, const Exec& exec, const Perm& perm, const Scratch& scratch,
           i64* status, const Planes&... planes) {
  constexpr const char* fn = Gather ? "sieve::keys::permute" : "sieve::keys::unpermute";
  static_assert(sizeof...(Planes) >= 1,
                "sieve::keys::permute / unpermute: the arguments are ([label,] exec, perm, "
                "scratch, planes...) with at least one plane");
  constexpr bool permOk =
      kViewOf<Exec, Perm, 1, std::int32_t, false> || kViewOf<Exec, Perm, 1, std::int64_t, false>;
  static_assert(permOk,
                "sieve::keys::permute / unpermute: 'perm' must be a rank-1 View of "
                "std::int32_t or std::int64_t accessible from the execution space");
  static_assert(kByteScratch<Exec, Scratch>,
                "sieve::keys::permute / unpermute: 'scratch' must be a writable rank-1 View of "
                "bytes accessible from the execution space");
  constexpr int bad = firstBad<Exec, Planes...>();
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 0);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 1);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 2);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 3);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 4);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 5);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 6);
  SIEVE_PERMUTE_PLANE_ASSERT("sieve::keys::permute / unpermute", bad, 7);
  static_assert(bad < 8,
                "sieve::keys::permute / unpermute: a plane after the 8th (counting "
                "after 'scratch') must be a writable rank-1 or rank-2 View of "
                "trivially-copyable elements accessible from the execution space");
  if constexpr (sizeof...(Planes) >= 1 && permOk && kByteScratch<Exec, Scratch> && bad < 0)
    body<Gather>(fn, names, exec, perm, scratch, status, planes...);
}

#undef SIEVE_PERMUTE_PLANE_ASSERT

} // namespace Permute
} // namespace Impl
} // namespace sieve
