// SPDX-License-Identifier: Apache-2.0
// Sieve example — a Monte Carlo transport step across MPI ranks, on Sieve's
// calls only: particles fly in a 1-D slab of cells, some are absorbed, some
// split in two; the children go into free slots (Population::spawn), the live
// set is compacted (mpi::compact of the Population: global counts), binned by
// cell (keys::scatter_dense of the live slots: per-cell tallies, summed over
// the ranks), the hot cells found (findall), the planes reordered when the
// locality trigger fires, and every few steps the particles are rebalanced
// across the ranks (mpi::rebalance of the Population). At the end every
// particle of every rank is checked, bit for bit, against a sequential replay
// of the whole population on rank 0, and so are the per-step live and
// hot-cell counts: the result does not depend on the rank count, the backend
// or the thread count.
//
//   mpiexec -n 2 sieve_transport [--particles N] [--steps S] [--cells C]
//                                [--rebalance-every R] [--mode population|free|rebuild]
//
// --mode free runs the same step on the free functions (sieve::compact /
// reorder, the same free slots found by hand: the mask gathered through inv
// and findall, mpi::rebalance of the planes with the filtering state reset by
// hand); --mode rebuild keeps the Population but
// rebalances with the free mpi::rebalance and builds a new Population after
// it (what a code had to do before mpi::rebalance took a Population). Exit
// status 0 when everything matches the replay, 1 otherwise, 2 for bad options.
#include <sieve/mpi.hpp>
#include <sieve/sieve.hpp>

#include <mpi.h>
#include "hash.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
template <class T>
using V = Kokkos::View<T*, Mem>;

enum class Mode { population, free, rebuild };

/// The locality threshold: reorder when the live particles fill less than
/// 95% of the 32-slot groups they occupy.
constexpr float kTheta = 0.95f;

struct Options {
  std::int64_t particles = std::int64_t(1) << 20; // on rank 0; the others start with a quarter
  int steps = 30;
  int cells = 4096;
  int rebalanceEvery = 10;
  Mode mode = Mode::population;
  std::uint64_t seed = 7;
};

using sieve_example::mix;
using sieve_example::uniform;

/// One step of one live particle, written once: run on the device, replayed
/// on the host. Returns 0 (flies on), 1 (absorbed) or 2 (splits: its weight
/// halves and a child with the same state is born).
struct Physics {
  std::uint64_t seed;
  int cells;
  KOKKOS_INLINE_FUNCTION int step(std::int64_t id, int s, double& x, double& w,
                                  std::int32_t& cell) const {
    x += (uniform(seed, id, s, 0) - 0.5) * 0.05;
    if (x < 0) x = -x;
    if (x >= 1) x = 2.0 - x;
    if (!(x < 1)) x = 0.9999999;
    cell = static_cast<std::int32_t>(x * cells);
    if (cell >= cells) cell = cells - 1;
    const double absorb = cell % 7 == 0 ? 0.09 : 0.045;
    const double u = uniform(seed, id, s, 1);
    if (u < absorb) return 1;
    if (u > 1.0 - 0.04) {
      w *= 0.5;
      return 2;
    }
    return 0;
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t childId(std::int64_t id, int s) {
    return static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull +
                                         static_cast<std::uint64_t>(s) + 1) >>
                                     1);
  }
};

/// The particle planes of one rank (capacity slots each) and a split flag.
struct Planes {
  V<std::uint8_t> alive, split;
  V<std::int64_t> id;
  V<double> x, w;
  V<std::int32_t> cell;
};

struct Fly {
  Physics phys;
  Planes p;
  int s;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    std::uint8_t split = 0;
    if (p.alive(i)) {
      const int r = phys.step(p.id(i), s, p.x(i), p.w(i), p.cell(i));
      if (r == 1) p.alive(i) = 0;
      split = r == 2 ? 1 : 0;
    }
    p.split(i) = split;
  }
};

