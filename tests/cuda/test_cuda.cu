// Sieve CUDA tests — the native CUDA face on the host tests' cases, device
// output compared with the OpenMP twins byte for byte (and with the sequential
// reference). Without a GPU every device test skips with the reason; the
// argument checks, which run before any CUDA call, run everywhere.
#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>
#include <sieve/native/host/compact.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/scan.hpp>

#include "../common/cases.hpp"
#include "../common/reference.hpp"
#include "../common/ops.hpp"
#include "device.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>

using namespace sieve_test;

namespace {

constexpr unsigned char kSentinelByte = 0x5A; // DeviceBytes' fill

struct CompactOut {
  std::vector<std::int32_t> map; // all n slots
  std::uint32_t count, live32, fire;
};

/// compactDevice on guarded device buffers; `offset` shifts the mask off
/// 16-byte alignment.
CompactOut deviceCompact(const std::vector<std::uint8_t>& mask, bool drop, std::uint32_t span,
                         bool withTrigger, std::size_t offset = 0, float theta = 0.5f) {
  const auto n = static_cast<std::int64_t>(mask.size());
  DeviceBytes dmask(mask.size() + offset), map(mask.size() * 4),
      scratch(sieve::compactScratchBytes(n)), words(16, 0xEE);
  if (!mask.empty()) SIEVE_CUDA_CHECK(cudaMemcpy(dmask.get<unsigned char>() + offset, mask.data(), mask.size(), cudaMemcpyHostToDevice));
  auto* w = words.get<std::uint32_t>(); // count, live32, span, fire
  SIEVE_CUDA_CHECK(cudaMemcpy(w + 2, &span, 4, cudaMemcpyHostToDevice));
  sieve::ReorderTrigger trig{w + 1, w + 2, w + 3, theta};
  sieve::compactDevice(dmask.get<std::uint8_t>() + offset, drop ? sieve::kCompactMaskIsDrop : 0u,
                       map.get<std::int32_t>(), w, scratch.get(), n, nullptr,
                       withTrigger ? &trig : nullptr);
  EXPECT_TRUE(map.guardIntact()) << "index map written past n";
  EXPECT_TRUE(scratch.guardIntact()) << "scratch written past compactScratchBytes(n)";
  const auto hw = words.download<std::uint32_t>(4);
  return {map.download<std::int32_t>(mask.size()), hw[0], hw[1], hw[3]};
}

/// compactHost on the same input, the map pre-filled like the device one.
CompactOut hostCompact(const std::vector<std::uint8_t>& mask, bool drop, std::uint32_t span,
                       float theta = 0.5f) {
  const auto n = static_cast<std::int64_t>(mask.size());
  std::vector<std::int32_t> map(mask.size());
  std::memset(map.data(), kSentinelByte, map.size() * 4);
  std::vector<unsigned char> scratch(sieve::compactScratchBytes(n) + 8);
  CompactOut o{{}, 0, 0, 0};
  sieve::ReorderTrigger trig{&o.live32, &span, &o.fire, theta};
  sieve::compactHost(mask.data(), drop ? sieve::kCompactMaskIsDrop : 0u, map.data(), &o.count,
                     scratch.data(), n, &trig);
  o.map = map;
  return o;
}

} // namespace

TEST(CudaCompact, MatchesHostTwinsByteForByte) {
  SIEVE_REQUIRE_DEVICE();
  for (const auto n : sizes())
    for (const auto kind : maskKinds())
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        const auto mask = makeMask(kind, n);
        const auto span = static_cast<std::uint32_t>(n);
        const auto host = hostCompact(mask, drop, span);
        const auto ref = refCompact(mask.data(), n, drop);
        ASSERT_EQ(host.count, ref.count);
        for (const bool trig : {false, true}) {
          const auto dev = deviceCompact(mask, drop, span, trig);
          ASSERT_EQ(dev.count, host.count);
          ASSERT_EQ(0, compareBytes(dev.map.data(), host.map.data(), dev.map.size() * 4))
              << "map (with the untouched slots past the count)";
          if (trig) {
            ASSERT_EQ(dev.live32, host.live32);
            ASSERT_EQ(dev.fire, host.fire);
            ASSERT_EQ(dev.live32, ref.live32);
          }
        }
      }
}

