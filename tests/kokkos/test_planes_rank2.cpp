// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — rank-2 planes (a row per sample) in sieve::reorder /
// sieve::restore, sieve::Population and sieve::Graph: View<double* [3]>
// LayoutRight (interleaved columns: the portable face), LayoutLeft (one
// contiguous column each: the native face where there is one), View<int**>
// with extent(1) = 5, a LayoutStride subview, 16-byte rows, mixed with rank-1
// planes; against the sequential reference (tests/common/reference.hpp, a
// rank-2 plane as one raw row per sample), restore back to the original
// bytes, the face each set takes, the scratch rule, and the misuse.
#include "../common/cases.hpp"
#include "../common/expect.hpp"
#include "../common/reference.hpp"
#include "backend.hpp"
#include "tools_log.hpp"

#include <sieve/graph.hpp>
#include <sieve/population.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace sieve_test;

using Row3 = Kokkos::View<double* [3], Kokkos::LayoutRight, TestDevice>;
using Col3 = Kokkos::View<double* [3], Kokkos::LayoutLeft, TestDevice>;
using Int2 = Kokkos::View<int**, Kokkos::LayoutRight, TestDevice>;

/// A rank-2 View's rows as raw bytes (sample i at i * row), through a
/// LayoutRight copy made on the device (any layout, any backend).
template <class V>
std::vector<unsigned char> rowsToHost(const V& v) {
  using T = typename V::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(v.extent(0));
  const std::int64_t cols = static_cast<std::int64_t>(v.extent(1));
  Kokkos::View<T**, Kokkos::LayoutRight, TestDevice> tmp("rows", n, cols);
  Kokkos::parallel_for(
      "test::rows_down", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (std::int64_t c = 0; c < cols; ++c) tmp(i, c) = v(i, c);
      });
  auto h = Kokkos::create_mirror_view(tmp);
  Kokkos::deep_copy(h, tmp);
  std::vector<unsigned char> out(static_cast<std::size_t>(n * cols) * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), h.data(), out.size());
  return out;
}

template <class V>
void rowsToDevice(const V& v, const std::vector<unsigned char>& bytes) {
  using T = typename V::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(v.extent(0));
  const std::int64_t cols = static_cast<std::int64_t>(v.extent(1));
  Kokkos::View<T**, Kokkos::LayoutRight, TestDevice> tmp("rows", n, cols);
  auto h = Kokkos::create_mirror_view(tmp);
  if (!bytes.empty()) std::memcpy(h.data(), bytes.data(), bytes.size());
  Kokkos::deep_copy(tmp, h);
  Kokkos::parallel_for(
      "test::rows_up", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        for (std::int64_t c = 0; c < cols; ++c) v(i, c) = tmp(i, c);
      });
  Kokkos::fence();
}

template <class V>
std::vector<unsigned char> flatToHost(const V& v) {
  const auto h = toHost(v);
  std::vector<unsigned char> out(h.size() * sizeof(typename V::non_const_value_type));
  if (!out.empty()) std::memcpy(out.data(), h.data(), out.size());
  return out;
}

template <class V>
void flatToDevice(const V& v, const std::vector<unsigned char>& bytes) {
  auto h = Kokkos::create_mirror_view(v);
  if (!bytes.empty()) std::memcpy(h.data(), bytes.data(), bytes.size());
  Kokkos::deep_copy(v, h);
}

/// A plane of either rank, as its raw rows.
template <class V>
std::vector<unsigned char> bytesOf(const V& v) {
  if constexpr (V::rank == 1) return flatToHost(v);
  else return rowsToHost(v);
}
template <class V>
void upload(const V& v, const std::vector<unsigned char>& b) {
  if constexpr (V::rank == 1) flatToDevice(v, b);
  else rowsToDevice(v, b);
}
template <class V>
std::uint32_t rowOf(const V& v) {
  std::uint32_t r = sizeof(typename V::non_const_value_type);
  if constexpr (V::rank == 2) r *= static_cast<std::uint32_t>(v.extent(1));
  return r;
}

