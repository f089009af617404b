// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — how sieve::keys::permute / unpermute move a plane: its
// rows (a rank-1 plane's elements, a rank-2 plane's rows or columns), moved
// as words of the widest size that fits, gathered or scattered through perm
// into the staging rows and back.
#pragma once

#include <sieve/core/elem.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/portable/base.hpp>

#include <Kokkos_Core.hpp>

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

/// The widest row of these planes, in bytes (the staging row their scratch
/// needs; 0 for none): the one rule of permute_scratch_bytes, the workspace
/// and its calls.
template <class... Vs>
std::size_t widestRow(const Vs&... vs) {
  std::size_t w = 0;
  ((w = rowBytesOf(vs) > w ? rowBytesOf(vs) : w), ...);
  return w;
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

/// Where a call's range check goes: read back (status null, the call
/// blocks), or counted on the device into *status (a workspace's word) by
/// the pass that checks, and every other pass moving nothing once *status is
/// not 0 (nothing read back).
struct Deferred {
  i64* status = nullptr;
  bool count = false;
};

/// Rows of `row` bytes from src (stride ss) to dst (stride ds), n of them:
/// dst row j <- src row j, with perm applied to the source index (ByPerm ==
/// 1: a gather) or to the destination index (ByPerm == 2: a scatter). With
/// `check`, perm(j) is read for every j (ByPerm 0 too), an entry outside
/// [0, n) is skipped (nothing moved for it) and the smallest index of one
/// returned (blocks: read back); n: none. With a deferred status the
/// entries outside [0, n) are counted there instead (`count`), or the pass
/// moves nothing when an earlier one counted any (nothing returned). On
/// host spaces a thread moves a run of rows from local copies of everything
/// (the word stores may alias anything, which would reload the kernel's
/// members for every row otherwise and serialise the gather's misses).
template <class W, int K, int ByPerm, class Exec, class Perm>
i64 moveRows(const Exec& exec, const std::string& label, i64 n, const Perm& perm,
             const unsigned char* src, i64 ss, unsigned char* dst, i64 ds, int k, bool check,
             const Deferred& deferred = {}) {
  using C = RowCopy<W, K>;
  using PermU = Kokkos::View<typename Perm::const_data_type, typename Perm::array_layout,
                             typename Perm::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const PermU pu = perm;
  constexpr i64 run =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible ? 256
                                                                                             : 1;
  const i64 runs = (n + run - 1) / run;
  i64* const status = deferred.status;
  const bool count = deferred.count;
  const auto body = KOKKOS_LAMBDA(const i64 c, i64& first) {
    const PermU p = pu;
    const unsigned char* const s0 = src;
    unsigned char* const d0 = dst;
    const i64 sst = ss, dstr = ds, nn = n;
    const int kk = k;
    i64* const st = status;
    const bool cnt = count && status != nullptr;
    const bool chk = check || cnt;
    if (st != nullptr && !cnt && *st != 0) return; // a rejected perm: nothing moves
    const i64 j1 = (c + 1) * run < nn ? (c + 1) * run : nn;
    for (i64 j = c * run; j < j1; ++j) {
      const i64 q = ByPerm != 0 || chk ? static_cast<i64>(p(j)) : j;
      if (q < 0 || q >= nn) {
        if (cnt) Kokkos::atomic_add(st, i64(1));
        else if (j < first) first = j;
        continue;
      }
      const i64 from = ByPerm == 1 ? q : j, to = ByPerm == 2 ? q : j; // (ByPerm 0: q checked only)
      C::copy(reinterpret_cast<W*>(d0 + to * dstr), reinterpret_cast<const W*>(s0 + from * sst),
              kk);
    }
  };
  i64 bad = n;
  if (check && status == nullptr) {
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
i64 stageRows(const Exec& exec, const std::string& label, const Rows& r, unsigned char* stage,
              const Perm& perm, i64 n, bool check, const Deferred& deferred = {}) {
  return moveRows<W, K, Gather ? 1 : 0>(exec, label, n, perm, r.data, r.stride, stage,
                                        static_cast<i64>(r.row), static_cast<int>(r.row / sizeof(W)),
                                        check, deferred);
}

/// The second pass: the staging rows back into the plane, in order (gather)
/// or to perm[j] (scatter).
template <class W, int K, bool Gather, class Exec, class Perm>
void placeRows(const Exec& exec, const std::string& label, const Rows& r, unsigned char* stage,
               const Perm& perm, i64 n, const Deferred& deferred = {}) {
  const i64 rowStage = static_cast<i64>(r.row);
  if (Gather && r.stride == rowStage && deferred.status == nullptr) {
    // Contiguous rows: the copy back is one block copy (Kokkos' own).
    using Bytes = Kokkos::View<unsigned char*, typename Exec::memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const auto len = static_cast<std::size_t>(n * rowStage);
    Kokkos::deep_copy(exec, Bytes(r.data, len), Bytes(stage, len));
    return;
  }
  moveRows<W, K, Gather ? 0 : 2>(exec, label, n, perm, stage, rowStage, r.data, r.stride,
                                 static_cast<int>(r.row / sizeof(W)), false,
                                 Deferred{deferred.status, false});
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

} // namespace Permute
} // namespace Impl
} // namespace sieve
