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

#include <algorithm>
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
    const auto twin = hostCompact(host, false, span);
    EXPECT_EQ(words.download<std::uint32_t>(4)[3], twin.fire) << "replay " << rep;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(CudaCompact, ManyTilesAndTheLargestBatch) {
  SIEVE_REQUIRE_DEVICE();
  // Thousands of tiles in flight (look-back across windows), then n = INT32_MAX
  // with a structured mask whose answer is known without a reference array.
  {
    const std::int64_t n = (std::int64_t(1) << 25) + 4099;
    const auto mask = makeMask(MaskKind::Random20, n, 5);
    const auto dev = deviceCompact(mask, false, static_cast<std::uint32_t>(n), true);
    const auto ref = refCompact(mask.data(), n, false);
    ASSERT_EQ(dev.count, ref.count);
    ASSERT_EQ(dev.live32, ref.live32);
    ASSERT_EQ(0, std::memcmp(dev.map.data(), ref.map.data(), ref.map.size() * 4));
  }
  std::size_t freeBytes = 0, totalBytes = 0;
  SIEVE_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  const std::int64_t n = std::numeric_limits<std::int32_t>::max();
  const std::size_t need = static_cast<std::size_t>(n) * 5 + sieve::compactScratchBytes(n) + (1u << 20);
  if (freeBytes < need) GTEST_SKIP() << "n = INT32_MAX needs " << need << " bytes of device memory";
  // Keep every 7th sample, and the last one.
  DeviceBytes mask(n, 0), map(static_cast<std::size_t>(n) * 4), scratch(sieve::compactScratchBytes(n)),
      words(16, 0);
  {
    std::vector<std::uint8_t> chunk(std::size_t(1) << 26);
    for (std::int64_t at = 0; at < n; at += static_cast<std::int64_t>(chunk.size())) {
      const std::int64_t len = std::min<std::int64_t>(static_cast<std::int64_t>(chunk.size()), n - at);
      for (std::int64_t i = 0; i < len; ++i) chunk[i] = ((at + i) % 7 == 0) || at + i == n - 1;
      SIEVE_CUDA_CHECK(cudaMemcpy(mask.get<std::uint8_t>() + at, chunk.data(), len, cudaMemcpyHostToDevice));
    }
  }
  auto* w = words.get<std::uint32_t>();
  const std::uint32_t span = static_cast<std::uint32_t>(n);
  SIEVE_CUDA_CHECK(cudaMemcpy(w + 2, &span, 4, cudaMemcpyHostToDevice));
  sieve::ReorderTrigger trig{w + 1, w + 2, w + 3, 0.5f};
  sieve::compactDevice(mask.get<std::uint8_t>(), 0u, map.get<std::int32_t>(), w, scratch.get(), n,
                       nullptr, &trig);
  const auto hw = words.download<std::uint32_t>(4);
  const std::int64_t sevenths = (n + 6) / 7, expect = sevenths + ((n - 1) % 7 != 0);
  ASSERT_EQ(hw[0], static_cast<std::uint32_t>(expect));
  ASSERT_EQ(hw[1], static_cast<std::uint32_t>((n + 31) / 32)) << "every group of 32 holds a 7th";
  const auto got = map.download<std::int32_t>(static_cast<std::size_t>(expect));
  for (std::int64_t k = 0; k < sevenths; ++k)
    ASSERT_EQ(got[k], static_cast<std::int32_t>(7 * k)) << "slot " << k;
  if (expect > sevenths) ASSERT_EQ(got[sevenths], static_cast<std::int32_t>(n - 1));
  EXPECT_TRUE(map.guardIntact());
  EXPECT_TRUE(scratch.guardIntact());
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
  void onDevice(bool restore, bool drop, bool useFire);

  bool operator==(const Population& o) const {
    return planes == o.planes && perm == o.perm && inv == o.inv && map == o.map &&
           count == o.count && span == o.span && fire == o.fire;
  }
};

/// A population's buffers on the device (planes, perm, inv, map, the words
/// count / span / fire, scratch), each with a guard.
struct DevicePopulation {
  std::int64_t n;
  std::vector<std::unique_ptr<DeviceBytes>> planes;
  std::vector<sieve::ReorderPlane> desc;
  DeviceBytes perm, inv, map, words, scratch;