TEST(CudaCompact, UnalignedMask) {
  SIEVE_REQUIRE_DEVICE();
  const auto mask = makeMask(MaskKind::Random50, 100003);
  const auto host = hostCompact(mask, false, 100003);
  for (std::size_t offset : {1u, 3u, 8u}) {
    const auto dev = deviceCompact(mask, false, 100003, true, offset);
    EXPECT_EQ(dev.count, host.count);
    EXPECT_EQ(dev.map, host.map);
    EXPECT_EQ(dev.live32, host.live32);
  }
}

TEST(CudaCompact, TriggerEdges) {
  SIEVE_REQUIRE_DEVICE();
  EXPECT_EQ(deviceCompact(scattered20(100000), false, 100000, true).fire, 1u);
  EXPECT_EQ(deviceCompact(contiguous20(100000), false, 100000, true).fire, 0u);
  EXPECT_EQ(deviceCompact(scattered20(100000), false, 20000, true).fire, 0u);
  EXPECT_EQ(deviceCompact(scattered20(100000), false, 20001, true).fire, 1u);
  EXPECT_EQ(deviceCompact(scattered20(20000), false, 4095, true).fire, 0u);
  EXPECT_EQ(deviceCompact(scattered20(20000), false, 4096, true).fire, 1u);
}

TEST(CudaCompact, GraphCaptureAndReplayWithNewMasks) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 1 << 20;
  DeviceBytes mask(n), map(n * 4), scratch(sieve::compactScratchBytes(n)), words(16, 0);
  cudaStream_t s;
  SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto* w = words.get<std::uint32_t>();
  const std::uint32_t span = n;
  SIEVE_CUDA_CHECK(cudaMemcpy(w + 2, &span, 4, cudaMemcpyHostToDevice));
  sieve::ReorderTrigger trig{w + 1, w + 2, w + 3, 0.5f};
  cudaGraph_t graph;
  SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  sieve::compactDevice(mask.get<std::uint8_t>(), 0u, map.get<std::int32_t>(), w, scratch.get(), n,
                       s, &trig);
  SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (std::uint32_t rep = 0; rep < 4; ++rep) {
    const auto host = makeMask(rep % 2 ? MaskKind::Random20 : MaskKind::Random90, n, 100 + rep);
    mask.upload(host);
    SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, s));
    SIEVE_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto ref = refCompact(host.data(), n, false);
    const auto got = map.download<std::int32_t>(ref.count);
    EXPECT_EQ(words.download<std::uint32_t>(1)[0], ref.count) << "replay " << rep;
    EXPECT_EQ(got, ref.map) << "replay " << rep;
    EXPECT_EQ(words.download<std::uint32_t>(2)[1], ref.live32) << "replay " << rep;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(CudaCompact, NotConfusedByAStaleError) {
  SIEVE_REQUIRE_DEVICE();
  // Leave a (non-sticky) error behind, as a careless caller would.
  EXPECT_NE(cudaSetDevice(1 << 20), cudaSuccess);
  const auto mask = makeMask(MaskKind::Random50, 50000);
  CompactOut dev{};
  EXPECT_NO_THROW(dev = deviceCompact(mask, false, 50000, true));
  EXPECT_EQ(dev.count, refCompact(mask.data(), 50000, false).count);
  cudaGetLastError(); // clean up after ourselves
}

TEST(CudaCompact, RejectsBadArgumentsBeforeAnyCudaCall) {
  // Runs without a GPU: the checks come first.
  std::uint32_t count = 0, live = 0, fire = 0, span = 10;
  std::int32_t map[4];
  std::uint8_t mask[4] = {};
  unsigned long long scratch[8];
  EXPECT_THROW(sieve::compactDevice(mask, 0u, map, &count, scratch, -1, nullptr), std::invalid_argument);
  EXPECT_THROW(sieve::compactDevice(mask, 0u, map, &count, scratch, std::int64_t(1) << 31, nullptr),
               std::invalid_argument);
  EXPECT_THROW(sieve::compactDevice(nullptr, 0u, map, &count, scratch, 4, nullptr), std::invalid_argument);
  EXPECT_THROW(sieve::compactDevice(mask, 6u, map, &count, scratch, 4, nullptr), std::invalid_argument);
  sieve::ReorderTrigger bad{&live, &span, &fire, 1.5f};
  EXPECT_THROW(sieve::compactDevice(mask, 0u, map, &count, scratch, 4, nullptr, &bad),
               std::invalid_argument);
  sieve::ReorderPlane planes[] = {{mask, 1}, {map, 3}};
  std::int32_t perm[4], inv[4];
  EXPECT_THROW(sieve::reorderDevice(planes, 2, mask, 0u, perm, inv, map, &count, &span, &fire,
                                    scratch, 4, nullptr),
               std::invalid_argument);
  EXPECT_THROW(sieve::restoreDevice(planes, 2, perm, inv, scratch, 4, nullptr), std::invalid_argument);
  std::int32_t a[8], b[8], c[8];
  EXPECT_THROW((sieve::cuda::Scan::enqueue<std::int32_t, sieve::Sum, true>(a, a + 1, c, 7)),
               std::invalid_argument);
  EXPECT_THROW((sieve::cuda::Scan::enqueue<std::int32_t, sieve::Sum, true>(a, b, c, -2)),
               std::invalid_argument);
}

