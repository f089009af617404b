// SPDX-License-Identifier: Apache-2.0
// Sieve MPI tests — sieve::mpi::compact / findall / rebalance against a
// single-process sequential model of the concatenated input.
//
// Every rank builds the whole global input from a fixed seed (so every rank
// knows the model), takes its own slice, calls the distributed function and
// checks its own part of the answer against the model. The model does not
// depend on the number of ranks, so the same cases under 1, 2, 3 and 4 ranks
// (the ctest entries mpi.<backend>.np<p>) give identical global results.
// Scenarios: random sizes and masks, every other rank all dead, one rank
// holding everything, empty input, totals that do not divide by p. Checks use
// EXPECT (never an early return) so that every rank makes the same
// collective calls whatever fails.
#include "../faults/fault.hpp"
#include "../kokkos/backend.hpp"

#include <sieve/mpi.hpp>
#include <sieve/population.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace sieve_test;

int worldSize() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// A 16-byte trivially-copyable plane element.
struct Pair {
  std::uint64_t a, b;
};

/// The global input: sizes per rank, and every sample's mask byte and plane
/// values, indexed by global sample position.
struct World {
  std::vector<std::int64_t> sizes, begins; // per rank
  std::vector<std::uint8_t> mask;
  std::vector<std::int32_t> id;
  std::vector<double> x;
  std::vector<std::uint16_t> tag;
  std::vector<Pair> pair;
  std::int64_t begin(int r) const { return begins[r]; }
};

enum class Scenario { random, dead_ranks, one_rank_holds_all, empty, indivisible, large };

const char* name(Scenario s) {
  switch (s) {
  case Scenario::random: return "random";
  case Scenario::dead_ranks: return "dead_ranks";
  case Scenario::one_rank_holds_all: return "one_rank_holds_all";
  case Scenario::empty: return "empty";
  case Scenario::indivisible: return "indivisible";
  case Scenario::large: return "large";
  }
  return "?";
}

/// The same World on every rank: sizes from the scenario, values from `seed`.
World makeWorld(Scenario s, int p, std::uint64_t seed, double keep) {
  World w;
  std::mt19937_64 rng(seed);
  w.sizes.assign(p, 0);
  for (int r = 0; r < p; ++r) {
    switch (s) {
    case Scenario::random: w.sizes[r] = static_cast<std::int64_t>(rng() % 3000); break;
    case Scenario::dead_ranks: w.sizes[r] = 1000 + static_cast<std::int64_t>(rng() % 500); break;
    case Scenario::one_rank_holds_all: w.sizes[r] = r == p - 1 ? 5003 : 0; break;
    case Scenario::empty: w.sizes[r] = 0; break;
    case Scenario::indivisible: w.sizes[r] = 1001 + 7 * r; break;
    case Scenario::large: w.sizes[r] = 9000 + 11 * r; break;
    }
  }
  w.begins.assign(p + 1, 0);
  for (int r = 0; r < p; ++r) w.begins[r + 1] = w.begins[r] + w.sizes[r];
  const std::int64_t n = w.begins[p];
  std::bernoulli_distribution kept(keep);
  w.mask.resize(n);
  w.id.resize(n);
  w.x.resize(n);
  w.tag.resize(n);
  w.pair.resize(n);
  for (std::int64_t g = 0; g < n; ++g) {
    int r = 0;
    while (g >= w.begins[r + 1]) ++r;
    const bool live = s == Scenario::dead_ranks && r % 2 == 1 ? false : kept(rng);
    w.mask[g] = live ? static_cast<std::uint8_t>(1 + rng() % 255) : 0;
    w.id[g] = static_cast<std::int32_t>(g);
    const std::uint64_t bits = rng();
    std::memcpy(&w.x[g], &bits, sizeof(double)); // any bit pattern, NaNs included
    w.tag[g] = static_cast<std::uint16_t>(rng());
    w.pair[g] = Pair{rng(), rng()};
  }
  return w;
}

template <class T>
std::vector<T> slice(const std::vector<T>& v, std::int64_t begin, std::int64_t n) {
  return std::vector<T>(v.begin() + begin, v.begin() + begin + n);
}

/// The model: the global positions of the kept samples, in global order.
std::vector<std::int64_t> survivors(const World& w, bool drop = false) {
  std::vector<std::int64_t> out;
  for (std::size_t g = 0; g < w.mask.size(); ++g)
    if ((w.mask[g] != 0) != drop) out.push_back(static_cast<std::int64_t>(g));
  return out;
}

std::int64_t shareBegin(std::int64_t total, int p, int q) {
  return q * (total / p) + std::min<std::int64_t>(q, total % p);
}

const Scenario kScenarios[] = {Scenario::random, Scenario::dead_ranks, Scenario::one_rank_holds_all,
                               Scenario::empty, Scenario::indivisible};
const double kKeeps[] = {0.0, 0.03, 0.5, 1.0};

/// Every scenario at every kept fraction, one World each (seeds from `seed`).
template <class F>
void forEachWorld(std::uint64_t seed, F&& f) {
  for (const Scenario s : kScenarios)
    for (const double keep : kKeeps) {
      SCOPED_TRACE(std::string(name(s)) + " keep " + std::to_string(keep));
      f(makeWorld(s, worldSize(), ++seed, keep));
    }
}

// --- compact ---------------------------------------------------------------------------

/// One rank's compaction arguments for its slice of a World.
struct Local {
  std::int64_t n, begin;
  DView<std::uint8_t> mask;
  DView<std::int32_t> map;
  Word count;
  Bytes scratch;
  Local(const World& w, int rank, std::size_t scratchBytes = SIZE_MAX)
      : n(w.sizes[rank]), begin(w.begin(rank)), mask(toDevice(slice(w.mask, begin, n))),
        map("map", n), count("count"),
        scratch("scratch",
                scratchBytes != SIZE_MAX ? scratchBytes : sieve::compact_scratch_bytes(n)) {}
};

TEST(MpiCompact, GlobalCountAndOffsetMatchTheModel) {
  const TestExec exec;
  const int rank = worldRank();
  forEachWorld(11, [&](const World& w) {
    for (const bool drop : {false, true}) {
      SCOPED_TRACE(drop ? "drop" : "keep-polarity");
      const Local l(w, rank);
      const std::int64_t n = l.n, b = l.begin;
      const sieve::mpi::Global g =
          drop ? sieve::mpi::compact(exec, MPI_COMM_WORLD, l.mask, sieve::MaskPolarity::drop, l.map,
                                     l.count, l.scratch)
               : sieve::mpi::compact(exec, MPI_COMM_WORLD, l.mask, l.map, l.count, l.scratch);
      const std::vector<std::int64_t> model = survivors(w, drop);
      std::vector<std::int64_t> mine;
      std::int64_t before = 0;
      for (const std::int64_t gpos : model) {
        if (gpos < b) ++before;
        if (gpos >= b && gpos < b + n) mine.push_back(gpos - b);
      }
      EXPECT_EQ(g.total, static_cast<std::int64_t>(model.size()));
      EXPECT_EQ(g.offset, before);
      EXPECT_EQ(g.local, static_cast<std::int64_t>(mine.size()));
      EXPECT_EQ(read(l.count), mine.size());
      const auto got = toHost(l.map);
      for (std::size_t k = 0; k < mine.size() && k < got.size(); ++k)
        EXPECT_EQ(got[k], mine[k]) << "survivor " << k;
    }
  });
}

