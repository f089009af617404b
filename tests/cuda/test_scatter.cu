// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — cuda::DenseScatter, the stable counting scatter by a
// dense bucket: against a sequential counting sort (one to three passes,
// tiles cut anywhere, skewed buckets, 4- to 32-byte records), keys outside
// the range (nothing written), a bucket functor that answers differently
// between its reads (never written outside), graph capture and replay, and
// the argument checks (run everywhere).
#include "device.hpp"

#include <sieve/native/cuda/scatter.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace sieve_test;

namespace {

struct alignas(8) Rec16 {
  std::int64_t key;
  std::uint32_t id;
  std::uint32_t pad;
};
struct Rec12 {
  std::uint32_t key, id, x;
};
struct Rec32 {
  std::int64_t key;
  std::uint64_t id, a, b;
};

template <class Rec>
struct Reader {
  const Rec* p;
  __host__ __device__ Rec operator()(std::int64_t i) const { return p[i]; }
};

/// The bucket of a record: its key minus the range's minimum (negative keys
/// become huge unsigned buckets: outside).
struct KeyMinus {
  std::int64_t min;
  template <class Rec>
  __host__ __device__ std::int64_t operator()(const Rec& r) const {
    return static_cast<std::int64_t>(r.key) - min;
  }
};
struct Itself {
  __host__ __device__ std::uint32_t operator()(std::uint32_t r) const { return r; }
};

template <class Rec>
Rec makeRec(std::int64_t key, std::uint32_t id) {
  Rec r;
  std::memset(&r, 0, sizeof(Rec));
  r.key = static_cast<decltype(r.key)>(key);
  r.id = id;
  return r;
}

/// The reference: records stably ordered by bucket, and the first slot of each bucket.
template <class Rec, class BucketOf>
void reference(const std::vector<Rec>& in, std::int64_t buckets, const BucketOf& bucketOf,
               std::vector<Rec>& out, std::vector<std::int64_t>& offsets) {
  offsets.assign(static_cast<std::size_t>(buckets) + 1, 0);
  for (const Rec& r : in) ++offsets[static_cast<std::size_t>(bucketOf(r)) + 1];
  for (std::int64_t b = 0; b < buckets; ++b) offsets[b + 1] += offsets[b];
  std::vector<std::int64_t> at(offsets.begin(), offsets.end() - 1);
  out.assign(in.size(), Rec{});
  for (const Rec& r : in)
    out[static_cast<std::size_t>(at[static_cast<std::size_t>(bucketOf(r))]++)] = r;
}

/// Device buffers of one scatter of n records of Rec into `buckets`.
template <class Rec>
struct Buffers {
  std::int64_t n, buckets;
  std::size_t scratchBytes;
  DeviceBytes in, out, offsets, status, scratch;
  Buffers(std::int64_t n_, std::int64_t buckets_, std::size_t scratchOffset = 0)
      : n(n_), buckets(buckets_),
        scratchBytes(sieve::cuda::DenseScatter::scratchBytes(n_, buckets_, sizeof(Rec))),
        in(static_cast<std::size_t>(n_ > 0 ? n_ : 1) * sizeof(Rec)),
        out(static_cast<std::size_t>(n_) * sizeof(Rec)),
        offsets(static_cast<std::size_t>(buckets_ + 1) * 8), status(16),
        scratch(scratchBytes + scratchOffset) {}
  Reader<Rec> reader() const { return Reader<Rec>{in.get<Rec>()}; }
  Rec* outRecs() const { return out.get<Rec>(); }
  std::int64_t* offs() const { return offsets.get<std::int64_t>(); }
  std::int64_t* stat() const { return status.get<std::int64_t>(); }
  std::vector<std::int64_t> statusWords() const { return status.download<std::int64_t>(2); }
  std::vector<Rec> outDown() const { return out.download<Rec>(static_cast<std::size_t>(n)); }
  std::vector<std::int64_t> offsDown() const {
    return offsets.download<std::int64_t>(static_cast<std::size_t>(buckets + 1));
  }
};

template <class Rec, class BucketOf>
void checkCase(const std::vector<Rec>& host, std::int64_t buckets, const BucketOf& bucketOf,
               std::size_t scratchOffset, const std::string& what) {
  const auto n = static_cast<std::int64_t>(host.size());
  Buffers<Rec> d(n, buckets, scratchOffset);
  if (n > 0) d.in.upload(host);
  sieve::cuda::DenseScatter::enqueue(
      d.reader(), n, bucketOf, buckets, d.outRecs(), d.offs(), d.stat(),
      static_cast<unsigned char*>(d.scratch.get()) + scratchOffset, d.scratchBytes);
  SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Rec> ref;
  std::vector<std::int64_t> refOffsets;
  reference(host, buckets, bucketOf, ref, refOffsets);
  const auto status = d.statusWords();
  ASSERT_EQ(status[0], 0) << what;
  ASSERT_EQ(status[1], 0) << what;
  const auto got = d.outDown();
  ASSERT_EQ(0, n == 0 ? 0 : std::memcmp(got.data(), ref.data(), ref.size() * sizeof(Rec)))
      << what << ": records differ from the sequential counting sort";
  ASSERT_EQ(d.offsDown(), refOffsets) << what;
  EXPECT_TRUE(d.out.guardIntact()) << what;
  EXPECT_TRUE(d.offsets.guardIntact()) << what;
  EXPECT_TRUE(d.status.guardIntact()) << what;
  EXPECT_TRUE(d.scratch.guardIntact()) << what << ": wrote past the scratch rule";
}

template <class Rec>
std::vector<Rec> randomRecs(std::int64_t n, std::int64_t min, std::int64_t buckets,
                            std::uint32_t seed, bool skewed = false) {
  std::mt19937_64 rng(seed);
  std::vector<Rec> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(buckets));
    if (skewed && rng() % 16 != 0) b = buckets / 3;
    v[static_cast<std::size_t>(i)] = makeRec<Rec>(min + b, static_cast<std::uint32_t>(i));
  }
  return v;
}

} // namespace

