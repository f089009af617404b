// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — sieve::keys::reduce_by_key: per-key sums, minima and
// maxima over dense, sparse and reduced keys (empty keys, one key holding
// most elements, keys crossing the 2048-position pieces, a View of values and
// a projection of the scattered elements), floating-point sums held to the
// documented fold order (so the bytes are the same on every backend and thread
// count), the ReduceWorkspace form (the same bytes, nothing allocated), and
// the misuse errors. References are plain sequential loops.
#include "../common/expect.hpp"
#include "backend.hpp"
#include "tools_log.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {

using i64 = std::int64_t;

struct Particle {
  std::int32_t cell;
  double w;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return cell; }
};

/// The documented fold order, sequentially: pieces cut at multiples of 2048.
template <class T, class V, class Op>
std::vector<T> referenceFold(const std::vector<i64>& off, const std::vector<V>& values, T init,
                             Op op) {
  const i64 B = 2048;
  std::vector<T> r(off.size() - 1);
  for (size_t k = 0; k + 1 < off.size(); ++k) {
    T acc = init;
    for (i64 p = off[k]; p < off[k + 1];) {
      const i64 end = std::min(off[k + 1], (p / B + 1) * B);
      T piece = static_cast<T>(values[size_t(p)]);
      for (i64 x = p + 1; x < end; ++x) piece = op(piece, static_cast<T>(values[size_t(x)]));
      acc = op(acc, piece);
      p = end;
    }
    r[k] = acc;
  }
  return r;
}

/// Cells with a skewed distribution: empty cells, one big cell, runs that
/// cross the pieces.
std::vector<Particle> particles(size_t n, int cells, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> c(0, cells - 1);
  std::uniform_real_distribution<double> w(0.0, 1.0);
  std::vector<Particle> v(n);
  for (size_t i = 0; i < n; ++i) {
    int k = c(g);
    if (k % 7 == 3) k = cells / 2;      // one cell holds about 1/7 of everything
    if (k % 11 == 5) k = (k / 11) * 11; // some cells stay empty
    v[i] = Particle{k, w(g) * 1e3 + 1e-7 * double(i)};
  }
  return v;
}

struct Weight {
  KOKKOS_INLINE_FUNCTION double operator()(const Particle& p) const { return p.w; }
};

bool sameBytes(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

} // namespace

TEST(KeysReduceByKey, DenseSumsOfAProjectionAreTheDocumentedFold) {
  const TestExec exec;
  for (const size_t n : {size_t(0), size_t(1), size_t(2047), size_t(2049), size_t(300007)}) {
    const int cells = 997;
    const auto in = particles(n, cells, 17u + unsigned(n));
    const auto din = toDevice(in, "in");
    DView<Particle> out("out", n);
    const auto keys = sieve::keys::scatter_dense(exec, din, 0, cells - 1, out);
    DView<double> sums("sums", cells);
    sieve::keys::reduce_by_key(exec, keys, sieve::keys::project(out, Weight{}), 0.0, sieve::Sum{},
                               sums);
    const auto hout = toHost(out);
    std::vector<double> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = hout[i].w;
    const auto ref = referenceFold<double>(toHost(keys.offsets()), w, 0.0,
                                           [](double a, double b) { return a + b; });
    EXPECT_TRUE(sameBytes(toHost(sums), ref)) << "n = " << n;
    // The same through a View of the values.
    DView<double> dw = toDevice(w, "w");
    DView<double> sums2("sums2", cells);
    sieve::keys::reduce_by_key("cells", exec, keys, dw, 0.0, sieve::Sum{}, sums2);
    EXPECT_TRUE(sameBytes(toHost(sums2), ref)) << "n = " << n;
  }
}

