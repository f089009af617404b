// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — the calls Kokkos codes already make, against the Kokkos
// call each replaces, in the same run (the default host space: OpenMP or
// Serial):
//   - binning atoms into the cells of an MD box (ExaMiniMD's Kokkos::BinSort
//     with BinOp3D over View<double*[3]> positions): BinSort's construction +
//     create_permute_vector() against sieve::keys::sort_permutation with the
//     same BinOp3D as its key (allocating form, and the asynchronous form on a
//     DenseWorkspace sized by a capacity), scatter_dense of keyed(iota) and of
//     a 1:1 mapper — random and presorted positions, 2^18 .. 2^22 atoms;
//   - per-cell sums of a weight: sieve::keys::reduce_by_key over the binned
//     atoms against a Kokkos::parallel_for with Kokkos::atomic_add into the
//     cells (the idiom without a sort), and against a loop over BinSort's
//     bin offsets (parallel_for over cells);
//   - event-based cross-section lookups sorted by (material, energy)
//     (XSBench's sorted event kernel: neighbouring lookups then hit the same
//     energy grid points), the pair packed into a 64-bit key: Kokkos::BinSort
//     with BinOp1D over the key and sorting within bins, then
//     BinSort::sort(lookups), against sieve::keys::scatter_sparse of the
//     lookups (stable), with and without a SparseWorkspace (the call in
//     XSBench's loop), and all three with fresh pages (glibc's default
//     allocator), 2^20 .. 2^24 lookups of 32 bytes.
// Variants are interleaved, best of --reps repetitions (harness.hpp); the copy
// of the key-sized bytes is the bandwidth reference.
//
//   sieve_bench_dropin [--max-n N] [--reps R]   (lookups: 2^20 .. 4 max(N, 2^22))
#include <sieve/sieve.hpp>

#include "harness.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using Mem = Kokkos::HostSpace;
using i64 = std::int64_t;

namespace {

volatile i64 g_sink = 0;

/// A 1:1 mapper over the atoms: record i is atom i, keyed by its cell.
template <class Positions>
struct AtomMapper {
  using element_type = i64;
  Positions x;
  Kokkos::BinOp3D<Positions> op;
  i64 n;
  i64 size() const { return n; }
  KOKKOS_INLINE_FUNCTION int count(i64) const { return 1; }
  KOKKOS_INLINE_FUNCTION i64 element(i64 i, int) const { return i; }
  KOKKOS_INLINE_FUNCTION int key(const i64 i) const { return op.bin(x, int(i)); }
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 32);
}

struct Result {
  i64 n;
  bool presorted;
  double binsort, sieve, sieveWs, keyed, mapper, copy;
  double atomics, binLoop, reduceByKey;
};