TEST(CudaDenseScatter, MatchesTheSequentialCountingSort) {
  SIEVE_REQUIRE_DEVICE();
  struct Case {
    std::int64_t buckets, n;
  };
  // One pass (<= 256), two (<= 2^16), three (2^20); tiles of 2048 cut
  // anywhere; more buckets than records; every bucket empty but one.
  const Case cases[] = {{1, 0},         {1, 1},        {1, 5000},        {7, 2047},
                        {256, 2048},    {256, 2049},   {257, 10000},     {1000, 100003},
                        {65536, 70001}, {65537, 4097}, {1 << 20, 30011}, {300000, 17}};
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    const std::int64_t min = -1234567;
    const auto host = randomRecs<Rec16>(c.n, min, c.buckets, seed++);
    checkCase(host, c.buckets, KeyMinus{min}, (seed % 3) * 4,
              "buckets " + std::to_string(c.buckets) + ", n " + std::to_string(c.n));
  }
}

TEST(CudaDenseScatter, Skewed) {
  SIEVE_REQUIRE_DEVICE();
  // 15/16 of the records in one bucket (one digit fills whole tiles), one,
  // two and three passes.
  checkCase(randomRecs<Rec16>(60000, 5, 200, 11, true), 200, KeyMinus{5}, 0, "skewed, 200");
  checkCase(randomRecs<Rec16>(60000, 5, 70000, 12, true), 70000, KeyMinus{5}, 0, "skewed, 70000");
  checkCase(randomRecs<Rec16>(20000, 5, 1 << 17, 13, true), 1 << 17, KeyMinus{5}, 8,
            "skewed, 2^17");
}

