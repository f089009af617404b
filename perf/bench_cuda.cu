// SPDX-License-Identifier: Apache-2.0
// Sieve — GPU benchmark: compactDevice against cub::DeviceSelect::Flagged
// (with a counting iterator for the indices), selectDevice (sieve::findall's
// write: int64 indices, 8-byte values) against the same CUB call (a counting
// iterator, the values array), cuda::Scan (int32, int64) against
// cub::DeviceScan, a 4-plane reorderDevice, and cuda::DenseScatter (8-byte
// records by a dense 32-bit bucket) against cub::DeviceRadixSort::SortPairs
// (the bucket as a 32-bit key over its significant bits, the record's other
// 4 bytes as the value), and radixOrderDevice (the stable order of 64-bit
// keys: keys::scatter_sparse's sort) against SortPairs of the same keys with
// their uint32 indices, each beside a device-to-device copy of the same
// bytes (the bandwidth limit), in the same run.
//
//   sieve_bench_cuda [--reps R] [--max-log2n N]
#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/radix.hpp>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>
#include <sieve/native/cuda/scatter.cuh>
#include <sieve/native/cuda/select.cuh>
#include <sieve/native/cuda/select.hpp>

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    SIEVE_CUDA_CHECK(cudaEventCreate(&a));
    SIEVE_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  /// Milliseconds of f() on the legacy stream.
  float time(const std::function<void()>& f) {
    SIEVE_CUDA_CHECK(cudaEventRecord(a));
    f();
    SIEVE_CUDA_CHECK(cudaEventRecord(b));
    SIEVE_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SIEVE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }
};

struct Row {
  std::string name;
  std::function<void()> run;
  double bytes;
  float best = 1e30f;
};

void table(const std::string& title, std::vector<Row>& rows, int reps, Timer& t,
           const std::string& copy, const std::string& peer) {
  for (auto& r : rows) r.run(); // warm up
  for (int k = 0; k < reps; ++k)
    for (auto& r : rows) r.best = std::min(r.best, t.time(r.run));
  float copyMs = 0, peerMs = 0;
  for (auto& r : rows) {
    if (r.name == copy) copyMs = r.best;
    if (r.name == peer) peerMs = r.best;
  }
  for (auto& r : rows)
    std::printf("%-30s %-32s %9.4f %8.1f %8.2f %8.2f\n", title.c_str(), r.name.c_str(), r.best,
                r.bytes / (r.best * 1e-3) * 1e-9, r.best / copyMs,
                peerMs > 0 ? r.best / peerMs : 0.0);
  std::printf("\n");
  std::fflush(stdout);
}

/// findall's predicate form: a sample is kept where its value is below t,
/// asked per index (cuda::SelectIf), per value (cub::DeviceSelect::If), or
/// written to a mask first (the unfused path: maskBelow, then selectDevice).
struct BelowAt {
  const double* v;
  double t;
  __device__ bool operator()(std::int64_t k) const { return v[k] < t; }
};
struct Below {
  double t;
  __device__ bool operator()(const double& x) const { return x < t; }
};
__global__ void maskBelow(const double* v, double t, std::uint8_t* mask, std::int64_t n) {
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < n;
       k += std::int64_t(gridDim.x) * blockDim.x)
    mask[k] = v[k] < t ? 1 : 0;
}
/// Uniform doubles in [0, 1) from a hash of the index.
__global__ void fillUniform(double* v, std::int64_t n) {
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < n;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t x = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ull + 12345u;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    v[k] = static_cast<double>(x >> 11) * 0x1.0p-53;
  }
}

/// An 8-byte record of the dense scatter: its bucket and a payload.
struct Rec8 {
  std::uint32_t bucket, id;
};
struct Rec8Reader {
  const Rec8* p;
  __device__ Rec8 operator()(std::int64_t i) const { return p[i]; }
};
struct Rec8Bucket {
  __device__ std::uint32_t operator()(const Rec8& r) const { return r.bucket; }
};