/// Child i: born in slot `slots(i)` (or inv(slots(i)) when `slots` holds
/// sample ids) from the parent in slot `parents(i)`.
template <class Slots>
struct Bear {
  Planes p;
  V<std::int64_t> parents;
  Slots slots;
  int s;
  V<std::int32_t> inv = {}; // set: slots holds sample ids
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t from = parents(i);
    const std::int64_t to = inv.data() != nullptr ? inv(slots(i)) : slots(i);
    p.id(to) = Physics::childId(p.id(from), s);
    p.x(to) = p.x(from);
    p.w(to) = p.w(from);
    p.cell(to) = p.cell(from);
    p.alive(to) = 1;
  }
};

/// The mask in sample-id order (sample id j sits in slot inv(j)).
struct GatherThrough {
  V<std::int32_t> inv;
  V<std::uint8_t> alive, bySample;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    bySample(j) = alive(inv(j));
  }
};

struct CellOf {
  V<std::int32_t> cell;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int32_t slot) const {
    return cell(slot);
  }
};

struct Identity {
  V<std::int32_t> perm, inv;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    perm(i) = inv(i) = static_cast<std::int32_t>(i);
  }
};

struct IsDead {
  KOKKOS_INLINE_FUNCTION bool operator()(const std::uint8_t a) const { return a == 0; }
};

struct IsHot {
  std::int64_t total;
  int cells;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t count) const {
    return count * cells > 2 * total; // more than twice the mean
  }
};

/// The per-cell counts of the live slots `live` (keys::scatter_dense keyed by
/// cell), summed over the ranks; returns the number of hot cells (findall).
int tallyHotCells(const Exec& exec, MPI_Comm comm, const V<std::int32_t>& live, const Planes& p,
                  int cells, V<std::int32_t>& sorted, std::int64_t& total) {
  const auto keys = sieve::keys::scatter_dense(
      exec, sieve::keys::keyed(live, CellOf{p.cell}), 0, cells - 1,
      Kokkos::subview(sorted, std::make_pair(std::size_t(0), live.extent(0))));
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys.offsets());
  std::vector<std::int64_t> mine(cells), all(cells);
  for (int c = 0; c < cells; ++c) mine[c] = offsets(c + 1) - offsets(c);
  MPI_Allreduce(mine.data(), all.data(), cells, MPI_INT64_T, MPI_SUM, comm);
  total = 0;
  for (const std::int64_t c : all) total += c;
  Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(
      all.data(), cells);
  auto d = Kokkos::create_mirror_view_and_copy(Mem(), h);
  return static_cast<int>(sieve::findall(exec, IsHot{total, cells}, d).extent(0));
}

/// The sequential replay on one process: every particle by id.
struct Replayed {
  std::int64_t id;
  double x, w;
  std::int32_t cell;
};

struct Counts {
  std::vector<std::int64_t> live;
  std::vector<int> hot;
};

std::int64_t initialOn(const Options& o, int r) { return r == 0 ? o.particles : o.particles / 4; }

void initial(const Options& o, int r, std::int64_t base, std::int64_t n, std::vector<Replayed>& v) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t id = base + i;
    const double x = uniform(o.seed, id, -1, 2) * (r == 0 ? 0.5 : 1.0); // rank 0: the left half
    const std::int32_t cell =
        std::min<std::int32_t>(static_cast<std::int32_t>(x * o.cells), o.cells - 1);
    v.push_back(Replayed{id, x, 1.0, cell});
  }
}

Counts replay(const Options& o, int p, std::vector<Replayed>& ps) {
  const Physics phys{o.seed, o.cells};
  Counts c;
  for (int s = 0; s < o.steps; ++s) {
    std::vector<Replayed> next;
    next.reserve(ps.size() + ps.size() / 16);
    std::vector<Replayed> children;
    for (Replayed q : ps) {
      const int r = phys.step(q.id, s, q.x, q.w, q.cell);
      if (r == 1) continue;
      next.push_back(q);
      if (r == 2) children.push_back(Replayed{Physics::childId(q.id, s), q.x, q.w, q.cell});
    }
    next.insert(next.end(), children.begin(), children.end());
    ps.swap(next);
    std::vector<std::int64_t> counts(o.cells, 0);
    for (const Replayed& q : ps) ++counts[q.cell];
    const std::int64_t total = static_cast<std::int64_t>(ps.size());
    int hot = 0;
    for (const std::int64_t k : counts) hot += IsHot{total, o.cells}(k);
    c.live.push_back(total);
    c.hot.push_back(hot);
  }
  (void)p;
  return c;
}

