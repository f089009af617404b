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

#include <sieve/core/elem.hpp>
#include <sieve/core/permute.hpp>
#include <sieve/debug.hpp>
#include <sieve/impl/args.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/faces.hpp>
#include <sieve/impl/portable/base.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve {
namespace Impl {
namespace Permute {

using Portable::i64;
using Portable::Range;

/// The index of the first plane that is not a plane moved by bytes (any
/// element size; -1: all are).
template <class Exec, class... Planes>
constexpr int firstBad() {
  const bool ok[] = {bytePlaneOk<Exec, Planes>()..., true};
  return firstFalse(ok);
}

/// A plane's rows as moved: `row` bytes per sample, sample j at data + j *
/// stride. A rank-1 plane is one (row = its element); a rank-2 plane with
/// contiguous rows (LayoutRight, or stride(1) == 1) is one (row = extent(1)
/// elements); a rank-2 plane of strided columns (LayoutLeft, LayoutStride) is
/// one per column (row = one element).
struct Rows {
  unsigned char* data;
  i64 stride; // bytes between samples
  std::size_t row;
};

template <class V>
void rowsOf(const V& v, std::vector<Rows>& out) {
  using T = ValueOf<V>;
  auto* base =
      reinterpret_cast<unsigned char*>(const_cast<T*>(reinterpret_cast<const T*>(v.data())));
  if constexpr (V::rank == 1) {
    out.push_back(Rows{base, static_cast<i64>(strideBytes(v)), sizeof(T)});
  } else {
    const std::size_t cols = v.extent(1);
    if (cols == 0) return;
    const i64 s0 = static_cast<i64>(v.stride(0) * sizeof(T));
    if (cols == 1 || v.stride(1) == 1) {
      out.push_back(Rows{base, s0, cols * sizeof(T)});
    } else {
      for (std::size_t c = 0; c < cols; ++c)
        out.push_back(Rows{base + c * v.stride(1) * sizeof(T), s0, sizeof(T)});
    }
  }
}

/// The widest row of a plane, in bytes (the staging row the scratch needs).
template <class V>
std::size_t rowBytesOf(const V& v) {
  std::vector<Rows> r;
  rowsOf(v, r);
  std::size_t m = 0;
  for (const Rows& x : r) m = x.row > m ? x.row : m;
  return m;
}

/// Row j of a plane, as K words of W (K = 0: `k` words, known at run time).
template <class W, int K>
struct RowCopy {
  KOKKOS_INLINE_FUNCTION static void copy(W* dst, const W* src, int k) {
    if constexpr (K > 0) {
      (void)k;
      for (int c = 0; c < K; ++c) dst[c] = src[c];
    } else {
      for (int c = 0; c < k; ++c) dst[c] = src[c];
    }
  }
};

/// Rows of `row` bytes from src (stride ss) to dst (stride ds), n of them:
/// dst row j <- src row j, with perm applied to the source index (ByPerm ==
/// 1: a gather) or to the destination index (ByPerm == 2: a scatter). With
/// `check`, perm(j) is read for every j (ByPerm 0 too), an entry outside
/// [0, n) is skipped (nothing moved for it) and the smallest index of one
/// returned (blocks: read back); n: none. On
/// host spaces a thread moves a run of rows from local copies of everything
/// (the word stores may alias anything, which would reload the kernel's
/// members for every row otherwise and serialise the gather's misses).
template <class W, int K, int ByPerm, class Exec, class Perm>
i64 moveRows(const Exec& exec, const std::string& label, i64 n, const Perm& perm,
             const unsigned char* src, i64 ss, unsigned char* dst, i64 ds, int k, bool check) {
  using C = RowCopy<W, K>;
  using PermU = Kokkos::View<typename Perm::const_data_type, typename Perm::array_layout,
                             typename Perm::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const PermU pu = perm;
  constexpr i64 run =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible ? 256
                                                                                             : 1;
  const i64 runs = (n + run - 1) / run;
  const auto body = KOKKOS_LAMBDA(const i64 c, i64& first) {
    const PermU p = pu;
    const unsigned char* const s0 = src;
    unsigned char* const d0 = dst;
    const i64 sst = ss, dstr = ds, nn = n;
    const int kk = k;
    const bool chk = check;
    const i64 j1 = (c + 1) * run < nn ? (c + 1) * run : nn;
    for (i64 j = c * run; j < j1; ++j) {
      const i64 q = ByPerm != 0 || chk ? static_cast<i64>(p(j)) : j;
      if (q < 0 || q >= nn) {
        if (j < first) first = j;
        continue;
      }
      const i64 from = ByPerm == 1 ? q : j, to = ByPerm == 2 ? q : j; // (ByPerm 0: q checked only)
      C::copy(reinterpret_cast<W*>(d0 + to * dstr), reinterpret_cast<const W*>(s0 + from * sst),
              kk);
    }
  };
  i64 bad = n;
  if (check) {
    Kokkos::parallel_reduce(label, Range<Exec>(exec, 0, runs), body, Kokkos::Min<i64>(bad));
  } else {
    Kokkos::parallel_for(
        label, Range<Exec>(exec, 0, runs), KOKKOS_LAMBDA(const i64 c) {
          i64 unused = 0;
          body(c, unused);
        });
  }
  return bad;
}

/// The first pass over one plane's rows, into the staging rows: a gather
/// (stage[j] = plane[perm[j]]) or a copy (stage[j] = plane[j]). With `check`
/// it also checks the range of perm on the way (it writes only the
/// scratch): the smallest index of an entry outside [0, n), n: none.
template <class W, int K, bool Gather, class Exec, class Perm>
i64 stageRows(const Exec& exec, const Names& names, const Rows& r, unsigned char* stage,
              const Perm& perm, i64 n, bool check) {
  return moveRows < W, K,
         Gather ? 1
                : 0 > (exec, names(Gather ? "gather" : "stage"), n, perm, r.data, r.stride, stage,
                       static_cast<i64>(r.row), static_cast<int>(r.row / sizeof(W)), check);
}

/// The second pass: the staging rows back into the plane, in order (gather)
/// or to perm[j] (scatter).
template <class W, int K, bool Gather, class Exec, class Perm>
void placeRows(const Exec& exec, const Names& names, const Rows& r, unsigned char* stage,
               const Perm& perm, i64 n) {
  const i64 rowStage = static_cast<i64>(r.row);
  if (Gather && r.stride == rowStage) {
    // Contiguous rows: the copy back is one block copy (Kokkos' own).
    using Bytes = Kokkos::View<unsigned char*, typename Exec::memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const auto len = static_cast<std::size_t>(n * rowStage);
    Kokkos::deep_copy(exec, Bytes(r.data, len), Bytes(stage, len));
    return;
  }
  moveRows<W, K, Gather ? 0 : 2>(exec, names(Gather ? "copy_back" : "scatter"), n, perm, stage,
                                 rowStage, r.data, r.stride, static_cast<int>(r.row / sizeof(W)),
                                 false);
}

/// Call f(TypeTag<W>{}, std::integral_constant<int, K>{}) for the widest word
/// W (16, 8, 4, 2 or 1 bytes) that divides the row, the sample stride and
/// the plane's address: rows move as K such words, K specialised at compile
/// time for the common rows (1 - 4 words of 8 or 16 bytes: double,
/// double[2], double[3], double[4], ...; 0: known at run time).
template <class F>
void withRow(const Rows& r, F&& f) {
  const auto fit = [&](std::size_t w) {
    return r.row % w == 0 &&
           static_cast<std::size_t>(r.stride < 0 ? -r.stride : r.stride) % w == 0 &&
           reinterpret_cast<std::uintptr_t>(r.data) % w == 0;
  };
  const std::uint32_t w = fit(16) ? 16u : fit(8) ? 8u : fit(4) ? 4u : fit(2) ? 2u : 1u;
  const std::size_t k = r.row / w;
  withElem(w, [&](auto tag) {
    using W = typename decltype(tag)::type;
    using I1 = std::integral_constant<int, 1>;
    using I0 = std::integral_constant<int, 0>;
    if constexpr (sizeof(W) >= 8) {
      switch (k) {
      case 1: f(tag, I1{}); return;
      case 2: f(tag, std::integral_constant<int, 2>{}); return;
      case 3: f(tag, std::integral_constant<int, 3>{}); return;
      case 4: f(tag, std::integral_constant<int, 4>{}); return;
      default: f(tag, I0{}); return;
      }
    } else {
      (void)sizeof(W);
      if (k == 1) f(tag, I1{});
      else f(tag, I0{});
    }
  });
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

/// The run-time checks and the moves of one call.
template <bool Gather, class Exec, class Perm, class Scratch, class... Planes>
void body(const char* fn, const Names& names, const Exec& exec, const Perm& perm,
          const Scratch& scratch, const Planes&... planes) {
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
    const bool once = debug_checks();
    if (once || rows.empty()) checkPerm(fn, names, exec, perm, n, seen);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      withRow(rows[k], [&](auto tag, auto kk) {
        using W = typename decltype(tag)::type;
        constexpr int K = decltype(kk)::value;
        const bool check = k == 0 && !once;
        const i64 bad = stageRows<W, K, Gather>(exec, names, rows[k], stage, perm, n, check);
        if (bad < n) failRange(fn, perm, bad, n);
        placeRows<W, K, Gather>(exec, names, rows[k], stage, perm, n);
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

/// Every permute / unpermute overload ends here: readable compile-time
/// checks of the whole argument list, then the body.
template <bool Gather, class Exec, class Perm, class Scratch, class... Planes>
void entry(const Names& names, const Exec& exec, const Perm& perm, const Scratch& scratch,
           const Planes&... planes) {
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
    body<Gather>(fn, names, exec, perm, scratch, planes...);
}

#undef SIEVE_PERMUTE_PLANE_ASSERT

} // namespace Permute
} // namespace Impl

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
