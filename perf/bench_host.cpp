// SPDX-License-Identifier: Apache-2.0
// Sieve — host benchmark: compaction, inclusive scan and a 4-plane reorder on
// the OpenMP twins and through the Kokkos API, each beside its peers in the
// same run: a memory copy of the same bytes (the bandwidth limit), a
// branchless sequential loop, and the idiomatic Kokkos version.
//
//   sieve_bench [--log2n N] [--reps R] [--only compact|scan|reorder|radix|portable]
//               [--portable-max-log2n M] [--radix-log2n K] [--keep F,F,... | --sweep]
//               [--csv FILE]
//   sieve_bench --tune [--only dense|sparse|scan|reorder] [--reps R]
//
// Compaction runs at the kept fractions 1%, 50%, 99% and the reorder at 50%
// unless --keep (or --sweep: 0, 1, 10, 25, 50, 75, 90, 99, 100%) says others;
// --csv FILE writes every measured row (and sweeps unless --keep is given),
// the input of scripts/plot_bench.py.
//
// The portable section (--only portable) times the portable face (the Kokkos
// patterns every space without a native face runs, and strided Views on
// OpenMP) against the hand-written Kokkos equivalent of each call, in this
// process: Kokkos::Serial with contiguous Views at 2^21 samples, then the
// default host space with strided Views (columns of LayoutRight Views) at
// 2^21 .. 2^M. The reorder moves 9 double planes and the mask; its peer is a
// parallel_scan of destinations and a scatter per plane into a second buffer,
// timed with the copy back that an in-place move needs and without it (the
// buffers swapped). Its rows are not written to the CSV.
//
// The radix section (--only radix) times the native stable radix order of
// 2^K (default 2^24) 64-bit keys, random and < 2^20, against std::sort and
// std::stable_sort of (key, index) pairs and a memcpy of the 12 bytes per key
// (key + 32-bit index) one middle scatter pass moves.
//
// --tune measures instead the host crossovers core/tuning.hpp encodes (the
// dense and sparse scatters' native-or-not rules, the scan block, the
// reorder's fixed cost) and prints each number beside the value measured
// here (perf/tune.hpp, docs/tuning.md); best of R runs (default 5).
#include <sieve/native/host/isa.hpp>
#include <sieve/native/host/radix.hpp>
#include <sieve/sieve.hpp>

#include "harness.hpp"
#include "tune.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace sieve_bench;

namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;
template <class T>
using HView = Kokkos::View<T*, Kokkos::HostSpace>;
using HWord = Kokkos::View<std::uint32_t, Kokkos::HostSpace>;

const std::vector<double> kSweep = {0.0, 0.01, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0};

struct Options {
  int log2n = 26;
  int reps = 15;
  std::string only;
  std::vector<double> compactKeeps = {0.01, 0.50, 0.99};
  std::vector<double> reorderKeeps = {0.50};
  std::string csv;
  int portableMaxLog2n = 24; // the strided OpenMP rows of the portable section: 2^21 .. 2^this
  int radixLog2n = 24;       // the keys of the radix section
};

/// A mask keeping each sample with probability `keep` (0 and 1 exactly: none, all).
std::vector<std::uint8_t> randomMask(std::int64_t n, double keep, std::uint32_t seed) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n), keep >= 1.0 ? 1 : 0);
  if (keep <= 0.0 || keep >= 1.0) return m;
  std::mt19937_64 g(seed);
  const auto threshold = static_cast<std::uint64_t>(std::ldexp(keep, 64));
  for (auto& x : m) x = g() < threshold ? 1 : 0;
  return m;
}

/// "1%", "0.5%", "100%": a kept fraction for a case name.
std::string percent(double keep) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", keep * 100);
  return buf;
}

bool parseKeeps(const std::string& list, std::vector<double>& out) {
  out.clear();
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v >= 0 && v <= 1)) return false;
    out.push_back(v);
  }
  return !out.empty();
}

struct Summary {
  std::vector<std::string> lines;
  void check(const std::string& what, double value, double target, bool atMost) {
    char buf[256];
    const bool ok = atMost ? value <= target : value >= target;
    std::snprintf(buf, sizeof buf, "  %-58s %6.2f  (target %s %.2f)  %s", what.c_str(), value,
                  atMost ? "<=" : ">=", target, ok ? "met" : "MISSED");
    lines.emplace_back(buf);
  }
};