// ---------------------------------------------------------------- reorder --

namespace {

/// A population in host memory and its device copy: mask, then planes of
/// 2, 4, 8 and 16 bytes.
struct Population {
  std::int64_t n;
  std::vector<std::vector<unsigned char>> planes; // host bytes
  std::vector<std::uint32_t> elems{1, 2, 4, 8, 16};
  std::vector<std::int32_t> perm, inv, map;
  std::uint32_t count = 0, span = 0, fire = 1;

  explicit Population(const std::vector<std::uint8_t>& mask) : n(static_cast<std::int64_t>(mask.size())) {
    planes.emplace_back(mask.begin(), mask.end());
    for (std::size_t p = 1; p < elems.size(); ++p)
      planes.push_back(planeBytes(n, elems[p], static_cast<std::uint32_t>(p)));
    perm.resize(mask.size());
    std::iota(perm.begin(), perm.end(), 0);
    inv = perm;
    map.assign(mask.size(), -1);
    span = static_cast<std::uint32_t>(n);
  }

  /// The reorder on the host twins.
  void reorderHost(bool drop, bool useFire) {
    std::vector<sieve::ReorderPlane> d;
    for (std::size_t p = 0; p < planes.size(); ++p) d.push_back({planes[p].data(), elems[p]});
    std::vector<unsigned char> store(sieve::reorderScratchBytes(n, 16) + 16);
    void* s = store.data() + (16 - reinterpret_cast<std::uintptr_t>(store.data()) % 16) % 16;
    sieve::reorderHost(d.data(), static_cast<std::uint32_t>(d.size()), planes[0].data(),
                       drop ? sieve::kCompactMaskIsDrop : 0u, perm.data(), inv.data(), map.data(),
                       &count, &span, useFire ? &fire : nullptr, s, n);
  }

  /// The same reorder (or restore) on the device; the results come back into
  /// this population.
  void onDevice(bool restore, bool drop, bool useFire) {
    std::vector<std::unique_ptr<DeviceBytes>> dp;
    std::vector<sieve::ReorderPlane> d;
    for (std::size_t p = 0; p < planes.size(); ++p) {
      dp.push_back(std::make_unique<DeviceBytes>(planes[p].size()));
      dp.back()->upload(planes[p].data(), planes[p].size());
      d.push_back({dp.back()->get(), elems[p]});
    }
    DeviceBytes dperm(n * 4), dinv(n * 4), dmap(n * 4), words(16),
        scratch(sieve::reorderScratchBytes(n, 16));
    dperm.upload(perm);
    dinv.upload(inv);
    dmap.upload(map);
    const std::uint32_t w[3] = {count, span, fire};
    words.upload(w, sizeof w);
    auto* dw = words.get<std::uint32_t>();
    if (restore)
      sieve::restoreDevice(d.data(), static_cast<std::uint32_t>(d.size()), dperm.get<std::int32_t>(),
                           dinv.get<std::int32_t>(), scratch.get(), n, nullptr);
    else
      sieve::reorderDevice(d.data(), static_cast<std::uint32_t>(d.size()), dp[0]->get<std::uint8_t>(),
                           drop ? sieve::kCompactMaskIsDrop : 0u, dperm.get<std::int32_t>(),
                           dinv.get<std::int32_t>(), dmap.get<std::int32_t>(), dw, dw + 1,
                           useFire ? dw + 2 : nullptr, scratch.get(), n, nullptr);
    for (std::size_t p = 0; p < planes.size(); ++p) {
      planes[p] = dp[p]->bytes();
      EXPECT_TRUE(dp[p]->guardIntact()) << "plane " << p;
    }
    perm = dperm.download<std::int32_t>(n);
    inv = dinv.download<std::int32_t>(n);
    map = dmap.download<std::int32_t>(n);
    const auto hw = words.download<std::uint32_t>(3);
    count = hw[0];
    span = hw[1];
    fire = hw[2];
    EXPECT_TRUE(scratch.guardIntact()) << "scratch written past reorderScratchBytes";
  }