std::vector<std::int32_t> iota(std::int64_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

/// A scratch of exactly `bytes` bytes with guard bytes behind it: a reorder
/// that writes past its scratch shows.
struct GuardedScratch {
  static constexpr std::size_t kGuard = 256;
  Bytes all;
  Kokkos::View<unsigned char*, TestDevice> view;
  explicit GuardedScratch(std::size_t bytes) : all("scratch", bytes + kGuard) {
    Kokkos::deep_copy(all, static_cast<unsigned char>(0xA5));
    view = Kokkos::subview(all, std::make_pair(std::size_t(0), bytes));
  }
  bool guardIntact() const {
    const auto h = toHost(all);
    for (std::size_t i = view.extent(0); i < h.size(); ++i)
      if (h[i] != 0xA5) return false;
    return true;
  }
};

/// Reorder then restore `planes...` (the mask first) against the reference;
/// returns the face region the reorder ran in.
template <class... Planes>
std::string reorderRestore(std::int64_t n, const std::vector<std::uint8_t>& maskHost, bool drop,
                           std::uint32_t widest, const DView<std::uint8_t>& mask,
                           const Planes&... planes) {
  // Contents: every byte a function of (plane, sample, byte).
  RefState ref;
  ref.planes.push_back(RefPlane{std::vector<unsigned char>(maskHost.begin(), maskHost.end()), 1});
  ref.maskPlane = 0;
  std::uint32_t p = 1;
  (
      [&](const auto& v) {
        auto b = planeBytes(n, rowOf(v), p++);
        upload(v, b);
        ref.planes.push_back(RefPlane{std::move(b), rowOf(v)});
      }(planes),
      ...);
  flatToDevice(mask, ref.planes[0].bytes);
  const RefState original = ref;
  ref.perm = ref.inv = iota(n);
  ref.map.assign(static_cast<std::size_t>(n), -1);
  ref.span = static_cast<std::uint32_t>(n);

  DView<std::int32_t> perm = toDevice(iota(n)), inv = toDevice(iota(n));
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  GuardedScratch scratch(sieve::reorder_scratch_bytes(n, widest));
  const TestExec exec;
  const sieve::MaskPolarity pol = drop ? sieve::MaskPolarity::drop : sieve::MaskPolarity::keep;
  std::string face;
  {
    ToolsLog log;
    sieve::reorder(exec, mask, pol, perm, inv, map, count, span, Word(), scratch.view, mask,
                   planes...);
    exec.fence();
    for (const auto& e : ToolsLog::events())
      if (e.rfind("region sieve::reorder[", 0) == 0) face = e;
  }
  refReorder(ref, n, drop, false);
  EXPECT_TRUE(scratch.guardIntact()) << "the reorder wrote past its scratch";
  EXPECT_EQ(read(count), ref.count);
  EXPECT_EQ(read(span), ref.span);
  EXPECT_EQ(toHost(perm), ref.perm);
  EXPECT_EQ(toHost(inv), ref.inv);
  const auto gotMap = toHost(map);
  std::int64_t badMap = 0;
  for (std::uint32_t k = 0; k < ref.count; ++k) badMap += gotMap[k] != ref.map[k];
  EXPECT_EQ(badMap, 0) << "index map";
  EXPECT_TRUE(flatToHost(mask) == ref.planes[0].bytes) << "the mask";
  p = 1;
  (
      [&](const auto& v) {
        EXPECT_TRUE(bytesOf(v) == ref.planes[p].bytes) << "plane " << p << " after the reorder";
        ++p;
      }(planes),
      ...);

  // Restore (the planes in another order): the original bytes back.
  sieve::restore(exec, perm, inv, scratch.view, planes..., mask);
  exec.fence();
  refRestore(ref);
  EXPECT_TRUE(scratch.guardIntact()) << "the restore wrote past its scratch";
  EXPECT_EQ(toHost(perm), iota(n));
  EXPECT_EQ(toHost(inv), iota(n));
  EXPECT_TRUE(flatToHost(mask) == original.planes[0].bytes) << "the mask after the restore";
  p = 1;
  (
      [&](const auto& v) {
        EXPECT_TRUE(bytesOf(v) == ref.planes[p].bytes) << "plane " << p << " vs the reference";
        EXPECT_TRUE(bytesOf(v) == original.planes[p].bytes) << "plane " << p << " not restored";
        ++p;
      }(planes),
      ...);
  return face;
}

std::string regionOf(const char* face) {
  return std::string("region sieve::reorder[") + face + "]";
}

} // namespace

