// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — radixOrderDevice, the stable radix order of 64-bit keys:
// against std::stable_sort of the indices (1 to 8 passes, tiles cut
// anywhere, many equal keys, bits = 0 and 64), keys >= 2^bits (nothing
// written), graph capture and replay, the 8-byte index planes of 2^32 keys
// and more run at small n, the scratch rule and the argument checks (run
// everywhere).
#include "device.hpp"

#include <sieve/native/cuda/radix.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sieve_test;

namespace {

std::vector<std::int64_t> stableOrder(const std::vector<std::uint64_t>& keys) {
  std::vector<std::int64_t> o(keys.size());
  std::iota(o.begin(), o.end(), std::int64_t(0));
  std::stable_sort(o.begin(), o.end(), [&](std::int64_t a, std::int64_t b) {
    return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
  });
  return o;
}

std::vector<std::uint64_t> randomKeys(std::int64_t n, int bits, std::uint32_t seed,
                                      std::uint64_t distinct = 0) {
  std::mt19937_64 rng(seed);
  const std::uint64_t mask = bits >= 64 ? ~0ull : (std::uint64_t(1) << bits) - 1u;
  std::vector<std::uint64_t> pool;
  for (std::uint64_t d = 0; d < distinct; ++d) pool.push_back(rng() & mask);
  std::vector<std::uint64_t> k(static_cast<std::size_t>(n));
  for (auto& x : k) x = distinct > 0 ? pool[rng() % distinct] : (rng() & mask);
  return k;
}

/// indexBytes 4 or 8: the internal entry with index planes of that width
/// (8: the planes of 2^32 keys and more) and its scratch rule; 0: the public
/// call.
struct RadixBuffers {
  std::int64_t n;
  std::size_t indexBytes, scratchBytes;
  DeviceBytes keys, order, status, scratch;
  RadixBuffers(std::int64_t n_, std::size_t offset = 0, std::size_t indexBytes_ = 0)
      : n(n_), indexBytes(indexBytes_),
        scratchBytes(indexBytes_ == 0 ? sieve::radix_order_device_scratch_bytes(n_)
                                      : sieve::Impl::radixOrderDeviceScratchBytes(n_, indexBytes_)),
        keys(static_cast<std::size_t>(n_ > 0 ? n_ : 1) * 8),
        order(static_cast<std::size_t>(n_) * 8), status(16), scratch(scratchBytes + offset) {}
  void run(int bits, std::size_t offset = 0, cudaStream_t s = nullptr) {
    auto* sc = static_cast<unsigned char*>(scratch.get()) + offset;
    if (indexBytes == 0)
      sieve::radixOrderDevice(keys.get<std::uint64_t>(), n, bits, order.get<std::int64_t>(),
                              status.get<std::int64_t>(), sc, scratchBytes, s);
    else
      sieve::Impl::radixOrderDeviceIndexBytes(
          keys.get<std::uint64_t>(), n, bits, order.get<std::int64_t>(), status.get<std::int64_t>(),
          sc, scratchBytes, s, indexBytes, "sieve::radixOrderDevice");
  }
};

void checkOrder(const std::vector<std::uint64_t>& keys, int bits, std::size_t offset,
                const std::string& what, std::size_t indexBytes = 0) {
  const auto n = static_cast<std::int64_t>(keys.size());
  RadixBuffers d(n, offset, indexBytes);
  if (n > 0) d.keys.upload(keys);
  d.run(bits, offset);
  const auto status = d.status.download<std::int64_t>(2);
  ASSERT_EQ(status[0], 0) << what;
  ASSERT_EQ(status[1], 0) << what;
  ASSERT_EQ(d.order.download<std::int64_t>(keys.size()), stableOrder(keys)) << what;
  EXPECT_TRUE(d.order.guardIntact()) << what;
  EXPECT_TRUE(d.status.guardIntact()) << what;
  EXPECT_TRUE(d.scratch.guardIntact()) << what << ": wrote past the scratch rule";
  EXPECT_EQ(d.keys.download<std::uint64_t>(keys.size()), keys) << what << ": changed the keys";
}

} // namespace

TEST(CudaRadixOrder, MatchesAStableSort) {
  SIEVE_REQUIRE_DEVICE();
  struct Case {
    std::int64_t n;
    int bits;
    std::uint64_t distinct;
  };
  const Case cases[] = {{0, 20, 0},     {1, 20, 0},     {2047, 8, 0},    {2049, 9, 0},
                        {10000, 1, 0},  {30011, 16, 0}, {30011, 20, 50}, {65537, 33, 0},
                        {20000, 64, 0}, {20000, 64, 7}, {5000, 57, 0},   {4097, 0, 0}};
  std::uint32_t seed = 3;
  for (const Case& c : cases) {
    const auto keys = randomKeys(c.n, c.bits, seed++, c.distinct);
    checkOrder(keys, c.bits, (seed % 3) * 8,
               "n " + std::to_string(c.n) + ", bits " + std::to_string(c.bits));
  }
}