TEST(MpiCompact, WithATriggerAndALabel) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const World w = makeWorld(Scenario::random, p, 99, 0.4);
  const Local l(w, rank);
  const std::int64_t n = l.n;
  sieve::Trigger<TestMem> trigger("trigger", 0.5f);
  Kokkos::deep_copy(trigger.span, static_cast<std::uint32_t>(n));
  const auto g =
      sieve::mpi::compact("step", exec, MPI_COMM_WORLD, l.mask, l.map, l.count, l.scratch, trigger);
  EXPECT_EQ(g.total, static_cast<std::int64_t>(survivors(w).size()));
  // live32: the aligned groups of 32 samples holding a kept sample.
  std::uint32_t groups = 0;
  for (std::int64_t at = 0; at < n; at += 32) {
    bool any = false;
    for (std::int64_t i = at; i < std::min(n, at + 32); ++i) any = any || w.mask[w.begin(rank) + i];
    groups += any;
  }
  EXPECT_EQ(read(trigger.live32), groups);
  EXPECT_EQ(read(l.count), static_cast<std::uint32_t>(g.local));
}

/// A sub-communicator: the even and the odd ranks of the world count apart.
TEST(MpiCompact, ASplitCommunicatorCountsItsOwnRanks) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  const World w = makeWorld(Scenario::indivisible, p, 5, 0.5);
  const Local l(w, rank);
  const auto g = sieve::mpi::compact(exec, half, l.mask, l.map, l.count, l.scratch);
  std::int64_t total = 0, before = 0;
  for (int r = rank % 2; r < p; r += 2) {
    std::int64_t k = 0;
    for (std::int64_t i = w.begin(r); i < w.begin(r) + w.sizes[r]; ++i) k += w.mask[i] != 0;
    total += k;
    if (r < rank) before += k;
  }
  EXPECT_EQ(g.total, total);
  EXPECT_EQ(g.offset, before);
  MPI_Comm_free(&half);
}

// --- findall ----------------------------------------------------------------------------

TEST(MpiFindall, GlobalLinearIndicesMatchTheModel) {
  const TestExec exec;
  const int rank = worldRank();
  forEachWorld(300, [&](const World& w) {
    const std::int64_t n = w.sizes[rank], b = w.begin(rank);
    const auto mask = toDevice(slice(w.mask, b, n));
    const auto r = sieve::mpi::findall(exec, MPI_COMM_WORLD, mask);
    const std::vector<std::int64_t> model = survivors(w);
    std::vector<std::int64_t> mine;
    std::int64_t before = 0;
    for (const std::int64_t g : model) {
      before += g < b;
      if (g >= b && g < b + n) mine.push_back(g);
    }
    EXPECT_EQ(r.elements, static_cast<std::int64_t>(w.mask.size()));
    EXPECT_EQ(r.element_offset, b);
    EXPECT_EQ(r.selected.total, static_cast<std::int64_t>(model.size()));
    EXPECT_EQ(r.selected.offset, before);
    EXPECT_EQ(r.selected.local, static_cast<std::int64_t>(mine.size()));
    EXPECT_EQ(toHost(r.indices), mine);
  });
}

/// The predicate of PredicateOverARank2View (at namespace scope: nvcc's
/// device lambdas take no function-local types).
struct Small {
  KOKKOS_INLINE_FUNCTION bool operator()(std::int32_t x) const { return x < 4; }
};

/// The predicate form over a rank-2 View: linear indices in layout order.
TEST(MpiFindall, PredicateOverARank2View) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const std::int64_t rows = 3 + rank, cols = 5; // 3 + rank rows of this rank's block
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, TestDevice> v("v", rows, cols);
  auto h = Kokkos::create_mirror_view(v);
  std::int64_t begin = 0, total = 0;
  for (int r = 0; r < p; ++r) {
    const std::int64_t e = (3 + r) * cols;
    if (r < rank) begin += e;
    total += e;
  }
  std::vector<std::int64_t> want;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t g = begin + i * cols + j;
      h(i, j) = static_cast<std::int32_t>((g * 7919) % 13);
      if (h(i, j) < 4) want.push_back(g);
    }
  Kokkos::deep_copy(v, h);
  const auto r = sieve::mpi::findall("pred", exec, MPI_COMM_WORLD, Small{}, v);
  EXPECT_EQ(toHost(r.indices), want);
  EXPECT_EQ(r.elements, total);
  EXPECT_EQ(r.element_offset, begin);
}

/// The index form's predicate: every third local index, and those whose
/// value in `v` is negative (two criteria, a View read).
struct ThirdOrNegative {
  DView<double> v;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int64_t i) const {
    return i % 3 == 0 || v(i) < 0.0;
  }
};

// --- rebalance ------------------------------------------------------------------------

struct Planes {
  DView<std::uint8_t> mask;
  DView<std::int32_t> id;
  DView<double> x;
  DView<std::uint16_t> tag;
  DView<Pair> pair;
};

Planes localPlanes(const World& w, int rank) {
  const std::int64_t n = w.sizes[rank], b = w.begin(rank);
  return Planes{toDevice(slice(w.mask, b, n), "mask"), toDevice(slice(w.id, b, n), "id"),
                toDevice(slice(w.x, b, n), "x"), toDevice(slice(w.tag, b, n), "tag"),
                toDevice(slice(w.pair, b, n), "pair")};
}

std::uint64_t bitsOf(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

/// Every plane of this rank after a rebalance: global survivor offset + k at k.
void expectRebalanced(const World& w, const Planes& pl, const sieve::mpi::Global& g, int p,
                      int rank, bool drop = false) {
  const std::vector<std::int64_t> model = survivors(w, drop);
  const std::int64_t total = static_cast<std::int64_t>(model.size());
  EXPECT_EQ(g.total, total);
  EXPECT_EQ(g.offset, shareBegin(total, p, rank));
  EXPECT_EQ(g.local, shareBegin(total, p, rank + 1) - shareBegin(total, p, rank));
  const auto mask = toHost(pl.mask);
  const auto id = toHost(pl.id);
  const auto x = toHost(pl.x);
  const auto tag = toHost(pl.tag);
  const auto pair = toHost(pl.pair);
  for (const auto extent : {mask.size(), id.size(), x.size(), tag.size(), pair.size()})
    EXPECT_GE(static_cast<std::int64_t>(extent), g.local);
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < g.local && k < static_cast<std::int64_t>(id.size()); ++k) {
    const std::int64_t s = model[g.offset + k];
    wrong += mask[k] != w.mask[s] || id[k] != w.id[s] || bitsOf(x[k]) != bitsOf(w.x[s]) ||
             tag[k] != w.tag[s] || pair[k].a != w.pair[s].a || pair[k].b != w.pair[s].b;
  }
  EXPECT_EQ(wrong, 0) << "samples of rank " << rank << " differ from the model";
}

TEST(MpiRebalance, EveryPlaneMovesBitForBitInGlobalOrder) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  forEachWorld(700, [&](const World& w) {
    Planes pl = localPlanes(w, rank);
    const DView<std::uint8_t> mask = pl.mask; // the mask is also a plane
    const auto g =
        sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.mask, pl.id, pl.x, pl.tag, pl.pair);
    expectRebalanced(w, pl, g, p, rank);
  });
}

TEST(MpiRebalance, DropPolarityAndALabel) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const World w = makeWorld(Scenario::indivisible, p, 77, 0.3);
  Planes pl = localPlanes(w, rank);
  const DView<std::uint8_t> mask = toDevice(slice(w.mask, w.begin(rank), w.sizes[rank]));
  const auto g =
      sieve::mpi::rebalance("step", exec, MPI_COMM_WORLD, mask, sieve::MaskPolarity::drop, pl.mask,
                            pl.id, pl.x, pl.tag, pl.pair);
  expectRebalanced(w, pl, g, p, rank, true);
}

