// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — sieve::findall on the host (Kokkos::OpenMP, or the default
// host space) at 2^26 elements, 1 / 50 / 99 % selected, against:
//   - sieve::compact on the same mask, plus the allocation of the result
//     (the indices form's target: within 1.3x),
//   - the copy limit of the values form: a deep_copy moving the bytes it must
//     move (the mask and the values read, the selected values written; within
//     1.3x), beside a read-only pass and a masked dense copy,
//   - std::copy_if (one thread) and, on Kokkos 3.6+,
//     Kokkos::Experimental::copy_if (the predicate form).
// Then, at min(n, 2^24) elements, 50 % selected, on the default host space
// and on Kokkos::Serial (when enabled):
//   - the index form findall(exec, n, pred(i)) with ExaMiniMD's predicate on
//     two arrays (type(i) == 1 && x(i) < xmax) against the hand-written
//     Kokkos::parallel_scan pack (count and write in one scan, a `final`
//     branch), and against the mask kernel + mask findall it replaces;
//   - the allocating findall in a loop: without a workspace, with one (the
//     result buffer it keeps), and into(result, count) with one;
//   - into() an int32 result against an int64 one (and sieve::compact's int32 map).
// Variants are interleaved, best of --reps repetitions (harness.hpp).
//
//   sieve_bench_findall [--n N] [--reps R] [--fresh-pages] [--forms-only]
#include <sieve/sieve.hpp>

#include "harness.hpp"

#include <Kokkos_Core.hpp>
#if KOKKOS_VERSION >= 30600
#include <Kokkos_StdAlgorithms.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

using HostExec = Kokkos::DefaultHostExecutionSpace;
using Mem = HostExec::memory_space;
using i64 = std::int64_t;
using Range = Kokkos::RangePolicy<HostExec, Kokkos::IndexType<i64>>;