TEST(CudaRadixOrder, EightByteIndicesAtAnySize) {
  // The index planes 2^32 keys and more take (uint64), run below 2^32 keys:
  // 1 to 8 passes, both plane parities, equal keys, a shifted scratch.
  SIEVE_REQUIRE_DEVICE();
  struct Case {
    std::int64_t n;
    int bits;
    std::uint64_t distinct;
  };
  const Case cases[] = {{0, 20, 0},     {1, 20, 0},     {2049, 9, 0},
                        {10000, 1, 0},  {30011, 16, 0}, {30011, 20, 50},
                        {20000, 64, 0}, {5000, 57, 0},  {4097, 0, 0}};
  std::uint32_t seed = 11;
  for (const Case& c : cases) {
    const auto keys = randomKeys(c.n, c.bits, seed++, c.distinct);
    checkOrder(keys, c.bits, (seed % 3) * 8,
               "8-byte indices, n " + std::to_string(c.n) + ", bits " + std::to_string(c.bits), 8);
  }
}

TEST(CudaRejects, RadixOrderIndexBytesRule) {
  // (Host checks, before any launch: run everywhere.)
  const std::int64_t n = 100;
  std::vector<std::uint64_t> keys(n);
  std::vector<std::int64_t> order(n), status(2);
  const std::size_t need = sieve::Impl::radixOrderDeviceScratchBytes(n, 8);
  std::vector<unsigned char> scratch(need);
  const auto call = [&](std::int64_t m, std::size_t ib, std::size_t bytes) {
    sieve::Impl::radixOrderDeviceIndexBytes(keys.data(), m, 64, order.data(), status.data(),
                                            scratch.data(), bytes, nullptr, ib,
                                            "sieve::radixOrderDevice");
  };
  for (std::size_t ib : {std::size_t(0), std::size_t(2), std::size_t(16)}) {
    try {
      call(n, ib, need);
      ADD_FAILURE() << "indexBytes = " << ib << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("indexBytes = " + std::to_string(ib)), std::string::npos)
          << e.what();
    }
  }
  try {
    call(0x100000000LL, 4, need);
    ADD_FAILURE() << "4-byte indices of 2^32 keys: no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("radixIndexBytes(n = 4294967296) = 8"), std::string::npos)
        << e.what();
  }
  // The 8-byte planes need their own, larger scratch.
  try {
    call(n, 8, sieve::radix_order_device_scratch_bytes(n));
    ADD_FAILURE() << "the 4-byte scratch rule for 8-byte indices: no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Impl::radixOrderDeviceScratchBytes(n, 8)"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaRadixOrder, SortedReversedAndEqualKeys) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 12345;
  std::vector<std::uint64_t> up(n), down(n), same(n, 0xABCDull);
  for (std::int64_t i = 0; i < n; ++i) {
    up[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i) * 977u;
    down[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(n - i) << 40;
  }
  checkOrder(up, 24, 0, "ascending");
  checkOrder(down, 54, 0, "descending");
  checkOrder(same, 16, 0, "all equal");
}

TEST(CudaRadixOrder, KeysAboveTheBitsWriteNothing) {
  SIEVE_REQUIRE_DEVICE();
  for (const int bits : {0, 8, 12, 40}) {
    auto keys = randomKeys(9000, bits, 17);
    keys[4321] = std::uint64_t(1) << bits;
    keys[8999] = ~0ull;
    RadixBuffers d(9000);
    d.keys.upload(keys);
    const auto before = d.order.bytes();
    d.run(bits);
    const auto status = d.status.download<std::int64_t>(2);
    EXPECT_EQ(status[0], 2) << bits;
    EXPECT_EQ(status[1], 0) << bits;
    EXPECT_EQ(d.order.bytes(), before) << bits << ": wrote the order of keys above 2^bits";
    EXPECT_TRUE(d.scratch.guardIntact());
  }
}