/// Counts the elements of every key with a user's projection and op given
/// as lambdas (in a free function: nvcc rejects an extended lambda in a gtest
/// TEST body, a private member function).
template <class Keys>
void countByKeyWithLambdas(const TestExec& exec, const Keys& keys, const DView<Particle>& out,
                           const DView<std::int32_t>& cnt) {
  sieve::keys::reduce_by_key(
      exec, keys,
      sieve::keys::project(
          out, KOKKOS_LAMBDA(const Particle&) { return 1; }),
      0, KOKKOS_LAMBDA(const std::int32_t a, const std::int32_t b) { return a + b; }, cnt);
}

TEST(KeysReduceByKey, IntegerSumsMinMaxMatchASequentialLoop) {
  const TestExec exec;
  const size_t n = 100003;
  const int cells = 4096;
  const auto in = particles(n, cells, 5u);
  DView<Particle> out("out", n);
  const auto keys = sieve::keys::scatter_dense(exec, toDevice(in, "in"), 0, cells - 1, out);
  // Values: the record's cell times its rank (integers, any fold order is exact).
  std::vector<i64> vals(n);
  for (size_t i = 0; i < n; ++i) vals[i] = i64(i % 1000) - 500;
  const auto dv = toDevice(vals, "vals");
  const auto off = toHost(keys.offsets());
  std::vector<i64> sum(cells, 0), mn(cells, std::numeric_limits<i64>::max()),
      mx(cells, std::numeric_limits<i64>::min());
  for (int k = 0; k < cells; ++k)
    for (i64 p = off[size_t(k)]; p < off[size_t(k) + 1]; ++p) {
      sum[size_t(k)] += vals[size_t(p)];
      mn[size_t(k)] = std::min(mn[size_t(k)], vals[size_t(p)]);
      mx[size_t(k)] = std::max(mx[size_t(k)], vals[size_t(p)]);
    }
  DView<i64> r("r", cells);
  sieve::keys::reduce_by_key(exec, keys, dv, i64(0), sieve::Sum{}, r);
  EXPECT_EQ(toHost(r), sum);
  sieve::keys::reduce_by_key(exec, keys, dv, std::numeric_limits<i64>::max(), sieve::Min{}, r);
  EXPECT_EQ(toHost(r), mn);
  sieve::keys::reduce_by_key(exec, keys, dv, std::numeric_limits<i64>::min(), sieve::Max{}, r);
  EXPECT_EQ(toHost(r), mx);
  // A user's op (a lambda), counting the elements.
  DView<std::int32_t> cnt("cnt", cells);
  countByKeyWithLambdas(exec, keys, out, cnt);
  const auto hc = toHost(cnt);
  for (int k = 0; k < cells; ++k)
    ASSERT_EQ(hc[size_t(k)], off[size_t(k) + 1] - off[size_t(k)]) << k;
}

TEST(KeysReduceByKey, SparseKeysAndOneKeyHoldingEverything) {
  const TestExec exec;
  // 64-bit hashed keys (sparse), and then a single key.
  for (const bool one : {false, true}) {
    const size_t n = 20000;
    std::vector<i64> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = one ? i64(42) : i64((i * 2654435761u) % 977) << 40;
    DView<i64> out("out", n);
    const auto keys = sieve::keys::scatter_sparse(exec, toDevice(in, "in"), out);
    const auto off = toHost(keys.offsets());
    std::vector<double> vals(n);
    for (size_t i = 0; i < n; ++i) vals[i] = 1.0 / double(i + 1);
    DView<double> r("r", size_t(keys.num_keys()));
    sieve::keys::reduce_by_key(exec, keys, toDevice(vals, "v"), 0.5, sieve::Sum{}, r);
    const auto ref =
        referenceFold<double>(off, vals, 0.5, [](double a, double b) { return a + b; });
    EXPECT_TRUE(sameBytes(toHost(r), ref)) << (one ? "one key" : "sparse");
  }
}