void benchCompact(const Options& o, Summary& sum, Csv& csv) {
  const std::int64_t n = std::int64_t(1) << o.log2n;
  HView<std::uint8_t> mask("mask", n);
  HView<std::int32_t> map("map", n + 1); // the sequential loop writes one slot past
  HView<unsigned char> scratch("scratch", sieve::compact_scratch_bytes(n));
  HWord count("count");
  const auto mapN = Kokkos::subview(map, std::make_pair(std::int64_t(0), n));
  HView<char> a("copy.src", 5 * n / 2 + 64), b("copy.dst", 5 * n / 2 + 64);
  Kokkos::deep_copy(a, 1);
  Kokkos::deep_copy(b, 2);
  for (const double keep : o.compactKeeps) {
    const auto host = randomMask(n, keep, 42);
    std::memcpy(mask.data(), host.data(), host.size());
    std::uint32_t kept = 0;
    sieve::compactHost(mask.data(), 0u, map.data(), &kept, scratch.data(), n);
    const double bytes = static_cast<double>(n) + 4.0 * kept;
    const auto copyBytes = static_cast<std::size_t>(bytes / 2);
    char name[64];
    std::snprintf(name, sizeof name, "compact 2^%d keep %s", o.log2n, percent(keep).c_str());
    Case c{name,
           {},
           "memcpy (n+4c)/2 bytes",
           "sieve compactHost",
           "compact",
           n,
           static_cast<double>(kept) / static_cast<double>(n)};
    c.variants.push_back(
        {"memcpy (n+4c)/2 bytes", [&] { parallelCopy(b.data(), a.data(), copyBytes); }, {}, bytes});
    c.variants.push_back({"sequential branchless",
                          [&] {
                            const std::uint8_t* m = mask.data();
                            std::int32_t* out = map.data();
                            std::uint32_t k = 0;
                            for (std::int64_t i = 0; i < n; ++i) {
                              out[k] = static_cast<std::int32_t>(i);
                              k += m[i] != 0;
                            }
                            count() = k;
                          },
                          {},
                          bytes});
    c.variants.push_back(
        {"Kokkos::parallel_scan idiom",
         [&] {
           std::uint32_t total = 0;
           const auto m = mask;
           const auto out = map;
           Kokkos::parallel_scan(
               "idiom::compact", Kokkos::RangePolicy<HostExec>(0, n),
               KOKKOS_LAMBDA(const std::int64_t i, std::uint32_t& upd, const bool final) {
                 if (m(i)) {
                   if (final) out(upd) = static_cast<std::int32_t>(i);
                   ++upd;
                 }
               },
               total);
           count() = total;
         },
         {},
         bytes});
    c.variants.push_back(
        {"sieve compactHost",
         [&] { sieve::compactHost(mask.data(), 0u, map.data(), count.data(), scratch.data(), n); },
         {},
         bytes});
    c.variants.push_back({"sieve::compact (Kokkos API)",
                          [&] { sieve::compact(HostExec(), mask, mapN, count, scratch); },
                          {},
                          bytes});
    runCase(c, o.reps);
    printCase(c);
    csv.write(c);
    if (keep == 0.50) {
      sum.check("compact 50%: sieve compactHost / memcpy of the same traffic",
                find(c, "sieve compactHost")->best / find(c, "memcpy (n+4c)/2 bytes")->best, 1.5,
                true);
      sum.check("compact 50%: speed-up over the Kokkos::parallel_scan idiom",
                find(c, "Kokkos::parallel_scan idiom")->best / find(c, "sieve compactHost")->best,
                2.0, false);
      sum.check("compact 50%: Kokkos API / twins (API overhead)",
                find(c, "sieve::compact (Kokkos API)")->best / find(c, "sieve compactHost")->best,
                1.05, true);
    }
  }
}

void benchScan(const Options& o, Summary& sum, Csv& csv) {
  const std::int64_t n = std::int64_t(1) << o.log2n;
  HView<std::int32_t> in("in", n), out("out", n), sums("sums", n);
  HView<std::int32_t> apiSums("api sums", sieve::scan_scratch_size<std::int32_t>(n));
  {
    std::mt19937 g(5);
    for (std::int64_t i = 0; i < n; ++i) in(i) = static_cast<std::int32_t>(g() % 100);
  }
  char name[64];
  std::snprintf(name, sizeof name, "inclusive scan int32 2^%d", o.log2n);
  const double bytes = 8.0 * static_cast<double>(n);
  Case c{name, {}, "memcpy 4n bytes", "sieve cpu::Scan", "scan", n};
  c.variants.push_back(
      {"memcpy 4n bytes", [&] { parallelCopy(out.data(), in.data(), 4 * n); }, {}, bytes});
  c.variants.push_back({"sequential loop",
                        [&] {
                          std::int32_t acc = 0;
                          const std::int32_t* src = in.data();
                          std::int32_t* dst = out.data();
                          for (std::int64_t i = 0; i < n; ++i) dst[i] = acc += src[i];
                        },
                        {},
                        bytes});
  c.variants.push_back(
      {"Kokkos::parallel_scan idiom",
       [&] {
         const auto src = in;
         const auto dst = out;
         Kokkos::parallel_scan(
             "idiom::scan", Kokkos::RangePolicy<HostExec>(0, n),
             KOKKOS_LAMBDA(const std::int64_t i, std::int32_t& upd, const bool final) {
               upd += src(i);
               if (final) dst(i) = upd;
             });
         HostExec().fence();
       },
       {},
       bytes});
  c.variants.push_back({"sieve cpu::Scan",
                        [&] {
                          sieve::cpu::Scan::inclusive<std::int32_t, sieve::Sum>(
                              in.data(), out.data(), sums.data(), n);
                        },
                        {},
                        bytes});
  c.variants.push_back(
      {"sieve::inclusive_scan (Kokkos API)",
       [&] { sieve::inclusive_scan(HostExec(), in, out, sieve::Sum{}, 0, apiSums); },
       {},
       bytes});
  runCase(c, o.reps);
  printCase(c);
  csv.write(c);
  sum.check("inclusive scan int32: sieve cpu::Scan / memcpy of the array",
            find(c, "sieve cpu::Scan")->best / find(c, "memcpy 4n bytes")->best, 1.5, true);
  sum.check("inclusive scan int32: speed-up over the Kokkos::parallel_scan idiom",
            find(c, "Kokkos::parallel_scan idiom")->best / find(c, "sieve cpu::Scan")->best, 2.0,
            false);
  sum.check("inclusive scan int32: Kokkos API / twins (API overhead)",
            find(c, "sieve::inclusive_scan (Kokkos API)")->best / find(c, "sieve cpu::Scan")->best,
            1.05, true);
}