TEST(CudaDenseScatter, LongLookBackChains) {
  SIEVE_REQUIRE_DEVICE();
  // 512 tiles a pass, three passes: every digit's chain of tile counts
  // walked back over many tiles, the skewed digit's through tiles that hold
  // nothing else, the rare digits' through runs of empty counts.
  const std::int64_t n = std::int64_t(1) << 20;
  checkCase(randomRecs<Rec16>(n, -9, 1 << 17, 14, true), 1 << 17, KeyMinus{-9}, 4,
            "skewed, 2^20 records, 2^17 buckets");
}

TEST(CudaDenseScatter, LongRunsOfEmptyBuckets) {
  SIEVE_REQUIRE_DEVICE();
  // Offsets inside runs of empty buckets longer than the record threads fill
  // (binary search): keys at both ends and a few between, 2^22 buckets.
  const std::int64_t buckets = std::int64_t(1) << 22;
  std::vector<Rec16> v;
  std::mt19937 rng(21);
  for (std::uint32_t i = 0; i < 3000; ++i) {
    const std::int64_t picks[] = {0, 1, 40, 41, 77, buckets / 2, buckets - 2, buckets - 1};
    v.push_back(makeRec<Rec16>(picks[rng() % 8], i));
  }
  checkCase(v, buckets, KeyMinus{0}, 0, "2^22 buckets, 8 present");
  checkCase(std::vector<Rec16>{makeRec<Rec16>(buckets / 3, 0)}, buckets, KeyMinus{0}, 0,
            "one record");
}

TEST(CudaDenseScatter, RecordSizes) {
  SIEVE_REQUIRE_DEVICE();
  {
    std::vector<Rec12> v(9000);
    std::mt19937 rng(3);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = Rec12{static_cast<std::uint32_t>(rng() % 300), static_cast<std::uint32_t>(i),
                   static_cast<std::uint32_t>(rng())};
    checkCase(v, 300, KeyMinus{0}, 4, "12-byte records");
  }
  checkCase(randomRecs<Rec32>(7001, 100, 5000, 4), 5000, KeyMinus{100}, 0, "32-byte records");
  {
    std::vector<std::uint32_t> v(12345);
    std::mt19937 rng(5);
    for (auto& x : v) x = rng() % 70000;
    checkCase(v, 70000, Itself{}, 0, "4-byte records (the record is its bucket)");
  }
}

TEST(CudaDenseScatter, KeysOutsideTheRangeWriteNothing) {
  SIEVE_REQUIRE_DEVICE();
  for (const std::int64_t buckets : {100, 1000}) {
    auto host = randomRecs<Rec16>(20000, 0, buckets, 6);
    host[7].key = buckets; // one past the range
    host[19999].key = -1;  // below it
    host[12345].key = buckets * 9;
    Buffers<Rec16> d(20000, buckets);
    d.in.upload(host);
    const auto outBefore = d.out.bytes();
    const auto offBefore = d.offsets.bytes();
    sieve::cuda::DenseScatter::enqueue(Reader<Rec16>{d.in.get<Rec16>()}, d.n, KeyMinus{0}, buckets,
                                       d.out.get<Rec16>(), d.offsets.get<std::int64_t>(),
                                       d.status.get<std::int64_t>(), d.scratch.get(),
                                       d.scratchBytes);
    const auto status = d.status.download<std::int64_t>(2);
    EXPECT_EQ(status[0], 3);
    EXPECT_EQ(status[1], 0);
    EXPECT_EQ(d.out.bytes(), outBefore) << "wrote records with keys outside the range";
    EXPECT_EQ(d.offsets.bytes(), offBefore) << "wrote offsets with keys outside the range";
    EXPECT_TRUE(d.scratch.guardIntact());
  }
}