TEST(Rank2Planes, ReorderAndRestoreMatchTheReference) {
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(50021)}) {
    for (const MaskKind kind :
         {MaskKind::Random50, MaskKind::All, MaskKind::None, MaskKind::Alternating}) {
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n " + std::to_string(n) + " kind " + std::to_string(int(kind)) +
                     (drop ? " drop" : " keep"));
        const auto host = makeMask(kind, n);
        DView<std::uint8_t> mask("mask", n);
        Row3 xr("xr", n);  // 24-byte rows: 3 interleaved columns
        Col3 xl("xl", n);  // 3 contiguous columns
        Int2 k("k", n, 5); // 20-byte rows, run-time extent(1)
        Kokkos::View<float**, Kokkos::LayoutRight, TestDevice> wide("wide", n, 4);
        // Columns 1 and 2 of `wide` as a LayoutStride plane (8-byte rows, 16 apart).
        const Kokkos::View<float**, Kokkos::LayoutStride, TestDevice> s =
            Kokkos::subview(wide, Kokkos::ALL, std::make_pair(1, 3));
        Kokkos::View<float* [2], Kokkos::LayoutRight, TestDevice> f2("f2", n); // 8-byte rows
        DView<double> d("d", n);
        // The columns of `wide` outside the subview: they must not move.
        std::vector<unsigned char> wideBytes = planeBytes(n, 16, 99);
        rowsToDevice(wide, wideBytes);
        reorderRestore(n, host, drop, 8, mask, xr, d, xl, k, s, f2);
        const auto after = rowsToHost(wide);
        std::int64_t moved = 0;
        for (std::int64_t i = 0; i < n; ++i)
          for (const int c : {0, 3})
            moved += std::memcmp(&after[i * 16 + c * 4], &wideBytes[i * 16 + c * 4], 4) != 0;
        EXPECT_EQ(moved, 0) << "columns outside the LayoutStride plane changed";
      }
    }
  }
}

TEST(Rank2Planes, ContiguousWordPlanesTakeTheNativeFace) {
  // LayoutLeft columns and 8-byte LayoutRight rows are contiguous word planes:
  // the native face where the backend has one; a LayoutRight double[3]
  // (interleaved columns) or a LayoutStride plane: the portable face.
  const std::int64_t n = 40000;
  const auto host = makeMask(MaskKind::Random20, n);
  DView<std::uint8_t> mask("mask", n);
  Col3 xl("xl", n);
  Kokkos::View<int**, Kokkos::LayoutLeft, TestDevice> kl("kl", n, 5);
  Kokkos::View<float* [2], Kokkos::LayoutRight, TestDevice> f2("f2", n);
  Kokkos::View<std::int16_t* [1], Kokkos::LayoutRight, TestDevice> one("one", n);
  DView<double> d("d", n);
  const std::string native = std::string(kTestBackend) == "openmp" ? "openmp"
                             : std::string(kTestBackend) == "cuda" ? "cuda"
                                                                   : "portable";
  EXPECT_EQ(reorderRestore(n, host, false, 8, mask, xl, kl, f2, one, d), regionOf(native.c_str()));
  Row3 xr("xr", n);
  EXPECT_EQ(reorderRestore(n, host, false, 8, mask, xl, xr), regionOf("portable"));
}

TEST(Rank2Planes, SixteenByteRowsNeedTheSixteenByteScratch) {
  // View<double* [2]> LayoutRight moves as one 16-byte row: the scratch is
  // sized by the row (reorder_scratch_bytes(n, 16)), and one sized for its
  // 8-byte element is refused, naming the rule.
  const std::int64_t n = 20000;
  const auto host = makeMask(MaskKind::Random50, n);
  DView<std::uint8_t> mask("mask", n);
  Kokkos::View<double* [2], Kokkos::LayoutRight, TestDevice> v("v", n);
  reorderRestore(n, host, false, 16, mask, v);
  DView<std::int32_t> perm = toDevice(iota(n)), inv = toDevice(iota(n));
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Bytes small("small", sieve::reorder_scratch_bytes(n, 8));
  const TestExec exec;
  expectInvalid(
      [&] { sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), small, mask, v); },
      "scratch holds");
  expectInvalid([&] { sieve::restore(exec, perm, inv, small, mask, v); }, "scratch holds");
  EXPECT_EQ(toHost(perm), iota(n)) << "nothing moved";
}