/// One size and order of atoms on Exec (Kokkos::OpenMP, or Kokkos::Serial:
/// every View of this run is of that space, so BinSort runs there too).
template <class Exec>
Result runOne(const Exec& exec, i64 n, bool presorted, int reps) {
  using Dev = Kokkos::Device<Exec, Mem>;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;
  using Positions = Kokkos::View<double* [3], Dev>;
  using Op3 = Kokkos::BinOp3D<Positions>;
  const double L = 64.0; // box edge; cells of 2.0 -> 32^3 = 32768 cells
  int bins[3] = {32, 32, 32};
  const double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {L, L, L};
  const Op3 op(bins, lo, hi);
  const int cells = bins[0] * bins[1] * bins[2];
  Positions x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x"), n);
  Kokkos::View<double*, Dev> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "w"), n);
  Kokkos::parallel_for(
      "init", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        for (int d = 0; d < 3; ++d)
          x(i, d) = double(mix(std::uint64_t(i) * 3 + d) % 1000000) * (L / 1000000.0);
        w(i) = double(mix(std::uint64_t(i) + 99) % 1000) * 1e-3;
      });
  exec.fence();
  Kokkos::View<i64*, Dev> perm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "perm"), n);
  Kokkos::View<i64*, Dev> ids(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ids"), n);
  Kokkos::View<i64*, Dev> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), n);
  Kokkos::parallel_for(
      "iota", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        ids(i) = i;
        perm(i) = 0;
        out(i) = 0;
      });
  if (presorted) {
    // Atoms already in cell order (a code that sorts every few steps).
    sieve::keys::sort_permutation(
        exec, n, KOKKOS_LAMBDA(const i64 i) { return op.bin(x, int(i)); }, 0, cells - 1, perm);
    Positions y("y", n);
    Kokkos::parallel_for(
        "gather", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 j) {
          for (int d = 0; d < 3; ++d) y(j, d) = x(perm(j), d);
        });
    exec.fence();
    x = y;
  }
  const auto key = KOKKOS_LAMBDA(const i64 i) { return op.bin(x, int(i)); };
  sieve::keys::DenseWorkspace<int, Exec> ws(exec, n, 0, cells - 1);

  sieve_bench::Case c;
  c.name = std::string(Exec::name()) + " bin " + (presorted ? "presorted" : "random") + " n=2^" +
           std::to_string(__builtin_ctzll(static_cast<unsigned long long>(n)));
  c.baseline = "copy (8 B per atom)";
  c.subject = "sieve::keys::sort_permutation";
  c.variants.push_back({"copy (8 B per atom)",
                        [&] {
                          Kokkos::deep_copy(exec, out, ids);
                          exec.fence();
                        },
                        {},
                        16.0 * double(n)});
  c.variants.push_back({"Kokkos::BinSort permute vector",
                        [&] {
                          Kokkos::BinSort<Positions, Op3> bs(x, op, false);
                          bs.create_permute_vector();
                          exec.fence();
                          g_sink = g_sink + bs.get_bin_offsets().extent(0);
                        },
                        {}});
  c.variants.push_back({"sieve::keys::sort_permutation",
                        [&] {
                          const auto k =
                              sieve::keys::sort_permutation(exec, n, key, 0, cells - 1, perm);
                          g_sink = g_sink + k.num_keys();
                        },
                        {}});
  c.variants.push_back({"sort_permutation + workspace",
                        [&] {
                          const auto k = sieve::keys::sort_permutation(exec, n, key, perm, ws);
                          exec.fence();
                          g_sink = g_sink + k.num_keys();
                        },
                        {}});
  c.variants.push_back({"scatter_dense keyed(iota)",
                        [&] {
                          const auto k = sieve::keys::scatter_dense(
                              exec, sieve::keys::keyed(ids, key), 0, cells - 1, perm);
                          g_sink = g_sink + k.num_keys();
                        },
                        {}});
  c.variants.push_back({"scatter_dense 1:1 mapper",
                        [&] {
                          const auto k = sieve::keys::scatter_dense(
                              exec, AtomMapper<Positions>{x, op, n}, 0, cells - 1, perm);
                          g_sink = g_sink + k.num_keys();
                        },
                        {}});
  sieve_bench::runCase(c, reps);
  sieve_bench::printCase(c);

  // Per-cell sums of w over the binned atoms.
  const auto keys = sieve::keys::sort_permutation(exec, n, key, 0, cells - 1, perm);
  Kokkos::View<double*, Dev> ws_sorted("w_sorted", n);
  Kokkos::parallel_for(
      "gather_w", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 j) { ws_sorted(j) = w(perm(j)); });
  exec.fence();
  Kokkos::View<double*, Dev> sums("sums", cells), sums2("sums2", cells);
  Kokkos::BinSort<Positions, Op3> bs(x, op, false);
  bs.create_permute_vector();
  const auto boff = bs.get_bin_offsets();
  const auto bcount = bs.get_bin_count();
  const auto bperm = bs.get_permute_vector();
  const auto offsets = keys.offsets();
  sieve_bench::Case s;
  s.name = std::string(Exec::name()) + " sums " + (presorted ? "presorted" : "random") + " n=2^" +
           std::to_string(__builtin_ctzll(static_cast<unsigned long long>(n)));
  s.baseline = "copy (8 B per atom)";
  s.subject = "sieve::keys::reduce_by_key";
  s.variants.push_back({"copy (8 B per atom)",
                        [&] {
                          Kokkos::deep_copy(exec, out, ids);
                          exec.fence();
                        },
                        {},
                        16.0 * double(n)});
  s.variants.push_back(
      {"sieve::keys::reduce_by_key",
       [&] { sieve::keys::reduce_by_key(exec, keys, ws_sorted, 0.0, sieve::Sum{}, sums); },
       {}});
  s.variants.push_back({"reduce_by_key project(perm)",
                        [&] {
                          sieve::keys::reduce_by_key(
                              exec, keys,
                              sieve::keys::project(
                                  perm, KOKKOS_LAMBDA(const i64 i) { return w(i); }),
                              0.0, sieve::Sum{}, sums);
                        },
                        {}});
  s.variants.push_back({"parallel_for + atomic_add",
                        [&] {
                          Kokkos::deep_copy(exec, sums2, 0.0);
                          Kokkos::parallel_for(
                              "atomic_sums", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
                                Kokkos::atomic_add(&sums2(op.bin(x, int(i))), w(i));
                              });
                          exec.fence();
                        },
                        {}});
  s.variants.push_back({"loop over BinSort offsets",
                        [&] {
                          Kokkos::parallel_for(
                              "bin_sums", Range(exec, 0, cells), KOKKOS_LAMBDA(const i64 k) {
                                double a = 0.0;
                                for (int j = boff(k); j < boff(k) + bcount(k); ++j)
                                  a += w(bperm(j));
                                sums2(k) = a;
                              });
                          exec.fence();
                        },
                        {}});
  sieve_bench::runCase(s, reps);
  sieve_bench::printCase(s);

  Result r{};
  r.n = n;
  r.presorted = presorted;
  const auto t = [](const sieve_bench::Case& cc, const char* name) {
    return sieve_bench::find(cc, name)->best;
  };
  r.binsort = t(c, "Kokkos::BinSort permute vector");
  r.sieve = t(c, "sieve::keys::sort_permutation");
  r.sieveWs = t(c, "sort_permutation + workspace");
  r.keyed = t(c, "scatter_dense keyed(iota)");
  r.mapper = t(c, "scatter_dense 1:1 mapper");
  r.copy = t(c, "copy (8 B per atom)");
  r.reduceByKey = t(s, "sieve::keys::reduce_by_key");
  r.atomics = t(s, "parallel_for + atomic_add");
  r.binLoop = t(s, "loop over BinSort offsets");
  // The answers: sieve's offsets are BinSort's; the sums agree.
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), boff);
  const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  bool same = true;
  for (int k = 0; k < cells; ++k) same = same && hb(k) == ho(k);
  if (!same) std::printf("WRONG: sort_permutation's offsets differ from BinSort's\n");
  // The sums: reduce_by_key's against a sequential loop over the atoms.
  sieve::keys::reduce_by_key(exec, keys, ws_sorted, 0.0, sieve::Sum{}, sums);
  const auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  std::vector<double> ref(static_cast<std::size_t>(cells), 0.0);
  for (i64 i = 0; i < n; ++i) ref[static_cast<std::size_t>(op.bin(hx, int(i)))] += hw(i);
  double worst = 0.0;
  for (int k = 0; k < cells; ++k) {
    const double d = std::abs(hs(k) - ref[static_cast<std::size_t>(k)]);
    worst = d > worst ? d : worst;
  }
  if (worst > 1e-9 * static_cast<double>(n))
    std::printf("WRONG: reduce_by_key's sums differ from a sequential loop by %g\n", worst);
  return r;
}