namespace {
/// A bucket functor that answers differently on some of its calls (each call
/// counted on the device): every third call of every fifth record is off by one.
struct Fickle {
  unsigned long long* calls;
  std::int64_t buckets;
  __device__ std::int64_t operator()(const Rec16& r) const {
    const unsigned long long c = atomicAdd(calls, 1ull);
    if (r.id % 5 == 0 && c % 3 == 0) return (r.key + 1) % buckets;
    return r.key;
  }
};
/// A bucket functor whose every call after a record's first says the last
/// bucket: the count sees the true buckets, the first sweep puts every
/// record in the last bucket's digit, whose range (the last) ends the output.
struct LaterCallsSayLast {
  unsigned* calls; // one per record id
  std::int64_t buckets;
  std::uint32_t n;
  __device__ std::int64_t operator()(const Rec16& r) const {
    if (r.id >= n) return buckets - 1; // (never: the offsets do not run after a change)
    return atomicAdd(calls + r.id, 1u) == 0u ? r.key : buckets - 1;
  }
};
} // namespace

TEST(CudaDenseScatter, ChangingBucketIsCountedAndStaysInside) {
  SIEVE_REQUIRE_DEVICE();
  // (2^20 records: 512 tiles chained by look-back, changed records in many.)
  for (const auto& [buckets, n] : {std::pair<std::int64_t, std::int64_t>{64, 30000},
                                   {3000, 30000},
                                   {3000, std::int64_t(1) << 20}}) {
    const auto host = randomRecs<Rec16>(n, 0, buckets, 8);
    Buffers<Rec16> d(n, buckets);
    d.in.upload(host);
    DeviceBytes calls(8, 0);
    sieve::cuda::DenseScatter::enqueue(
        Reader<Rec16>{d.in.get<Rec16>()}, n, Fickle{calls.get<unsigned long long>(), buckets},
        buckets, d.out.get<Rec16>(), d.offsets.get<std::int64_t>(), d.status.get<std::int64_t>(),
        d.scratch.get(), d.scratchBytes);
    const auto status = d.status.download<std::int64_t>(2);
    EXPECT_TRUE(d.out.guardIntact());
    EXPECT_TRUE(d.offsets.guardIntact());
    EXPECT_TRUE(d.status.guardIntact());
    EXPECT_TRUE(d.scratch.guardIntact());
    EXPECT_EQ(status[0], 0);
    if (status[1] == 0) {
      // Not reported: then every record is in the output exactly once.
      auto got = d.out.download<Rec16>(static_cast<std::size_t>(n));
      std::vector<std::uint32_t> ids;
      for (const auto& r : got) ids.push_back(r.id);
      std::sort(ids.begin(), ids.end());
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(ids[static_cast<std::size_t>(i)], i);
    }
    EXPECT_GT(status[1], 0) << "buckets " << buckets
                            << ": a third of the calls answered differently, unreported";
  }
  for (const std::int64_t buckets : {200, 5000}) {
    const std::int64_t n = 9000; // the last tile's last range ends the output
    Buffers<Rec16> d(n, buckets);
    d.in.upload(randomRecs<Rec16>(n, 0, buckets, 9));
    const auto offBefore = d.offsets.bytes();
    DeviceBytes calls(static_cast<std::size_t>(n) * 4, 0);
    sieve::cuda::DenseScatter::enqueue(
        d.reader(), n,
        LaterCallsSayLast{calls.get<unsigned>(), buckets, static_cast<std::uint32_t>(n)}, buckets,
        d.outRecs(), d.offs(), d.stat(), d.scratch.get(), d.scratchBytes);
    const auto status = d.statusWords();
    EXPECT_EQ(status[0], 0);
    EXPECT_GT(status[1], 0) << buckets;
    EXPECT_TRUE(d.out.guardIntact()) << buckets << ": wrote past the output";
    EXPECT_TRUE(d.offsets.guardIntact());
    // The first sweep found the change: the later kernels (the second pass
    // and the offsets, which would read slots never written) did not run.
    EXPECT_EQ(d.offsets.bytes(), offBefore) << buckets << ": offsets written after a change";
    EXPECT_TRUE(d.scratch.guardIntact()) << buckets << ": wrote past the record plane";
  }
}