TEST(Rank2Planes, MisuseThrowsNamingThePlane) {
  const std::int64_t n = 5000;
  const auto host = makeMask(MaskKind::Random50, n);
  DView<std::uint8_t> mask = toDevice(host);
  Row3 xr("xr", n), shortRows("short", n - 1);
  Col3 xl("xl", n);
  DView<std::int32_t> perm = toDevice(iota(n)), inv = toDevice(iota(n));
  auto map = filled<std::int32_t>(static_cast<std::size_t>(n), -1);
  Word count = word(0), span = word(static_cast<std::uint32_t>(n));
  Bytes scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  const TestExec exec;
  // A rank-2 plane of another extent(0).
  expectInvalid(
      [&] {
        sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, mask, xr,
                       shortRows);
      },
      "plane 2 has extent 4999");
  expectInvalid([&] { sieve::restore(exec, perm, inv, scratch, xl, mask, shortRows); },
                "plane 2 has extent 4999");
  // A column of a rank-2 plane given again as a plane of its own.
  auto col = Kokkos::subview(xr, Kokkos::ALL, 1);
  expectInvalid(
      [&] {
        sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, mask, xr, col);
      },
      "plane 1 (column 1) overlaps plane 2");
  auto colL = Kokkos::subview(xl, Kokkos::ALL, 2);
  expectInvalid([&] { sieve::restore(exec, perm, inv, scratch, mask, colL, xl); },
                "plane 1 overlaps plane 2 (column 2)");
  // Two rank-2 planes over the same memory.
  Kokkos::View<double**, Kokkos::LayoutRight, TestDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      alias(xr.data(), n, 3);
  expectInvalid(
      [&] {
        sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, mask, xr, alias);
      },
      "overlaps");
  // LayoutStride planes whose rows overlap: one row for every sample
  // (stride(0) = 0), or rows half a row apart.
  using Strided = Kokkos::View<double**, Kokkos::LayoutStride, TestDevice,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Strided smear(xl.data(), Kokkos::LayoutStride(n, 0, 3, 1));
  expectInvalid(
      [&] {
        sieve::reorder(exec, mask, perm, inv, map, count, span, Word(), scratch, mask, smear);
      },
      "plane 1 (column 0) has samples 0 bytes apart");
  const Strided half(xl.data(), Kokkos::LayoutStride(n / 2, 1, 2, 1));
  DView<std::uint8_t> halfMask("half_mask", n / 2);
  expectInvalid(
      [&] {
        sieve::reorder(exec, halfMask, perm, inv, map, count, span, Word(), scratch, halfMask,
                       half);
      },
      "plane 1 (column 0) overlaps plane 1 (column 1)");
  EXPECT_EQ(toHost(perm), iota(n)) << "nothing moved";
  EXPECT_EQ(toHost(mask), host) << "nothing moved";
  // A trigger remembers the rank-2 plane: a restore without it throws.
  sieve::Trigger<TestMem> trig("t", 0.5f);
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  Kokkos::deep_copy(trig.fire, 1u);
  sieve::reorder(exec, mask, perm, inv, map, count, trig, scratch, mask, xr);
  expectInvalid([&] { sieve::restore(exec, trig, perm, inv, scratch, mask); },
                "another set of planes");
  expectInvalid([&] { sieve::restore(exec, trig, perm, inv, scratch, mask, xl); },
                "another set of planes");
  sieve::restore(exec, trig, perm, inv, scratch, xr, mask);
  exec.fence();
  EXPECT_EQ(toHost(mask), host);
}

namespace {

/// One step of a particle (a slot's id in ids(i, 0)): a live one moves and
/// may be absorbed. The device kernel and the host model both call it.
struct Move {
  KOKKOS_INLINE_FUNCTION static void apply(std::int32_t id, int s, std::uint8_t& alive, double* pos,
                                           double* vel) {
    if (!alive) return;
    const std::uint64_t key = (static_cast<std::uint64_t>(id) << 20) ^ static_cast<unsigned>(s);
    for (int c = 0; c < 3; ++c) {
      vel[c] = hashUnit(key * 7 + c) - 0.5;
      pos[c] += vel[c];
    }
    if (hashUnit(key * 7 + 5) < 0.07) alive = 0;
  }
};

/// The swarm at birth: ids (id, id * 7 + 1, ..., id * 7 + 4), positions
/// i + c / 4, velocities 0 (a free function: nvcc rejects an extended lambda
/// in a constructor).
void birth(const Int2& id, const Row3& p, const Col3& v, const std::int64_t n) {
  Kokkos::parallel_for(
      "test::birth", Kokkos::RangePolicy<TestExec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        id(i, 0) = static_cast<int>(i);
        for (int c = 1; c < 5; ++c) id(i, c) = static_cast<int>(i) * 7 + c;
        for (int c = 0; c < 3; ++c) {
          p(i, c) = static_cast<double>(i) + 0.25 * c;
          v(i, c) = 0.0;
        }
      });
}