/// An event-based lookup (32 bytes): its energy in (0, 1), material, weight
/// and id, and the sort key: the material above the energy as a 53-bit
/// fixed-point fraction (exact for these energies, multiples of 2^-53 plus
/// 2^-54). (The energy's IEEE bits order as well, but their top bits, the
/// exponent, hardly vary: sorted by those keys the lookups take the radix
/// order and a gather, 458 ms against BinSort's 6375 ms at 2^24.)
struct Lookup {
  std::uint64_t k;
  double energy, weight;
  std::int32_t mat, id;
  KOKKOS_INLINE_FUNCTION std::uint64_t key() const { return k; }
};

struct LookupTimes {
  double binsort = 0, sieve = 0, sieveWs = 0, freshBinsort = 0, freshSieve = 0, freshSieveWs = 0;
};

/// XSBench's sort of the lookups by (material, energy) on Exec: BinSort
/// (n / 4 bins over the key, sorted within bins) + sort(lookups) against
/// scatter_sparse, with and without a SparseWorkspace, and all three with
/// fresh pages (FreshPages); both outputs checked sorted by key, sieve's stable.
template <class Exec>
LookupTimes runLookups(const Exec& exec, i64 n, int reps) {
  LookupTimes t;
  double &binsort = t.binsort, &sieveT = t.sieve, &sieveWsT = t.sieveWs;
  double &freshBinsort = t.freshBinsort, &freshSieve = t.freshSieve, &freshSieveWs = t.freshSieveWs;
  using Dev = Kokkos::Device<Exec, Mem>;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;
  using Lookups = Kokkos::View<Lookup*, Dev>;
  using Keys = Kokkos::View<std::uint64_t*, Dev>;
  Lookups in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "lookups"), n);
  Lookups out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sorted"), n);
  Lookups work(Kokkos::view_alloc(Kokkos::WithoutInitializing, "binsorted"), n);
  Keys keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "keys"), n);
  Kokkos::parallel_for(
      "init_lookups", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
        Lookup l;
        l.energy = (double(mix(std::uint64_t(i) * 2 + 1) >> 11) + 0.5) * 0x1.0p-53;
        l.mat = static_cast<std::int32_t>(mix(std::uint64_t(i) * 2 + 2) % 12);
        l.weight = 1.0;
        l.id = static_cast<std::int32_t>(i);
        l.k = (std::uint64_t(l.mat) << 53) | static_cast<std::uint64_t>(l.energy * 0x1.0p53);
        in(i) = l;
        keys(i) = l.k;
        out(i) = work(i) = Lookup{};
      });
  exec.fence();
  std::uint64_t kmin = 0, kmax = 0;
  Kokkos::parallel_reduce(
      "key_min", Range(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i, std::uint64_t& m) { m = keys(i) < m ? keys(i) : m; },
      Kokkos::Min<std::uint64_t>(kmin));
  Kokkos::parallel_reduce(
      "key_max", Range(exec, 0, n),
      KOKKOS_LAMBDA(const i64 i, std::uint64_t& m) { m = keys(i) > m ? keys(i) : m; },
      Kokkos::Max<std::uint64_t>(kmax));
  using Op1 = Kokkos::BinOp1D<Keys>;
  const Op1 op(static_cast<int>(n / 4), kmin, kmax);
  sieve_bench::Case c;
  c.name = std::string(Exec::name()) + " lookups n=2^" +
           std::to_string(__builtin_ctzll(static_cast<unsigned long long>(n)));
  c.baseline = "copy (32 B per lookup)";
  c.subject = "sieve::keys::scatter_sparse";
  c.variants.push_back({"copy (32 B per lookup)",
                        [&] {
                          Kokkos::deep_copy(exec, out, in);
                          exec.fence();
                        },
                        {},
                        64.0 * double(n)});
  const auto binSort = [&] {
    Kokkos::BinSort<Keys, Op1> bs(keys, op, true);
    bs.create_permute_vector();
    bs.sort(work);
    Kokkos::fence();
  };
  const auto resetWork = [&] {
    Kokkos::deep_copy(exec, work, in);
    exec.fence();
  };
  c.variants.push_back({"BinSort(BinOp1D, in bins) + sort", binSort, resetWork});
  const auto sieveCall = [&] {
    const auto k = sieve::keys::scatter_sparse(exec, in, out);
    g_sink = g_sink + k.num_keys();
  };
  c.variants.push_back({"sieve::keys::scatter_sparse", sieveCall, {}});
  // Every iteration's sort with one SparseWorkspace; then (below) all three as
  // a code with glibc's default allocator runs them (fresh pages for what each
  // allocates per call: BinSort its permutation and bins, sieve its keys).
  sieve::keys::SparseWorkspace<std::uint64_t, Exec> ws;
  const auto sieveWs = [&] {
    const auto k = sieve::keys::scatter_sparse(exec, in, out, ws);
    g_sink = g_sink + k.num_keys();
  };
  c.variants.push_back({"scatter_sparse + SparseWorkspace", sieveWs, {}});
  sieve_bench::runCase(c, reps);
  sieve_bench::printCase(c);
  sieve_bench::Case f; // (FreshPages: a case of its own, after the others)
  f.name = c.name + ", fresh pages";
  f.baseline = "BinSort + sort, fresh pages";
  f.subject = "scatter_sparse, fresh pages";
  f.variants.push_back(
      {"BinSort + sort, fresh pages", sieve_bench::withFreshPages(binSort), resetWork});
  f.variants.push_back({"scatter_sparse, fresh pages", sieve_bench::withFreshPages(sieveCall), {}});
  f.variants.push_back(
      {"scatter_sparse + SparseWorkspace, fresh pages", sieve_bench::withFreshPages(sieveWs), {}});
  sieve_bench::runCase(f, reps);
  sieve_bench::printCase(f);
  binsort = sieve_bench::find(c, "BinSort(BinOp1D, in bins) + sort")->best;
  sieveT = sieve_bench::find(c, "sieve::keys::scatter_sparse")->best;
  sieveWsT = sieve_bench::find(c, "scatter_sparse + SparseWorkspace")->best;
  freshBinsort = sieve_bench::find(f, "BinSort + sort, fresh pages")->best;
  freshSieve = sieve_bench::find(f, "scatter_sparse, fresh pages")->best;
  freshSieveWs = sieve_bench::find(f, "scatter_sparse + SparseWorkspace, fresh pages")->best;
  // The answers: both sorted by key; sieve's stable (ids ascend within a key).
  const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  const auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), work);
  bool sorted = true, stable = true;
  for (i64 i = 1; i < n; ++i) {
    sorted = sorted && ho(i - 1).k <= ho(i).k && hw(i - 1).k <= hw(i).k;
    stable = stable && (ho(i - 1).k < ho(i).k || ho(i - 1).id < ho(i).id);
  }
  if (!sorted || !stable) std::printf("WRONG: the lookups are not sorted (stably) by key\n");
  return t;
}

} // namespace