TEST(CudaDenseScatter, GraphCaptureAndReplay) {
  SIEVE_REQUIRE_DEVICE();
  const std::int64_t n = 50001, buckets = 5000;
  Buffers<Rec16> d(n, buckets);
  cudaStream_t s;
  SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  SIEVE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  sieve::cuda::DenseScatter::enqueue(Reader<Rec16>{d.in.get<Rec16>()}, n, KeyMinus{-7}, buckets,
                                     d.out.get<Rec16>(), d.offsets.get<std::int64_t>(),
                                     d.status.get<std::int64_t>(), d.scratch.get(), d.scratchBytes,
                                     s);
  cudaGraph_t graph;
  SIEVE_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<std::int64_t> lastOffsets;
  for (std::uint32_t round = 0; round < 3; ++round) {
    auto host = randomRecs<Rec16>(n, -7, buckets, 20 + round);
    if (round == 1) host[n / 2].key = buckets; // outside: this replay writes nothing
    d.in.upload(host);
    const auto outBefore = d.out.bytes();
    SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, s));
    SIEVE_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto status = d.status.download<std::int64_t>(2);
    if (round == 1) {
      EXPECT_EQ(status[0], 1);
      EXPECT_EQ(d.out.bytes(), outBefore);
      EXPECT_EQ(d.offsDown(), lastOffsets) << "a replay with a key outside wrote offsets";
      continue;
    }
    EXPECT_EQ(status[0], 0);
    EXPECT_EQ(status[1], 0);
    std::vector<Rec16> ref;
    std::vector<std::int64_t> refOffsets;
    reference(host, buckets, KeyMinus{-7}, ref, refOffsets);
    const auto got = d.out.download<Rec16>(static_cast<std::size_t>(n));
    EXPECT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(Rec16))) << round;
    EXPECT_EQ(d.offsets.download<std::int64_t>(refOffsets.size()), refOffsets) << round;
    lastOffsets = refOffsets;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  SIEVE_CUDA_CHECK(cudaStreamDestroy(s));
}

TEST(CudaRejects, DenseScatterBeforeAnyCudaCall) {
  // Host addresses that are never dereferenced: every check comes first.
  alignas(64) static unsigned char arena[1 << 16];
  const std::int64_t n = 100, buckets = 300;
  const std::size_t need = sieve::cuda::DenseScatter::scratchBytes(n, buckets, sizeof(Rec16));
  std::vector<unsigned char> scratch(need);
  auto* out = reinterpret_cast<Rec16*>(arena);
  auto* offsets = reinterpret_cast<std::int64_t*>(arena + 4096);
  auto* status = reinterpret_cast<std::int64_t*>(arena + 8192);
  const Reader<Rec16> rd{reinterpret_cast<const Rec16*>(arena + 16384)};
  const auto call = [&](std::int64_t n_, std::int64_t b_, Rec16* o, std::int64_t* off,
                        std::int64_t* st, void* sc, std::size_t bytes) {
    sieve::cuda::DenseScatter::enqueue(rd, n_, KeyMinus{0}, b_, o, off, st, sc, bytes);
  };
  const auto expectThrow = [&](const std::string& needle, auto&& f) {
    expectInvalidNaming("sieve::cuda::DenseScatter", needle, f);
  };
  expectThrow("n = -1", [&] { call(-1, buckets, out, offsets, status, scratch.data(), need); });
  expectThrow("buckets = 0", [&] { call(n, 0, out, offsets, status, scratch.data(), need); });
  expectThrow("buckets = ", [&] {
    call(n, (std::int64_t(1) << 62) + 1, out, offsets, status, scratch.data(), need);
  });
  expectThrow("out is null",
              [&] { call(n, buckets, nullptr, offsets, status, scratch.data(), need); });
  expectThrow("out is misaligned", [&] {
    call(n, buckets, reinterpret_cast<Rec16*>(arena + 4), offsets, status, scratch.data(), need);
  });
  expectThrow("offsets is misaligned", [&] {
    call(n, buckets, out, reinterpret_cast<std::int64_t*>(arena + 4100), status, scratch.data(),
         need);
  });
  expectThrow("n = ", [&] {
    call(sieve::kDenseScatterDeviceMaxRecords + 1, buckets, out, offsets, status, scratch.data(),
         need);
  });
  expectThrow("offsets is null",
              [&] { call(n, buckets, out, nullptr, status, scratch.data(), need); });
  expectThrow("status", [&] {
    call(n, buckets, out, offsets, reinterpret_cast<std::int64_t*>(arena + 8193), scratch.data(),
         need);
  });
  expectThrow("scratch is null", [&] { call(n, buckets, out, offsets, status, nullptr, need); });
  expectThrow("dense_scatter_device_scratch_bytes",
              [&] { call(n, buckets, out, offsets, status, scratch.data(), need - 1); });
  expectThrow("out overlaps offsets", [&] {
    call(n, buckets, out, reinterpret_cast<std::int64_t*>(arena + 800), status, scratch.data(),
         need);
  });
  expectThrow("overlaps status", [&] {
    call(n, buckets, out, offsets, reinterpret_cast<std::int64_t*>(arena + 4096 + 8 * 300),
         scratch.data(), need);
  });
  expectThrow("overlaps scratch",
              [&] { call(n, buckets, out, offsets, status, arena + 4096, need); });
  // n = 0 takes a null out.
  EXPECT_NO_THROW(sieve::Impl::checkDenseScatterDevice("f", 0, buckets, nullptr, sizeof(Rec16),
                                                       alignof(Rec16), offsets, status,
                                                       scratch.data(), need, need));
}

