// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — sieve::keys on the host (Kokkos::OpenMP, or the default
// host space): 2^24 elements of 8 bytes (an int32 key, an int32 record id)
// with 2^16 dense keys (uniform), against, in the same run:
//   - Kokkos::BinSort (BinOp1D, one bin per key) of the keys, its permutation
//     then applied to the elements (BinSort::sort(elements)): the peer of
//     scatter_dense (not stable: its order within a key depends on the
//     schedule; scatter_dense's does not),
//   - Kokkos::sort of (key << 32 | index) words (a sort by key giving the
//     permutation), then the elements gathered by it: the peer of
//     scatter_sparse,
//   - a deep_copy of the same elements (the copy limit);
// then scatter_sparse of 16-byte elements with int64 keys over 2^20, 2^40 and
// 2^63 against Kokkos::sort of the keys alone and the copy, and with a
// SparseWorkspace, both also as with glibc's default allocator (fresh result
// pages every call; FreshPages) (benchWide);
// then sieve::keys::permute of a View<double* [3]> against BinSort::sort of it
// (benchPermute), 2^18 - 2^22 rows.
// Variants are interleaved, best of --reps repetitions (harness.hpp).
//
//   sieve_bench_keys [--n N] [--keys K] [--reps R]
#include <sieve/sieve.hpp>

#include "harness.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using HostExec = Kokkos::DefaultHostExecutionSpace;
using Mem = HostExec::memory_space;
using i64 = std::int64_t;
using Range = Kokkos::RangePolicy<HostExec, Kokkos::IndexType<i64>>;

namespace {

struct Elem {
  std::int32_t k;
  std::int32_t rec;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
};

KOKKOS_INLINE_FUNCTION std::int32_t keyOf(i64 i, i64 keys) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL + 12345u;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<std::int32_t>(x % static_cast<std::uint64_t>(keys));
}

volatile i64 g_sink = 0;

/// Whether the elements are in ascending key order (and, if `stable`, in
/// record order within a key).
bool sorted(const Kokkos::View<Elem*, Mem>& v, bool stable) {
  for (std::size_t i = 1; i < v.extent(0); ++i) {
    if (v(i - 1).k > v(i).k) return false;
    if (stable && v(i - 1).k == v(i).k && v(i - 1).rec > v(i).rec) return false;
  }
  return true;
}