// Captured once, replayed with new keys. bits = 64: the asynchronous
// scatter_sparse's full width, its words the distances of int64 keys from
// INT64_MIN (small signed keys: the top bit set or not, the rest narrow).
TEST(CudaRadixOrder, GraphCaptureAndReplay) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 40000;
  for (const int bits : {28, 64}) {
    RadixBuffers d(n);
    cudaStream_t s;
    SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    d.run(bits, 0, s);
    cudaGraph_t graph;
    SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    cudaGraphExec_t exec;
    SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (std::uint32_t round = 0; round < 3; ++round) {
      auto keys = randomKeys(n, bits == 64 ? 20 : bits, 40 + round, round == 1 ? 100 : 0);
      if (bits == 64)
        for (auto& k : keys)
          k = (k & 1u) != 0 ? (std::uint64_t(1) << 63) + (k >> 1)
                            : (std::uint64_t(1) << 63) - 1 - (k >> 1);
      d.keys.upload(keys);
      SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, s));
      SIEVE_CUDA_CHECK(cudaStreamSynchronize(s));
      EXPECT_EQ(d.status.download<std::int64_t>(2), (std::vector<std::int64_t>{0, 0}));
      EXPECT_EQ(d.order.download<std::int64_t>(static_cast<std::size_t>(n)), stableOrder(keys))
          << "bits " << bits << ", round " << round;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    SIEVE_CUDA_CHECK(cudaStreamDestroy(s));
  }
}

TEST(CudaRejects, RadixOrderBeforeAnyCudaCall) {
  alignas(64) static unsigned char arena[1 << 16];
  const std::int64_t n = 100;
  const std::size_t need = sieve::radix_order_device_scratch_bytes(n);
  std::vector<unsigned char> scratch(need);
  auto* keys = reinterpret_cast<const std::uint64_t*>(arena);
  auto* order = reinterpret_cast<std::int64_t*>(arena + 4096);
  auto* status = reinterpret_cast<std::int64_t*>(arena + 8192);
  const auto expectThrow = [&](const std::string& needle, auto&& f) {
    expectInvalidNaming("sieve::radixOrderDevice", needle, f);
  };
  const auto call = [&](const std::uint64_t* k, std::int64_t n_, int bits, std::int64_t* o,
                        std::int64_t* st, void* sc, std::size_t bytes) {
    sieve::radixOrderDevice(k, n_, bits, o, st, sc, bytes, nullptr);
  };
  expectThrow("n = -1", [&] { call(keys, -1, 8, order, status, scratch.data(), need); });
  expectThrow("bits = 65", [&] { call(keys, n, 65, order, status, scratch.data(), need); });
  expectThrow("bits = -1", [&] { call(keys, n, -1, order, status, scratch.data(), need); });
  expectThrow("keys is null", [&] { call(nullptr, n, 8, order, status, scratch.data(), need); });
  expectThrow("keys is misaligned", [&] {
    call(reinterpret_cast<const std::uint64_t*>(arena + 4), n, 8, order, status, scratch.data(),
         need);
  });
  expectThrow("order is null", [&] { call(keys, n, 8, nullptr, status, scratch.data(), need); });
  expectThrow("status is null", [&] { call(keys, n, 8, order, nullptr, scratch.data(), need); });
  expectThrow("scratch is null", [&] { call(keys, n, 8, order, status, nullptr, need); });
  expectThrow("radix_order_device_scratch_bytes",
              [&] { call(keys, n, 8, order, status, scratch.data(), need - 1); });
  expectThrow("keys overlaps order", [&] {
    call(keys, n, 8, reinterpret_cast<std::int64_t*>(arena + 400), status, scratch.data(), need);
  });
  expectThrow("overlaps scratch", [&] { call(keys, n, 8, order, status, arena + 8000, need); });
}

TEST(CudaRejects, RadixOrderScratchRule) {
  // The pass regions, then RadixLayout's planes, inside the rule (host
  // arithmetic).
  using L = sieve::Impl::DenseScatterDeviceLayout;
  for (const std::int64_t n : {0LL, 1LL, 2048LL, 2049LL, 1000003LL, 0xFFFFFFFFLL, 0x100000000LL}) {
    const std::size_t bytes = sieve::radix_order_device_scratch_bytes(n);
    EXPECT_EQ(bytes, 64u + L::records(n) + sieve::Impl::RadixLayout::end(n)) << n;
    EXPECT_EQ(bytes, sieve::Impl::radixOrderDeviceScratchBytes(n, n > 0xFFFFFFFFLL ? 8 : 4)) << n;
    EXPECT_GE(bytes, sieve::radix_order_scratch_bytes(n)) << n;
    // The pass regions: the digit totals of 64-bit keys, two look-back regions.
    EXPECT_GE(L::kMaxPasses * sieve::kRadixDigitBits, 64);
    EXPECT_GE(L::records(n), L::chainB(n) + 8u * static_cast<std::size_t>(L::passCells(n))) << n;
  }
  EXPECT_EQ(sieve::radix_order_device_scratch_bytes(-3),
            sieve::radix_order_device_scratch_bytes(0));
}