/// The radix order of 2^radixLog2n 64-bit keys (random, then < 2^20) on the
/// host team against std::sort / std::stable_sort of (key, index) pairs
/// (whose result holds the same order) and a memcpy of 12 bytes per key (a
/// middle pass reads and writes a key and a 32-bit index).
void benchRadix(const Options& o, Summary& sum, Csv& csv) {
  const std::int64_t n = std::int64_t(1) << o.radixLog2n;
  const int reps = o.reps < 7 ? o.reps : 7; // the sorts take seconds
  const int threads = static_cast<int>(HostExec().concurrency());
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::vector<unsigned char> scratch(sieve::radix_order_scratch_bytes(n));
  std::vector<std::pair<std::uint64_t, std::int64_t>> pairs(static_cast<std::size_t>(n));
  std::vector<char> a(static_cast<std::size_t>(12 * n), 1), b(static_cast<std::size_t>(12 * n), 2);
  for (const int bits : {64, 20}) {
    std::mt19937_64 g(7);
    const std::uint64_t mask = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
    for (auto& k : keys) k = g() & mask;
    const int passes = bits == 64 ? 8 : (bits + 7) / 8; // every byte of the keys varies
    char name[64];
    std::snprintf(name, sizeof name, "radix order 2^%d, keys < 2^%d", o.radixLog2n, bits);
    Case c{name, {}, "memcpy 12n bytes", "sieve radixOrderHost", "radix", n};
    const double passBytes = 24.0 * static_cast<double>(n);
    c.variants.push_back(
        {"memcpy 12n bytes", [&] { parallelCopy(b.data(), a.data(), 12 * n); }, {}, passBytes});
    c.variants.push_back({"sieve radixOrderHost",
                          [&] {
                            sieve::radixOrderHost(sieve::HostTeam{threads}, keys.data(), n, bits,
                                                  order.data(), scratch.data(), scratch.size());
                          },
                          {},
                          passBytes * passes});
    auto fill = [&] {
      for (std::int64_t i = 0; i < n; ++i)
        pairs[static_cast<std::size_t>(i)] = {keys[static_cast<std::size_t>(i)], i};
    };
    c.variants.push_back(
        {"std::sort (key,index) pairs", [&] { std::sort(pairs.begin(), pairs.end()); }, fill, 0});
    c.variants.push_back({"std::stable_sort pairs by key",
                          [&] {
                            std::stable_sort(
                                pairs.begin(), pairs.end(),
                                [](const auto& x, const auto& y) { return x.first < y.first; });
                          },
                          fill, 0});
    runCase(c, reps);
    // The order is the pairs' (std::stable_sort ran last): a wrong one would
    // make the row meaningless.
    for (std::int64_t p = 0; p < n; ++p)
      if (order[static_cast<std::size_t>(p)] != pairs[static_cast<std::size_t>(p)].second) {
        std::printf("radix order differs from std::stable_sort at slot %lld\n",
                    static_cast<long long>(p));
        break;
      }
    printCase(c);
    csv.write(c);
    const double sieveT = find(c, "sieve radixOrderHost")->best;
    const std::string what = bits == 64 ? "radix random keys" : "radix keys < 2^20";
    sum.check(what + ": speed-up over std::sort of pairs",
              find(c, "std::sort (key,index) pairs")->best / sieveT, 4.0, false);
    sum.check(what + ": time per pass / memcpy 12n",
              sieveT / passes / find(c, "memcpy 12n bytes")->best, 2.0, true);
  }
}

/// The idiomatic Kokkos move of one plane: stage it, scatter it back.
template <class Plane, class Dst>
void idiomScatter(const Plane& plane, const Plane& stage, const Dst& ds) {
  Kokkos::deep_copy(HostExec(), stage, plane);
  Kokkos::parallel_for(
      "idiom::scatter", Kokkos::RangePolicy<HostExec>(0, plane.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) { plane(ds(i)) = stage(i); });
}

