// SPDX-License-Identifier: Apache-2.0
// Sieve demo — a particle population in which a random fraction is absorbed
// every step, its filtering state kept by a sieve::Population. Each step moves
// the live particles (through the index map), compacts the live set with the
// locality trigger, and reorders the particle planes in memory when the
// trigger fires (which moves the live particles to the front and shrinks the
// span). At the end every plane is restored to the original particle order
// and each particle is checked, bit for bit, against an independent replay of
// its history on the host. With --graph each step is one sieve::Graph launch.
//
//   sieve_demo [--particles N] [--steps S] [--absorb P] [--theta T] [--seed K] [--graph]
//
// Exits 0 when every particle came back intact, 1 otherwise (2: bad options).
// `--help` explains the options and the table's columns.
#include <sieve/graph.hpp>
#include <sieve/sieve.hpp>

#include "hash.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

struct Options {
  std::int64_t particles = std::int64_t(1) << 22;
  int steps = 60;
  double absorb = 0.06;
  float theta = 0.5f;
  std::uint64_t seed = 2026;
  bool injectFault = false; // flip one bit before the restore (tests the check)
  bool graph = false;       // run each step as a sieve::Graph
};

using sieve_example::uniform;

/// One step of one live particle: a flight, an energy loss, maybe absorption.
/// Written once, run on the device and replayed on the host.
struct Physics {
  std::uint64_t seed;
  double absorb;
  KOKKOS_INLINE_FUNCTION void step(std::int64_t id, int s, double& x, double& y, double& z,
                                   float& e, std::uint8_t& alive) const {
    x = x + (uniform(seed, id, s, 0) - 0.5);
    y = y + (uniform(seed, id, s, 1) - 0.5);
    z = z + (uniform(seed, id, s, 2) - 0.5);
    e = e * 0.97f;
    if (uniform(seed, id, s, 3) < absorb) alive = 0;
  }
};

const char* const kLegend =
    "columns: step; live = particles alive after it (the compacted count); span = slots\n"
    "         [0, span) that may hold live ones (a reorder shrinks it to live); reorder = 'fired' "
    "when\n"
    "         the locality trigger fired and the planes were reordered; ms/step = wall time of\n"
    "         the step (transport + compact [+ reorder]); [%] = progress. Long runs print every\n"
    "         few steps and each reorder.\n";

void usage(const Options& o) {
  std::printf(
      "usage: sieve_demo [--particles N] [--steps S] [--absorb P] [--theta T] [--seed K]\n"
      "                  [--graph] [--inject-fault] [--kokkos-...]\n"
      "\n"
      "A particle population losing a random fraction every step, its state kept by a\n"
      "sieve::Population. Each step moves the live particles, compacts the live set with the\n"
      "locality trigger (Population::compact) and, when the trigger fires, reorders the particle\n"
      "planes (Population::reorder). At the end the planes are restored (Population::restore)\n"
      "and every particle is checked, bit for bit, against a replay of\n"
      "its history on the host. Exit status 0 when all match, 1 when one differs, 2 for bad\n"
      "options.\n"
      "\n"
      "  --particles N   particles (default %lld; 1 to 2^31-1)\n"
      "  --steps S       steps (default %d)\n"
      "  --absorb P      probability that a particle is absorbed in a step (default %.2f)\n"
      "  --theta T       locality threshold in (0, 1) (default %.2f): reorder when the live\n"
      "                  particles fill less than theta of the 32-slot groups they occupy\n"
      "  --seed K        random seed (default %llu)\n"
      "  --graph         run each step as a sieve::Graph built once (transport, compact,\n"
      "                  reorder), launched every step; the same results\n"
      "  --inject-fault  flip one particle's bit before the restore: the check must fail\n"
      "  --kokkos-...    Kokkos' own options (e.g. --kokkos-threads=4)\n"
      "\n"
      "The table, one row per step:\n%s"
      "\n"
      "OpenMP threads: unless OMP_PROC_BIND or OMP_PLACES is set, the demo sets\n"
      "OMP_PROC_BIND=false, which is what the OpenMP runtime does anyway when neither is set\n"
      "(threads are not pinned); Kokkos would otherwise warn that OMP_PROC_BIND is unset. To pin\n"
      "the threads run e.g. OMP_PROC_BIND=spread OMP_PLACES=threads sieve_demo (see the README's\n"
      "Performance tips; OMP_WAIT_POLICY=passive on a shared machine).\n",
      static_cast<long long>(o.particles), o.steps, o.absorb, static_cast<double>(o.theta),
      static_cast<unsigned long long>(o.seed), kLegend);
}