/// Twice in a row: the second call sees dense, balanced planes with a longer
/// extent than their count, and a mask of that count.
TEST(MpiRebalance, RepeatedStepsStayTheModel) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  World w = makeWorld(Scenario::one_rank_holds_all, p, 4242, 0.6);
  Planes pl = localPlanes(w, rank);
  auto g =
      sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pl.mask, pl.mask, pl.id, pl.x, pl.tag, pl.pair);
  expectRebalanced(w, pl, g, p, rank);
  // Step 2: kill every sample whose id is divisible by 3, on a mask of `local`.
  World w2;
  w2.sizes.assign(p, 0);
  for (int q = 0; q < p; ++q)
    w2.sizes[q] = shareBegin(g.total, p, q + 1) - shareBegin(g.total, p, q);
  w2.begins.assign(p + 1, 0);
  for (int q = 0; q < p; ++q) w2.begins[q + 1] = w2.begins[q] + w2.sizes[q];
  for (const std::int64_t s : survivors(w)) {
    w2.mask.push_back(w.id[s] % 3 == 0 ? 0 : w.mask[s]);
    w2.id.push_back(w.id[s]);
    w2.x.push_back(w.x[s]);
    w2.tag.push_back(w.tag[s]);
    w2.pair.push_back(w.pair[s]);
  }
  DView<std::uint8_t> mask2 = toDevice(slice(w2.mask, w2.begin(rank), w2.sizes[rank]));
  Kokkos::deep_copy(Kokkos::subview(pl.mask, std::pair<std::int64_t, std::int64_t>(0, g.local)),
                    mask2);
  g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask2, pl.mask, pl.id, pl.x, pl.tag, pl.pair);
  expectRebalanced(w2, pl, g, p, rank);
}

// Every mode of set_device_buffers moves the same bytes: Staged goes through
// the workspace's host copies (on host spaces too, so CI runs that path),
// Direct and Auto (host memory) hand the space's buffers to MPI.
TEST(MpiRebalance, StagedAndDirectBuffersMoveTheSameBytes) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  EXPECT_EQ(sieve::mpi::device_buffers(), sieve::mpi::DeviceBuffers::Auto);
  for (const auto mode : {sieve::mpi::DeviceBuffers::Staged, sieve::mpi::DeviceBuffers::Direct,
                          sieve::mpi::DeviceBuffers::Auto}) {
    sieve::mpi::set_device_buffers(mode);
    EXPECT_EQ(sieve::mpi::device_buffers(), mode);
    forEachWorld(300, [&](const World& w) {
      Planes pl = localPlanes(w, rank);
      sieve::mpi::RebalanceWorkspace<TestExec> ws("modes");
      const DView<std::uint8_t> mask = toDevice(slice(w.mask, w.begin(rank), w.sizes[rank]));
      const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, ws, mask, pl.mask, pl.id, pl.x,
                                           pl.tag, pl.pair);
      expectRebalanced(w, pl, g, p, rank);
      const bool staged = mode == sieve::mpi::DeviceBuffers::Staged;
      EXPECT_EQ(ws.hsend.extent(0) > 0, staged && ws.send.extent(0) > 0)
          << "host copies only when staged";
    });
  }
  sieve::mpi::set_device_buffers(sieve::mpi::DeviceBuffers::Auto);
}

/// Unmanaged planes with room: moved in place, never reallocated.
TEST(MpiRebalance, UnmanagedPlanesWithRoomStayInPlace) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const World w = makeWorld(Scenario::one_rank_holds_all, p, 9, 0.5);
  const std::int64_t n = w.sizes[rank], room = 5003; // >= ceil(total / p) and >= n
  DView<std::int32_t> owner("owner", room);
  Kokkos::deep_copy(Kokkos::subview(owner, std::pair<std::int64_t, std::int64_t>(0, n)),
                    toDevice(slice(w.id, w.begin(rank), n)));
  Kokkos::View<std::int32_t*, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>> id(owner.data(),
                                                                                      room);
  const auto mask = toDevice(slice(w.mask, w.begin(rank), n));
  const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, id);
  EXPECT_EQ(id.data(), owner.data());
  const auto model = survivors(w);
  const auto got = toHost(owner);
  for (std::int64_t k = 0; k < g.local; ++k) EXPECT_EQ(got[k], model[g.offset + k]);
}

// --- misuse: every rank throws, none hangs, nothing is moved -------------------------------

/// Runs `call`, expects std::invalid_argument on every rank whose message
/// holds `all`, and `own` on rank `culprit`; then checks the ranks agree.
template <class F>
void expectAllThrow(F&& call, int culprit, const std::string& own, const std::string& all) {
  std::string what;
  try {
    call();
  } catch (const std::invalid_argument& e) {
    what = e.what();
  }
  EXPECT_NE(what.find(all), std::string::npos) << "rank " << worldRank() << ": '" << what << "'";
  if (worldRank() == culprit) EXPECT_NE(what.find(own), std::string::npos) << "'" << what << "'";
  else if (culprit >= 0)
    EXPECT_NE(what.find("rank " + std::to_string(culprit)), std::string::npos)
        << "'" << what << "'";
  int thrown = what.empty() ? 0 : 1, every = 0;
  MPI_Allreduce(&thrown, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(every, 1) << "some rank did not throw";
}

/// One rank's planes and a separate mask for its slice of a World.
struct Input {
  int p = worldSize(), rank = worldRank();
  World w;
  Planes pl;
  DView<std::uint8_t> mask;
  sieve::mpi::Global g;                          // what the last call returned
  sieve::mpi::RebalanceWorkspace<TestExec> ws;   // (the cases that give one)
  Input(Scenario s, std::uint64_t seed, double keep)
      : w(makeWorld(s, p, seed, keep)), pl(localPlanes(w, rank)),
        mask(toDevice(slice(w.mask, w.begin(rank), w.sizes[rank]))) {}
  /// Nothing moved: every plane still holds this rank's input.
  void expectUntouched() const {
    const std::int64_t n = w.sizes[rank], b = w.begin(rank);
    const auto id = toHost(pl.id);
    const auto x = toHost(pl.x);
    const auto pair = toHost(pl.pair);
    ASSERT_EQ(id.size(), static_cast<std::size_t>(n)); // no collective after it
    ASSERT_EQ(x.size(), static_cast<std::size_t>(n));
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i)
      wrong += id[i] != w.id[b + i] || bitsOf(x[i]) != bitsOf(w.x[b + i]) ||
               pair[i].a != w.pair[b + i].a || pair[i].b != w.pair[b + i].b;
    EXPECT_EQ(wrong, 0) << "rank " << rank << ": a plane changed although the call threw";
  }
};

// --- a Population across the ranks ---------------------------------------------------------

/// This rank's slice of a World in planes of `room` slots; slots past the
/// slice are dead (mask 0) with id -1.
Planes roomyPlanes(const World& w, int rank, std::int64_t room) {
  const std::int64_t n = w.sizes[rank], b = w.begin(rank);
  auto grow = [&](auto v, auto fill) {
    v.resize(room, fill);
    return v;
  };
  return Planes{toDevice(grow(slice(w.mask, b, n), std::uint8_t(0)), "mask"),
                toDevice(grow(slice(w.id, b, n), std::int32_t(-1)), "id"),
                toDevice(grow(slice(w.x, b, n), 0.0), "x"),
                toDevice(grow(slice(w.tag, b, n), std::uint16_t(0)), "tag"),
                toDevice(grow(slice(w.pair, b, n), Pair{0, 0}), "pair")};
}