bool parse(int argc, char* argv[], Options& o, bool& help) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : "0"; };
    if (a == "--particles") o.particles = std::atoll(next());
    else if (a == "--steps") o.steps = std::atoi(next());
    else if (a == "--cells") o.cells = std::atoi(next());
    else if (a == "--rebalance-every") o.rebalanceEvery = std::atoi(next());
    else if (a == "--seed") o.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--mode") {
      const std::string m = next();
      if (m == "population") o.mode = Mode::population;
      else if (m == "free") o.mode = Mode::free;
      else if (m == "rebuild") o.mode = Mode::rebuild;
      else return false;
    } else if (a == "-h" || a == "--help") help = true;
    else if (a.rfind("--kokkos", 0) == 0) continue;
    else return false;
  }
  return o.particles >= 4 && o.particles <= (std::int64_t(1) << 28) && o.steps >= 1 &&
         o.cells >= 1 && o.cells <= (1 << 24) && o.rebalanceEvery >= 1;
}

/// One rank's run: returns its live particles at the end and the per-step
/// global counts; times in seconds.
struct Run {
  std::vector<Replayed> mine;
  Counts counts;
  double stepSeconds = 0, rebalanceSeconds = 0;
  int rebalances = 0, reorders = 0;
};

Run run(const Options& o, MPI_Comm comm, int rank, int p) {
  const Exec exec;
  const Physics phys{o.seed, o.cells};
  // Every rank has the same capacity: twice rank 0's start.
  const std::int64_t cap = 2 * o.particles;
  std::int64_t base = 0;
  for (int r = 0; r < rank; ++r) base += initialOn(o, r);
  std::vector<Replayed> start;
  initial(o, rank, base, initialOn(o, rank), start);
  Planes pl{V<std::uint8_t>("alive", cap), V<std::uint8_t>("split", cap),
            V<std::int64_t>("id", cap),    V<double>("x", cap),
            V<double>("w", cap),           V<std::int32_t>("cell", cap)};
  {
    auto a = Kokkos::create_mirror_view(pl.alive);
    auto id = Kokkos::create_mirror_view(pl.id);
    auto x = Kokkos::create_mirror_view(pl.x);
    auto w = Kokkos::create_mirror_view(pl.w);
    auto c = Kokkos::create_mirror_view(pl.cell);
    for (std::int64_t i = 0; i < cap; ++i) {
      const bool live = i < static_cast<std::int64_t>(start.size());
      a(i) = live ? 1 : 0;
      id(i) = live ? start[i].id : -1;
      x(i) = live ? start[i].x : 0.0;
      w(i) = live ? start[i].w : 0.0;
      c(i) = live ? start[i].cell : 0;
    }
    Kokkos::deep_copy(pl.alive, a);
    Kokkos::deep_copy(pl.id, id);
    Kokkos::deep_copy(pl.x, x);
    Kokkos::deep_copy(pl.w, w);
    Kokkos::deep_copy(pl.cell, c);
  }
  const auto planes = sieve::planes(pl.alive, pl.id, pl.x, pl.w, pl.cell);
  sieve::Population<Exec> pop("transport", exec, cap, {kTheta});
  sieve::mpi::RebalanceWorkspace<Exec> ws("transport");
  V<std::int32_t> slots("slots", cap), sorted("sorted", cap);
  // The free functions' state (mode free).
  V<std::int32_t> map("map", cap), perm("perm", cap), inv("inv", cap);
  V<std::uint8_t> bySample("by_sample", cap);
  Kokkos::View<std::uint32_t, Mem> count("count");
  Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::reorder_scratch_bytes(cap, 8));
  sieve::Trigger<Mem> trig("transport_free", kTheta);
  auto resetFree = [&](std::uint32_t span) {
    Kokkos::parallel_for("identity", Policy(exec, 0, cap), Identity{perm, inv});
    trig = sieve::Trigger<Mem>("transport_free", kTheta); // a new record: perm is the identity
    Kokkos::deep_copy(exec, trig.span, span);
    exec.fence();
  };
  if (o.mode == Mode::free) resetFree(static_cast<std::uint32_t>(cap));
  // The starting compaction (every mode: the Population needs its mask).
  if (o.mode == Mode::free) sieve::mpi::compact(exec, comm, pl.alive, map, count, scratch, trig);
  else sieve::mpi::compact(exec, comm, pop, pl.alive);

  Run out;
  Kokkos::Timer timer;
  for (int s = 0; s < o.steps; ++s) {
    exec.fence();
    MPI_Barrier(comm);
    timer.reset();
    Kokkos::parallel_for("transport::fly", Policy(exec, 0, cap), Fly{phys, pl, s});
    const auto parents = sieve::findall(exec, pl.split);
    const std::int64_t k = static_cast<std::int64_t>(parents.extent(0));
    sieve::mpi::Global g;
    V<std::int32_t> live;
    if (o.mode == Mode::free) {
      // Free slots by hand, reproducibly (as Population::spawn places them):
      // the first k dead samples in sample-id order, i.e. the mask gathered
      // through inv, its dead entries found, mapped back to slots.
      Kokkos::parallel_for("transport::gather", Policy(exec, 0, cap),
                           GatherThrough{inv, pl.alive, bySample});
      const auto dead = sieve::findall(exec, IsDead{}, bySample);
      if (static_cast<std::int64_t>(dead.extent(0)) < k)
        throw std::runtime_error("sieve_transport: no room for the children");
      Kokkos::parallel_for("transport::bear", Policy(exec, 0, k),
                           Bear<decltype(dead)>{pl, parents, dead, s, inv});
      g = sieve::mpi::compact(exec, comm, pl.alive, map, count, scratch, trig);
      live = Kokkos::subview(map, std::make_pair(std::int64_t(0), g.local));
    } else {
      pop.spawn(exec, k, slots);
      Kokkos::parallel_for("transport::bear", Policy(exec, 0, k),
                           Bear<V<std::int32_t>>{pl, parents, slots, s});
      g = sieve::mpi::compact(exec, comm, pop, pl.alive);
      live = Kokkos::subview(pop.index_map(), std::make_pair(std::int64_t(0), g.local));
    }
    std::int64_t total = 0;
    const int hot = tallyHotCells(exec, comm, live, pl, o.cells, sorted, total);
    if (o.mode == Mode::free) {
      std::uint32_t fire = 0;
      Kokkos::deep_copy(fire, trig.fire);
      out.reorders += fire;
      sieve::reorder(exec, pl.alive, perm, inv, map, count, trig, scratch, pl.alive, pl.id, pl.x,
                     pl.w, pl.cell);
    } else {
      std::uint32_t fire = 0;
      Kokkos::deep_copy(fire, pop.trigger().fire);
      out.reorders += fire;
      pop.reorder(exec, planes);
    }
    exec.fence();
    out.stepSeconds += timer.seconds();
    out.counts.live.push_back(g.total);
    out.counts.hot.push_back(hot);
    if (s % o.rebalanceEvery == o.rebalanceEvery - 1) {
      MPI_Barrier(comm);
      timer.reset();
      if (o.mode == Mode::population) {
        sieve::mpi::rebalance(exec, comm, ws, pop, planes);
      } else {
        auto a = pl.alive;
        const auto r =
            sieve::mpi::rebalance(exec, comm, ws, a, pl.alive, pl.id, pl.x, pl.w, pl.cell);
        if (o.mode == Mode::free) {
          resetFree(static_cast<std::uint32_t>(r.local));
          sieve::compact(exec, pl.alive, map, count, scratch, trig);
        } else {
          pop = sieve::Population<Exec>("transport", exec, cap, {kTheta});
          pop.compact(exec, pl.alive);
        }
      }
      exec.fence();
      out.rebalanceSeconds += timer.seconds();
      ++out.rebalances;
    }
  }
  // This rank's live particles.
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pl.alive);
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pl.id);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pl.x);
  auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pl.w);
  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pl.cell);
  for (std::int64_t i = 0; i < cap; ++i)
    if (a(i)) out.mine.push_back(Replayed{id(i), x(i), w(i), c(i)});
  (void)p;
  return out;
}