TEST(KeysReduceByKey, EmptyKeysGetInitAndNoInstanceForm) {
  std::vector<std::int32_t> in{5, 5, 9, 9, 9, 2};
  DView<std::int32_t> out("out", in.size());
  const auto keys = sieve::keys::scatter_dense(toDevice(in, "in"), 0, 10, out);
  std::vector<std::int32_t> ones(in.size(), 1);
  DView<i64> r("r", 11);
  sieve::keys::reduce_by_key(keys, toDevice(ones, "ones"), i64(-7), sieve::Sum{}, r);
  const std::vector<i64> expect{-7, -7, -6, -7, -7, -5, -7, -7, -7, -4, -7};
  EXPECT_EQ(toHost(r), expect);
}

TEST(KeysReduceByKey, Misuse) {
  const TestExec exec;
  std::vector<std::int32_t> in{1, 2, 3, 1};
  DView<std::int32_t> out("out", 4);
  const auto keys = sieve::keys::scatter_dense(exec, toDevice(in, "in"), 0, 3, out);
  DView<double> shortValues("v", 3), values("v", 4), r("r", 4), shortR("r", 3);
  Kokkos::deep_copy(r, 9.0);
  const auto untouched = [&] {
    for (const double x : toHost(r))
      if (x != 9.0) return false;
    return true;
  };
  // Thrown, naming what is wrong, with nothing written.
  const auto expectThrow = [&](auto&& call, const char* what) {
    expectInvalid(call, what);
    EXPECT_TRUE(untouched()) << what;
  };
  expectThrow([&] { sieve::keys::reduce_by_key(exec, keys, shortValues, 0.0, sieve::Sum{}, r); },
              "values.extent(0)");
  expectThrow([&] { sieve::keys::reduce_by_key(exec, keys, values, 0.0, sieve::Sum{}, shortR); },
              "result.extent(0)");
  // The result over the values.
  DView<double> both("both", 8);
  const auto v = Kokkos::subview(both, std::make_pair(0, 4));
  const auto rr = Kokkos::subview(both, std::make_pair(2, 6));
  EXPECT_THROW(sieve::keys::reduce_by_key(exec, keys, v, 0.0, sieve::Sum{}, rr),
               std::invalid_argument);
  // Keys of an asynchronous scatter that rejected its input.
  sieve::keys::DenseWorkspace<std::int32_t, TestExec> ws(exec, 4, 0, 2);
  const auto bad = sieve::keys::scatter_dense(exec, toDevice(in, "in"), out, ws);
  expectThrow([&] { sieve::keys::reduce_by_key(exec, bad, values, 0.0, sieve::Sum{}, r); },
              "rejected");
  // With a ReduceWorkspace nothing is read back: the fold writes nothing,
  // and the scatter's workspace throws at check().
  const sieve::keys::ReduceWorkspace<double, TestExec> kept(exec, 4);
  {
    const ToolsLog tools;
    sieve::keys::reduce_by_key(exec, bad, values, 0.0, sieve::Sum{}, r, kept);
    EXPECT_EQ(ToolsLog::deepCopies(), 0);
    EXPECT_EQ(ToolsLog::fences(), 0);
    EXPECT_EQ(ToolsLog::reductions(), 0);
  }
  EXPECT_TRUE(untouched());
  EXPECT_THROW(ws.check(exec), std::invalid_argument);
}