void benchReorder(const Options& o, Summary&, Csv& csv) {
  const std::int64_t n = std::int64_t(1) << (o.log2n - 1);
  HView<std::uint8_t> mask("mask", n);
  HView<double> x("x", n), y("y", n), z("z", n);
  HView<std::int32_t> perm("perm", n), inv("inv", n), map("map", n), dst("dst", n);
  HWord count("count"), span("span"), fire("fire");
  HView<unsigned char> scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  HView<double> stageD("stage", n);
  HView<std::uint8_t> stageM("stageM", n);
  HView<std::int32_t> stageI("stageI", n);
  Kokkos::deep_copy(x, 1.0);
  Kokkos::deep_copy(y, 2.0);
  Kokkos::deep_copy(z, 3.0);
  // planes moved: mask 1 B + 3 doubles + perm 4 B per sample
  const double planeBytes = 29.0 * static_cast<double>(n);
  HView<char> a("copy.src", static_cast<std::size_t>(planeBytes) + 64),
      b("copy.dst", static_cast<std::size_t>(planeBytes) + 64);
  Kokkos::deep_copy(a, 1);
  for (const double keepFraction : o.reorderKeeps) {
    const auto pristine = randomMask(n, keepFraction, 9);
    const auto kept = std::count(pristine.begin(), pristine.end(), std::uint8_t(1));
    auto reset = [&] {
      std::memcpy(mask.data(), pristine.data(), pristine.size());
      std::iota(perm.data(), perm.data() + n, 0);
      span() = static_cast<std::uint32_t>(n);
      fire() = 1;
    };
    char name[64];
    std::snprintf(name, sizeof name, "reorder 4 planes 2^%d keep %s", o.log2n - 1,
                  percent(keepFraction).c_str());
    Case c{name,
           {},
           "memcpy of the planes",
           "sieve reorderHost",
           "reorder",
           n,
           static_cast<double>(kept) / static_cast<double>(n)};
    c.variants.push_back(
        {"memcpy of the planes",
         [&] { parallelCopy(b.data(), a.data(), static_cast<std::size_t>(planeBytes)); }, reset,
         2 * planeBytes});
    c.variants.push_back({"sequential branchless",
                          [&] {
                            // Stable partition: every plane staged, then scattered through two
                            // cursors.
                            std::int64_t cnt = 0;
                            for (std::int64_t i = 0; i < n; ++i) cnt += mask(i) != 0;
                            auto part = [&](auto* plane, auto* stage) {
                              std::memcpy(stage, plane,
                                          sizeof(*plane) * static_cast<std::size_t>(n));
                              std::int64_t k = 0, d = cnt;
                              for (std::int64_t i = 0; i < n; ++i) {
                                const std::int64_t keep = stageM(i) != 0, sel = -keep;
                                plane[(k & sel) | (d & ~sel)] = stage[i];
                                k += keep;
                                d += 1 - keep;
                              }
                            };
                            std::memcpy(stageM.data(), mask.data(), static_cast<std::size_t>(n));
                            for (double* p : {x.data(), y.data(), z.data()}) part(p, stageD.data());
                            part(perm.data(), stageI.data());
                            {
                              std::int64_t k = 0, d = cnt;
                              for (std::int64_t i = 0; i < n; ++i) {
                                const std::int64_t keep = stageM(i) != 0, sel = -keep;
                                mask((k & sel) | (d & ~sel)) = stageM(i);
                                k += keep;
                                d += 1 - keep;
                              }
                            }
                            for (std::int64_t s = 0; s < n; ++s)
                              inv(perm(s)) = static_cast<std::int32_t>(s);
                            for (std::int64_t t = 0; t < cnt; ++t)
                              map(t) = static_cast<std::int32_t>(t);
                            count() = span() = static_cast<std::uint32_t>(cnt);
                            fire() = 0;
                          },
                          reset, 2 * planeBytes});
    c.variants.push_back(
        {"Kokkos idiom (scan + scatters)",
         [&] {
           // Destinations by parallel_scan, then every plane staged and scattered.
           std::uint32_t cnt = 0;
           const auto m = mask;
           const auto ds = dst;
           Kokkos::parallel_reduce(
               "idiom::count", Kokkos::RangePolicy<HostExec>(0, n),
               KOKKOS_LAMBDA(const std::int64_t i, std::uint32_t& acc) { acc += m(i) != 0; }, cnt);
           Kokkos::parallel_scan(
               "idiom::dst", Kokkos::RangePolicy<HostExec>(0, n),
               KOKKOS_LAMBDA(const std::int64_t i, std::uint32_t& upd, const bool final) {
                 const bool keep = m(i) != 0;
                 if (final) ds(i) = static_cast<std::int32_t>(keep ? upd : cnt + (i - upd));
                 upd += keep;
               });
           idiomScatter(x, stageD, ds);
           idiomScatter(y, stageD, ds);
           idiomScatter(z, stageD, ds);
           idiomScatter(perm, stageI, ds);
           idiomScatter(mask, stageM, ds);
           const auto p = perm;
           const auto iv = inv;
           const auto mp = map;
           Kokkos::parallel_for(
               "idiom::inv", Kokkos::RangePolicy<HostExec>(0, n),
               KOKKOS_LAMBDA(const std::int64_t s) {
                 iv(p(s)) = static_cast<std::int32_t>(s);
                 if (s < cnt) mp(s) = static_cast<std::int32_t>(s);
               });
           HostExec().fence();
           count() = span() = cnt;
           fire() = 0;
         },
         reset, 2 * planeBytes});
    c.variants.push_back({"sieve reorderHost",
                          [&] {
                            const sieve::ReorderPlane planes[] = {
                                {mask.data(), 1}, {x.data(), 8}, {y.data(), 8}, {z.data(), 8}};
                            sieve::reorderHost(planes, 4, mask.data(), 0u, perm.data(), inv.data(),
                                               map.data(), count.data(), span.data(), fire.data(),
                                               scratch.data(), n);
                          },
                          reset, 2 * planeBytes});
    c.variants.push_back({"sieve::reorder (Kokkos API)",
                          [&] {
                            sieve::reorder(HostExec(), mask, perm, inv, map, count, span, fire,
                                           scratch, mask, x, y, z);
                          },
                          reset, 2 * planeBytes});
    runCase(c, o.reps);
    printCase(c);
    csv.write(c);
  }
}