std::int64_t roomFor(const World& w, int p) {
  std::int64_t room = 4200; // >= 4096: the trigger may fire
  for (const std::int64_t s : w.sizes) room = std::max(room, s);
  return std::max<std::int64_t>(room, static_cast<std::int64_t>(survivors(w).size()) / p + 1);
}

/// The Population's state after a rebalance: born again on `local` samples.
void expectBornAgain(const sieve::Population<TestExec>& pop, std::int64_t local) {
  EXPECT_EQ(static_cast<std::int64_t>(read(pop.count())), local);
  EXPECT_EQ(static_cast<std::int64_t>(read(pop.trigger().span)), local);
  EXPECT_EQ(read(pop.trigger().fire), 0u);
  const auto perm = toHost(pop.perm());
  const auto inv = toHost(pop.inv());
  const auto map = toHost(pop.index_map());
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < perm.size(); ++i)
    wrong += perm[i] != static_cast<std::int32_t>(i) || inv[i] != static_cast<std::int32_t>(i) ||
             (static_cast<std::int64_t>(i) < local && map[i] != static_cast<std::int32_t>(i));
  EXPECT_EQ(wrong, 0) << "perm / inv / index map not the identity";
}

// --- faults: an allocation that fails on one rank -------------------------------------------

/// Fails each of Sieve's allocations of `call` on rank `culprit` in turn:
/// that rank throws std::bad_alloc, every other one std::invalid_argument
/// naming it, none hangs; `untouched` then holds on every rank, and the
/// same call on the same inputs succeeds (`done`).
template <class Make, class Call, class Untouched, class Done>
void failOnOneRank(const char* name, int culprit, Make make, Call call, Untouched untouched,
                   Done done) {
  SCOPED_TRACE(std::string(name) + ", failing on rank " + std::to_string(culprit));
  const int rank = worldRank();
  std::int64_t points = 0;
  {
    auto in = make();
    {
      sieve_fault::Armed counting(rank == culprit ? -1 : INT64_MAX);
      call(in);
      points = counting.seen();
    }
    done(in);
  }
  MPI_Bcast(&points, 1, MPI_INT64_T, culprit, MPI_COMM_WORLD);
  for (std::int64_t k = 0; k < points; ++k) {
    auto in = make();
    std::string what = "nothing";
    {
      sieve_fault::Armed fail(rank == culprit ? k : INT64_MAX);
      try {
        call(in);
      } catch (const std::bad_alloc&) {
        what = "bad_alloc";
      } catch (const std::exception& e) {
        what = e.what();
      }
    }
    if (rank == culprit) {
      EXPECT_EQ(what, "bad_alloc") << "allocation " << k << " of " << points;
    } else {
      EXPECT_NE(what.find("rank " + std::to_string(culprit)), std::string::npos)
          << "allocation " << k << " of " << points << " failed on rank " << culprit
          << "; this rank: '" << what << "'";
    }
    untouched(in);
    call(in);
    done(in);
  }
  if (rank == culprit) std::printf("[faults] %s: %lld allocation(s) failed in turn on rank %d\n",
                                   name, static_cast<long long>(points), culprit);
}

TEST(MpiFaults, AnAllocationFailingOnOneRankMakesEveryRankThrow) {
  const TestExec exec;
  const int p = worldSize();
  for (const int culprit : {0, p - 1}) {
    failOnOneRank(
        "mpi::rebalance", culprit, [] { return Input(Scenario::indivisible, 47, 0.5); },
        [&](Input& in) {
          in.g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, in.mask, in.pl.mask, in.pl.id, in.pl.x,
                                       in.pl.tag, in.pl.pair);
        },
        [](Input& in) { in.expectUntouched(); },
        [&](Input& in) { expectRebalanced(in.w, in.pl, in.g, in.p, in.rank); });
    failOnOneRank(
        "mpi::rebalance (a workspace)", culprit,
        [] {
          Input in(Scenario::random, 48, 0.4);
          in.ws = sieve::mpi::RebalanceWorkspace<TestExec>("faults");
          return in;
        },
        [&](Input& in) {
          in.g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, in.ws, in.mask, in.pl.mask, in.pl.id,
                                       in.pl.x, in.pl.tag, in.pl.pair);
        },
        [](Input& in) { in.expectUntouched(); },
        [&](Input& in) { expectRebalanced(in.w, in.pl, in.g, in.p, in.rank); });
    failOnOneRank(
        "mpi::findall", culprit, [] { return Input(Scenario::random, 49, 0.3); },
        [&](Input& in) {
          in.g = sieve::mpi::findall(exec, MPI_COMM_WORLD, in.mask).selected;
        },
        [](Input& in) { in.expectUntouched(); },
        [&](Input& in) {
          const auto model = survivors(in.w);
          EXPECT_EQ(in.g.total, static_cast<std::int64_t>(model.size()));
        });
    struct CompactIn {
      Input in;
      Local l;
    };
    failOnOneRank(
        "mpi::compact", culprit,
        [] {
          Input in(Scenario::random, 50, 0.5);
          const Local l(in.w, in.rank);
          return CompactIn{std::move(in), l};
        },
        [&](CompactIn& c) {
          c.in.g = sieve::mpi::compact(exec, MPI_COMM_WORLD, c.l.mask, c.l.map, c.l.count,
                                       c.l.scratch);
        },
        [](CompactIn& c) { c.in.expectUntouched(); },
        [&](CompactIn& c) {
          EXPECT_EQ(c.in.g.total, static_cast<std::int64_t>(survivors(c.in.w).size()));
          EXPECT_EQ(static_cast<std::int64_t>(read(c.l.count)), c.in.g.local);
        });
    // A Population's compaction and rebalance (after a reorder: the rebalance
    // gathers through inv): a failure leaves its planes and state as they were.
    struct PopIn {
      World w;
      Planes pl;
      sieve::Population<TestExec> pop;
      sieve::mpi::Global g;
    };
    auto makePop = [] {
      const int p = worldSize(), rank = worldRank();
      PopIn in{makeWorld(Scenario::random, p, 51, 0.5), {}, {}, {}};
      const std::int64_t room = roomFor(in.w, p);
      in.pl = roomyPlanes(in.w, rank, room);
      in.pop = sieve::Population<TestExec>("faults_pop", TestExec(), room, {0.99f});
      return in;
    };
    auto popPlanes = [](PopIn& in) {
      return sieve::planes(in.pl.mask, in.pl.id, in.pl.x, in.pl.tag, in.pl.pair);
    };
    auto popUntouched = [](const PopIn& in) {
      const int rank = worldRank();
      const std::int64_t n = in.w.sizes[rank], b = in.w.begin(rank);
      const auto id = toHost(in.pl.id);
      std::int64_t wrong = 0;
      for (std::int64_t i = 0; i < n; ++i) wrong += id[i] != in.w.id[b + i];
      EXPECT_EQ(wrong, 0) << "rank " << rank << ": a plane changed although the call threw";
    };
    failOnOneRank(
        "mpi::compact (a Population)", culprit, makePop,
        [&](PopIn& in) { in.g = sieve::mpi::compact(exec, MPI_COMM_WORLD, in.pop, in.pl.mask); },
        popUntouched,
        [&](PopIn& in) {
          EXPECT_EQ(in.g.total, static_cast<std::int64_t>(survivors(in.w).size()));
          EXPECT_EQ(static_cast<std::int64_t>(read(in.pop.count())), in.g.local);
        });
    auto compactedPop = [&] {
      PopIn in = makePop();
      sieve::mpi::compact(exec, MPI_COMM_WORLD, in.pop, in.pl.mask);
      in.pop.reorder(exec, popPlanes(in));
      exec.fence();
      return in;
    };
    // (after the reorder the planes hold the samples in another order: the
    // untouched check is on the ids' multiset, which no failed move changes)
    failOnOneRank(
        "mpi::rebalance (a Population)", culprit, compactedPop,
        [&](PopIn& in) { in.g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, in.pop, popPlanes(in)); },
        [](const PopIn& in) {
          const int rank = worldRank();
          const std::int64_t n = in.w.sizes[rank], b = in.w.begin(rank);
          auto id = toHost(in.pl.id);
          std::vector<std::int32_t> want(id.size(), -1);
          for (std::int64_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = in.w.id[b + i];
          std::sort(id.begin(), id.end());
          std::sort(want.begin(), want.end());
          EXPECT_EQ(id, want) << "rank " << rank << ": samples lost or made although the call threw";
        },
        [&](PopIn& in) {
          expectRebalanced(in.w, in.pl, in.g, worldSize(), worldRank());
          expectBornAgain(in.pop, in.g.local);
        });
  }
}