// A ReduceWorkspace: the same bytes as the call without one, nothing
// allocated by the call (so nothing freed, no fence), one workspace for calls
// of every size up to the one it was made for.
TEST(KeysReduceByKey, AWorkspaceGivesTheSameBytesAndAllocatesNothing) {
  const TestExec exec;
  const int cells = 997;
  const size_t largest = 300007;
  sieve::keys::ReduceWorkspace<double, TestExec> ws(exec, i64(largest));
  EXPECT_EQ(ws.elements(), i64(largest));
  for (const size_t n : {size_t(0), size_t(1), size_t(2049), size_t(8193), largest}) {
    for (const bool one : {false, true}) { // one: a single key holding every element (big)
      SCOPED_TRACE("n = " + std::to_string(n) + (one ? ", one key" : ", skewed cells"));
      auto in = particles(n, cells, 23u + unsigned(n));
      if (one)
        for (auto& p : in) p.cell = 5;
      DView<Particle> out("out", n);
      const auto keys = sieve::keys::scatter_dense(exec, toDevice(in, "in"), 0, cells - 1, out);
      DView<double> plain("plain", cells), kept("kept", cells);
      Kokkos::deep_copy(kept, -1.0);
      sieve::keys::reduce_by_key(exec, keys, sieve::keys::project(out, Weight{}), 0.25,
                                 sieve::Sum{}, plain);
      exec.fence();
      {
        const ToolsLog tools;
        sieve::keys::reduce_by_key("tally", exec, keys, sieve::keys::project(out, Weight{}), 0.25,
                                   sieve::Sum{}, kept, ws);
        exec.fence();
        EXPECT_EQ(ToolsLog::allocations(), 0) << ToolsLog::dump();
        EXPECT_TRUE(ToolsLog::hasPrefix("region tally: sieve::keys::reduce_by_key"))
            << ToolsLog::dump();
      }
      EXPECT_TRUE(sameBytes(toHost(kept), toHost(plain)));
      // The integer form of the same keys through a workspace of its type.
      sieve::keys::ReduceWorkspace<i64, TestExec> ws64(exec, i64(n));
      std::vector<i64> ones(n, 1);
      DView<i64> counts("counts", cells);
      sieve::keys::reduce_by_key(exec, keys, toDevice(ones, "ones"), i64(0), sieve::Sum{}, counts,
                                 ws64);
      const auto off = toHost(keys.offsets());
      const auto hc = toHost(counts);
      for (int k = 0; k < cells; ++k)
        ASSERT_EQ(hc[size_t(k)], off[size_t(k) + 1] - off[size_t(k)]) << k;
    }
  }
}

TEST(KeysReduceByKey, WorkspaceMisuse) {
  const TestExec exec;
  const size_t n = 20000; // > the big-key bound: the workspace holds scratch
  std::vector<std::int32_t> in(n, 1);
  DView<std::int32_t> out("out", n);
  const auto keys = sieve::keys::scatter_dense(exec, toDevice(in, "in"), 0, 3, out);
  DView<double> values("v", n), r("r", 4);
  Kokkos::deep_copy(values, 1.0);
  Kokkos::deep_copy(r, 9.0);
  const auto untouched = [&] {
    for (const double x : toHost(r))
      if (x != 9.0) return false;
    return true;
  };
  const sieve::keys::ReduceWorkspace<double, TestExec> empty;
  EXPECT_EQ(empty.elements(), -1);
  expectInvalid([&] { sieve::keys::reduce_by_key(exec, keys, values, 0.0, sieve::Sum{}, r, empty); },
                "the workspace is empty");
  EXPECT_TRUE(untouched());
  const sieve::keys::ReduceWorkspace<double, TestExec> small(exec, i64(n) - 1);
  expectInvalid([&] { sieve::keys::reduce_by_key(exec, keys, values, 0.0, sieve::Sum{}, r, small); },
                "exceed the workspace's " + std::to_string(n - 1));
  EXPECT_TRUE(untouched());
  // A result in the workspace's own scratch.
  const sieve::keys::ReduceWorkspace<double, TestExec> ws(exec, i64(n));
  ASSERT_GE(ws.first().extent(0), 4u);
  expectInvalid(
      [&] { sieve::keys::reduce_by_key(exec, keys, values, 0.0, sieve::Sum{}, ws.first(), ws); },
      "overlaps the workspace");
  expectInvalid([&] { sieve::keys::ReduceWorkspace<double, TestExec>(exec, -1); },
                "elements = -1 is negative");
  // It still works after the rejections.
  sieve::keys::reduce_by_key(exec, keys, values, 0.0, sieve::Sum{}, r, ws);
  const auto hr = toHost(r);
  EXPECT_EQ(hr[1], double(n));
  EXPECT_EQ(hr[0], 0.0);
}