  bool operator==(const Population& o) const {
    return planes == o.planes && perm == o.perm && inv == o.inv && map == o.map &&
           count == o.count && span == o.span && fire == o.fire;
  }
};

} // namespace

TEST(CudaReorder, MatchesHostTwinsByteForByte) {
  SIEVE_REQUIRE_DEVICE();
  for (const auto n : sizes())
    for (const auto kind : {MaskKind::Random20, MaskKind::All, MaskKind::None, MaskKind::Alternating,
                            MaskKind::OneRun})
      for (const bool drop : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
        Population host(makeMask(kind, n)), dev = host;
        host.reorderHost(drop, true);
        dev.onDevice(false, drop, true);
        ASSERT_TRUE(dev == host);
      }
}

TEST(CudaReorder, FireZeroSpanClampAndRestore) {
  SIEVE_REQUIRE_DEVICE();
  const auto mask = makeMask(MaskKind::Random50, 70001);
  {
    Population p(mask), before = p;
    p.fire = before.fire = 0;
    p.onDevice(false, false, true);
    EXPECT_TRUE(p == before) << "fire == 0 must leave every byte untouched";
  }
  for (std::uint32_t span : {0u, 33u, 50000u, 1000000u}) {
    Population host(mask), dev = host;
    host.span = dev.span = span;
    host.reorderHost(false, false);
    dev.onDevice(false, false, false);
    EXPECT_TRUE(dev == host) << "span " << span;
  }
  // Two reorders over a thinning mask, then restore: everything back.
  std::vector<std::uint8_t> all(200003, 1);
  Population pop(all);
  const auto original = pop.planes;
  for (std::uint32_t step = 0; step < 2; ++step) {
    const std::vector<std::uint8_t> cur(pop.planes[0].begin(), pop.planes[0].end());
    const auto next = thin(cur, 0.5, 7 + step);
    pop.planes[0].assign(next.begin(), next.end());
    Population host = pop;
    host.reorderHost(false, false);
    pop.onDevice(false, false, false);
    ASSERT_TRUE(pop == host);
  }
  pop.onDevice(true, false, false);
  for (std::size_t p = 1; p < pop.planes.size(); ++p) EXPECT_EQ(pop.planes[p], original[p]) << "plane " << p;
  std::vector<std::int32_t> ids(pop.perm.size());
  std::iota(ids.begin(), ids.end(), 0);
  EXPECT_EQ(pop.perm, ids);
  EXPECT_EQ(pop.inv, ids);
}

// ------------------------------------------------------------------- scan --

namespace {

struct XorOp {
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    return a ^ b;
  }
};

template <class T, class Op, bool Inclusive>
std::vector<T> deviceScan(const std::vector<T>& in, T init, bool inPlace = false) {
  const auto n = static_cast<std::int64_t>(in.size());
  DeviceBytes din(in.size() * sizeof(T)), dout(in.size() * sizeof(T)),
      sums(std::max<std::size_t>(1, in.size()) * sizeof(T));
  din.upload(in);
  T* out = inPlace ? din.get<T>() : dout.get<T>();
  sieve::cuda::Scan::enqueue<T, Op, Inclusive>(din.get<T>(), out, sums.get<T>(), n, init);
  EXPECT_TRUE(sums.guardIntact()) << "blockSums written past n elements";
  return inPlace ? din.download<T>(in.size()) : dout.download<T>(in.size());
}