/// sieve::keys::permute of a View<double* [3]> (positions, LayoutRight) by
/// the permutation of a Kokkos::BinSort of random cell keys (8 atoms a cell),
/// against that BinSort's own application step, BinSort::sort(x) (its
/// create_permute_vector outside the timing), in the same run: 2^18 - 2^22
/// rows. Also what the check that no entry of perm repeats (on with the
/// debug checks) adds, and the asynchronous form through a PermuteWorkspace.
void benchPermute(const HostExec& exec, int reps) {
  using X = Kokkos::View<double* [3], Mem>;
  using Keys = Kokkos::View<std::int32_t*, Mem>;
  using Op = Kokkos::BinOp1D<Keys>;
  for (int lg = 18; lg <= 22; lg += 2) {
    const i64 n = i64(1) << lg;
    const i64 cells = n / 8;
    X x0(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x0"), n);
    X x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x"), n);
    X y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "y"), n);
    Keys keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "cells"), n);
    Kokkos::parallel_for(
        "init", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
          for (int c = 0; c < 3; ++c) x0(i, c) = double(i) + 0.25 * c;
          keys(i) = keyOf(i, cells);
        });
    exec.fence();
    Kokkos::BinSort<Keys, Op> bs(
        keys, Op(static_cast<int>(cells), 0, static_cast<std::int32_t>(cells - 1)), false);
    bs.create_permute_vector();
    const auto order = bs.get_permute_vector();
    Kokkos::View<std::int32_t*, Mem> perm32("perm32", n);
    Kokkos::View<std::int64_t*, Mem> perm64("perm64", n);
    Kokkos::parallel_for(
        "perm", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
          perm32(i) = static_cast<std::int32_t>(order(i));
          perm64(i) = static_cast<std::int64_t>(order(i));
        });
    Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::permute_scratch_bytes(x));
    const sieve::keys::PermuteWorkspace<HostExec> pws(exec, x);
    exec.fence();
    const auto reset = [&] {
      Kokkos::deep_copy(exec, x, x0);
      exec.fence();
    };
    sieve_bench::Case c;
    c.name = "permute double[3], 2^" + std::to_string(lg);
    c.baseline = "deep_copy (same bytes)";
    c.subject = "sieve::keys::permute";
    c.primitive = "permute";
    c.n = n;
    c.variants.push_back({"deep_copy (same bytes)",
                          [&] {
                            Kokkos::deep_copy(exec, y, x);
                            exec.fence();
                          },
                          {},
                          2.0 * static_cast<double>(n) * 3 * sizeof(double)});
    c.variants.push_back({"sieve::keys::permute",
                          [&] {
                            sieve::keys::permute(exec, perm32, scratch, x);
                            exec.fence();
                          },
                          reset});
    c.variants.push_back({"permute + repeat check (debug)",
                          [&] {
                            sieve::set_debug_checks(true);
                            sieve::keys::permute(exec, perm32, scratch, x);
                            exec.fence();
                            sieve::set_debug_checks(false);
                          },
                          reset});
    c.variants.push_back({"sieve permute, PermuteWorkspace",
                          [&] {
                            sieve::keys::permute(exec, perm32, pws, x);
                            exec.fence();
                          },
                          reset});
    c.variants.push_back({"sieve permute, int64 perm",
                          [&] {
                            sieve::keys::permute(exec, perm64, scratch, x);
                            exec.fence();
                          },
                          reset});
    c.variants.push_back({"Kokkos::BinSort::sort(x)",
                          [&] {
                            bs.sort(x); // fences
                          },
                          reset});
    sieve_bench::runCase(c, reps);
    sieve_bench::printCase(c);
    // Both give the same rows.
    reset();
    sieve::keys::permute(exec, perm32, scratch, x);
    Kokkos::deep_copy(exec, y, x0);
    exec.fence();
    bs.sort(y);
    bool same = true;
    for (i64 i = 0; i < n && same; ++i)
      for (int c3 = 0; c3 < 3; ++c3) same = same && x(i, c3) == y(i, c3);
    const auto* sp = sieve_bench::find(c, "sieve::keys::permute");
    const auto* bp = sieve_bench::find(c, "Kokkos::BinSort::sort(x)");
    const auto* ck = sieve_bench::find(c, "permute + repeat check (debug)");
    std::printf(
        "2^%d: permute / BinSort::sort = %.2f, the repeat check (debug checks) adds %.0f %%, "
        "rows %s\n\n",
        lg, sp->best / bp->best, 100.0 * (ck->best - sp->best) / sp->best,
        same ? "identical" : "DIFFERENT");
  }
}
/// An element with a 64-bit key.
struct WideElem {
  std::int64_t k;
  std::int64_t rec;
  KOKKOS_INLINE_FUNCTION std::int64_t key() const { return k; }
};