namespace {

/// Selects the values below p (the values are uniform in [0, 1)).
struct Below {
  float p;
  KOKKOS_INLINE_FUNCTION bool operator()(const float x) const { return x < p; }
};

KOKKOS_INLINE_FUNCTION float uniform(i64 k) {
  std::uint64_t x = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ULL + 12345u;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<float>(x >> 40) * (1.0f / 16777216.0f);
}

volatile i64 g_sink = 0;

/// ExaMiniMD's selection: the atoms of type t left of xmax.
template <class Mem>
struct TypeBelow {
  Kokkos::View<int*, Mem> type;
  Kokkos::View<double*, Mem> x;
  int t;
  double xmax;
  KOKKOS_INLINE_FUNCTION bool operator()(const i64 i) const { return type(i) == t && x(i) < xmax; }
};

/// The hand-written pack: count and write in one parallel_scan.
template <class Mem>
struct ScanPack {
  TypeBelow<Mem> pred;
  Kokkos::View<i64*, Mem> out;
  KOKKOS_INLINE_FUNCTION void operator()(const i64 i, i64& upd, const bool final) const {
    if (pred(i)) {
      if (final) out(upd) = i;
      ++upd;
    }
  }
};

/// The index form, the kept result and the int32 results on the space Exec,
/// m elements, 50 % selected; appends its ratios to `summary`.
template <class Exec>
void benchForms(const Exec& exec, i64 m, int reps, std::vector<std::string>& summary) {
  using M = typename Exec::memory_space;
  using R = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;
  const std::string space =
      std::string(Exec::name()) + " x" + std::to_string(static_cast<int>(exec.concurrency()));
  Kokkos::View<int*, M> type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "type"), m);
  Kokkos::View<double*, M> x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x"), m);
  Kokkos::View<std::uint8_t*, M> mask(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mask"), m);
  Kokkos::View<i64*, M> out64(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out64"), m);
  Kokkos::View<std::int32_t*, M> out32(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out32"), m);
  Kokkos::View<i64, M> count("count");
  Kokkos::View<std::uint32_t, M> count32("count32");
  Kokkos::View<unsigned char*, M> scratch(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "scratch"), sieve::compact_scratch_bytes(m));
  // type 1 with probability ~0.71, x < 0.5 with ~0.71: ~50 % selected.
  Kokkos::parallel_for(
      "init", R(exec, 0, m), KOKKOS_LAMBDA(const i64 k) {
        type(k) = uniform(k) < 0.7071f ? 1 : 2;
        x(k) = static_cast<double>(uniform(k + 0x5bd1e995LL));
        out64(k) = 0;
        out32(k) = 0;
      });
  const TypeBelow<M> pred{type, x, 1, 0.7071};
  Kokkos::parallel_for(
      "mask", R(exec, 0, m), KOKKOS_LAMBDA(const i64 k) { mask(k) = pred(k) ? 1 : 0; });
  exec.fence();
  const sieve::FindallWorkspace<Exec> ws(exec, m), wsKept(exec, m);

  sieve_bench::Case idx;
  idx.name = "index 50% " + space;
  idx.baseline = "parallel_scan pack";
  idx.subject = "sieve::findall index into+ws";
  idx.variants.push_back(
      {"parallel_scan pack", [&] {
         i64 total = 0;
         Kokkos::parallel_scan("pack", R(exec, 0, m), ScanPack<M>{pred, out64}, total);
         g_sink = g_sink + total;
       }});
  idx.variants.push_back({"sieve::findall index into+ws", [&] {
                            sieve::findall(exec, m, pred, ws, sieve::into(out64, count));
                            exec.fence();
                          }});
  idx.variants.push_back({"sieve::findall index + ws", [&] {
                            const auto r = sieve::findall(exec, m, pred, wsKept);
                            g_sink = g_sink + static_cast<i64>(r.extent(0));
                          }});
  idx.variants.push_back({"sieve::findall index (alloc)", [&] {
                            const auto r = sieve::findall(exec, m, pred);
                            g_sink = g_sink + static_cast<i64>(r.extent(0));
                          }});
  idx.variants.push_back({"mask kernel + findall into+ws", [&] {
                            Kokkos::parallel_for(
                                "mask", R(exec, 0, m),
                                KOKKOS_LAMBDA(const i64 k) { mask(k) = pred(k) ? 1 : 0; });
                            sieve::findall(exec, mask, ws, sieve::into(out64, count));
                            exec.fence();
                          }});
  sieve_bench::runCase(idx, reps);
  sieve_bench::printCase(idx);

  sieve_bench::Case kept;
  kept.name = "mask loop 50% " + space;
  kept.baseline = "sieve::findall into+ws";
  kept.subject = "sieve::findall + ws (kept)";
  kept.variants.push_back({"sieve::findall into+ws", [&] {
                             sieve::findall(exec, mask, ws, sieve::into(out64, count));
                             exec.fence();
                           }});
  kept.variants.push_back({"sieve::findall + ws (kept)", [&] {
                             const auto r = sieve::findall(exec, mask, wsKept);
                             g_sink = g_sink + static_cast<i64>(r.extent(0));
                           }});
  kept.variants.push_back({"sieve::findall (alloc)", [&] {
                             const auto r = sieve::findall(exec, mask);
                             g_sink = g_sink + static_cast<i64>(r.extent(0));
                           }});
  sieve_bench::runCase(kept, reps);
  sieve_bench::printCase(kept);

  sieve_bench::Case narrow;
  narrow.name = "int32 50% " + space;
  narrow.baseline = "sieve::findall into int64";
  narrow.subject = "sieve::findall into int32";
  narrow.variants.push_back({"sieve::findall into int64", [&] {
                               sieve::findall(exec, mask, ws, sieve::into(out64, count));
                               exec.fence();
                             }});
  narrow.variants.push_back({"sieve::findall into int32", [&] {
                               sieve::findall(exec, mask, ws, sieve::into(out32, count));
                               exec.fence();
                             }});
  narrow.variants.push_back({"sieve::findall index into int32", [&] {
                               sieve::findall(exec, m, pred, ws, sieve::into(out32, count));
                               exec.fence();
                             }});
  narrow.variants.push_back({"sieve::compact (int32 map)", [&] {
                               sieve::compact(exec, mask, out32, count32, scratch);
                               exec.fence();
                             }});
  sieve_bench::runCase(narrow, reps);
  sieve_bench::printCase(narrow);

  const auto best = [](const sieve_bench::Case& c, const char* name) {
    return sieve_bench::find(c, name)->best;
  };
  char line[512];
  std::snprintf(
      line, sizeof line,
      "%s: index findall into+ws / parallel_scan pack %.2f (returning + ws %.2f, "
      "allocating %.2f, mask kernel + findall %.2f); findall in a loop: + ws (kept) / "
      "into+ws %.2f, allocating / into+ws %.2f; into int32 / int64 %.2f (index form "
      "int32 / pack %.2f)",
      space.c_str(), best(idx, "sieve::findall index into+ws") / best(idx, "parallel_scan pack"),
      best(idx, "sieve::findall index + ws") / best(idx, "parallel_scan pack"),
      best(idx, "sieve::findall index (alloc)") / best(idx, "parallel_scan pack"),
      best(idx, "mask kernel + findall into+ws") / best(idx, "parallel_scan pack"),
      best(kept, "sieve::findall + ws (kept)") / best(kept, "sieve::findall into+ws"),
      best(kept, "sieve::findall (alloc)") / best(kept, "sieve::findall into+ws"),
      best(narrow, "sieve::findall into int32") / best(narrow, "sieve::findall into int64"),
      best(narrow, "sieve::findall index into int32") / best(idx, "parallel_scan pack"));
  summary.push_back(line);
}

} // namespace