struct Swarm {
  DView<std::uint8_t> alive;
  Row3 pos;
  Col3 vel;
  Int2 ids; // (id, id * 7 + 1, ..., id * 7 + 4)
  explicit Swarm(std::int64_t n)
      : alive(filled<std::uint8_t>(static_cast<std::size_t>(n), 1, "alive")), pos("pos", n),
        vel("vel", n), ids("ids", n, 5) {
    birth(ids, pos, vel, n);
    Kokkos::fence();
  }
  void step(const TestExec& exec, int s) const {
    const DView<std::uint8_t> a = alive;
    const Row3 p = pos;
    const Col3 v = vel;
    const Int2 id = ids;
    Kokkos::parallel_for(
        "test::move",
        Kokkos::RangePolicy<TestExec>(exec, 0, static_cast<std::int64_t>(a.extent(0))),
        KOKKOS_LAMBDA(const std::int64_t i) {
          double pp[3] = {p(i, 0), p(i, 1), p(i, 2)}, vv[3] = {v(i, 0), v(i, 1), v(i, 2)};
          std::uint8_t al = a(i);
          Move::apply(id(i, 0), s, al, pp, vv);
          a(i) = al;
          for (int c = 0; c < 3; ++c) {
            p(i, c) = pp[c];
            v(i, c) = vv[c];
          }
        });
  }
  /// New particles `first`, first + 1, ... in `slots` (k of them).
  void fill(const TestExec& exec, const DView<std::int32_t>& slots, std::int64_t k,
            std::int32_t first, int s) const {
    const Row3 p = pos;
    const Col3 v = vel;
    const Int2 id = ids;
    Kokkos::parallel_for(
        "test::fill", Kokkos::RangePolicy<TestExec>(exec, 0, k),
        KOKKOS_LAMBDA(const std::int64_t j) {
          const std::int32_t slot = slots(j), pid = first + static_cast<std::int32_t>(j);
          id(slot, 0) = pid;
          for (int c = 1; c < 5; ++c) id(slot, c) = pid * 7 + c;
          for (int c = 0; c < 3; ++c) {
            p(slot, c) = -static_cast<double>(s) - 0.5 * c;
            v(slot, c) = 0.0;
          }
        });
  }
};

struct Model {
  std::vector<std::uint8_t> alive;
  std::vector<std::array<double, 3>> pos, vel;
};

} // namespace

