// Sieve (internal) — the portable implementation: prefix scan.
#pragma once

#include <sieve/impl/portable/base.hpp>

namespace sieve {
namespace Impl {
namespace Portable {


template <class Exec, class T>
using Raw = Kokkos::View<T*, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// totals[b] = left-to-right fold of block b of src[0, len).
template <class Exec, class Src, class T, class Op>
void blockTotals(const Exec& exec, const std::string& label, const Src& src, i64 len, T* totals, const Op& op) {
  const i64 nb = (len + kScanBlock - 1) / kScanBlock;
  Kokkos::parallel_for(
      label + "::totals", Range<Exec>(exec, 0, nb), KOKKOS_LAMBDA(const i64 b) {
        const i64 lo = b * kScanBlock, hi = lo + kScanBlock < len ? lo + kScanBlock : len;
        T acc = src(lo);
        for (i64 i = lo + 1; i < hi; ++i) acc = op(acc, src(i));
        totals[b] = acc;
      });
}

/// Scan every block of src[0, len) into dst from its prefix.
template <bool Inclusive, class Exec, class Src, class Dst, class T, class Op>
void blockScan(const Exec& exec, const std::string& label, const Src& src, const Dst& dst, i64 len, const T* prefix,
               const Op& op) {
  const i64 nb = (len + kScanBlock - 1) / kScanBlock;
  Kokkos::parallel_for(
      label + "::blocks", Range<Exec>(exec, 0, nb), KOKKOS_LAMBDA(const i64 b) {
        const i64 lo = b * kScanBlock, hi = lo + kScanBlock < len ? lo + kScanBlock : len;
        T acc = prefix[b];
        for (i64 i = lo; i < hi; ++i) {
          const T v = src(i);
          // (a plain `if` on the constant: nvcc's extended lambdas cannot
          // first-capture inside `if constexpr`)
          if (Inclusive) {
            acc = op(acc, v);
            dst(i) = acc;
          } else {
            dst(i) = acc;
            acc = op(acc, v);
          }
        }
      });
}

/// Exclusive scan of a[0, len) in place from `init`, using work[] (at most
/// len elements) for the levels above.
template <class Exec, class T, class Op>
void scanTotals(const Exec& exec, const std::string& label, T* a, i64 len, T* work, const T& init, const Op& op) {
  if (len <= kScanBlock) {
    Kokkos::parallel_for(
        label + "::top", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(const i64) {
          T acc = init;
          for (i64 i = 0; i < len; ++i) {
            const T v = a[i];
            a[i] = acc;
            acc = op(acc, v);
          }
        });
    return;
  }
  const Raw<Exec, T> av(a, static_cast<std::size_t>(len));
  const i64 nb = (len + kScanBlock - 1) / kScanBlock;
  blockTotals(exec, label, av, len, work, op);
  scanTotals(exec, label, work, nb, work + nb, init, op);
  blockScan<false>(exec, label, av, av, len, work, op);
}

/// Scan in[0, n) into out (in == out allowed). `blockSums` holds at least
/// scratchElems(n) elements.
template <bool Inclusive, class Exec, class InView, class OutView, class T, class Op>
void scan(const Exec& exec, const std::string& label, const InView& in, const OutView& out, const Op& op, const T& init,
          T* blockSums, i64 n) {
  if (n == 0) return;
  const i64 nb = (n + kScanBlock - 1) / kScanBlock;
  blockTotals(exec, label, in, n, blockSums, op);
  scanTotals(exec, label, blockSums, nb, blockSums + nb, init, op);
  blockScan<Inclusive>(exec, label, in, out, n, blockSums, op);
}

/// Elements of block sums the portable scan uses (always <= n).
inline i64 scanScratchElems(i64 n) {
  i64 total = 0;
  for (i64 len = n; len > 0;) {
    const i64 nb = (len + kScanBlock - 1) / kScanBlock;
    total += nb;
    if (len <= kScanBlock) break;
    len = nb;
  }
  return total;
}


} // namespace Portable
} // namespace Impl
} // namespace sieve