TEST(MpiMisuse, OneRankWithAShortPlaneMakesEveryRankThrow) {
  const TestExec exec;
  const Input in(Scenario::indivisible, 31, 0.5);
  const int p = in.p, rank = in.rank;
  const World& w = in.w;
  Planes pl = in.pl;
  const auto& mask = in.mask;
  const int culprit = p - 1;
  DView<std::int32_t> id = pl.id;
  if (rank == culprit) id = DView<std::int32_t>("short", w.sizes[rank] - 1);
  expectAllThrow([&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, id, pl.x); }, culprit,
                 "plane 0 has extent", "sieve::mpi::rebalance");
  in.expectUntouched();
}

TEST(MpiMisuse, PlaneSetsThatDifferBetweenRanks) {
  const TestExec exec;
  const Input in(Scenario::random, 32, 0.5);
  const int p = in.p, rank = in.rank;
  Planes pl = in.pl;
  const auto& mask = in.mask;
  if (p == 1) return; // one rank cannot disagree with itself
  // The last rank passes a 16-byte plane where the others pass an 8-byte one.
  expectAllThrow(
      [&] {
        if (rank == p - 1) sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, pl.pair);
        else sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, pl.x);
      },
      -1, "", "different plane sets");
  // One plane more on rank 0.
  expectAllThrow(
      [&] {
        if (rank == 0) sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, pl.x, pl.tag);
        else sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, pl.x);
      },
      -1, "", "different plane sets");
  in.expectUntouched();
}

TEST(MpiMisuse, OverlappingPlanesAndAPlaneThatCannotGrow) {
  const TestExec exec;
  const Input in(Scenario::one_rank_holds_all, 33, 1.0);
  const int p = in.p, rank = in.rank;
  Planes pl = in.pl;
  const auto& mask = in.mask;
  DView<double> alias = pl.x;
  // Only the last rank has samples: empty planes share no byte.
  expectAllThrow([&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.x, alias); }, p - 1,
                 "overlaps", "sieve::mpi::rebalance");
  if (p == 1) return; // one rank holds all: nothing must grow
  // Rank 0 holds nothing and must receive ceil(total / p) samples into a plane
  // that does not own its memory.
  DView<std::int32_t> owner("owner", 1);
  Kokkos::View<std::int32_t*, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>> id(
      rank == p - 1 ? pl.id.data() : owner.data(), rank == p - 1 ? pl.id.extent(0) : 0);
  expectAllThrow([&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, id); }, -1, "",
                 "cannot grow");
}

TEST(MpiMisuse, ACompactionArgumentRejectedOnOneRank) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const World w = makeWorld(Scenario::indivisible, p, 34, 0.5);
  const Local l(w, rank, rank == 0 ? 8 : SIZE_MAX); // a short scratch on rank 0
  const auto& mask = l.mask;
  expectAllThrow(
      [&] { sieve::mpi::compact(exec, MPI_COMM_WORLD, mask, l.map, l.count, l.scratch); }, 0,
      "scratch holds 8 bytes", "sieve::");
  // findall: a block size that is not a power of two on the last rank.
  const sieve::ScanScatter alg{rank == p - 1 ? 3 : 256, 4};
  expectAllThrow([&] { sieve::mpi::findall(exec, MPI_COMM_WORLD, mask, alg); }, p - 1, "block_size",
                 "sieve::");
}

/// The index form mpi::findall(exec, comm, n, pred(i)): n differs per rank
/// (0 on rank 1), global linear indices; with a workspace the result is its
/// kept buffer, and an int32 into() is refused (mpi::findall returns a View).
TEST(MpiFindall, IndexForm) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const auto sizeOf = [](int r) { return r == 1 ? std::int64_t(0) : std::int64_t(1000 + 37 * r); };
  std::int64_t begin = 0, total = 0;
  for (int r = 0; r < p; ++r) {
    if (r < rank) begin += sizeOf(r);
    total += sizeOf(r);
  }
  const std::int64_t n = sizeOf(rank);
  std::vector<double> vh(static_cast<std::size_t>(n));
  std::vector<std::int64_t> want;
  std::int64_t selectedBefore = 0, selectedTotal = 0;
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < sizeOf(r); ++i) {
      const double v = ((i * 7919 + r * 13) % 11) - 3.0;
      const bool s = i % 3 == 0 || v < 0.0;
      if (r == rank) {
        vh[static_cast<std::size_t>(i)] = v;
        if (s) want.push_back(begin + i);
      }
      selectedBefore += s && r < rank;
      selectedTotal += s;
    }
  const ThirdOrNegative pred{toDevice(vh, "v")};
  const auto r = sieve::mpi::findall(exec, MPI_COMM_WORLD, n, pred);
  EXPECT_EQ(toHost(r.indices), want);
  EXPECT_EQ(r.elements, total);
  EXPECT_EQ(r.element_offset, begin);
  EXPECT_EQ(r.selected.local, static_cast<std::int64_t>(want.size()));
  EXPECT_EQ(r.selected.offset, selectedBefore);
  EXPECT_EQ(r.selected.total, selectedTotal);
  const sieve::FindallWorkspace<TestExec> ws(exec, n);
  for (int rep = 0; rep < 2; ++rep) {
    const auto w = sieve::mpi::findall("idx", exec, MPI_COMM_WORLD, n, pred, ws);
    EXPECT_EQ(toHost(w.indices), want);
    EXPECT_EQ(w.selected.total, selectedTotal);
  }
  // A negative n on the last rank: every rank throws.
  expectAllThrow([&] { sieve::mpi::findall(exec, MPI_COMM_WORLD, rank == p - 1 ? -1 : n, pred); },
                 p - 1, "negative", "sieve::");
}

TEST(MpiMisuse, ANullCommunicator) {
  const TestExec exec;
  DView<std::uint8_t> mask("mask", 4);
  DView<std::int32_t> id("id", 4);
  EXPECT_THROW(sieve::mpi::rebalance(exec, MPI_COMM_NULL, mask, id), std::invalid_argument);
  EXPECT_THROW(sieve::mpi::findall(exec, MPI_COMM_NULL, mask), std::invalid_argument);
}

// --- the mask's tail after a rebalance: no ghost samples ------------------------------------