TEST(Rank2Planes, PopulationAndGraphStepsMatchTheModel) {
  // A swarm in rank-2 planes through a Population (direct calls) and a twin
  // through a sieve::Graph (compaction + reorder nodes): compactions,
  // reorders when the trigger fires, spawns into dead slots and restores;
  // every slot checked against a model indexed by particle id, and the twin
  // byte for byte.
  const TestExec exec;
  const std::int64_t n = 12007;
  const Swarm a(n), b(n);
  sieve::Population<TestExec> pa("swarm", exec, n, {0.5f});
  sieve::Population<TestExec> pb("twin", exec, n, {0.5f, 0});
  const auto planesA = sieve::planes(a.alive, a.pos, a.vel, a.ids);
  const auto planesB = sieve::planes(b.vel, b.alive, b.ids, b.pos);
  sieve::Graph<TestExec> g("twin");
  g.compact(pb, b.alive);
  g.reorder(pb, planesB);
  g.instantiate(exec);
  Model m;
  m.alive.assign(static_cast<std::size_t>(n), 1);
  for (std::int64_t i = 0; i < n; ++i) {
    m.pos.push_back({double(i), double(i) + 0.25, double(i) + 0.5});
    m.vel.push_back({0.0, 0.0, 0.0});
  }
  DView<std::int32_t> slotsA("slotsA", 16), slotsB("slotsB", 16);
  int fired = 0, spawned = 0;
  for (int s = 0; s < 40; ++s) {
    SCOPED_TRACE("step " + std::to_string(s));
    a.step(exec, s);
    b.step(exec, s);
    for (std::size_t id = 0; id < m.alive.size(); ++id)
      Move::apply(static_cast<std::int32_t>(id), s, m.alive[id], m.pos[id].data(),
                  m.vel[id].data());
    pa.compact(exec, a.alive);
    fired += read(pa.trigger().fire) != 0;
    pa.reorder(exec, planesA);
    g.launch(exec);
    if (s % 7 == 3) { // spawn 9 particles into dead slots
      const std::int64_t k = 9;
      const auto first = static_cast<std::int32_t>(m.alive.size());
      pa.spawn(exec, k, slotsA);
      pb.spawn(exec, k, slotsB);
      a.fill(exec, slotsA, k, first, s);
      b.fill(exec, slotsB, k, first, s);
      for (std::int64_t j = 0; j < k; ++j) {
        m.alive.push_back(1);
        m.pos.push_back({-double(s), -double(s) - 0.5, -double(s) - 1.0});
        m.vel.push_back({0.0, 0.0, 0.0});
      }
      EXPECT_EQ(toHost(slotsA), toHost(slotsB));
      pa.compact(exec, a.alive);
      pb.compact(exec, b.alive);
      spawned += static_cast<int>(k);
    }
    if (s % 13 == 12) {
      pa.restore(exec, planesA);
      pb.restore(exec, planesB);
    }
    exec.fence();
    // The twin: the same bytes.
    ASSERT_TRUE(flatToHost(a.alive) == flatToHost(b.alive));
    ASSERT_TRUE(rowsToHost(a.pos) == rowsToHost(b.pos));
    ASSERT_TRUE(rowsToHost(a.vel) == rowsToHost(b.vel));
    ASSERT_TRUE(rowsToHost(a.ids) == rowsToHost(b.ids));
    ASSERT_EQ(toHost(pa.perm()), toHost(pb.perm()));
    // The model: every slot holds its particle's state, every live particle
    // once; the index map lists the live slots.
    const auto alive = toHost(a.alive);
    const auto pos = rowsToHost(a.pos), vel = rowsToHost(a.vel), ids = rowsToHost(a.ids);
    const auto perm = toHost(pa.perm()), inv = toHost(pa.inv());
    std::vector<int> seen(m.alive.size(), 0);
    std::vector<std::int32_t> liveSlots;
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      int row[5];
      std::memcpy(row, &ids[static_cast<std::size_t>(i) * 20], 20);
      const std::int32_t id = row[0];
      if (id < 0 || static_cast<std::size_t>(id) >= m.alive.size()) {
        ++wrong;
        continue;
      }
      for (int c = 1; c < 5; ++c) wrong += row[c] != id * 7 + c;
      wrong += std::memcmp(&pos[static_cast<std::size_t>(i) * 24], m.pos[id].data(), 24) != 0;
      wrong += std::memcmp(&vel[static_cast<std::size_t>(i) * 24], m.vel[id].data(), 24) != 0;
      wrong += (alive[i] != 0) != (m.alive[id] != 0);
      wrong += inv[perm[i]] != i;
      if (alive[i]) {
        liveSlots.push_back(static_cast<std::int32_t>(i));
        ++seen[id];
      }
    }
    ASSERT_EQ(wrong, 0);
    for (std::size_t id = 0; id < m.alive.size(); ++id)
      ASSERT_EQ(seen[id], m.alive[id] ? 1 : 0) << "particle " << id;
    ASSERT_EQ(toHost(pa.indices()), liveSlots);
  }
  EXPECT_GT(fired, 0) << "the trigger never fired: no reorder was tested";
  EXPECT_EQ(spawned, 6 * 9);
}