int main(int argc, char* argv[]) {
  i64 maxN = i64(1) << 22;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-n" && i + 1 < argc) maxN = std::atoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  sieve_bench::keepFreedPages();
  Kokkos::initialize(argc, argv);
  {
    const Kokkos::DefaultHostExecutionSpace exec;
    std::printf(
        "sieve drop-in benchmark: %s with %d threads (and Kokkos::Serial where enabled), "
        "Kokkos %d, best of %d\n\n",
        exec.name(), static_cast<int>(exec.concurrency()), KOKKOS_VERSION, reps);
    sieve_bench::printHeader();
    std::vector<std::pair<std::string, Result>> rs;
    for (i64 n = i64(1) << 18; n <= maxN; n *= 4)
      for (const bool pre : {false, true}) {
        rs.emplace_back(exec.name(), runOne(exec, n, pre, reps));
#if defined(KOKKOS_ENABLE_SERIAL)
        if constexpr (!std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::Serial>)
          rs.emplace_back("Serial", runOne(Kokkos::Serial(), n, pre, reps));
#endif
      }
    std::printf("ratios (Kokkos time / sieve time: > 1 means sieve is faster)\n");
    std::printf("%-8s %-10s %-10s %14s %14s %14s %14s %16s %16s\n", "space", "n", "positions",
                "BinSort/perm", "BinSort/permWs", "keyed/perm", "mapper/perm", "atomics/rbk",
                "binloop/rbk");
    for (const auto& [space, r] : rs)
      std::printf("%-8s 2^%-8d %-10s %14.2f %14.2f %14.2f %14.2f %16.2f %16.2f\n", space.c_str(),
                  __builtin_ctzll(static_cast<unsigned long long>(r.n)),
                  r.presorted ? "presorted" : "random", r.binsort / r.sieve, r.binsort / r.sieveWs,
                  r.keyed / r.sieve, r.mapper / r.sieve, r.atomics / r.reduceByKey,
                  r.binLoop / r.reduceByKey);
    std::printf("\n");
    std::vector<std::pair<i64, LookupTimes>> ls;
    for (i64 n = i64(1) << 20; n <= std::max(maxN, i64(1) << 22) * 4; n *= 4)
      ls.push_back({n, runLookups(exec, n, reps)});
    std::printf(
        "lookups sorted by (material, energy): BinSort / scatter_sparse time (kept "
        "pages: without, with a SparseWorkspace; fresh pages: without, with)\n");
    for (const auto& [n, t] : ls)
      std::printf("  2^%d lookups: %.2f, %.2f; fresh pages: %.2f, %.2f\n",
                  __builtin_ctzll(static_cast<unsigned long long>(n)), t.binsort / t.sieve,
                  t.binsort / t.sieveWs, t.freshBinsort / t.freshSieve,
                  t.freshBinsort / t.freshSieveWs);
  }
  Kokkos::finalize();
  return 0;
}