/// The case a transport mini-app hit: ranks of 4096 samples, rank 0 full, the
/// others holding 100. After the rebalance the next compaction of the mask
/// (a plane) counts exactly the samples the rank holds, on every rank.
TEST(MpiRebalance, TheMaskTailReadsDeadSoTheNextCompactionCountsNoGhosts) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const std::int64_t n = 4096;
  for (const auto polarity : {sieve::MaskPolarity::keep, sieve::MaskPolarity::drop}) {
    const bool drop = polarity == sieve::MaskPolarity::drop;
    const std::uint8_t live = drop ? 0 : 5, dead = drop ? 7 : 0;
    std::vector<std::uint8_t> m(n, dead);
    std::vector<std::int32_t> ids(n);
    for (std::int64_t i = 0; i < n; ++i) {
      ids[i] = static_cast<std::int32_t>(rank * n + i);
      if (rank == 0 || i % 40 == 0) m[i] = live; // rank >= 1: 103 of 4096
    }
    DView<std::uint8_t> mask = toDevice(m, "mask");
    DView<std::int32_t> id = toDevice(ids, "id");
    const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, polarity, mask, id);
    const std::int64_t total = n + (p - 1) * 103;
    EXPECT_EQ(g.total, total);
    EXPECT_EQ(g.local, shareBegin(total, p, rank + 1) - shareBegin(total, p, rank));
    const auto after = toHost(mask);
    std::int64_t wrong = 0;
    for (std::size_t k = 0; k < after.size(); ++k)
      wrong += static_cast<std::int64_t>(k) < g.local ? after[k] != live
                                                      : (after[k] != 0) != drop; // reads dead
    EXPECT_EQ(wrong, 0) << "rank " << rank << ": mask bytes past local must read dead";
    DView<std::int32_t> map("map", mask.extent(0));
    Word count("count");
    Bytes scratch("scratch", sieve::compact_scratch_bytes(mask.extent(0)));
    sieve::compact(exec, mask, polarity, map, count, scratch);
    EXPECT_EQ(static_cast<std::int64_t>(read(count)), g.local) << "ghost samples on rank " << rank;
  }
}

TEST(MpiPopulation, RebalanceMovesInSampleOrderWhateverTheReorders) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  sieve::mpi::RebalanceWorkspace<TestExec> ws("pop_ws");
  int fired = 0;
  forEachWorld(900, [&](const World& w) {
    for (const bool reorder : {false, true}) {
      SCOPED_TRACE(reorder ? "after a reorder" : "no reorder");
      const std::int64_t room = roomFor(w, p);
      Planes pl = roomyPlanes(w, rank, room);
      sieve::Population<TestExec> pop("mpi_pop", exec, room, {0.99f});
      const auto planes = sieve::planes(pl.mask, pl.id, pl.x, pl.tag, pl.pair);
      const auto c = sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, pl.mask);
      std::int64_t mine = 0;
      for (std::int64_t i = 0; i < w.sizes[rank]; ++i) mine += w.mask[w.begin(rank) + i] != 0;
      EXPECT_EQ(c.local, mine);
      EXPECT_EQ(c.total, static_cast<std::int64_t>(survivors(w).size()));
      if (reorder) {
        fired += read(pop.trigger().fire) != 0;
        pop.reorder(exec, planes);
      }
      const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, ws, pop, planes);
      expectRebalanced(w, pl, g, p, rank);
      expectBornAgain(pop, g.local);
      const auto mask = toHost(pl.mask);
      std::int64_t ghosts = 0;
      for (std::int64_t k = g.local; k < room; ++k) ghosts += mask[k] != 0;
      EXPECT_EQ(ghosts, 0);
      // The next steps see exactly the moved samples; a restore keeps them.
      EXPECT_EQ(static_cast<std::int64_t>(pop.compact(exec, pl.mask)), g.local);
      pop.reorder(exec, planes);
      pop.restore(exec, planes);
      expectRebalanced(w, pl, g, p, rank);
    }
  });
  EXPECT_GT(fired, 0) << "no reorder fired: the gather through inv went untested";
}

/// Steps of kill + spawn + compact + reorder + rebalance of a Population
/// against a model of the global set (samples by id, ordered by where they
/// stand), at every rank count.
TEST(MpiPopulation, StepsWithSpawnsAndRebalancesStayTheModel) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  // Every rank keeps more than 4096 samples: the trigger (theta 0.99) fires
  // at every step, so spawned samples land in slots out of sample-id order.
  const World w = makeWorld(Scenario::large, p, 515, 0.8);
  const std::int64_t room = 12000;
  Planes pl = roomyPlanes(w, rank, room);
  sieve::Population<TestExec> pop("steps", exec, room, {0.99f});
  const auto planes = sieve::planes(pl.mask, pl.id, pl.x, pl.tag, pl.pair);
  sieve::mpi::RebalanceWorkspace<TestExec> ws;
  sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, pl.mask);
  // The model: the global survivors' ids in global order.
  std::vector<std::int32_t> model;
  for (const std::int64_t s : survivors(w)) model.push_back(w.id[s]);
  std::int32_t nextId = 1 << 20;
  DView<std::int32_t> slots("slots", 64);
  for (int step = 0; step < 4; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    // Each rank kills its samples whose id % 5 == step and spawns 7 + rank
    // new ones (ids from nextId, by rank).
    auto mask = toHost(pl.mask);
    auto id = toHost(pl.id);
    for (std::int64_t i = 0; i < room; ++i)
      if (mask[i] != 0 && id[i] % 5 == step) mask[i] = 0;
    Kokkos::deep_copy(pl.mask, toDevice(mask));
    sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, pl.mask);
    if (step < 3) EXPECT_EQ(read(pop.trigger().fire), 1u); // then fewer than 4096 are left
    pop.reorder(exec, planes);
    const std::int64_t k = 7 + rank;
    pop.spawn(exec, k, slots);
    const auto got = toHost(slots);
    id = toHost(pl.id);
    for (std::int64_t i = 0; i < k; ++i) id[got[i]] = nextId + rank * 100 + static_cast<int>(i);
    Kokkos::deep_copy(pl.id, toDevice(id));
    sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, pl.mask); // the children are live
    // This rank's survivors in sample-id order (perm: slot -> sample id): the
    // order a Population's rebalance moves them in.
    const auto perm = toHost(pop.perm());
    mask = toHost(pl.mask);
    std::vector<std::pair<std::int32_t, std::int32_t>> bySample;
    for (std::int64_t i = 0; i < room; ++i)
      if (mask[i] != 0) bySample.emplace_back(perm[i], id[i]);
    std::sort(bySample.begin(), bySample.end());
    std::vector<std::int32_t> mine;
    for (const auto& e : bySample) mine.push_back(e.second);
    const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, ws, pop, planes);
    const auto now = toHost(pl.id);
    // Both gathered on every rank: the moved slices and the expected order.
    auto gather = [&](const std::vector<std::int32_t>& v, int count) {
      std::vector<int> counts(p), displs(p, 0);
      MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
      for (int q = 1; q < p; ++q) displs[q] = displs[q - 1] + counts[q - 1];
      std::vector<std::int32_t> all(static_cast<std::size_t>(displs[p - 1] + counts[p - 1]));
      MPI_Allgatherv(v.data(), count, MPI_INT32_T, all.data(), counts.data(), displs.data(),
                     MPI_INT32_T, MPI_COMM_WORLD);
      return all;
    };
    const auto all = gather(now, static_cast<int>(g.local));
    EXPECT_EQ(all, gather(mine, static_cast<int>(mine.size())))
        << "the ranks' survivors in sample-id order, one rank after another";
    // The model: the old survivors keep their global order, every spawned
    // sample arrives once.
    std::vector<std::int32_t> kept;
    for (const std::int32_t v : model)
      if (v % 5 != step) kept.push_back(v);
    std::vector<std::int32_t> old, spawned;
    for (const std::int32_t v : all) (v >= nextId ? spawned : old).push_back(v);
    EXPECT_EQ(old, kept) << "the survivors keep their global order";
    std::sort(spawned.begin(), spawned.end());
    std::vector<std::int32_t> want;
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < 7 + q; ++i) want.push_back(nextId + q * 100 + i);
    EXPECT_EQ(spawned, want) << "every spawned sample arrived once";
    expectBornAgain(pop, g.local);
    model = all;
    nextId += 1 << 16;
  }
}

