// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — what sieve::Population and sieve::Graph cost over the free
// functions they call: one filtering cycle (compact with the trigger, reorder,
// restore, compact again) of the same planes, the same work each way.
//
//   sieve_bench_population [--log2n N] [--reps R]
//
// Variants, interleaved, best of R each: a copy of the planes' bytes (the
// bandwidth yardstick), the free functions (sieve::compact / reorder /
// restore with the caller's Views), a sieve::Population, a sieve::Graph of
// the same three nodes. Column "x sieve": time / the free functions' time.
// Then one step of a transport loop (compact + reorder from the same mask),
// the free functions against a Population: the Population's own cost. Then
// the first step of a Population born on fresh pages, and its birth.
#include <sieve/graph.hpp>
#include <sieve/sieve.hpp>

#include "harness.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

struct Planes {
  Kokkos::View<std::uint8_t*, Mem> alive;
  Kokkos::View<double*, Mem> x, y, z;
  Kokkos::View<std::int32_t*, Mem> id;
  Planes(std::int64_t n, const Kokkos::View<std::uint8_t*, Mem>& mask)
      : alive("alive", n), x("x", n), y("y", n), z("z", n), id("id", n) {
    Kokkos::deep_copy(alive, mask);
    Kokkos::deep_copy(x, 1.0);
    Kokkos::deep_copy(y, 2.0);
    Kokkos::deep_copy(z, 3.0);
  }
};

} // namespace