int main(int argc, char* argv[]) {
  i64 n = i64(1) << 26;
  int reps = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  // Warm pages for the allocating variants; --fresh-pages measures the cold case.
  bool fresh = false, formsOnly = false;
  for (int i = 1; i < argc; ++i) {
    fresh = fresh || std::string(argv[i]) == "--fresh-pages";
    formsOnly = formsOnly || std::string(argv[i]) == "--forms-only";
  }
  if (!fresh) sieve_bench::keepFreedPages();
  Kokkos::initialize(argc, argv);
  {
    const HostExec exec;
    std::printf("sieve::findall benchmark: n = %lld, %s with %d threads, Kokkos %d, best of %d\n\n",
                static_cast<long long>(n), HostExec::name(), static_cast<int>(exec.concurrency()),
                KOKKOS_VERSION, reps);
    Kokkos::View<float*, Mem> values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "values"), n);
    Kokkos::View<std::uint8_t*, Mem> mask(Kokkos::view_alloc(Kokkos::WithoutInitializing, "mask"),
                                          n);
    Kokkos::View<std::int32_t*, Mem> map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "map"), n);
    Kokkos::View<std::uint32_t, Mem> count("count");
    Kokkos::View<unsigned char*, Mem> scratch(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "scratch"),
        sieve::compact_scratch_bytes(n));
    Kokkos::View<float*, Mem> dense(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dense"), n);
    Kokkos::View<float*, Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), n);
    Kokkos::parallel_for(
        "init", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 k) {
          values(k) = uniform(k);
          dense(k) = 0.f;
          out(k) = 0.f;
          map(k) = 0;
        });
    const std::size_t copyMax = static_cast<std::size_t>(9 * n / 2 + 64); // >= (n + 8n) / 2
    Kokkos::View<unsigned char*, Mem> copySrc("copy_src", copyMax), copyDst("copy_dst", copyMax);
    Kokkos::View<i64*, Mem> out64(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out64"), n);
    Kokkos::View<i64, Mem> count64("count64");
    Kokkos::deep_copy(out64, 0);
    const sieve::FindallWorkspace<HostExec> ws(exec, n);
    sieve_bench::printHeader();
    std::vector<std::string> summary;
    for (const double pct : {1.0, 50.0, 99.0}) {
      if (formsOnly) break;
      const float p = static_cast<float>(pct / 100.0);
      Kokkos::parallel_for(
          "mask", Range(exec, 0, n),
          KOKKOS_LAMBDA(const i64 k) { mask(k) = values(k) < p ? 1 : 0; });
      exec.fence();
      const std::string tag = std::to_string(static_cast<int>(pct)) + "%";

      sieve_bench::Case idx;
      idx.name = "indices " + tag;
      idx.baseline = "sieve::compact + alloc";
      idx.subject = "sieve::findall";
      idx.variants.push_back({"sieve::compact + alloc", [&] {
                                const std::uint32_t c = sieve::compact(mask, map, count, scratch);
                                Kokkos::View<i64*, Mem> r(
                                    Kokkos::view_alloc(Kokkos::WithoutInitializing, "result"), c);
                                g_sink = g_sink + static_cast<i64>(r.extent(0));
                              }});
      idx.variants.push_back({"sieve::findall", [&] {
                                const auto r = sieve::findall(exec, mask);
                                g_sink = g_sink + static_cast<i64>(r.extent(0));
                              }});
      idx.variants.push_back({"sieve::findall + workspace", [&] {
                                const auto r = sieve::findall(exec, mask, ws);
                                g_sink = g_sink + static_cast<i64>(r.extent(0));
                              }});
      idx.variants.push_back({"sequential loop (1 thread)", [&] {
                                std::vector<i64> r;
                                const std::uint8_t* m = mask.data();
                                for (i64 k = 0; k < n; ++k)
                                  if (m[k]) r.push_back(k);
                                g_sink = g_sink + static_cast<i64>(r.size());
                              }});
      // The bytes the index form must move: read the mask, write the int64
      // indices of the selected (the copy limit of into(result, count)).
      const i64 keptIdx =
          static_cast<i64>(sieve::findall(exec, mask, sieve::linear_indices).extent(0));
      const std::size_t idxBytes = static_cast<std::size_t>((n + 8 * keptIdx) / 2);
      idx.variants.push_back(
          {"copy limit (mask + indices)",
           [&] {
             Kokkos::deep_copy(exec,
                               Kokkos::subview(copyDst, std::make_pair(std::size_t(0), idxBytes)),
                               Kokkos::subview(copySrc, std::make_pair(std::size_t(0), idxBytes)));
             exec.fence();
           },
           {},
           2.0 * static_cast<double>(idxBytes)});
      idx.variants.push_back({"sieve::findall into + workspace", [&] {
                                sieve::findall(exec, mask, ws, sieve::into(out64, count64));
                                exec.fence();
                              }});
      sieve_bench::runCase(idx, reps);
      sieve_bench::printCase(idx);

      sieve_bench::Case val;
      val.name = "values " + tag;
      val.baseline = "copy limit (deep_copy)";
      val.subject = "sieve::findall items";
      // The bytes the values form must move: read the mask and the values,
      // write the selected values; a copy moves each of its bytes twice (one
      // read, one write), so a deep_copy of half that many bytes is the limit.
      const i64 kept =
          static_cast<i64>(sieve::findall(exec, mask, sieve::linear_indices).extent(0));
      const std::size_t copyBytes = static_cast<std::size_t>((n + 4 * n + 4 * kept) / 2);
      val.variants.push_back(
          {"copy limit (deep_copy)",
           [&] {
             Kokkos::deep_copy(exec,
                               Kokkos::subview(copyDst, std::make_pair(std::size_t(0), copyBytes)),
                               Kokkos::subview(copySrc, std::make_pair(std::size_t(0), copyBytes)));
             exec.fence();
           },
           {},
           2.0 * static_cast<double>(copyBytes)});
      val.variants.push_back({"masked dense copy", [&] {
                                Kokkos::parallel_for(
                                    "copy", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 k) {
                                      dense(k) = mask(k) ? values(k) : 0.f;
                                    });
                                exec.fence();
                              }});
      val.variants.push_back(
          {"read limit (mask + values)", [&] {
             float s = 0;
             Kokkos::parallel_reduce(
                 "read", Range(exec, 0, n),
                 KOKKOS_LAMBDA(const i64 k, float& acc) { acc += mask(k) ? values(k) : 0.f; }, s);
             g_sink = g_sink + static_cast<i64>(s);
           }});
      val.variants.push_back({"sieve::findall items", [&] {
                                const auto r = sieve::findall(exec, mask, sieve::items(values));
                                g_sink = g_sink + static_cast<i64>(r.extent(0));
                              }});
      val.variants.push_back({"sieve::findall items into + ws", [&] {
                                sieve::findall(exec, mask, sieve::items(values), ws,
                                               sieve::into(out, count64));
                                exec.fence();
                              }});
      val.variants.push_back({"sieve::findall pred items into + ws", [&] {
                                sieve::findall(exec, Below{p}, values, sieve::items(values), ws,
                                               sieve::into(out, count64));
                                exec.fence();
                              }});
      val.variants.push_back({"sieve::findall pred items", [&] {
                                const auto r = sieve::findall(exec, Below{p}, values,
                                                              sieve::items(values), ws);
                                g_sink = g_sink + static_cast<i64>(r.extent(0));
                              }});
      val.variants.push_back({"std::copy_if mask (1 thread)", [&] {
                                const float* v = values.data();
                                const std::uint8_t* m = mask.data();
                                float* e =
                                    std::copy_if(v, v + n, out.data(),
                                                 [v, m](const float& x) { return m[&x - v] != 0; });
                                g_sink = g_sink + static_cast<i64>(e - out.data());
                              }});
      val.variants.push_back({"std::copy_if pred (1 thread)", [&] {
                                const float* v = values.data();
                                float* e = std::copy_if(v, v + n, out.data(), Below{p});
                                g_sink = g_sink + static_cast<i64>(e - out.data());
                              }});
#if KOKKOS_VERSION >= 30600
      val.variants.push_back({"Kokkos::Experimental::copy_if", [&] {
                                namespace KE = Kokkos::Experimental;
                                const auto e =
                                    KE::copy_if(exec, KE::cbegin(values), KE::cend(values),
                                                KE::begin(out), Below{p});
                                exec.fence();
                                g_sink = g_sink + static_cast<i64>(e - KE::begin(out));
                              }});
#endif
      sieve_bench::runCase(val, reps);
      sieve_bench::printCase(val);

      auto best = [](const sieve_bench::Case& c, const char* name) {
        return sieve_bench::find(c, name)->best;
      };
      char line[512];
      std::snprintf(
          line, sizeof line,
          "%3s selected: findall/compact+alloc %.2f (with workspace %.2f); indices into+ws / "
          "copy limit %.2f; values into+ws / copy limit %.2f (pred %.2f); values/copy limit %.2f "
          "(pred form %.2f; /read limit %.2f); std::copy_if mask / findall items %.2f",
          tag.c_str(), best(idx, "sieve::findall") / best(idx, "sieve::compact + alloc"),
          best(idx, "sieve::findall + workspace") / best(idx, "sieve::compact + alloc"),
          best(idx, "sieve::findall into + workspace") / best(idx, "copy limit (mask + indices)"),
          best(val, "sieve::findall items into + ws") / best(val, "copy limit (deep_copy)"),
          best(val, "sieve::findall pred items into + ws") / best(val, "copy limit (deep_copy)"),
          best(val, "sieve::findall items") / best(val, "copy limit (deep_copy)"),
          best(val, "sieve::findall pred items") / best(val, "copy limit (deep_copy)"),
          best(val, "sieve::findall items") / best(val, "read limit (mask + values)"),
          best(val, "std::copy_if mask (1 thread)") / best(val, "sieve::findall items"));
      std::string s = line;
#if KOKKOS_VERSION >= 30600
      std::snprintf(
          line, sizeof line, "; Kokkos copy_if / findall pred %.2f",
          best(val, "Kokkos::Experimental::copy_if") / best(val, "sieve::findall pred items"));
      s += line;
#endif
      summary.push_back(s);
    }
    const i64 m = n < (i64(1) << 24) ? n : (i64(1) << 24);
    benchForms(exec, m, reps, summary);
#if defined(KOKKOS_ENABLE_SERIAL)
    if (!std::is_same_v<HostExec, Kokkos::Serial>) benchForms(Kokkos::Serial(), m, reps, summary);
#endif
    std::printf("summary (ratios of best times; < 1 means the first is faster):\n");
    for (const auto& s : summary) std::printf("  %s\n", s.c_str());
  }
  Kokkos::finalize();
  return 0;
}