TEST(MpiMisuse, APopulationWithoutRoomOrMaskOrCompaction) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const World w = makeWorld(Scenario::one_rank_holds_all, p, 616, 0.7);
  // Each rank's population has exactly its slice's slots: rank 0 holds none
  // (when p > 1) and has no room for its share.
  {
    Planes pl = localPlanes(w, rank);
    sieve::Population<TestExec> pop("tight", exec, w.sizes[rank]);
    const auto planes = sieve::planes(pl.mask, pl.id, pl.x);
    sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, pl.mask);
    if (p > 1) {
      expectAllThrow([&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, planes); }, -1, "",
                     "a Population never grows");
      const auto id = toHost(pl.id);
      EXPECT_EQ(id, slice(w.id, w.begin(rank), w.sizes[rank])) << "nothing moved";
    }
  }
  const std::int64_t room = roomFor(w, p);
  Planes pl = roomyPlanes(w, rank, room);
  // No compaction yet on the last rank.
  {
    sieve::Population<TestExec> pop("late", exec, room);
    if (rank != p - 1) pop.compact(exec, pl.mask);
    expectAllThrow(
        [&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(pl.mask, pl.id)); },
        p - 1, "call compact first", "sieve::mpi::rebalance");
  }
  // The plane set without the mask on rank 0.
  {
    sieve::Population<TestExec> pop("maskless", exec, room);
    pop.compact(exec, pl.mask);
    expectAllThrow(
        [&] {
          if (rank == 0) sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(pl.id));
          else sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(pl.mask, pl.id));
        },
        0, "must hold the population's mask", "sieve::mpi::rebalance");
  }
  // An empty handle on rank 0: every rank throws at once (the handle is
  // checked after the handshake, inside the agreed local step).
  {
    sieve::Population<TestExec> pop("full", exec, room), none;
    pop.compact(exec, pl.mask);
    expectAllThrow(
        [&] {
          sieve::mpi::rebalance("lbl", exec, MPI_COMM_WORLD, rank == 0 ? none : pop,
                                sieve::planes(pl.mask, pl.id));
        },
        0, "empty Population handle", "sieve::");
  }
  // A spawn on the last rank not yet compacted: its slots must not move.
  {
    sieve::Population<TestExec> pop("spawned", exec, room);
    pop.compact(exec, pl.mask);
    DView<std::int32_t> slots("slots", 3);
    if (rank == p - 1) pop.spawn(exec, 3, slots);
    expectAllThrow(
        [&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(pl.mask, pl.id)); },
        p - 1, "spawned since the last compaction", "sieve::mpi::rebalance");
  }
  // Another plane set than the reorders moved, on the last rank.
  {
    sieve::Population<TestExec> pop("moved", exec, room, {0.99f});
    pop.compact(exec, pl.mask);
    pop.reorder(exec, sieve::planes(pl.mask, pl.id, pl.x));
    expectAllThrow(
        [&] {
          if (rank == p - 1)
            sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(pl.mask, pl.id));
          else
            sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(pl.mask, pl.id, pl.x));
        },
        p - 1, "another set of planes", "sieve::mpi::rebalance");
  }
}

/// Ranks in different sieve::mpi calls: every rank throws naming the calls,
/// none hangs or aborts.
TEST(MpiMisuse, RanksInDifferentCallsAllThrow) {
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  if (p == 1) return; // one rank is always in one call
  const World w = makeWorld(Scenario::indivisible, p, 717, 0.5);
  Local l(w, rank);
  Planes pl = localPlanes(w, rank);
  const std::int64_t room = roomFor(w, p);
  Planes roomy = roomyPlanes(w, rank, room);
  sieve::Population<TestExec> pop("calls", exec, room);
  pop.compact(exec, roomy.mask);
  auto compact = [&] {
    sieve::mpi::compact(exec, MPI_COMM_WORLD, l.mask, l.map, l.count, l.scratch);
  };
  auto findall = [&] { sieve::mpi::findall(exec, MPI_COMM_WORLD, l.mask); };
  auto rebalance = [&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, l.mask, pl.id, pl.x); };
  auto popCompact = [&] { sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, roomy.mask); };
  expectAllThrow([&] { rank == 0 ? compact() : rebalance(); }, -1, "",
                 "in different sieve::mpi calls");
  expectAllThrow([&] { rank == p - 1 ? findall() : compact(); }, -1, "",
                 "in different sieve::mpi calls");
  expectAllThrow([&] { rank == 0 ? popCompact() : compact(); }, -1, "",
                 "sieve::mpi::compact (of a Population)");
  auto popRebalance = [&] {
    sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, sieve::planes(roomy.mask, roomy.id));
  };
  expectAllThrow([&] { rank == p - 1 ? popRebalance() : rebalance(); }, -1, "",
                 "sieve::mpi::rebalance (of a Population)");
  // Nothing moved, and the communicator still works.
  const auto id = toHost(pl.id);
  EXPECT_EQ(id, slice(w.id, w.begin(rank), w.sizes[rank]));
  const auto g = sieve::mpi::compact(exec, MPI_COMM_WORLD, l.mask, l.map, l.count, l.scratch);
  EXPECT_EQ(g.total, static_cast<std::int64_t>(survivors(w).size()));
}

// --- rank-2 planes: rows move whole ------------------------------------------------------

using Rows3 = Kokkos::View<double* [3], Kokkos::LayoutRight, TestDevice>;
using Cols3 = Kokkos::View<double* [3], Kokkos::LayoutLeft, TestDevice>;
using Ints = Kokkos::View<int**, Kokkos::LayoutRight, TestDevice>;

/// Row contents of global sample g: every value a function of (g, column).
double rowValue(std::int64_t g, int c) { return static_cast<double>(g) * 4.0 + c + 0.125; }
int rowInt(std::int64_t g, int c) { return static_cast<int>(g * 5 + c); }

/// A rank-2 plane's rows from / to a row-major host vector (any layout: a
/// LayoutRight copy on the device between them).
template <class V>
void setRows(const V& v, const std::vector<typename V::non_const_value_type>& flat) {
  using T = typename V::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(v.extent(0)),
                     cols = static_cast<std::int64_t>(v.extent(1));
  const DView<T> tmp = toDevice(flat);
  Kokkos::parallel_for(
      "test::set_rows", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (std::int64_t c = 0; c < cols; ++c) v(i, c) = tmp(i * cols + c);
      });
  Kokkos::fence();
}
template <class V>
std::vector<typename V::non_const_value_type> getRows(const V& v) {
  using T = typename V::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(v.extent(0)),
                     cols = static_cast<std::int64_t>(v.extent(1));
  DView<T> tmp("rows", static_cast<std::size_t>(n * cols));
  Kokkos::parallel_for(
      "test::get_rows", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (std::int64_t c = 0; c < cols; ++c) tmp(i * cols + c) = v(i, c);
      });
  return toHost(tmp);
}

/// Rows for samples [b, b + n) (rows past n: `pad`).
template <class T, class F>
std::vector<T> rowsFor(std::int64_t b, std::int64_t n, std::int64_t extent, int cols, F&& f,
                       T pad) {
  std::vector<T> out(static_cast<std::size_t>(extent * cols), pad);
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < cols; ++c) out[static_cast<std::size_t>(i * cols + c)] = f(b + i, c);
  return out;
}