int main(int argc, char* argv[]) {
  sieve_bench::keepFreedPages();
  Kokkos::ScopeGuard guard(argc, argv);
  int log2n = 22, reps = 15;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2n" && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  const std::int64_t n = std::int64_t(1) << log2n;
  const Exec exec;
  std::printf("sieve_bench_population: n = 2^%d, %s, best of %d\n", log2n, Exec::name(), reps);
  sieve_bench::printHeader();
  for (const double kept : {0.25, 0.75}) {
    Kokkos::View<std::uint8_t*, Mem> mask("mask", n);
    auto h = Kokkos::create_mirror_view(mask);
    for (std::int64_t i = 0; i < n; ++i)
      h(i) = static_cast<std::uint8_t>(((i * 2654435761u) >> 7) % 1000 < kept * 1000);
    Kokkos::deep_copy(mask, h);

    // The free functions, with the caller's Views.
    const Planes a(n, mask);
    Kokkos::View<std::int32_t*, Mem> map("map", n), perm("perm", n), inv("inv", n);
    Kokkos::parallel_for(
        "init", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { perm(i) = inv(i) = static_cast<std::int32_t>(i); });
    Kokkos::View<std::uint32_t, Mem> count("count");
    Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
    sieve::Trigger<Mem> trig("t", 0.5f);
    Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
    // A Population, and a Graph of the same cycle.
    const Planes b(n, mask), c(n, mask);
    sieve::Population<Exec> pop("bench", exec, n);
    const auto pb = sieve::planes(b.alive, b.x, b.y, b.z, b.id);
    sieve::Population<Exec> gpop("graph", exec, n, {0.5f, 0});
    const auto pc = sieve::planes(c.alive, c.x, c.y, c.z, c.id);
    sieve::Graph<Exec> graph("cycle");
    graph.compact(gpop, c.alive);
    graph.reorder(gpop, pc);
    graph.restore(gpop, pc);
    graph.instantiate(exec);
    // The yardstick: one copy of the planes' bytes.
    const Planes d(n, mask), e(n, mask);

    sieve_bench::Case cs;
    cs.name = "cycle, " + std::to_string(static_cast<int>(kept * 100)) + "% kept";
    cs.primitive = "population";
    cs.n = n;
    cs.kept = kept;
    cs.baseline = "copy of the planes";
    cs.subject = "free functions";
    const double bytes = 2.0 * n * (1 + 3 * 8 + 4);
    cs.variants.push_back({"copy of the planes",
                           [&] {
                             Kokkos::deep_copy(exec, e.alive, d.alive);
                             Kokkos::deep_copy(exec, e.x, d.x);
                             Kokkos::deep_copy(exec, e.y, d.y);
                             Kokkos::deep_copy(exec, e.z, d.z);
                             Kokkos::deep_copy(exec, e.id, d.id);
                             exec.fence();
                           },
                           {},
                           bytes});
    cs.variants.push_back({"free functions",
                           [&] {
                             sieve::compact(exec, a.alive, map, count, scratch, trig);
                             sieve::reorder(exec, a.alive, perm, inv, map, count, trig, scratch,
                                            a.alive, a.x, a.y, a.z, a.id);
                             sieve::restore(exec, trig, perm, inv, scratch, a.alive, a.x, a.y, a.z,
                                            a.id);
                             sieve::compact(exec, a.alive, map, count, scratch, trig);
                             exec.fence();
                           },
                           {},
                           0});
    cs.variants.push_back({"sieve::Population",
                           [&] {
                             pop.compact_async(exec, b.alive);
                             pop.reorder(exec, pb);
                             pop.restore(exec, pb);
                             exec.fence();
                           },
                           {},
                           0});
    cs.variants.push_back({"sieve::Graph",
                           [&] {
                             graph.launch(exec);
                             exec.fence();
                           },
                           {},
                           0});
    sieve_bench::runCase(cs, reps);
    sieve_bench::printCase(cs);

    // One step of a transport loop: compact with the trigger, then reorder,
    // from the same mask each time (restored untimed before every run). The
    // free functions on the caller's Views against the same two calls of a
    // Population: what the Population adds to a step.
    const Planes f(n, mask), q(n, mask);
    Kokkos::View<std::int32_t*, Mem> fmap("fmap", n), fperm("fperm", n), finv("finv", n);
    Kokkos::parallel_for(
        "init", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { fperm(i) = finv(i) = static_cast<std::int32_t>(i); });
    Kokkos::View<std::uint32_t, Mem> fcount("fcount");
    Kokkos::View<unsigned char*, Mem> fscratch("fscratch", sieve::reorder_scratch_bytes(n, 8));
    sieve::Trigger<Mem> ftrig("ft", 0.5f);
    Kokkos::deep_copy(ftrig.span, static_cast<std::uint32_t>(n));
    sieve::Population<Exec> qpop("step", exec, n);
    const auto pq = sieve::planes(q.alive, q.x, q.y, q.z, q.id);
    sieve_bench::Case st;
    st.name = "step, " + std::to_string(static_cast<int>(kept * 100)) + "% kept";
    st.primitive = "population";
    st.n = n;
    st.kept = kept;
    st.baseline = "copy of the planes";
    st.subject = "free functions";
    st.variants.push_back(cs.variants.front()); // the copy, as above
    st.variants.back().best = 1e30;
    st.variants.push_back({"free functions",
                           [&] {
                             sieve::compact(exec, f.alive, fmap, fcount, fscratch, ftrig);
                             sieve::reorder(exec, f.alive, fperm, finv, fmap, fcount, ftrig,
                                            fscratch, f.alive, f.x, f.y, f.z, f.id);
                             exec.fence();
                           },
                           [&] {
                             Kokkos::deep_copy(exec, f.alive, mask);
                             exec.fence();
                           },
                           0});
    st.variants.push_back({"sieve::Population",
                           [&] {
                             qpop.compact_async(exec, q.alive);
                             qpop.reorder(exec, pq);
                             exec.fence();
                           },
                           [&] {
                             Kokkos::deep_copy(exec, q.alive, mask);
                             exec.fence();
                           },
                           0});
    sieve_bench::runCase(st, reps);
    sieve_bench::printCase(st);

    // The first step of a new Population, born on fresh pages (as at the
    // start of a run): its birth, then its first step (on the free functions'
    // planes above), against a step of the long-lived one.
    sieve::Population<Exec> born;
    const auto pf = sieve::planes(f.alive, f.x, f.y, f.z, f.id);
    const auto bear = [&] {
      born = sieve::Population<Exec>();
      const sieve_bench::FreshPages fresh;
      born = sieve::Population<Exec>("first", exec, n);
    };
    sieve_bench::Case fs;
    fs.name = "first step, " + std::to_string(static_cast<int>(kept * 100)) + "% kept";
    fs.primitive = "population";
    fs.n = n;
    fs.kept = kept;
    fs.baseline = "copy of the planes";
    fs.subject = "sieve::Population, a later step";
    fs.variants.push_back(cs.variants.front()); // the copy, as above
    fs.variants.back().best = 1e30;
    fs.variants.push_back({"sieve::Population, its birth", bear,
                           [&] { born = sieve::Population<Exec>(); }, 0});
    fs.variants.push_back({"sieve::Population, its first step",
                           [&] {
                             born.compact_async(exec, f.alive);
                             born.reorder(exec, pf);
                             exec.fence();
                           },
                           [&] {
                             bear();
                             Kokkos::deep_copy(exec, f.alive, mask);
                             exec.fence();
                           },
                           0});
    fs.variants.push_back(st.variants.back()); // the step case's Population
    fs.variants.back().name = "sieve::Population, a later step";
    fs.variants.back().best = 1e30;
    sieve_bench::runCase(fs, reps);
    sieve_bench::printCase(fs);
  }
  return 0;
}