void* deviceAlloc(std::size_t bytes) {
  void* p = nullptr;
  SIEVE_CUDA_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
  return p;
}

} // namespace

int main(int argc, char* argv[]) {
  int reps = 20, maxLog2 = 28;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--max-log2n" && i + 1 < argc) maxLog2 = std::atoi(argv[++i]);
  }
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    std::printf("sieve_bench_cuda: no CUDA device\n");
    return 0;
  }
  std::printf("Sieve GPU benchmark on %s (sm_%d%d), best of %d runs\n", prop.name, prop.major,
              prop.minor, reps);
  std::printf(
      "'x copy' = time / device-to-device copy of the same bytes; 'x CUB' = time / CUB\n\n");
  std::printf("%-30s %-32s %9s %8s %8s %8s\n", "case", "variant", "ms", "GB/s", "x copy", "x CUB");
  std::printf("%s\n", std::string(100, '-').c_str());
  Timer timer;
  const std::int64_t maxN = std::int64_t(1) << maxLog2;
  auto* mask = static_cast<std::uint8_t*>(deviceAlloc(maxN));
  auto* map = static_cast<std::int32_t*>(deviceAlloc(maxN * 4));
  auto* count = static_cast<std::uint32_t*>(deviceAlloc(64));
  auto* scratch = deviceAlloc(sieve::reorder_scratch_bytes(maxN, 8));
  auto* copySrc = deviceAlloc(maxN * 8);
  auto* copyDst = deviceAlloc(maxN * 8);
  int* cubCount = static_cast<int*>(deviceAlloc(8));
  auto* selCount = static_cast<std::int64_t*>(deviceAlloc(8));
  // selectDevice: values from copySrc, items to copyDst.
  auto* selValues = static_cast<const double*>(copySrc);
  auto* selOut64 = static_cast<std::int64_t*>(copyDst);
  auto* selOutVal = static_cast<double*>(copyDst);
  std::size_t cubBytes = 0, cubScanBytes = 0, cubScan64Bytes = 0, cubSel64Bytes = 0,
              cubSelValBytes = 0, cubIfBytes = 0;
  // findall's predicate form: values of its own (the scans overwrite copySrc).
  auto* predValues = static_cast<double*>(deviceAlloc(maxN * 8));
  fillUniform<<<1024, 256>>>(predValues, maxN);
  SIEVE_CUDA_CHECK(cudaGetLastError());
  cub::DeviceSelect::If(nullptr, cubIfBytes, predValues, selOutVal, cubCount,
                        static_cast<int>(maxN), Below{0.5});
  cub::DeviceSelect::Flagged(nullptr, cubBytes, thrust::counting_iterator<int>(0), mask, map,
                             cubCount, static_cast<int>(maxN));
  cub::DeviceSelect::Flagged(nullptr, cubSel64Bytes, thrust::counting_iterator<std::int64_t>(0),
                             mask, selOut64, cubCount, static_cast<int>(maxN));
  cub::DeviceSelect::Flagged(nullptr, cubSelValBytes, selValues, mask, selOutVal, cubCount,
                             static_cast<int>(maxN));
  cub::DeviceScan::InclusiveSum(nullptr, cubScanBytes, map, map, static_cast<int>(maxN));
  cub::DeviceScan::InclusiveSum(nullptr, cubScan64Bytes, static_cast<std::int64_t*>(copySrc),
                                static_cast<std::int64_t*>(copyDst), static_cast<int>(maxN));
  void* cubTemp = deviceAlloc(std::max(
      {cubBytes, cubScanBytes, cubScan64Bytes, cubSel64Bytes, cubSelValBytes, cubIfBytes}));

  for (int log2n : {20, 24, 28}) {
    if (log2n > maxLog2) continue;
    const std::int64_t n = std::int64_t(1) << log2n;
    for (double keep : {0.01, 0.5, 0.99, 1.0}) {
      std::vector<std::uint8_t> h(n);
      std::mt19937_64 g(log2n * 100 + static_cast<int>(keep * 100));
      std::bernoulli_distribution b(keep);
      for (auto& x : h) x = b(g);
      SIEVE_CUDA_CHECK(cudaMemcpy(mask, h.data(), n, cudaMemcpyHostToDevice));
      const double kept = static_cast<double>(std::count(h.begin(), h.end(), 1));
      const double bytes = static_cast<double>(n) + 4 * kept;
      const auto copyBytes = static_cast<std::size_t>(bytes / 2);
      char title[64];
      std::snprintf(title, sizeof title, "compact 2^%d keep %.0f%%", log2n, keep * 100);
      std::vector<Row> rows{
          {"D2D copy (n+4c)/2 bytes",
           [&] {
             SIEVE_CUDA_CHECK(
                 cudaMemcpyAsync(copyDst, copySrc, copyBytes, cudaMemcpyDeviceToDevice));
           },
           2.0 * copyBytes},
          {"cub::DeviceSelect::Flagged",
           [&] {
             std::size_t tb = cubBytes;
             SIEVE_CUDA_CHECK(cub::DeviceSelect::Flagged(cubTemp, tb,
                                                         thrust::counting_iterator<int>(0), mask,
                                                         map, cubCount, static_cast<int>(n)));
           },
           bytes},
          {"sieve compactDevice",
           [&] { sieve::compactDevice(mask, 0u, map, count, scratch, n, nullptr); }, bytes}};
      table(title, rows, reps, timer, "D2D copy (n+4c)/2 bytes", "cub::DeviceSelect::Flagged");
      if (keep >= 1.0) continue;
      // findall's write: the mask read once, 8 bytes written per selected
      // sample (its int64 index, or its 8-byte value gathered), beside CUB on
      // the same mask and a copy of the same bytes (mask + output).
      const double selBytes = static_cast<double>(n) + 8 * kept;
      const auto selCopyBytes = static_cast<std::size_t>(selBytes / 2);
      for (const bool values : {false, true}) {
        std::snprintf(title, sizeof title, "select %s 2^%d keep %.0f%%",
                      values ? "value8" : "index64", log2n, keep * 100);
        sieve::SelectSpec spec;
        spec.mask = mask;
        spec.n = n;
        spec.item = values ? sieve::SelectItem::Value : sieve::SelectItem::Index64;
        spec.values = values ? static_cast<const void*>(selValues) : nullptr;
        spec.elemBytes = 8;
        spec.out = copyDst;
        spec.cap = n;
        spec.count = selCount;
        const std::size_t selScratch = sieve::select_scratch_bytes(n);
        std::vector<Row> sel{
            {"D2D copy (n+8c)/2 bytes",
             [&] {
               SIEVE_CUDA_CHECK(
                   cudaMemcpyAsync(copyDst, copySrc, selCopyBytes, cudaMemcpyDeviceToDevice));
             },
             2.0 * selCopyBytes},
            {"cub::DeviceSelect::Flagged",
             [&] {
               if (values) {
                 std::size_t tb = cubSelValBytes;
                 SIEVE_CUDA_CHECK(cub::DeviceSelect::Flagged(
                     cubTemp, tb, selValues, mask, selOutVal, cubCount, static_cast<int>(n)));
               } else {
                 std::size_t tb = cubSel64Bytes;
                 SIEVE_CUDA_CHECK(cub::DeviceSelect::Flagged(
                     cubTemp, tb, thrust::counting_iterator<std::int64_t>(0), mask, selOut64,
                     cubCount, static_cast<int>(n)));
               }
             },
             selBytes},
            {"sieve selectDevice", [&] { sieve::selectDevice(spec, scratch, selScratch, nullptr); },
             selBytes}};
        table(title, sel, reps, timer, "D2D copy (n+8c)/2 bytes", "cub::DeviceSelect::Flagged");
      }
      // findall's predicate form into a result: value < t, the values read
      // once and the kept ones written (8n + 8c bytes), fused (SelectIf),
      // against CUB's select by the same predicate and the unfused path (a
      // mask written, then selected).
      {
        const double t = keep;
        sieve::SelectSpec spec;
        spec.n = n;
        spec.item = sieve::SelectItem::Value;
        spec.values = predValues;
        spec.elemBytes = 8;
        spec.out = copyDst;
        spec.cap = n;
        spec.count = selCount;
        const std::size_t selScratch = sieve::select_scratch_bytes(n);
        // The kept items of each way, as bytes (a check, not a timing).
        const auto keptBytes = [&](bool cubCounted) {
          std::int64_t c = 0;
          if (cubCounted) {
            int k = 0;
            SIEVE_CUDA_CHECK(cudaMemcpy(&k, cubCount, 4, cudaMemcpyDeviceToHost));
            c = k;
          } else {
            SIEVE_CUDA_CHECK(cudaMemcpy(&c, selCount, 8, cudaMemcpyDeviceToHost));
          }
          std::vector<unsigned char> b(static_cast<std::size_t>(c) * 8);
          SIEVE_CUDA_CHECK(cudaMemcpy(b.data(), copyDst, b.size(), cudaMemcpyDeviceToHost));
          return b;
        };
        const auto fused = [&] {
          sieve::cuda::SelectIf::enqueue(spec, BelowAt{predValues, t}, scratch, selScratch,
                                         nullptr);
        };
        const auto unfused = [&] {
          maskBelow<<<4096, 256>>>(predValues, t, mask, n);
          SIEVE_CUDA_CHECK(cudaGetLastError());
          sieve::SelectSpec m = spec;
          m.mask = mask;
          sieve::selectDevice(m, scratch, selScratch, nullptr);
        };
        const auto cubIf = [&] {
          std::size_t tb = cubIfBytes;
          SIEVE_CUDA_CHECK(cub::DeviceSelect::If(cubTemp, tb, predValues, selOutVal, cubCount,
                                                 static_cast<int>(n), Below{t}));
        };
        // (The output cleared before each: none reads what another wrote.)
        const auto clearOut = [&] { SIEVE_CUDA_CHECK(cudaMemset(copyDst, 0xA5, n * 8)); };
        clearOut();
        fused();
        const auto fusedItems = keptBytes(false);
        clearOut();
        unfused();
        const auto unfusedItems = keptBytes(false);
        clearOut();
        cubIf();
        const auto cubItems = keptBytes(true);
        if (fusedItems != cubItems || unfusedItems != cubItems) {
          std::printf(
              "MISMATCH: value < %.2f at 2^%d: cuda::SelectIf kept %zu, mask + "
              "selectDevice %zu, CUB %zu (or other bytes)\n",
              t, log2n, fusedItems.size() / 8, unfusedItems.size() / 8, cubItems.size() / 8);
          return 1;
        }
        const double predBytes =
            8.0 * static_cast<double>(n) + static_cast<double>(cubItems.size());
        const auto predCopyBytes = static_cast<std::size_t>(predBytes / 2);
        std::snprintf(title, sizeof title, "select pred value8 2^%d keep %.0f%%", log2n,
                      keep * 100);
        std::vector<Row> pred{{"D2D copy (8n+8c)/2 bytes",
                               [&] {
                                 SIEVE_CUDA_CHECK(cudaMemcpyAsync(copyDst, copySrc, predCopyBytes,
                                                                  cudaMemcpyDeviceToDevice));
                               },
                               2.0 * predCopyBytes},
                              {"cub::DeviceSelect::If", cubIf, predBytes},
                              {"mask kernel + selectDevice", unfused, predBytes},
                              {"sieve cuda::SelectIf (fused)", fused, predBytes}};
        table(title, pred, reps, timer, "D2D copy (8n+8c)/2 bytes", "cub::DeviceSelect::If");
      }
    }
    // Integer scans: the single pass (int32: packed tile status; int64: wide).
    auto scanTable = [&](auto zero, std::size_t cubTempBytes, const char* type) {
      using T = decltype(zero);
      char title[64], copyName[32];
      std::snprintf(title, sizeof title, "inclusive scan %s 2^%d", type, log2n);
      std::snprintf(copyName, sizeof copyName, "D2D copy %dn bytes", int(sizeof(T)));
      auto* in = static_cast<T*>(copySrc);
      auto* out = static_cast<T*>(copyDst);
      auto* sums = static_cast<T*>(scratch);
      SIEVE_CUDA_CHECK(cudaMemset(in, 1, n * sizeof(T)));
      const double bytes = 2.0 * sizeof(T) * n;
      std::vector<Row> rows{
          {copyName,
           [&] {
             SIEVE_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice));
           },
           bytes},
          {"cub::DeviceScan::InclusiveSum",
           [&] {
             std::size_t tb = cubTempBytes;
             SIEVE_CUDA_CHECK(
                 cub::DeviceScan::InclusiveSum(cubTemp, tb, in, out, static_cast<int>(n)));
           },
           bytes},
          {"sieve cuda::Scan",
           [&] {
             sieve::cuda::Scan::enqueue<T, sieve::Sum, true>(in, out, sums, n, T(0), nullptr);
           },
           bytes}};
      table(title, rows, reps, timer, copyName, "cub::DeviceScan::InclusiveSum");
    };
    scanTable(std::int32_t{}, cubScanBytes, "int32");
    scanTable(std::int64_t{}, cubScan64Bytes, "int64");
  }
  {
    // A 4-plane reorder (mask + 3 doubles, perm) at 2^24, half kept.
    const std::int64_t n = std::int64_t(1) << std::min(24, maxLog2);
    auto* planes = static_cast<unsigned char*>(deviceAlloc(n * 25));
    auto* perm = static_cast<std::int32_t*>(deviceAlloc(n * 4));
    auto* inv = static_cast<std::int32_t*>(deviceAlloc(n * 4));
    auto* words = static_cast<std::uint32_t*>(deviceAlloc(16));
    // The copy moves the same bytes as the planes and perm (29 per sample).
    auto* moveSrc = deviceAlloc(n * 29);
    auto* moveDst = deviceAlloc(n * 29);
    std::vector<std::uint8_t> h(n);
    std::mt19937_64 g(7);
    for (auto& x : h) x = g() & 1;
    std::vector<std::int32_t> ids(n);
    for (std::int64_t i = 0; i < n; ++i) ids[i] = static_cast<std::int32_t>(i);
    const sieve::ReorderPlane desc[] = {
        {planes, 1}, {planes + n, 8}, {planes + 9 * n, 8}, {planes + 17 * n, 8}};
    auto reset = [&] {
      SIEVE_CUDA_CHECK(cudaMemcpy(planes, h.data(), n, cudaMemcpyHostToDevice));
      SIEVE_CUDA_CHECK(cudaMemcpy(perm, ids.data(), n * 4, cudaMemcpyHostToDevice));
      const std::uint32_t w[3] = {0, static_cast<std::uint32_t>(n), 1};
      SIEVE_CUDA_CHECK(cudaMemcpy(words, w, sizeof w, cudaMemcpyHostToDevice));
    };
    const double bytes = 29.0 * n;
    float copyMs = 1e30f, sieveMs = 1e30f;
    for (int k = 0; k < reps; ++k) {
      copyMs = std::min(copyMs, timer.time([&] {
        SIEVE_CUDA_CHECK(cudaMemcpyAsync(moveDst, moveSrc, static_cast<std::size_t>(bytes),
                                         cudaMemcpyDeviceToDevice));
      }));
      reset();
      sieveMs = std::min(sieveMs, timer.time([&] {
        sieve::reorderDevice(desc, 4, planes, 0u, perm, inv, map, words, words + 1, words + 2,
                             scratch, n, nullptr);
      }));
    }
    std::printf("%-30s %-32s %9.4f %8.1f %8.2f\n", "reorder 4 planes 2^24 keep 50%",
                "D2D copy of the planes", copyMs, 2 * bytes / (copyMs * 1e-3) * 1e-9, 1.0);
    std::printf("%-30s %-32s %9.4f %8.1f %8.2f\n", "reorder 4 planes 2^24 keep 50%",
                "sieve reorderDevice", sieveMs, 2 * bytes / (sieveMs * 1e-3) * 1e-9,
                sieveMs / copyMs);
    // The usual step of a captured reorder: fire == 0, nothing moves. Its
    // cost against the compaction it follows (same mask, same n).
    reset();
    const std::uint32_t idle[3] = {0, static_cast<std::uint32_t>(n), 0};
    SIEVE_CUDA_CHECK(cudaMemcpy(words, idle, sizeof idle, cudaMemcpyHostToDevice));
    float gatedMs = 1e30f, compactMs = 1e30f;
    for (int k = 0; k < reps; ++k) {
      compactMs = std::min(compactMs, timer.time([&] {
        sieve::compactDevice(planes, 0u, map, count, scratch, n, nullptr);
      }));
      gatedMs = std::min(gatedMs, timer.time([&] {
        sieve::reorderDevice(desc, 4, planes, 0u, perm, inv, map, words, words + 1, words + 2,
                             scratch, n, nullptr);
      }));
    }
    std::printf("%-30s %-32s %9.4f %8s %8s\n", "reorder fire==0 2^24", "sieve compactDevice",
                compactMs, "-", "-");
    std::printf("%-30s %-32s %9.4f %8s %8.2f  (x compaction)\n\n", "reorder fire==0 2^24",
                "sieve reorderDevice, gated", gatedMs, "-", gatedMs / compactMs);
    cudaFree(planes);
    cudaFree(perm);
    cudaFree(inv);
    cudaFree(words);
    cudaFree(moveSrc);
    cudaFree(moveDst);
  }
  {
    // The dense scatter at 2^24 records of 8 bytes, 2^10 and 2^16 buckets
    // (one and two passes), random buckets. CUB sorts the same buckets (keys)
    // and payloads (values) over the buckets' bits; the copy moves the
    // records once (16 bytes a record read and written).
    const std::int64_t n = std::int64_t(1) << std::min(24, maxLog2);
    auto* recs = static_cast<Rec8*>(deviceAlloc(n * 8));
    auto* out = static_cast<Rec8*>(deviceAlloc(n * 8));
    auto* keysIn = static_cast<std::uint32_t*>(deviceAlloc(n * 4));
    auto* valsIn = static_cast<std::uint32_t*>(deviceAlloc(n * 4));
    auto* keysOut = static_cast<std::uint32_t*>(deviceAlloc(n * 4));
    auto* valsOut = static_cast<std::uint32_t*>(deviceAlloc(n * 4));
    auto* status = static_cast<std::int64_t*>(deviceAlloc(16));
    for (const int bits : {10, 16}) {
      const std::int64_t buckets = std::int64_t(1) << bits;
      std::vector<Rec8> h(static_cast<std::size_t>(n));
      std::vector<std::uint32_t> hk(h.size()), hv(h.size());
      std::mt19937_64 g(11 + bits);
      for (std::size_t i = 0; i < h.size(); ++i) {
        h[i] = Rec8{static_cast<std::uint32_t>(g() % buckets), static_cast<std::uint32_t>(i)};
        hk[i] = h[i].bucket;
        hv[i] = h[i].id;
      }
      SIEVE_CUDA_CHECK(cudaMemcpy(recs, h.data(), n * 8, cudaMemcpyHostToDevice));
      SIEVE_CUDA_CHECK(cudaMemcpy(keysIn, hk.data(), n * 4, cudaMemcpyHostToDevice));
      SIEVE_CUDA_CHECK(cudaMemcpy(valsIn, hv.data(), n * 4, cudaMemcpyHostToDevice));
      auto* offsets = static_cast<std::int64_t*>(deviceAlloc((buckets + 1) * 8));
      const std::size_t scratchBytes = sieve::cuda::DenseScatter::scratchBytes(n, buckets, 8);
      void* denseScratch = deviceAlloc(scratchBytes);
      std::size_t sortBytes = 0;
      SIEVE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, keysIn, keysOut, valsIn,
                                                       valsOut, static_cast<int>(n), 0, bits));
      void* sortTemp = deviceAlloc(sortBytes);
      char title[64];
      std::snprintf(title, sizeof title, "scatter_dense 2^%d keys 2^%d", bits,
                    static_cast<int>(std::log2(static_cast<double>(n))));
      const double bytes = 16.0 * n;
      std::vector<Row> rows{
          {"D2D copy 8n bytes",
           [&] { SIEVE_CUDA_CHECK(cudaMemcpyAsync(out, recs, n * 8, cudaMemcpyDeviceToDevice)); },
           bytes},
          {"cub::DeviceRadixSort::SortPairs",
           [&] {
             std::size_t tb = sortBytes;
             SIEVE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                 sortTemp, tb, keysIn, keysOut, valsIn, valsOut, static_cast<int>(n), 0, bits));
           },
           bytes},
          {"sieve cuda::DenseScatter",
           [&] {
             sieve::cuda::DenseScatter::enqueue(Rec8Reader{recs}, n, Rec8Bucket{}, buckets, out,
                                                offsets, status, denseScratch, scratchBytes,
                                                nullptr);
           },
           bytes}};
      table(title, rows, reps, timer, "D2D copy 8n bytes", "cub::DeviceRadixSort::SortPairs");
      // The two agree (CUB's sort is stable too): the check every GPU run makes.
      std::vector<Rec8> got(h.size());
      std::vector<std::uint32_t> gk(h.size()), gv(h.size());
      std::int64_t st[2] = {-1, -1};
      SIEVE_CUDA_CHECK(cudaMemcpy(got.data(), out, n * 8, cudaMemcpyDeviceToHost));
      SIEVE_CUDA_CHECK(cudaMemcpy(gk.data(), keysOut, n * 4, cudaMemcpyDeviceToHost));
      SIEVE_CUDA_CHECK(cudaMemcpy(gv.data(), valsOut, n * 4, cudaMemcpyDeviceToHost));
      SIEVE_CUDA_CHECK(cudaMemcpy(st, status, sizeof st, cudaMemcpyDeviceToHost));
      std::size_t bad = (st[0] != 0 || st[1] != 0) ? 1 : 0;
      for (std::size_t i = 0; i < h.size(); ++i)
        bad += got[i].bucket != gk[i] || got[i].id != gv[i];
      std::printf("%-30s %-32s %s\n\n", title, "sieve == CUB (bytes)",
                  bad == 0 ? "yes" : "NO: MISMATCH");
      std::fflush(stdout);
      if (bad != 0) return 1;
      cudaFree(offsets);
      cudaFree(denseScratch);
      cudaFree(sortTemp);
    }
    for (void* p : {static_cast<void*>(recs), static_cast<void*>(out), static_cast<void*>(keysIn),
                    static_cast<void*>(valsIn), static_cast<void*>(keysOut),
                    static_cast<void*>(valsOut), static_cast<void*>(status)})
      cudaFree(p);
  }
  {
    // The radix order of 2^24 64-bit keys over 20 bits (3 passes) and 64 bits
    // (8 passes), against CUB sorting the keys with their uint32 indices over
    // the same bits; the copy moves the keys and the order (16 bytes a key).
    const std::int64_t n = std::int64_t(1) << std::min(24, maxLog2);
    auto* keys = static_cast<std::uint64_t*>(deviceAlloc(n * 8));
    auto* order = static_cast<std::int64_t*>(deviceAlloc(n * 8));
    auto* keysOut = static_cast<std::uint64_t*>(deviceAlloc(n * 8));
    auto* idxIn = static_cast<std::uint32_t*>(deviceAlloc(n * 4));
    auto* idxOut = static_cast<std::uint32_t*>(deviceAlloc(n * 4));
    auto* status = static_cast<std::int64_t*>(deviceAlloc(16));
    const std::size_t radixBytes = sieve::radix_order_device_scratch_bytes(n);
    void* radixScratch = deviceAlloc(radixBytes);
    std::vector<std::uint32_t> ids(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i);
    SIEVE_CUDA_CHECK(cudaMemcpy(idxIn, ids.data(), n * 4, cudaMemcpyHostToDevice));
    for (const int bits : {20, 64}) {
      std::vector<std::uint64_t> h(static_cast<std::size_t>(n));
      std::mt19937_64 g(5 + bits);
      for (auto& k : h) k = bits == 64 ? g() : g() & ((std::uint64_t(1) << bits) - 1);
      SIEVE_CUDA_CHECK(cudaMemcpy(keys, h.data(), n * 8, cudaMemcpyHostToDevice));
      std::size_t sortBytes = 0;
      SIEVE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, keys, keysOut, idxIn,
                                                       idxOut, static_cast<int>(n), 0, bits));
      void* sortTemp = deviceAlloc(sortBytes);
      char title[64];
      std::snprintf(title, sizeof title, "radix order u64 %d bits 2^%d", bits,
                    static_cast<int>(std::log2(static_cast<double>(n))));
      const double bytes = 16.0 * n;
      std::vector<Row> rows{
          {"D2D copy 8n bytes",
           [&] {
             SIEVE_CUDA_CHECK(cudaMemcpyAsync(keysOut, keys, n * 8, cudaMemcpyDeviceToDevice));
           },
           bytes},
          {"cub::DeviceRadixSort::SortPairs",
           [&] {
             std::size_t tb = sortBytes;
             SIEVE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
                 sortTemp, tb, keys, keysOut, idxIn, idxOut, static_cast<int>(n), 0, bits));
           },
           bytes},
          {"sieve radixOrderDevice",
           [&] {
             sieve::radixOrderDevice(keys, n, bits, order, status, radixScratch, radixBytes,
                                     nullptr);
           },
           bytes}};
      table(title, rows, reps, timer, "D2D copy 8n bytes", "cub::DeviceRadixSort::SortPairs");
      std::vector<std::int64_t> got(static_cast<std::size_t>(n));
      std::vector<std::uint32_t> want(static_cast<std::size_t>(n));
      SIEVE_CUDA_CHECK(cudaMemcpy(got.data(), order, n * 8, cudaMemcpyDeviceToHost));
      SIEVE_CUDA_CHECK(cudaMemcpy(want.data(), idxOut, n * 4, cudaMemcpyDeviceToHost));
      std::size_t bad = 0;
      for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != std::int64_t(want[i]);
      std::printf("%-30s %-32s %s\n\n", title, "sieve == CUB (order)",
                  bad == 0 ? "yes" : "NO: MISMATCH");
      std::fflush(stdout);
      if (bad != 0) return 1;
      cudaFree(sortTemp);
    }
    for (void* p : {static_cast<void*>(keys), static_cast<void*>(order),
                    static_cast<void*>(keysOut), static_cast<void*>(idxIn),
                    static_cast<void*>(idxOut), static_cast<void*>(status), radixScratch})
      cudaFree(p);
  }
  for (void* p :
       {static_cast<void*>(mask), static_cast<void*>(map), static_cast<void*>(count), scratch,
        copySrc, copyDst, static_cast<void*>(cubCount), static_cast<void*>(selCount), cubTemp})
    cudaFree(p);
  return 0;
}