// --- portable: sieve's Kokkos-pattern face beside the hand-written Kokkos peer --------------

/// Views of the portable section: contiguous rank-1 Views, or (Strided) the
/// columns of a rank-2 LayoutRight View, which are LayoutStride and send every
/// call to the portable face even on Kokkos::OpenMP.
template <class Exec, bool Strided>
struct PortableViews {
  using Dev = Kokkos::Device<Exec, Kokkos::HostSpace>;
  template <class T>
  using V = std::conditional_t<Strided, Kokkos::View<T*, Kokkos::LayoutStride, Dev>,
                               Kokkos::View<T*, Dev>>;
  template <class T>
  using C = Kokkos::View<T*, Dev>; // always contiguous (perm, inv, map, scratch)
  using Word = Kokkos::View<std::uint32_t, Dev>;
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;

  /// `count` planes of n elements (strided: the columns of one n x max(count, 2) View).
  template <class T>
  static std::vector<V<T>> make(const std::string& label, std::int64_t n, int count) {
    std::vector<V<T>> out;
    if constexpr (Strided) {
      Kokkos::View<T**, Kokkos::LayoutRight, Dev> all(label, n, count < 2 ? 2 : count);
      for (int j = 0; j < count; ++j) out.push_back(Kokkos::subview(all, Kokkos::ALL, j));
    } else {
      for (int j = 0; j < count; ++j) out.push_back(V<T>(label + std::to_string(j), n));
    }
    return out;
  }
};

/// Time, and the ratio to the case's hand-written peer (its baseline).
void printPortableCase(const Case& c) {
  const Variant* hand = find(c, c.baseline);
  for (const auto& v : c.variants)
    std::printf("%-44s %-36s %10.3f %9.2f\n", c.name.c_str(), v.name.c_str(), v.best * 1e3,
                hand ? v.best / hand->best : 0.0);
  std::printf("\n");
  std::fflush(stdout);
}