/// Samples [0, local) of the three rank-2 planes hold global survivors
/// offset + k of the model, whole rows.
template <class P, class L, class K>
void expectRows(const World& w, const sieve::mpi::Global& g, const P& pos, const L& vel,
                const K& k) {
  const std::vector<std::int64_t> model = survivors(w);
  EXPECT_GE(static_cast<std::int64_t>(pos.extent(0)), g.local);
  EXPECT_GE(static_cast<std::int64_t>(vel.extent(0)), g.local);
  EXPECT_GE(static_cast<std::int64_t>(k.extent(0)), g.local);
  EXPECT_EQ(k.extent(1), 5u);
  const auto p = getRows(pos), v = getRows(vel);
  const auto r = getRows(k);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < g.local && i < static_cast<std::int64_t>(pos.extent(0)); ++i) {
    const std::int64_t s = model[g.offset + i];
    for (int c = 0; c < 3; ++c)
      wrong += bitsOf(p[i * 3 + c]) != bitsOf(rowValue(s, c)) ||
               bitsOf(v[i * 3 + c]) != bitsOf(-rowValue(s, c));
    for (int c = 0; c < 5; ++c) wrong += r[i * 5 + c] != rowInt(s, c);
  }
  EXPECT_EQ(wrong, 0) << "rows of rank " << worldRank() << " differ from the model";
}

TEST(MpiRebalance, Rank2PlanesMoveWholeRows) {
  // View<double* [3]> LayoutRight and LayoutLeft and a View<int**> of 5
  // columns, with rank-1 planes: every row moves with its sample, and a
  // plane too short for its share grows keeping its row length (LayoutLeft:
  // the columns move apart).
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  forEachWorld(1100, [&](const World& w) {
    const std::int64_t n = w.sizes[rank], b = w.begin(rank);
    Planes pl = localPlanes(w, rank);
    Rows3 pos("pos", n);
    Cols3 vel("vel", n);
    Ints k("k", n, 5);
    setRows(pos, rowsFor<double>(b, n, n, 3, rowValue, 0.0));
    setRows(vel, rowsFor<double>(
                     b, n, n, 3, [](std::int64_t g, int c) { return -rowValue(g, c); }, 0.0));
    setRows(k, rowsFor<int>(b, n, n, 5, rowInt, 0));
    const DView<std::uint8_t> mask = pl.mask;
    const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.mask, pos, pl.id, vel, pl.x,
                                         k, pl.tag, pl.pair);
    expectRebalanced(w, pl, g, p, rank);
    expectRows(w, g, pos, vel, k);
  });
}

TEST(MpiRebalance, Rank2StridedPlanesWithRoom) {
  // Columns 1..3 of a LayoutRight (room, 5) View as a LayoutStride plane (it
  // cannot grow: room for the share on every rank); the other columns keep
  // their bytes.
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  const World w = makeWorld(Scenario::indivisible, p, 1201, 0.6);
  const std::int64_t n = w.sizes[rank], b = w.begin(rank), room = roomFor(w, p);
  Kokkos::View<double**, Kokkos::LayoutRight, TestDevice> parent("parent", room, 5);
  setRows(parent,
          rowsFor<double>(
              b, n, room, 5, [](std::int64_t g, int c) { return rowValue(g, c) - 1.0; }, -7.0));
  Kokkos::View<double**, Kokkos::LayoutStride, TestDevice> cols =
      Kokkos::subview(parent, Kokkos::ALL, std::make_pair(1, 4));
  const DView<std::uint8_t> mask = toDevice(slice(w.mask, b, n));
  DView<std::int32_t> id = toDevice(slice(w.id, b, n));
  const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, cols, id);
  EXPECT_EQ(cols.data(), &parent(0, 1)) << "a LayoutStride plane is never reallocated";
  const auto model = survivors(w);
  const auto all = getRows(parent);
  const auto ids = toHost(id);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < g.local; ++i) {
    const std::int64_t s = model[g.offset + i];
    wrong += ids[i] != w.id[s];
    for (int c = 1; c < 4; ++c) wrong += bitsOf(all[i * 5 + c]) != bitsOf(rowValue(s, c) - 1.0);
  }
  for (std::int64_t i = 0; i < room; ++i)
    for (const int c : {0, 4}) {
      const double want = i < n ? rowValue(b + i, c) - 1.0 : -7.0;
      wrong += bitsOf(all[i * 5 + c]) != bitsOf(want);
    }
  EXPECT_EQ(wrong, 0) << "rank " << rank;
}

TEST(MpiPopulation, Rank2PlanesRebalanceAfterAReorder) {
  // A Population's plane set with rank-2 planes: compact, reorder (the
  // trigger fires), rebalance in sample-id order, born again.
  const TestExec exec;
  const int p = worldSize(), rank = worldRank();
  int fired = 0;
  forEachWorld(1300, [&](const World& w) {
    const std::int64_t n = w.sizes[rank], b = w.begin(rank), room = roomFor(w, p);
    Planes pl = roomyPlanes(w, rank, room);
    Rows3 pos("pos", room);
    Cols3 vel("vel", room);
    Ints k("k", room, 5);
    setRows(pos, rowsFor<double>(b, n, room, 3, rowValue, 0.0));
    setRows(vel, rowsFor<double>(
                     b, n, room, 3, [](std::int64_t g, int c) { return -rowValue(g, c); }, 0.0));
    setRows(k, rowsFor<int>(b, n, room, 5, rowInt, -1));
    sieve::Population<TestExec> pop("rank2", exec, room, {0.99f});
    const auto planes = sieve::planes(pos, pl.mask, vel, pl.id, k);
    sieve::mpi::compact(exec, MPI_COMM_WORLD, pop, pl.mask);
    fired += read(pop.trigger().fire) != 0;
    pop.reorder(exec, planes);
    const auto g = sieve::mpi::rebalance(exec, MPI_COMM_WORLD, pop, planes);
    expectRows(w, g, pos, vel, k);
    expectBornAgain(pop, g.local);
    const auto ids = toHost(pl.id);
    const auto model = survivors(w);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < g.local; ++i) wrong += ids[i] != w.id[model[g.offset + i]];
    EXPECT_EQ(wrong, 0);
  });
  EXPECT_GT(fired, 0) << "no reorder fired";
}

TEST(MpiMisuse, Rank2PlanesOfAnotherRowOrExtent) {
  const TestExec exec;
  const Input in(Scenario::indivisible, 34, 0.5);
  const int p = in.p, rank = in.rank;
  const std::int64_t n = in.w.sizes[rank];
  Planes pl = in.pl;
  const auto& mask = in.mask;
  // One rank short of rows in its rank-2 plane.
  Ints k("k", rank == p - 1 ? n - 1 : n, 5);
  expectAllThrow([&] { sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, k); }, p - 1,
                 "plane 1 has extent", "sieve::mpi::rebalance");
  in.expectUntouched();
  if (p == 1) return;
  // The same element size but another row length on the last rank.
  Ints k5("k5", n, 5), k4("k4", n, 4);
  expectAllThrow(
      [&] {
        if (rank == p - 1) sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, k4);
        else sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, k5);
      },
      -1, "", "different plane sets");
  // A rank-1 plane where the others pass a rank-2 plane of one column.
  Kokkos::View<double* [1], Kokkos::LayoutRight, TestDevice> one("one", n);
  expectAllThrow(
      [&] {
        if (rank == 0) sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, pl.x);
        else sieve::mpi::rebalance(exec, MPI_COMM_WORLD, mask, pl.id, one);
      },
      -1, "", "different plane sets");
  in.expectUntouched();
}

} // namespace