  explicit DevicePopulation(const Population& p)
      : n(p.n), perm(p.n * 4), inv(p.n * 4), map(p.n * 4), words(16),
        scratch(sieve::reorderScratchBytes(p.n, 16)) {
    for (std::size_t k = 0; k < p.planes.size(); ++k) {
      planes.push_back(std::make_unique<DeviceBytes>(p.planes[k].size()));
      desc.push_back({planes.back()->get(), p.elems[k]});
    }
    upload(p);
  }
  void upload(const Population& p) {
    for (std::size_t k = 0; k < p.planes.size(); ++k)
      planes[k]->upload(p.planes[k].data(), p.planes[k].size());
    perm.upload(p.perm);
    inv.upload(p.inv);
    map.upload(p.map);
    const std::uint32_t w[3] = {p.count, p.span, p.fire};
    words.upload(w, sizeof w);
  }
  void download(Population& p) const {
    for (std::size_t k = 0; k < p.planes.size(); ++k) {
      p.planes[k] = planes[k]->bytes();
      EXPECT_TRUE(planes[k]->guardIntact()) << "plane " << k;
    }
    p.perm = perm.download<std::int32_t>(n);
    p.inv = inv.download<std::int32_t>(n);
    p.map = map.download<std::int32_t>(n);
    const auto hw = words.download<std::uint32_t>(3);
    p.count = hw[0];
    p.span = hw[1];
    p.fire = hw[2];
    EXPECT_TRUE(perm.guardIntact() && inv.guardIntact() && map.guardIntact());
    EXPECT_TRUE(scratch.guardIntact()) << "scratch written past reorderScratchBytes";
  }
  std::uint32_t* word(int k) const { return words.get<std::uint32_t>() + k; }
  void reorder(bool drop, bool useFire, cudaStream_t s) {
    sieve::reorderDevice(desc.data(), static_cast<std::uint32_t>(desc.size()),
                         planes[0]->get<std::uint8_t>(), drop ? sieve::kCompactMaskIsDrop : 0u,
                         perm.get<std::int32_t>(), inv.get<std::int32_t>(), map.get<std::int32_t>(),
                         word(0), word(1), useFire ? word(2) : nullptr, scratch.get(), n, s);
  }
  void restore(cudaStream_t s) {
    sieve::restoreDevice(desc.data(), static_cast<std::uint32_t>(desc.size()),
                         perm.get<std::int32_t>(), inv.get<std::int32_t>(), scratch.get(), n, s);
  }
};

void Population::onDevice(bool restore, bool drop, bool useFire) {
  DevicePopulation d(*this);
  if (restore)
    d.restore(nullptr);
  else
    d.reorder(drop, useFire, nullptr);
  d.download(*this);
}

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

TEST(CudaReorder, GraphCaptureReplaysGatedByTheFireWord) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 300007;
  Population host(makeMask(MaskKind::Random50, n));
  DevicePopulation dev(host);
  cudaStream_t s;
  SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  dev.reorder(false, true, s);
  SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  auto setFire = [&](std::uint32_t f) {
    SIEVE_CUDA_CHECK(cudaMemcpy(dev.word(2), &f, 4, cudaMemcpyHostToDevice));
    SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
    host.fire = f;
  };
  auto replay = [&](const char* what) {
    SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, s));
    SIEVE_CUDA_CHECK(cudaStreamSynchronize(s));
    Population got = host;
    dev.download(got);
    EXPECT_TRUE(got == host) << what;
  };
  setFire(0);
  replay("fire == 0: the replay must leave every byte untouched");
  for (std::uint32_t step = 0; step < 3; ++step) {
    // Thin the mask plane (slot order) on both sides, then a firing replay.
    const std::vector<std::uint8_t> cur(host.planes[0].begin(), host.planes[0].end());
    const auto next = thin(cur, 0.6, 31 + step);
    host.planes[0].assign(next.begin(), next.end());
    dev.planes[0]->upload(next);
    setFire(1);
    host.reorderHost(false, true);
    replay("a firing replay must make the host twin's moves");
    EXPECT_EQ(host.fire, 0u);
  }
  SIEVE_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SIEVE_CUDA_CHECK(cudaGraphDestroy(graph));
  SIEVE_CUDA_CHECK(cudaStreamDestroy(s));
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