TEST(Rank2Planes, PopulationScratchGrowsForSixteenByteRows) {
  // A Population born with a scratch for 4-byte planes: a plane set with a
  // 16-byte row (View<double* [2]>) grows it once, and the reorder matches a
  // rank-1 twin moving the two columns as planes of their own.
  const TestExec exec;
  const std::int64_t n = 9001;
  sieve::Population<TestExec> pop("rows16", exec, n, {0.99f, 4});
  sieve::Population<TestExec> twin("cols", exec, n, {0.99f, 8});
  const auto host = makeMask(MaskKind::Random20, n);
  DView<std::uint8_t> mask = toDevice(host), mask2 = toDevice(host);
  Kokkos::View<double* [2], Kokkos::LayoutRight, TestDevice> v("v", n);
  DView<double> c0("c0", n), c1("c1", n);
  const auto bytes = planeBytes(n, 16, 5);
  rowsToDevice(v, bytes);
  std::vector<unsigned char> b0(static_cast<std::size_t>(n) * 8), b1(b0.size());
  for (std::int64_t i = 0; i < n; ++i) {
    std::memcpy(&b0[i * 8], &bytes[i * 16], 8);
    std::memcpy(&b1[i * 8], &bytes[i * 16 + 8], 8);
  }
  flatToDevice(c0, b0);
  flatToDevice(c1, b1);
  pop.compact(exec, mask);
  twin.compact(exec, mask2);
  ASSERT_EQ(read(pop.trigger().fire), 1u);
  pop.reorder(exec, sieve::planes(mask, v));
  twin.reorder(exec, sieve::planes(mask2, c0, c1));
  exec.fence();
  const auto got = rowsToHost(v), g0 = flatToHost(c0), g1 = flatToHost(c1);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    wrong += std::memcmp(&got[i * 16], &g0[i * 8], 8) != 0 ||
             std::memcmp(&got[i * 16 + 8], &g1[i * 8], 8) != 0;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(toHost(pop.perm()), toHost(twin.perm()));
  pop.restore(exec, sieve::planes(mask, v));
  exec.fence();
  EXPECT_TRUE(rowsToHost(v) == bytes);
  EXPECT_EQ(toHost(mask), host);
  // A plane of another extent(0) throws naming it.
  Row3 shortRows("short", n - 2);
  expectInvalid([&] { pop.reorder(exec, sieve::planes(mask, shortRows)); }, "has extent");
}

TEST(Rank2Planes, GraphRestoreNodesSizeTheirSlotsByTheRow) {
  // Graph nodes compact + reorder + restore of a plane set with 16-byte rows
  // (View<double* [2]>) and a View<int**>: the arena slots are sized by the
  // row (else the reorder refuses its scratch), and every launch matches the
  // direct calls of a twin Population byte for byte.
  const TestExec exec;
  const std::int64_t n = 10007;
  sieve::Population<TestExec> pa("direct", exec, n, {0.99f, 16});
  sieve::Population<TestExec> pb("graph", exec, n, {0.99f, 0});
  const auto host = makeMask(MaskKind::Random90, n);
  DView<std::uint8_t> ma = toDevice(host), mb = toDevice(host);
  Kokkos::View<double*[2], Kokkos::LayoutRight, TestDevice> ra("ra", n), rb("rb", n);
  Int2 ka("ka", n, 5), kb("kb", n, 5);
  const auto rows = planeBytes(n, 16, 11), ints = planeBytes(n, 20, 12);
  rowsToDevice(ra, rows);
  rowsToDevice(rb, rows);
  rowsToDevice(ka, ints);
  rowsToDevice(kb, ints);
  const auto planesA = sieve::planes(ma, ra, ka);
  const auto planesB = sieve::planes(kb, mb, rb);
  sieve::Graph<TestExec> g("reorder_nodes"), back("restore_node");
  g.compact(pb, mb);
  g.reorder(pb, planesB);
  back.restore(pb, planesB);
  g.instantiate(exec);
  back.instantiate(exec);
  auto mask = host;
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    mask = thin(mask, 0.6, 40 + step);
    Kokkos::deep_copy(ma, toDevice(mask));
    Kokkos::deep_copy(mb, toDevice(mask));
    pa.compact(exec, ma);
    EXPECT_EQ(read(pa.trigger().fire), 1u);
    pa.reorder(exec, planesA);
    g.launch(exec);
    exec.fence();
    EXPECT_FALSE(rowsToHost(ra) == rows) << "the reorder moved nothing";
    EXPECT_TRUE(rowsToHost(rb) == rowsToHost(ra));
    EXPECT_TRUE(rowsToHost(kb) == rowsToHost(ka));
    EXPECT_EQ(toHost(mb), toHost(ma));
    EXPECT_EQ(toHost(pb.perm()), toHost(pa.perm()));
    pa.restore(exec, planesA);
    back.launch(exec);
    exec.fence();
    EXPECT_TRUE(rowsToHost(ra) == rows) << "restored";
    EXPECT_TRUE(rowsToHost(rb) == rows) << "restored by the graph";
    EXPECT_TRUE(rowsToHost(kb) == ints);
    EXPECT_EQ(toHost(mb), mask);
    EXPECT_EQ(toHost(pa.indices()), toHost(pb.indices()));
  }
}