TEST(CudaRejects, DenseScatterScratchRule) {
  // The regions of the layout lie inside the rule's bytes, in order, apart:
  // the gates and tile counters, the digit totals of every pass, the two
  // look-back regions (host arithmetic).
  using L = sieve::Impl::DenseScatterDeviceLayout;
  for (const std::int64_t n : {0LL, 1LL, 2047LL, 2048LL, 2049LL, 1000003LL, 1LL << 31, 3LL << 33})
    for (const std::int64_t buckets : {1LL, 256LL, 257LL, 65536LL, 65537LL, 1LL << 40}) {
      for (const std::size_t rec : {4u, 12u, 16u}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", buckets " + std::to_string(buckets));
        const std::size_t bytes = sieve::dense_scatter_device_scratch_bytes(n, buckets, rec);
        const std::int64_t cells = L::passCells(n);
        EXPECT_EQ(cells, 256 * ((n + 2047) / 2048 > 0 ? (n + 2047) / 2048 : 1));
        EXPECT_GE(L::counters(), L::gates() + 4u * (L::kMaxPasses + 1));
        EXPECT_GE(L::totals(), L::counters() + 4u * L::kMaxPasses);
        EXPECT_EQ(L::chainA(), L::totals() + 8u * L::kMaxPasses * 256u);
        EXPECT_EQ(L::chainB(n), L::chainA() + 8u * cells);
        // One cleared range: the totals and the first pass's look-back words.
        EXPECT_EQ(L::totals() + 8u * static_cast<std::size_t>(L::clearedWords(n)), L::chainB(n));
        EXPECT_GE(L::records(n), L::chainB(n) + 8u * cells);
        EXPECT_EQ(L::records(n) % 256u, 0u);
        EXPECT_GE(L::kMaxPasses, L::passes(buckets));
        const std::size_t plane = L::passes(buckets) > 1 ? rec * static_cast<std::size_t>(n) : 0;
        EXPECT_EQ(bytes, 64u + L::records(n) + plane); // 64 bytes of alignment slack
      }
    }
  EXPECT_EQ(L::passes(1), 1);
  EXPECT_EQ(L::passes(256), 1);
  EXPECT_EQ(L::passes(257), 2);
  EXPECT_EQ(L::passes(65536), 2);
  EXPECT_EQ(L::passes(65537), 3);
  EXPECT_EQ(L::passes(std::int64_t(1) << 62), 8);
}