/// scatter_sparse of n 16-byte elements whose int64 keys are uniform over
/// [0, 2^bits), against Kokkos::sort of a copy of the keys (the keys only: a
/// lower bound of a sort that also gives the order) and the copy of the
/// elements' bytes; prints the ratios, also per 8-bit digit the keys need.
void benchWide(const HostExec& exec, i64 n, int bits, int reps) {
  using Elems = Kokkos::View<WideElem*, Mem>;
  using Keys = Kokkos::View<std::int64_t*, Mem>;
  Elems in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "wide_in"), n);
  Elems out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "wide_out"), n);
  Keys keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "wide_keys"), n);
  Keys work(Kokkos::view_alloc(Kokkos::WithoutInitializing, "wide_work"), n);
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
  Kokkos::parallel_for(
      "wide_init", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL + 777u;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ULL;
        x ^= x >> 29;
        in(i) = WideElem{static_cast<std::int64_t>(x & mask), i};
        keys(i) = in(i).k;
        out(i) = WideElem{0, 0};
        work(i) = 0;
      });
  exec.fence();
  sieve_bench::Case c;
  c.name = "sparse scatter, int64 keys over 2^" + std::to_string(bits);
  c.baseline = "deep_copy (same bytes)";
  c.subject = "sieve::keys::scatter_sparse";
  c.variants.push_back({"deep_copy (same bytes)",
                        [&] {
                          Kokkos::deep_copy(exec, out, in);
                          exec.fence();
                        },
                        {},
                        2.0 * static_cast<double>(n) * sizeof(WideElem)});
  const auto sieveCall = [&] {
    const auto k = sieve::keys::scatter_sparse(exec, in, out);
    g_sink = g_sink + k.num_keys();
  };
  c.variants.push_back({"sieve::keys::scatter_sparse", sieveCall, {}});
  sieve::keys::SparseWorkspace<std::int64_t, HostExec> ws;
  const auto sieveWs = [&] {
    const auto k = sieve::keys::scatter_sparse(exec, in, out, ws);
    g_sink = g_sink + k.num_keys();
  };
  c.variants.push_back({"scatter_sparse + SparseWorkspace", sieveWs, {}});
  // The asynchronous form: full-width radix passes, nothing read back.
  sieve::keys::SparseWorkspace<std::int64_t, HostExec> fixed(exec, n, n);
  const auto sieveFixed = [&] {
    const auto k = sieve::keys::scatter_sparse(exec, in, out, fixed);
    exec.fence();
    g_sink = g_sink + k.num_keys();
  };
  c.variants.push_back({"scatter_sparse + fixed SparseWorkspace (async)", sieveFixed, {}});
  c.variants.push_back({"Kokkos::sort (keys only)",
                        [&] {
                          Kokkos::sort(work);
                          exec.fence();
                        },
                        [&] {
                          Kokkos::deep_copy(exec, work, keys);
                          exec.fence();
                        }});
  sieve_bench::runCase(c, reps);
  sieve_bench::printCase(c);
  // As a code with glibc's default allocator runs them: the result's pages
  // fresh every call (the workspace's once). A case of its own (FreshPages).
  sieve_bench::Case f;
  f.name = c.name + ", fresh pages";
  f.baseline = "scatter_sparse, fresh pages";
  f.subject = f.baseline;
  f.variants.push_back({"scatter_sparse, fresh pages", sieve_bench::withFreshPages(sieveCall), {}});
  f.variants.push_back(
      {"scatter_sparse + SparseWorkspace, fresh pages", sieve_bench::withFreshPages(sieveWs), {}});
  sieve_bench::runCase(f, reps);
  sieve_bench::printCase(f);
  sieveFixed();
  const auto hFixed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  sieve::keys::scatter_sparse(exec, in, out);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  bool ok =
      std::memcmp(h.data(), hFixed.data(), sizeof(WideElem) * static_cast<std::size_t>(n)) == 0;
  for (i64 i = 1; i < n && ok; ++i)
    ok = h(i - 1).k < h(i).k || (h(i - 1).k == h(i).k && h(i - 1).rec < h(i).rec);
  const double ss = sieve_bench::find(c, "sieve::keys::scatter_sparse")->best;
  const double ks = sieve_bench::find(c, "Kokkos::sort (keys only)")->best;
  const double cp = sieve_bench::find(c, "deep_copy (same bytes)")->best;
  const double fx = sieve_bench::find(c, "scatter_sparse + fixed SparseWorkspace (async)")->best;
  const double fresh = sieve_bench::find(f, "scatter_sparse, fresh pages")->best;
  const double wsFresh =
      sieve_bench::find(f, "scatter_sparse + SparseWorkspace, fresh pages")->best;
  const int digits = (bits + 7) / 8;
  std::printf(
      "ratios (int64 keys over 2^%d, output %s): Kokkos::sort / scatter_sparse = %.2f, "
      "scatter_sparse / copy = %.2f, per 8-bit digit (%d) = %.2f; fresh pages: without / "
      "with SparseWorkspace = %.2f; fixed (async) / scatter_sparse = %.2f\n\n",
      bits, ok ? "stable" : "WRONG", ks / ss, ss / cp, digits, ss / cp / digits, fresh / wsFresh,
      fx / ss);
}

} // namespace