template <class T, class Op>
void checkAgainstTwins(T init, const char* what) {
  std::vector<std::int64_t> ns = sizes();
  ns.push_back(6000011); // three levels of tiles
  for (const auto n : ns) {
    if (std::is_floating_point_v<T> && n > (1 << 20)) continue; // exact float sums only
    const auto in = smallInts<T>(n, 5);
    std::vector<T> host(in.size()), hs(in.size() + 1);
    for (const bool inclusive : {true, false}) {
      SCOPED_TRACE(std::string(what) + " n=" + std::to_string(n) + (inclusive ? " incl" : " excl"));
      sieve::cpu::Scan::scan<T, Op, true>(in.data(), host.data(), hs.data(), n, init);
      if (!inclusive) sieve::cpu::Scan::scan<T, Op, false>(in.data(), host.data(), hs.data(), n, init);
      const auto dev = inclusive ? deviceScan<T, Op, true>(in, init) : deviceScan<T, Op, false>(in, init);
      ASSERT_EQ(0, compareBytes(dev.data(), host.data(), host.size() * sizeof(T)));
      ASSERT_EQ(host, refScan(in, Op{}, init, inclusive));
    }
  }
}

} // namespace

TEST(CudaScan, MatchesHostTwins) {
  SIEVE_REQUIRE_DEVICE();
  checkAgainstTwins<std::int32_t, sieve::Sum>(0, "int32 sum");
  checkAgainstTwins<std::int32_t, sieve::Sum>(-17, "int32 sum+init");
  checkAgainstTwins<std::int32_t, sieve::Min>(sieve::Min::identity<std::int32_t>(), "int32 min");
  checkAgainstTwins<std::int32_t, XorOp>(0x33, "int32 user xor");
  checkAgainstTwins<std::int64_t, sieve::Sum>(std::int64_t(1) << 40, "int64 sum+init");
  checkAgainstTwins<std::uint32_t, sieve::Max>(0u, "uint32 max");
  checkAgainstTwins<std::int8_t, sieve::Max>(std::int8_t(-100), "int8 max");
  checkAgainstTwins<float, sieve::Sum>(0.5f, "float sum+init");
  checkAgainstTwins<double, sieve::Max>(-1.0, "double max+init");
}

TEST(CudaScan, OrderSensitiveOperator) {
  SIEVE_REQUIRE_DEVICE();
  std::vector<std::int64_t> ns = sizes();
  ns.push_back(6000011);
  for (const auto n : ns) {
    const auto in = affineMaps(n, 41);
    const std::uint64_t init = affineMaps(1, 42)[0];
    EXPECT_EQ((deviceScan<std::uint64_t, Affine, true>(in, init)), refScan(in, Affine{}, init, true)) << n;
    EXPECT_EQ((deviceScan<std::uint64_t, Affine, false>(in, init)), refScan(in, Affine{}, init, false)) << n;
  }
}

TEST(CudaScan, InPlaceDeterministicAndEntryPoints) {
  SIEVE_REQUIRE_DEVICE();
  const auto in = smallInts<std::int32_t>(3000017, 8);
  const auto ref = refScan(in, sieve::Sum{}, 4, true);
  EXPECT_EQ((deviceScan<std::int32_t, sieve::Sum, true>(in, 4, true)), ref);
  // Floating point: the same bits run to run.
  std::mt19937 g(3);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> x(2000003);
  for (auto& v : x) v = d(g);
  const auto a = deviceScan<double, sieve::Sum, true>(x, 0.0), b = deviceScan<double, sieve::Sum, true>(x, 0.0);
  EXPECT_EQ(0, compareBytes(a.data(), b.data(), a.size() * 8));
  // graph / launch / inclusive / exclusive.
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  DeviceBytes din(n * 4), dout(n * 4), sums(n * 4);
  din.upload(in);
  sieve::cuda::Scan::inclusive<std::int32_t, sieve::Sum>(din.get<std::int32_t>(), dout.get<std::int32_t>(),
                                                         sums.get<std::int32_t>(), n, 4);
  EXPECT_EQ(dout.download<std::int32_t>(n), ref);
  sieve::cuda::Scan::exclusive<std::int32_t, sieve::Sum>(din.get<std::int32_t>(), dout.get<std::int32_t>(),
                                                         sums.get<std::int32_t>(), n, 4);
  EXPECT_EQ(dout.download<std::int32_t>(n), refScan(in, sieve::Sum{}, 4, false));
  cudaGraph_t graph = sieve::cuda::Scan::inclusiveGraph<std::int32_t, sieve::Min>(
      din.get<std::int32_t>(), dout.get<std::int32_t>(), sums.get<std::int32_t>(), n, 1000);
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, nullptr));
  SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(dout.download<std::int32_t>(n), refScan(in, sieve::Min{}, 1000, true));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}