template <class Exec, bool Strided>
void benchPortableAt(const std::string& where, int log2n, int reps, Summary& sum) {
  using PV = PortableViews<Exec, Strided>;
  using Policy = typename PV::Policy;
  const Exec exec{};
  const std::int64_t n = std::int64_t(1) << log2n;
  constexpr int kPlanes = 9;
  char prefix[96];
  std::snprintf(prefix, sizeof prefix, "%s 2^%d", where.c_str(), log2n);
  const std::string pre = prefix;

  auto mask = PV::template make<std::uint8_t>("mask", n, 1)[0];
  auto maskBuf = PV::template make<std::uint8_t>("mask.buf", n, 1)[0];
  auto planes = PV::template make<double>("planes", n, kPlanes);
  auto bufs = PV::template make<double>("planes.buf", n, kPlanes);
  typename PV::template C<std::uint8_t> pristine("pristine", n);
  typename PV::template C<std::int32_t> perm("perm", n), inv("inv", n), map("map", n),
      ds("hand.dst", n), permBuf("perm.buf", n);
  typename PV::Word count("count"), span("span"), fire("fire");
  typename PV::template C<unsigned char> scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  for (int p = 0; p < kPlanes; ++p) {
    const auto pl = planes[p];
    Kokkos::parallel_for(
        "init", Policy(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { pl(i) = 0.5 * static_cast<double>(i) + p; });
  }
  exec.fence();
  // The copy back of the hand-written moves: deep_copy's kernel, on `exec`
  // (Kokkos::deep_copy of contiguous host Views runs on the default host
  // space, OpenMP here, which a Serial-only build would not do).
  const auto copyBack = [&](const auto& dst, const auto& src) {
    Kokkos::parallel_for(
        "hand::copy back", Policy(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { dst(i) = src(i); });
  };

  // compact (keep 50%, 90%): sieve::compact against a Kokkos::parallel_scan pack.
  for (const double keep : {0.50, 0.90}) {
    const auto host = randomMask(n, keep, 42);
    std::memcpy(pristine.data(), host.data(), host.size());
    Kokkos::deep_copy(exec, mask, pristine);
    exec.fence();
    Case c{pre + ": compact keep " + percent(keep),
           {},
           "hand parallel_scan pack",
           "sieve::compact",
           "compact",
           n,
           keep};
    c.variants.push_back(
        {"hand parallel_scan pack",
         [&] {
           const auto m = mask;
           const auto out = map;
           const auto cnt = count;
           Kokkos::parallel_scan(
               "hand::compact", Policy(exec, 0, n),
               KOKKOS_LAMBDA(const std::int64_t i, std::uint32_t& upd, const bool final) {
                 const bool keep = m(i) != 0;
                 if (final) {
                   if (keep) out(upd) = static_cast<std::int32_t>(i);
                   if (i == n - 1) cnt() = upd + keep;
                 }
                 upd += keep;
               });
           exec.fence();
         },
         {}});
    c.variants.push_back({"sieve::compact",
                          [&] {
                            sieve::compact(exec, mask, map, count, scratch);
                            exec.fence();
                          },
                          {}});
    runCase(c, reps);
    printPortableCase(c);
    sum.check(pre + " compact " + percent(keep) + ": sieve / hand",
              find(c, "sieve::compact")->best / find(c, "hand parallel_scan pack")->best, 1.2,
              true);
  }

  // reorder of 9 double planes (and the mask) at keep 50% and 90%.
  const auto resetReorder = [&] {
    Kokkos::deep_copy(exec, mask, pristine);
    const auto pm = perm;
    const auto iv = inv;
    Kokkos::parallel_for(
        "reset", Policy(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          pm(i) = static_cast<std::int32_t>(i);
          iv(i) = static_cast<std::int32_t>(i);
        });
    Kokkos::deep_copy(exec, span, static_cast<std::uint32_t>(n));
    Kokkos::deep_copy(exec, fire, 1u);
    exec.fence();
  };
  const auto sieveReorder = [&] {
    sieve::reorder(exec, mask, perm, inv, map, count, span, fire, scratch, mask, planes[0],
                   planes[1], planes[2], planes[3], planes[4], planes[5], planes[6], planes[7],
                   planes[8]);
  };
  const auto sieveRestore = [&] {
    sieve::restore(exec, perm, inv, scratch, mask, planes[0], planes[1], planes[2], planes[3],
                   planes[4], planes[5], planes[6], planes[7], planes[8]);
  };
  // The hand-written reorder: a parallel_scan of the destinations (kept: the
  // exclusive kept count; dead: -1 - its dead rank), then per plane a scatter
  // into a second buffer, then (back) a copy back, since
  // sieve::reorder moves in place; without it the buffers would be swapped.
  const auto handReorder = [&](bool back) {
    const auto m = mask;
    const auto d = ds;
    std::int32_t cnt = 0;
    Kokkos::parallel_scan(
        "hand::offsets", Policy(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int32_t& upd, const bool final) {
          const bool keep = m(i) != 0;
          if (final) d(i) = keep ? upd : static_cast<std::int32_t>(-1 - (i - upd));
          upd += keep;
        },
        cnt);
    const auto scatter = [&](const auto& src, const auto& dst) {
      Kokkos::parallel_for(
          "hand::scatter", Policy(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
            const std::int32_t v = d(i);
            dst(v >= 0 ? v : cnt - 1 - v) = src(i);
          });
    };
    scatter(mask, maskBuf);
    for (int p = 0; p < kPlanes; ++p) scatter(planes[p], bufs[p]);
    const auto pm = perm;
    const auto pb = permBuf;
    const auto iv = inv;
    const auto mp = map;
    Kokkos::parallel_for(
        "hand::perm", Policy(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int32_t v = d(i);
          const std::int32_t to = v >= 0 ? v : cnt - 1 - v;
          const std::int32_t s = pm(i);
          pb(to) = s;
          iv(s) = to;
          if (i < cnt) mp(i) = static_cast<std::int32_t>(i);
        });
    if (back) {
      copyBack(mask, maskBuf);
      for (int p = 0; p < kPlanes; ++p) copyBack(planes[p], bufs[p]);
      copyBack(perm, permBuf);
    }
    const auto c = count;
    const auto sp = span;
    const auto f = fire;
    Kokkos::parallel_for(
        "hand::words", Policy(exec, 0, 1), KOKKOS_LAMBDA(const std::int64_t) {
          c() = sp() = static_cast<std::uint32_t>(cnt);
          f() = 0u;
        });
    exec.fence();
  };
  for (const double keep : {0.50, 0.90}) {
    const auto host = randomMask(n, keep, 9);
    std::memcpy(pristine.data(), host.data(), host.size());
    Case c{pre + ": reorder 9 planes keep " + percent(keep),
           {},
           "hand scan+scatter+copy back",
           "sieve::reorder",
           "reorder",
           n,
           keep};
    c.variants.push_back({"hand scan+scatter+copy back", [&] { handReorder(true); }, resetReorder});
    c.variants.push_back(
        {"hand scan+scatter (swap buffers)", [&] { handReorder(false); }, resetReorder});
    c.variants.push_back({"sieve::reorder",
                          [&] {
                            sieveReorder();
                            exec.fence();
                          },
                          resetReorder});
    runCase(c, reps);
    printPortableCase(c);
    const double s = find(c, "sieve::reorder")->best;
    sum.check(pre + " reorder " + percent(keep) + ": sieve / hand (copy back)",
              s / find(c, "hand scan+scatter+copy back")->best, 1.2, true);
    sum.check(pre + " reorder " + percent(keep) + ": sieve / hand (swap buffers)",
              s / find(c, "hand scan+scatter (swap buffers)")->best, 1.2, true);
  }

  // restore after a reorder at keep 50%: sieve::restore against a gather
  // through inv into a second buffer (and a copy back).
  {
    const auto host = randomMask(n, 0.5, 11);
    std::memcpy(pristine.data(), host.data(), host.size());
    const auto resetRestore = [&] {
      resetReorder();
      sieveReorder();
      exec.fence();
    };
    const auto handRestore = [&](bool back) {
      const auto iv = inv;
      const auto gather = [&](const auto& src, const auto& dst) {
        Kokkos::parallel_for(
            "hand::gather", Policy(exec, 0, n),
            KOKKOS_LAMBDA(const std::int64_t i) { dst(i) = src(iv(i)); });
      };
      gather(mask, maskBuf);
      for (int p = 0; p < kPlanes; ++p) gather(planes[p], bufs[p]);
      if (back) {
        copyBack(mask, maskBuf);
        for (int p = 0; p < kPlanes; ++p) copyBack(planes[p], bufs[p]);
      }
      const auto pm = perm;
      Kokkos::parallel_for(
          "hand::identity", Policy(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
            pm(i) = static_cast<std::int32_t>(i);
            iv(i) = static_cast<std::int32_t>(i);
          });
      exec.fence();
    };
    Case c{pre + ": restore 9 planes",
           {},
           "hand gather+copy back",
           "sieve::restore",
           "restore",
           n,
           0.5};
    c.variants.push_back({"hand gather+copy back", [&] { handRestore(true); }, resetRestore});
    c.variants.push_back({"hand gather (swap buffers)", [&] { handRestore(false); }, resetRestore});
    c.variants.push_back({"sieve::restore",
                          [&] {
                            sieveRestore();
                            exec.fence();
                          },
                          resetRestore});
    runCase(c, reps);
    printPortableCase(c);
    const double s = find(c, "sieve::restore")->best;
    sum.check(pre + " restore: sieve / hand (copy back)",
              s / find(c, "hand gather+copy back")->best, 1.2, true);
    sum.check(pre + " restore: sieve / hand (swap buffers)",
              s / find(c, "hand gather (swap buffers)")->best, 1.2, true);
  }

  // inclusive scan of int32: sieve::inclusive_scan against Kokkos::parallel_scan.
  {
    auto io = PV::template make<std::int32_t>("scan", n, 2);
    const auto in = io[0];
    const auto out = io[1];
    typename PV::template C<std::int32_t> sums("sums", sieve::scan_scratch_size<std::int32_t>(n));
    Kokkos::parallel_for(
        "init", Policy(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { in(i) = static_cast<std::int32_t>((i * 7) % 100); });
    exec.fence();
    Case c{pre + ": inclusive scan int32", {},     "hand Kokkos::parallel_scan",
           "sieve::inclusive_scan",        "scan", n};
    c.variants.push_back(
        {"hand Kokkos::parallel_scan",
         [&] {
           Kokkos::parallel_scan(
               "hand::scan", Policy(exec, 0, n),
               KOKKOS_LAMBDA(const std::int64_t i, std::int32_t& upd, const bool final) {
                 upd += in(i);
                 if (final) out(i) = upd;
               });
           exec.fence();
         },
         {}});
    c.variants.push_back({"sieve::inclusive_scan",
                          [&] {
                            sieve::inclusive_scan(exec, in, out, sieve::Sum{}, 0, sums);
                            exec.fence();
                          },
                          {}});
    runCase(c, reps);
    printPortableCase(c);
    sum.check(pre + " inclusive scan: sieve / hand",
              find(c, "sieve::inclusive_scan")->best / find(c, "hand Kokkos::parallel_scan")->best,
              1.2, true);
  }
}

/// The portable face against hand-written Kokkos, in this process:
/// Kokkos::Serial with contiguous Views at 2^21, and Kokkos::OpenMP (the
/// default host space) with strided Views (columns of LayoutRight Views) at
/// 2^21 .. 2^maxLog2n.
void benchPortable(const Options& o, Summary& sum) {
  std::printf("%-44s %-36s %10s %9s\n", "portable case", "variant", "time [ms]", "x hand");
  std::printf("%s\n", std::string(102, '-').c_str());
#if defined(KOKKOS_ENABLE_SERIAL)
  benchPortableAt<Kokkos::Serial, false>("Serial contiguous", 21, o.reps, sum);
#else
  std::printf("(Kokkos::Serial is not enabled: no Serial rows)\n");
#endif
  for (int l = 21; l <= o.portableMaxLog2n; ++l)
    benchPortableAt<HostExec, true>(HostExec::name() + std::string(" strided"), l, o.reps, sum);
}

} // namespace

int main(int argc, char* argv[]) {
  Options o;
  bool keepsGiven = false, tuneMode = false, repsGiven = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2n" && i + 1 < argc) o.log2n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) o.reps = std::atoi(argv[++i]), repsGiven = true;
    else if (a == "--tune") tuneMode = true;
    else if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--csv" && i + 1 < argc) o.csv = argv[++i];
    else if (a == "--portable-max-log2n" && i + 1 < argc) o.portableMaxLog2n = std::atoi(argv[++i]);
    else if (a == "--radix-log2n" && i + 1 < argc) o.radixLog2n = std::atoi(argv[++i]);
    else if (a == "--sweep") o.compactKeeps = o.reorderKeeps = kSweep, keepsGiven = true;
    else if (a == "--keep" && i + 1 < argc) {
      if (!parseKeeps(argv[++i], o.compactKeeps)) {
        std::fprintf(stderr, "sieve_bench: --keep takes fractions in [0, 1], e.g. 0.1,0.5,0.9\n");
        return 2;
      }
      o.reorderKeeps = o.compactKeeps;
      keepsGiven = true;
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: sieve_bench [--log2n N (26)] [--reps R (15)]\n"
          "                   [--only compact|scan|reorder|radix|portable] [--portable-max-log2n M "
          "(24)]\n"
          "                   [--radix-log2n K (24)]\n"
          "                   [--keep F,F,... | --sweep] [--csv FILE] [--kokkos-...]\n"
          "       sieve_bench --tune [--only dense|sparse|scan|reorder] [--reps R (5)]\n"
          "  --tune        measure the host crossovers of core/tuning.hpp on this machine (the\n"
          "                dense and sparse scatters' native-or-not rules, the scan block, the\n"
          "                reorder's fixed cost) and print each number beside the value\n"
          "                measured here (under two minutes on 2 cores; docs/tuning.md)\n"
          "  --keep F,...  kept fractions in [0, 1] for compaction and reorder (default: "
          "compaction\n"
          "                at 0.01,0.5,0.99, reorder at 0.5)\n"
          "  --sweep       --keep 0,0.01,0.1,0.25,0.5,0.75,0.9,0.99,1\n"
          "  --only radix  the native radix order of 2^K 64-bit keys (random, < 2^20) against\n"
          "                std::sort / std::stable_sort of (key, index) pairs and a memcpy\n"
          "  --only portable  the portable face against hand-written Kokkos (scan + scatter,\n"
          "                gather, parallel_scan): Kokkos::Serial with contiguous Views at 2^21,\n"
          "                and the default host space with strided Views (columns of LayoutRight\n"
          "                Views) at 2^21 .. 2^M; not in the CSV\n"
          "  --csv FILE    also write every measured row to FILE (primitive, case, n, kept\n"
          "                fraction, implementation, role, seconds, bytes, GB/s, x memcpy, x "
          "sieve,\n"
          "                threads, isa); sweeps unless --keep is given. Plot it with\n"
          "                python3 scripts/plot_bench.py FILE\n"
          "Timings swing on a shared machine: see the README's Performance tips\n"
          "(OMP_PROC_BIND, OMP_PLACES, OMP_WAIT_POLICY).\n");
      return 0;
    } else if (a.rfind("--kokkos", 0) != 0) {
      std::fprintf(stderr, "sieve_bench: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (o.reps < 1) {
    std::fprintf(stderr, "sieve_bench: --reps must be at least 1\n");
    return 2;
  }
  if (tuneMode) {
    if (!o.only.empty() && o.only != "dense" && o.only != "sparse" && o.only != "scan" &&
        o.only != "reorder") {
      std::fprintf(stderr, "sieve_bench: --tune --only takes dense, sparse, scan or reorder\n");
      return 2;
    }
    keepFreedPages(); // as a long-running code's allocator (and bench_keys)
    Kokkos::initialize(argc, argv);
    const int rc = sieve_bench::tune::run(repsGiven ? o.reps : 5, o.only);
    Kokkos::finalize();
    return rc;
  }
  if (o.log2n < 10 || o.log2n > 30) {
    std::fprintf(stderr, "sieve_bench: --log2n must be in [10, 30]\n");
    return 2;
  }
  if (!o.only.empty() && o.only != "compact" && o.only != "scan" && o.only != "reorder" &&
      o.only != "radix" && o.only != "portable") {
    std::fprintf(stderr, "sieve_bench: --only takes compact, scan, reorder, radix or portable\n");
    return 2;
  }
  if (o.radixLog2n < 10 || o.radixLog2n > 28) {
    std::fprintf(stderr, "sieve_bench: --radix-log2n must be in [10, 28]\n");
    return 2;
  }
  if (o.portableMaxLog2n < 20 || o.portableMaxLog2n > 26) {
    std::fprintf(stderr,
                 "sieve_bench: --portable-max-log2n must be in [20, 26] (20: no strided rows)\n");
    return 2;
  }
  if (!o.csv.empty() && !keepsGiven) o.compactKeeps = o.reorderKeeps = kSweep;
  Kokkos::initialize(argc, argv);
  {
    Csv csv;
    if (!o.csv.empty() && !csv.open(o.csv, static_cast<int>(HostExec().concurrency()),
                                    sieve::hostIsaName(sieve::hostIsa()))) {
      std::fprintf(stderr, "sieve_bench: cannot write '%s'\n", o.csv.c_str());
      Kokkos::finalize();
      return 2;
    }
    std::printf("Sieve host benchmark: %s, %d threads, host ISA %s, best of %d interleaved runs\n",
                HostExec::name(), static_cast<int>(HostExec().concurrency()),
                sieve::hostIsaName(sieve::hostIsa()), o.reps);
    std::printf(
        "'x copy' = time / the memcpy moving the same bytes (the bandwidth limit); "
        "'x sieve' = time / sieve's twin\n\n");
    printHeader();
    Summary sum;
    if (o.only.empty() || o.only == "compact") benchCompact(o, sum, csv);
    if (o.only.empty() || o.only == "scan") benchScan(o, sum, csv);
    if (o.only.empty() || o.only == "reorder") benchReorder(o, sum, csv);
    if (o.only.empty() || o.only == "radix") benchRadix(o, sum, csv);
    if (o.only.empty() || o.only == "portable") {
      std::printf("\n");
      benchPortable(o, sum);
    }
    if (!sum.lines.empty()) {
      std::printf("Targets:\n");
      for (const auto& l : sum.lines) std::printf("%s\n", l.c_str());
    }
    if (csv.isOpen()) std::printf("\nCSV: %s\n", o.csv.c_str());
  }
  Kokkos::finalize();
  return 0;
}