int main(int argc, char* argv[]) {
  i64 n = i64(1) << 24;
  i64 K = i64(1) << 16;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    else if (a == "--keys" && i + 1 < argc) K = std::atoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  sieve_bench::keepFreedPages();
  Kokkos::initialize(argc, argv);
  {
    const HostExec exec;
    std::printf(
        "sieve::keys benchmark: n = %lld elements of %d bytes, %lld dense keys, %s with "
        "%d threads, Kokkos %d, best of %d\n\n",
        static_cast<long long>(n), static_cast<int>(sizeof(Elem)), static_cast<long long>(K),
        HostExec::name(), static_cast<int>(exec.concurrency()), KOKKOS_VERSION, reps);
    using Elems = Kokkos::View<Elem*, Mem>;
    using Keys = Kokkos::View<std::int32_t*, Mem>;
    Elems in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "in"), n);
    Elems out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), n);
    Elems work(Kokkos::view_alloc(Kokkos::WithoutInitializing, "work"), n);
    Keys keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "keys"), n);
    Kokkos::View<std::uint64_t*, Mem> packed(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "packed"), n);
    const i64 nk = K;
    Kokkos::parallel_for(
        "init", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
          in(i) = Elem{keyOf(i, nk), static_cast<std::int32_t>(i)};
          keys(i) = in(i).k;
          out(i) = Elem{0, 0};
          work(i) = Elem{0, 0};
          packed(i) = 0;
        });
    exec.fence();
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(Elem);

    sieve_bench::printHeader();
    sieve_bench::Case dense;
    dense.name = "dense scatter";
    dense.baseline = "deep_copy (same bytes)";
    dense.subject = "sieve::keys::scatter_dense";
    dense.variants.push_back({"deep_copy (same bytes)",
                              [&] {
                                Kokkos::deep_copy(exec, out, in);
                                exec.fence();
                              },
                              {},
                              bytes});
    dense.variants.push_back({"sieve::keys::scatter_dense",
                              [&] {
                                const auto k = sieve::keys::scatter_dense(
                                    exec, in, std::int32_t(0), std::int32_t(nk - 1), out);
                                g_sink = g_sink + k.num_keys();
                              },
                              {}});
    const sieve::keys::DenseWorkspace<std::int32_t, HostExec> ws(exec, n, std::int32_t(0),
                                                                 std::int32_t(nk - 1));
    dense.variants.push_back({"scatter_dense + workspace (async)",
                              [&] {
                                const auto k = sieve::keys::scatter_dense(exec, in, out, ws);
                                exec.fence();
                                g_sink = g_sink + k.num_keys();
                              },
                              {}});
    dense.variants.push_back({"scatter_dense, range computed",
                              [&] {
                                const auto k = sieve::keys::scatter_dense(exec, in, out);
                                g_sink = g_sink + k.num_keys();
                              },
                              {}});
    dense.variants.push_back(
        {"Kokkos::BinSort + permute",
         [&] {
           using Op = Kokkos::BinOp1D<Keys>;
           Kokkos::BinSort<Keys, Op> bs(
               keys, Op(static_cast<int>(nk - 1), 0, static_cast<std::int32_t>(nk - 1)), false);
           bs.create_permute_vector();
           bs.sort(work); // applies the permutation to the elements
           exec.fence();
         },
         [&] {
           Kokkos::deep_copy(exec, work, in);
           exec.fence();
         }});
    sieve_bench::runCase(dense, reps);
    sieve_bench::printCase(dense);

    sieve_bench::Case sparse;
    sparse.name = "sparse scatter";
    sparse.baseline = "deep_copy (same bytes)";
    sparse.subject = "sieve::keys::scatter_sparse";
    sparse.variants.push_back({"deep_copy (same bytes)",
                               [&] {
                                 Kokkos::deep_copy(exec, out, in);
                                 exec.fence();
                               },
                               {},
                               bytes});
    sparse.variants.push_back({"sieve::keys::scatter_sparse",
                               [&] {
                                 const auto k = sieve::keys::scatter_sparse(exec, in, out);
                                 g_sink = g_sink + k.num_keys();
                               },
                               {}});
    sparse.variants.push_back(
        {"Kokkos::sort (key,index) + gather",
         [&] {
           Kokkos::parallel_for(
               "pack", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
                 packed(i) =
                     (static_cast<std::uint64_t>(static_cast<std::uint32_t>(in(i).k)) << 32) |
                     static_cast<std::uint64_t>(i);
               });
           exec.fence();
           Kokkos::sort(packed);
           Kokkos::parallel_for(
               "gather", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 p) {
                 work(p) = in(static_cast<i64>(packed(p) & 0xffffffffu));
               });
           exec.fence();
         },
         {}});
    sieve_bench::runCase(sparse, reps);
    sieve_bench::printCase(sparse);

    // The outputs: scatter_dense and scatter_sparse are stable sorts.
    sieve::keys::scatter_dense(exec, in, out);
    const bool denseOk = sorted(out, true);
    sieve::keys::scatter_sparse(exec, in, out);
    const bool sparseOk = sorted(out, true);
    Kokkos::deep_copy(exec, work, in);
    {
      using Op = Kokkos::BinOp1D<Keys>;
      Kokkos::BinSort<Keys, Op> bs(
          keys, Op(static_cast<int>(nk - 1), 0, static_cast<std::int32_t>(nk - 1)), false);
      bs.create_permute_vector();
      bs.sort(work);
      exec.fence();
    }
    std::printf("outputs: scatter_dense %s, scatter_sparse %s, BinSort by key %s, stable %s\n",
                denseOk ? "stable" : "WRONG", sparseOk ? "stable" : "WRONG",
                sorted(work, false) ? "yes" : "NO", sorted(work, true) ? "yes" : "no");
    const auto* sd = sieve_bench::find(dense, "sieve::keys::scatter_dense");
    const auto* sa = sieve_bench::find(dense, "scatter_dense + workspace (async)");
    const auto* bs = sieve_bench::find(dense, "Kokkos::BinSort + permute");
    const auto* cp = sieve_bench::find(dense, "deep_copy (same bytes)");
    const auto* ss = sieve_bench::find(sparse, "sieve::keys::scatter_sparse");
    const auto* ks = sieve_bench::find(sparse, "Kokkos::sort (key,index) + gather");
    std::printf(
        "ratios: scatter_dense / BinSort = %.2f, scatter_dense / copy = %.2f, "
        "async scatter_dense (workspace) / BinSort = %.2f, "
        "scatter_sparse / Kokkos::sort = %.2f, scatter_sparse / copy = %.2f\n",
        sd->best / bs->best, sd->best / cp->best, sa->best / bs->best, ss->best / ks->best,
        ss->best / cp->best);
    for (const int bits : {20, 40, 63}) benchWide(exec, n, bits, reps);
    benchPermute(exec, reps);
  }
  Kokkos::finalize();
  return 0;
}