bool sameBits(const Replayed& a, const Replayed& b) {
  return a.id == b.id && a.cell == b.cell && std::memcmp(&a.x, &b.x, sizeof a.x) == 0 &&
         std::memcmp(&a.w, &b.w, sizeof a.w) == 0;
}

} // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  Options o;
  bool help = false;
  if (!parse(argc, argv, o, help) || help) {
    if (rank == 0)
      std::printf(
          "usage: mpiexec -n P sieve_transport [--particles N (rank 0's start; the "
          "others a quarter)] [--steps S] [--cells C] [--rebalance-every R] [--seed K] "
          "[--mode population|free|rebuild]\n");
    MPI_Finalize();
    return help ? 0 : 2;
  }
  if (std::getenv("OMP_PROC_BIND") == nullptr && std::getenv("OMP_PLACES") == nullptr)
    setenv("OMP_PROC_BIND", "false", 0);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    Run r;
    try {
      r = run(o, MPI_COMM_WORLD, rank, p);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sieve_transport: rank %d: %s\n", rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    // Every rank's particles to rank 0, and the slowest rank's times.
    std::vector<Replayed> all;
    const int mine = static_cast<int>(r.mine.size() * sizeof(Replayed));
    std::vector<int> bytes(p), displs(p, 0);
    MPI_Gather(&mine, 1, MPI_INT, bytes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      for (int q = 1; q < p; ++q) displs[q] = displs[q - 1] + bytes[q - 1];
      all.resize(static_cast<std::size_t>(displs[p - 1] + bytes[p - 1]) / sizeof(Replayed));
    }
    MPI_Gatherv(r.mine.data(), mine, MPI_BYTE, all.data(), bytes.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
    double times[2] = {r.stepSeconds, r.rebalanceSeconds}, slowest[2] = {0, 0};
    MPI_Reduce(times, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::vector<Replayed> model;
      std::int64_t base = 0;
      for (int q = 0; q < p; ++q) {
        initial(o, q, base, initialOn(o, q), model);
        base += initialOn(o, q);
      }
      const Counts want = replay(o, p, model);
      auto byId = [](const Replayed& a, const Replayed& b) { return a.id < b.id; };
      std::sort(all.begin(), all.end(), byId);
      std::sort(model.begin(), model.end(), byId);
      std::int64_t wrong = 0;
      if (all.size() != model.size()) wrong = -1;
      else
        for (std::size_t i = 0; i < all.size(); ++i) wrong += !sameBits(all[i], model[i]);
      const bool counts = want.live == r.counts.live && want.hot == r.counts.hot;
      const char* mode = o.mode == Mode::population ? "population"
                         : o.mode == Mode::free     ? "free"
                                                    : "rebuild";
      std::printf(
          "sieve_transport: %d rank(s), %s mode, %d steps, %d cells; %lld particles at "
          "the end (%lld at the start)\n",
          p, mode, o.steps, o.cells, static_cast<long long>(all.size()),
          static_cast<long long>(base));
      std::printf(
          "  step %.3f ms (slowest rank, mean of %d; %d reorders on rank 0), rebalance "
          "%.3f ms (mean of %d)\n",
          1e3 * slowest[0] / o.steps, o.steps, r.reorders,
          r.rebalances ? 1e3 * slowest[1] / r.rebalances : 0.0, r.rebalances);
      std::printf("  live per step %s the replay; hot cells per step %s (last step: %d hot)\n",
                  want.live == r.counts.live ? "match" : "DIFFER from",
                  want.hot == r.counts.hot ? "match" : "DIFFER", r.counts.hot.back());
      if (wrong == 0 && counts) std::printf("verification passed: every particle bit for bit\n");
      else {
        std::printf(
            "verification FAILED: %lld particles differ (-1: counts differ: %zu "
            "against %zu)\n",
            static_cast<long long>(wrong), all.size(), model.size());
        status = 1;
      }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return status;
}