enum class Parsed { Run, Help, Bad };

Parsed parse(int argc, char* argv[], Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : "0"; };
    if (a == "--particles") o.particles = std::atoll(next());
    else if (a == "--steps") o.steps = std::atoi(next());
    else if (a == "--absorb") o.absorb = std::atof(next());
    else if (a == "--theta") o.theta = static_cast<float>(std::atof(next()));
    else if (a == "--seed") o.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--inject-fault") o.injectFault = true;
    else if (a == "--graph") o.graph = true;
    else if (a == "-h" || a == "--help") return Parsed::Help;
    else if (a.rfind("--kokkos", 0) == 0) continue; // Kokkos' own options
    else {
      std::fprintf(stderr, "sieve_demo: unknown option '%s' (see --help)\n", a.c_str());
      return Parsed::Bad;
    }
  }
  if (o.particles < 1 || o.particles > 2147483647 || o.steps < 1 ||
      !(o.absorb >= 0 && o.absorb <= 1) || !(o.theta > 0 && o.theta < 1)) {
    std::fprintf(stderr,
                 "sieve_demo: particles in [1, 2^31-1], steps >= 1, absorb in [0, 1], "
                 "theta in (0, 1) (see --help)\n");
    return Parsed::Bad;
  }
  return Parsed::Run;
}

/// Kokkos warns when OMP_PROC_BIND is unset. With neither OMP_PROC_BIND nor
/// OMP_PLACES set the OpenMP runtime does not pin its threads, so saying
/// OMP_PROC_BIND=false states what happens anyway (it cannot change it: libgomp
/// reads its variables when it is loaded). A user's own setting is kept.
void settleProcBind() {
  if (std::getenv("OMP_PROC_BIND") == nullptr && std::getenv("OMP_PLACES") == nullptr)
    setenv("OMP_PROC_BIND", "false", 0);
}

/// The transport of one step: slot k < count of the index map holds a live
/// particle (slot = map(k), particle id = perm(slot)). The count and the step
/// are read on the device, so that a captured graph replays the kernel as is.
struct Transport {
  Kokkos::View<const std::int32_t*, Mem> map, perm;
  Kokkos::View<const std::uint32_t, Mem> count;
  Kokkos::View<const int, Mem> step;
  Kokkos::View<std::uint8_t*, Mem> alive;
  Kokkos::View<double*, Mem> x, y, z;
  Kokkos::View<float*, Mem> energy;
  Physics phys;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    if (k >= static_cast<std::int64_t>(count())) return;
    const std::int32_t slot = map(k);
    phys.step(perm(slot), step(), x(slot), y(slot), z(slot), energy(slot), alive(slot));
  }
};
/// The next step's number, and (graph mode) whether the trigger fired.
struct Bookkeeping {
  Kokkos::View<int, Mem> step;
  Kokkos::View<const std::uint32_t, Mem> fire;
  Kokkos::View<std::uint32_t, Mem> fired;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    step() += 1;
    fired() = fire();
  }
};

int run(const Options& o) {
  const std::int64_t n = o.particles;
  Exec exec;
  // The particle planes (the mask among them) and the population that keeps
  // sieve's state for them: index map, count, perm / inv, trigger, scratch.
  Kokkos::View<std::uint8_t*, Mem> alive("alive", n);
  Kokkos::View<double*, Mem> x("x", n), y("y", n), z("z", n);
  Kokkos::View<float*, Mem> energy("energy", n);
  Kokkos::deep_copy(exec, alive, std::uint8_t(1));
  Kokkos::deep_copy(exec, energy, 1.0f);
  sieve::Population<Exec> pop("particles", exec, n, {o.theta});
  const auto planes = sieve::planes(alive, x, y, z, energy);
  std::uint32_t live = pop.compact(exec, alive), span = live;

  Kokkos::View<int, Mem> step("step");
  Kokkos::View<std::uint32_t, Mem> fired("fired");
  const Transport transport{pop.index_map(), pop.perm(),        pop.count(), step, alive, x, y, z,
                            energy,          {o.seed, o.absorb}};
  const Bookkeeping books{step, pop.trigger().fire, fired};
  // Transport over the live slots: their count read on the host (the
  // previous compaction has finished on host spaces); on a device, every slot
  // of n, the count read in the kernel (nothing read back inside a graph).
  auto transportKernel = [=](const Exec& e) {
    std::int64_t range = n;
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
      std::uint32_t c = 0;
      Kokkos::deep_copy(e, c, transport.count);
      e.fence();
      range = c;
    }
    Kokkos::parallel_for("demo::transport",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(e, 0, range),
                         transport);
  };
  auto booksKernel = [=](const Exec& e) {
    Kokkos::parallel_for("demo::bookkeeping", Kokkos::RangePolicy<Exec>(e, 0, 1), books);
  };
  // --graph: the same step as one sieve::Graph, built once, launched every step.
  sieve::Graph<Exec> graph("demo step");
  if (o.graph) {
    graph.kernel("transport", transportKernel);
    graph.compact(pop, alive);
    graph.kernel("bookkeeping", booksKernel);
    graph.reorder(pop, planes);
    graph.instantiate(exec);
  }

  std::printf(
      "sieve demo: %lld particles, %d steps, %.1f%% absorbed per step, theta %.2f, on %s%s\n",
      static_cast<long long>(n), o.steps, o.absorb * 100, static_cast<double>(o.theta),
      Exec::name(), o.graph ? ", as a sieve::Graph" : "");
  std::printf("%s", kLegend);
  std::printf("%6s %12s %9s %9s %10s\n", "step", "live", "span", "reorder", "ms/step");
  const Physics phys{o.seed, o.absorb};
  const int every = o.steps > 60 ? o.steps / 30 : 1; // keep long runs readable
  int reorders = 0;
  double total = 0;
  Kokkos::Timer timer;
  for (int s = 0; s < o.steps && live > 0; ++s) {
    timer.reset();
    std::uint32_t fire = 0;
    if (o.graph) {
      graph.launch(exec);
      Kokkos::deep_copy(exec, fire, fired);
    } else {
      transportKernel(exec);
      booksKernel(exec);
      pop.compact(exec, alive); // fenced
      Kokkos::deep_copy(exec, fire, pop.trigger().fire);
      exec.fence();
      if (fire) pop.reorder(exec, planes); // moves the live particles to the front
    }
    Kokkos::deep_copy(exec, live, pop.count());
    Kokkos::deep_copy(exec, span, pop.trigger().span);
    exec.fence();
    const double ms = timer.seconds() * 1e3;
    total += ms;
    reorders += fire ? 1 : 0;
    if (s % every == 0 || fire || s + 1 == o.steps || live == 0)
      std::printf("%6d %12u %9u %9s %10.3f   [%3d%%]\n", s, live, span, fire ? "fired" : "-", ms,
                  100 * (s + 1) / o.steps);
  }
  if (o.injectFault)
    Kokkos::parallel_for(
        "demo::fault", Kokkos::RangePolicy<Exec>(exec, 0, 1),
        KOKKOS_LAMBDA(const std::int64_t) { energy(n / 2) = -energy(n / 2); });
  pop.restore(exec, planes); // every plane back in particle order
  exec.fence();

  // Verify: every particle, in its original slot, equals a host replay.
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), alive);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto hz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), energy);
  auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pop.perm());
  auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pop.inv());
  std::int64_t bad = 0, survivors = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double ex = 0, ey = 0, ez = 0;
    float ee = 1.0f;
    std::uint8_t ea = 1;
    for (int s = 0; s < o.steps && ea; ++s) phys.step(i, s, ex, ey, ez, ee, ea);
    survivors += ea;
    const bool same = ha(i) == ea && std::memcmp(&hx(i), &ex, 8) == 0 &&
                      std::memcmp(&hy(i), &ey, 8) == 0 && std::memcmp(&hz(i), &ez, 8) == 0 &&
                      std::memcmp(&he(i), &ee, 4) == 0 && hp(i) == i && hi(i) == i;
    if (!same && bad++ < 5)
      std::printf("  particle %lld differs from its replay\n", static_cast<long long>(i));
  }
  std::printf(
      "\nsummary: %d steps, %d reorders, %.2f ms/step on average, %lld of %lld particles "
      "alive\n",
      o.steps, reorders, total / o.steps, static_cast<long long>(survivors),
      static_cast<long long>(n));
  if (bad != 0 || survivors != live) {
    std::printf(
        "verification FAILED: %lld particles differ from their replay (live %u, replay %lld)\n",
        static_cast<long long>(bad), live, static_cast<long long>(survivors));
    return 1;
  }
  std::printf("verification passed: every particle restored to its slot, bit for bit\n");
  return 0;
}

} // namespace

int main(int argc, char* argv[]) {
  Options o;
  switch (parse(argc, argv, o)) {
  case Parsed::Help: usage(Options{}); return 0;
  case Parsed::Bad: return 2;
  case Parsed::Run: break;
  }
  settleProcBind();
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    rc = run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sieve_demo: %s\n", e.what());
    rc = 1;
  }
  Kokkos::finalize();
  return rc;
}
