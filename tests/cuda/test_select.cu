// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — selectDevice (sieve::findall's write on Kokkos::Cuda)
// and cuda::SelectIf (the same kernel, its keep bits from a device predicate:
// findall's predicate form there): the shared selection suite on both, then
// what only the native CUDA face has
// (graph capture and replay, look-back over many windows of tiles, counts
// past 2^31 and int32 indices up to 2^31 - 1) and the argument checks, which
// run before any CUDA call and so run everywhere (CudaRejects.*).
#include "../common/suite_select.hpp"
#include "face.hpp"

#include <sieve/core/select.hpp>
#include <sieve/native/cuda/check.hpp>
#include <sieve/native/cuda/select.cuh>
#include <sieve/native/cuda/select.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace sieve_test {

/// A predicate of the sample index (cuda::SelectIf): mask[k] != 0, read in
/// the kernel.
struct MaskKeep {
  const std::uint8_t* mask;
  __device__ bool operator()(std::int64_t k) const { return mask[k] != 0; }
};

/// CudaFace with the selection: every array in device memory behind a guard,
/// each `in.*Offset` bytes past a 256-byte aligned allocation. ViaKeep: by
/// cuda::SelectIf with the predicate MaskKeep (the mask read in the kernel,
/// byte by byte), else by selectDevice.
template <bool ViaKeep>
struct CudaSelectFaceOf : CudaFace {
  static SelectOut selection(const SelectIn& in) {
    const auto n = static_cast<std::int64_t>(in.mask.size());
    const std::size_t size = sieve::Impl::selectItemBytes(in.item, in.elemBytes);
    const std::size_t outBytes = static_cast<std::size_t>(in.cap) * size;
    DeviceBytes mask(in.mask.size() + in.maskOffset), values(in.values.size() + in.valuesOffset),
        out(outBytes + in.outOffset, kSelectSentinel), count(8, 0x5A),
        scratch(sieve::select_scratch_bytes(n), 0x5A);
    if (!in.mask.empty())
      SIEVE_CUDA_CHECK(cudaMemcpy(mask.get<unsigned char>() + in.maskOffset, in.mask.data(),
                                  in.mask.size(), cudaMemcpyHostToDevice));
    if (!in.values.empty())
      SIEVE_CUDA_CHECK(cudaMemcpy(values.get<unsigned char>() + in.valuesOffset, in.values.data(),
                                  in.values.size(), cudaMemcpyHostToDevice));
    SIEVE_CUDA_CHECK(cudaDeviceSynchronize());
    sieve::SelectSpec s;
    s.mask = mask.get<std::uint8_t>() + in.maskOffset;
    s.n = n;
    s.item = in.item;
    s.values = in.item == sieve::SelectItem::Value
                   ? static_cast<const void*>(values.get<unsigned char>() + in.valuesOffset)
                   : nullptr;
    s.elemBytes = in.elemBytes;
    s.out = out.get<unsigned char>() + in.outOffset;
    s.cap = in.cap;
    s.count = count.get<std::int64_t>();
    if constexpr (ViaKeep) {
      const MaskKeep keep{s.mask};
      s.mask = nullptr; // (unused: the predicate reads it)
      sieve::cuda::SelectIf::enqueue(s, keep, scratch.get(), scratch.size(), nullptr);
    } else {
      sieve::selectDevice(s, scratch.get(), scratch.size(), nullptr);
    }
    EXPECT_TRUE(out.guardIntact()) << "out written past cap items";
    EXPECT_TRUE(count.guardIntact()) << "written past the count word";
    EXPECT_TRUE(scratch.guardIntact()) << "scratch written past select_scratch_bytes(n)";
    const auto all = out.bytes();
    for (std::size_t i = 0; i < in.outOffset; ++i)
      EXPECT_EQ(all[i], kSelectSentinel) << "byte " << i << " before out written";
    SelectOut o;
    o.out.assign(all.begin() + static_cast<std::ptrdiff_t>(in.outOffset), all.end());
    o.count = count.download<std::int64_t>(1)[0];
    return o;
  }
};

using CudaSelectFace = CudaSelectFaceOf<false>;
using CudaSelectIfFace = CudaSelectFaceOf<true>;

} // namespace sieve_test

using namespace sieve_test;

SIEVE_SELECT_SUITE(CudaSelect, CudaSelectFace, sieve::Tuning::Cuda::kSelectTile);
SIEVE_SELECT_SUITE(CudaSelectIf, CudaSelectIfFace, sieve::Tuning::Cuda::kSelectTile);

namespace {

constexpr std::int64_t kTile = sieve::Tuning::Cuda::kSelectTile;

/// Whether this binary runs on the CPU emulator (too slow for the largest cases).
constexpr bool kEmulated =
#if defined(SIEVE_CUDA_EMULATION)
    true;
#else
    false;
#endif

} // namespace

namespace {

/// A selection captured into a graph, replayed with new masks (by
/// selectDevice, or with viaKeep by cuda::SelectIf reading them in its
/// predicate): every replay against the reference.
void captureAndReplay(bool viaKeep) {
  const std::int64_t n = 3 * kTile + 100, cap = n / 3;
  DeviceBytes mask(n), values(n * 8), out(cap * 8, kSelectSentinel), count(8, 0x5A),
      scratch(sieve::select_scratch_bytes(n), 0x5A);
  const auto hostValues = selectValues(n, 8);
  values.upload(hostValues);
  cudaStream_t st;
  SIEVE_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  sieve::SelectSpec s;
  s.mask = mask.get<std::uint8_t>();
  s.n = n;
  s.item = sieve::SelectItem::Value;
  s.values = values.get();
  s.elemBytes = 8;
  s.out = out.get();
  s.cap = cap;
  s.count = count.get<std::int64_t>();
  cudaGraph_t graph;
  SIEVE_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  if (viaKeep) {
    const MaskKeep keep{s.mask};
    s.mask = nullptr;
    sieve::cuda::SelectIf::enqueue(s, keep, scratch.get(), scratch.size(), st);
  } else {
    sieve::selectDevice(s, scratch.get(), scratch.size(), st);
  }
  SIEVE_CUDA_CHECK(cudaStreamEndCapture(st, &graph));
  cudaGraphExec_t exec;
  SIEVE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int rep = 0; rep < 3; ++rep) {
    SelectIn in;
    in.mask = percentMask(rep == 1 ? 99 : 40, n, 50u + static_cast<std::uint32_t>(rep));
    in.item = sieve::SelectItem::Value;
    in.elemBytes = 8;
    in.values = hostValues;
    in.cap = cap;
    mask.upload(in.mask);
    SIEVE_CUDA_CHECK(cudaGraphLaunch(exec, st));
    SIEVE_CUDA_CHECK(cudaStreamSynchronize(st));
    const auto ref = refSelect(in);
    EXPECT_EQ(count.download<std::int64_t>(1)[0], ref.count) << "replay " << rep;
    // 40 % and more of n: every replay fills the cap.
    ASSERT_GE(ref.count, cap);
    const auto got = out.bytes();
    EXPECT_EQ(0, std::memcmp(got.data(), ref.items.data(), got.size())) << "replay " << rep;
    EXPECT_TRUE(out.guardIntact() && scratch.guardIntact()) << "replay " << rep;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(st);
}

} // namespace

TEST(CudaSelectNative, GraphCaptureAndReplayWithNewMasks) {
  SIEVE_REQUIRE_DEVICE();
  captureAndReplay(false);
}

TEST(CudaSelectNative, SelectIfGraphCaptureAndReplay) {
  SIEVE_REQUIRE_DEVICE();
  captureAndReplay(true);
}

TEST(CudaSelectNative, LookBackAcrossManyWindows) {
  SIEVE_REQUIRE_DEVICE();
  // More than 32 tiles (the look-back's window) on the emulator; thousands
  // of tiles in flight on a GPU.
  const std::int64_t n = kEmulated ? 70 * kTile + 5 : (std::int64_t(1) << 25) + 4099;
  const auto mask = percentMask(50, n);
  expectSelect<CudaSelectFace>(selectIn(mask, selectKinds()[0], n), "index64");
  expectSelect<CudaSelectIfFace>(selectIn(mask, selectKinds()[0], n), "SelectIf index64");
  if (!kEmulated) expectSelect<CudaSelectFace>(selectIn(mask, selectKinds()[5], n), "value8");
}

TEST(CudaSelectNative, CountsPastTwoToThe31) {
  SIEVE_REQUIRE_DEVICE();
  if (kEmulated) GTEST_SKIP() << "2^31 samples: a GPU case";
  // n = 2^31 + 12345, every sample selected: the count needs 64 bits, the
  // first items and the cap hold. Then only the last three samples selected:
  // int64 indices past 2^31, and int32 ones up to 2^31 - 1 (n = 2^31).
  const std::int64_t n = (std::int64_t(1) << 31) + 12345;
  std::size_t freeBytes = 0, totalBytes = 0;
  SIEVE_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  const std::size_t scratchBytes = sieve::select_scratch_bytes(n);
  if (freeBytes < static_cast<std::size_t>(n) + scratchBytes + (std::size_t(64) << 20))
    GTEST_SKIP() << "needs " << n + scratchBytes << " bytes of device memory";
  DeviceBytes mask(n, 1), out(1000 * 8, kSelectSentinel), count(8, 0x5A),
      scratch(scratchBytes, 0x5A);
  sieve::SelectSpec s;
  s.mask = mask.get<std::uint8_t>();
  s.n = n;
  s.out = out.get();
  s.cap = 1000;
  s.count = count.get<std::int64_t>();
  sieve::selectDevice(s, scratch.get(), scratch.size(), nullptr);
  ASSERT_EQ(count.download<std::int64_t>(1)[0], n);
  const auto first = out.download<std::int64_t>(1000);
  for (std::int64_t k = 0; k < 1000; ++k) ASSERT_EQ(first[k], k);
  ASSERT_TRUE(out.guardIntact());
  {
    sieve::SelectSpec k = s; // the same through cuda::SelectIf
    k.mask = nullptr;
    SIEVE_CUDA_CHECK(cudaMemset(out.get(), 0, 1000 * 8));
    SIEVE_CUDA_CHECK(cudaMemset(count.get(), 0, 8));
    sieve::cuda::SelectIf::enqueue(k, MaskKeep{mask.get<std::uint8_t>()}, scratch.get(),
                                   scratch.size(), nullptr);
    ASSERT_EQ(count.download<std::int64_t>(1)[0], n);
    const auto again = out.download<std::int64_t>(1000);
    for (std::int64_t j = 0; j < 1000; ++j) ASSERT_EQ(again[j], j);
    ASSERT_TRUE(out.guardIntact());
  }
  SIEVE_CUDA_CHECK(cudaMemset(mask.get(), 0, static_cast<std::size_t>(n)));
  const std::uint8_t ones[3] = {1, 7, 255};
  for (const std::int64_t len : {n, std::int64_t(1) << 31}) {
    SIEVE_CUDA_CHECK(cudaMemset(mask.get(), 0, static_cast<std::size_t>(n)));
    SIEVE_CUDA_CHECK(
        cudaMemcpy(mask.get<std::uint8_t>() + len - 3, ones, 3, cudaMemcpyHostToDevice));
    s.n = len;
    s.cap = 3;
    s.item = sieve::SelectItem::Index64;
    s.elemBytes = 8;
    // By selectDevice, then by cuda::SelectIf reading the same mask in its
    // predicate (its index arithmetic past 2^31 too).
    for (const bool viaKeep : {false, true}) {
      const std::string how = viaKeep ? "SelectIf, n = " : "selectDevice, n = ";
      const auto select = [&](sieve::SelectSpec spec) {
        if (!viaKeep) return sieve::selectDevice(spec, scratch.get(), scratch.size(), nullptr);
        const MaskKeep keep{spec.mask};
        spec.mask = nullptr;
        sieve::cuda::SelectIf::enqueue(spec, keep, scratch.get(), scratch.size(), nullptr);
      };
      s.item = sieve::SelectItem::Index64;
      s.elemBytes = 8;
      SIEVE_CUDA_CHECK(cudaMemset(out.get(), 0, 3 * 8));
      select(s);
      ASSERT_EQ(count.download<std::int64_t>(1)[0], 3) << how << len;
      const auto last = out.download<std::int64_t>(3);
      for (int j = 0; j < 3; ++j) ASSERT_EQ(last[j], len - 3 + j) << how << len;
      if (len <= (std::int64_t(1) << 31)) {
        s.item = sieve::SelectItem::Index32;
        s.elemBytes = 4;
        SIEVE_CUDA_CHECK(cudaMemset(out.get(), 0, 3 * 8));
        select(s);
        ASSERT_EQ(count.download<std::int64_t>(1)[0], 3) << how << len;
        const auto last32 = out.download<std::int32_t>(3);
        for (int j = 0; j < 3; ++j)
          ASSERT_EQ(last32[j], static_cast<std::int32_t>(len - 3 + j)) << how << len;
      }
    }
  }
  ASSERT_TRUE(out.guardIntact());
  ASSERT_TRUE(scratch.guardIntact());
}

TEST(CudaSelectNative, NotConfusedByAStaleError) {
  SIEVE_REQUIRE_DEVICE();
  EXPECT_NE(cudaSetDevice(1 << 20), cudaSuccess); // a non-sticky error left behind
  const auto mask = percentMask(50, 5000);
  EXPECT_NO_THROW(expectSelect<CudaSelectFace>(selectIn(mask, selectKinds()[1], 5000), "index32"));
  cudaGetLastError();
}

TEST(CudaRejects, SelectBeforeAnyCudaCall) {
  // Runs without a GPU: the checks come first, and nothing is written.
  constexpr std::int64_t n = 3 * kTile; // three tiles: a scratch is needed
  std::vector<std::uint8_t> mask(n, 1);
  std::vector<std::uint64_t> values(n, 7), out(n + 8, 0x5A5A5A5A5A5A5A5Aull);
  alignas(8) unsigned char scratch[16]; // below the 32 bytes three tiles need
  std::int64_t count[2] = {kSelectCountSentinel, kSelectCountSentinel};
  const std::size_t need = sieve::select_scratch_bytes(n);
  std::vector<unsigned long long> bigScratch(need / 8 + 1, 0x5A5A5A5A5A5A5A5Aull);
  ASSERT_GT(need, sizeof scratch);
  auto good = [&] {
    sieve::SelectSpec s;
    s.mask = mask.data();
    s.n = n;
    s.item = sieve::SelectItem::Value;
    s.values = values.data();
    s.elemBytes = 8;
    s.out = out.data();
    s.cap = n;
    s.count = &count[0];
    return s;
  };
  // Each case by selectDevice, then (but for the mask's own cases) by
  // cuda::SelectIf, which checks the same but the mask (it has none).
  const MaskKeep keep{nullptr};
  auto rejectedBy = [&](const auto& call, const std::string& fn, const std::string& names) {
    try {
      call();
      ADD_FAILURE() << fn << ": no throw; expected one naming " << names;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(fn), std::string::npos) << e.what();
    }
    for (auto w : out) ASSERT_EQ(w, 0x5A5A5A5A5A5A5A5Aull) << "out written by a rejected call";
    ASSERT_EQ(count[0], kSelectCountSentinel) << "count written by a rejected call";
    for (auto w : bigScratch) ASSERT_EQ(w, 0x5A5A5A5A5A5A5A5Aull) << "scratch written";
  };
  auto rejects = [&](const sieve::SelectSpec& s, void* sc, std::size_t bytes,
                     const std::string& names, bool maskCase = false) {
    rejectedBy([&] { sieve::selectDevice(s, sc, bytes, nullptr); }, "sieve::selectDevice", names);
    if (maskCase) return;
    sieve::SelectSpec k = s;
    k.mask = nullptr;
    rejectedBy([&] { sieve::cuda::SelectIf::enqueue(k, keep, sc, bytes, nullptr); },
               "sieve::cuda::SelectIf::enqueue", names);
  };
  void* sc = bigScratch.data();
  const std::size_t scb = bigScratch.size() * 8;
  sieve::SelectSpec s = good();
  s.n = -1;
  rejects(s, sc, scb, "n = -1");
  s = good();
  s.n = sieve::Impl::kSelectDeviceMaxSamples + 1;
  s.cap = 0;
  rejects(s, sc, scb, "kSelectDeviceMaxSamples");
  s = good();
  s.cap = -1;
  rejects(s, sc, scb, "cap = -1");
  s = good();
  s.item = static_cast<sieve::SelectItem>(7);
  rejects(s, sc, scb, "item = 7");
  s = good();
  s.elemBytes = 3;
  rejects(s, sc, scb, "elemBytes = 3");
  s = good();
  s.elemBytes = 16;
  rejects(s, sc, scb, "elemBytes = 16");
  s = good();
  s.item = sieve::SelectItem::Index64;
  s.elemBytes = 4;
  rejects(s, sc, scb, "elemBytes = 4");
  s = good();
  s.item = sieve::SelectItem::Index32;
  s.elemBytes = 4;
  s.n = (std::int64_t(1) << 31) + 1;
  s.cap = 0;
  s.mask = reinterpret_cast<const std::uint8_t*>(std::uintptr_t(1) << 47); // far from the rest
  rejects(s, sc, scb, "int32 indices");
  s = good();
  s.mask = nullptr;
  rejects(s, sc, scb, "mask is null", true);
  s = good();
  s.values = nullptr;
  rejects(s, sc, scb, "values is null");
  s = good();
  s.out = nullptr;
  rejects(s, sc, scb, "out is null");
  s = good();
  s.count = nullptr;
  rejects(s, sc, scb, "count is null");
  s = good();
  s.count = reinterpret_cast<std::int64_t*>(reinterpret_cast<unsigned char*>(&count[0]) + 4);
  rejects(s, sc, scb, "count is misaligned");
  s = good();
  rejects(s, nullptr, scb, "scratch is null");
  rejects(s, scratch, sizeof scratch, "select_scratch_bytes");
  rejects(s, static_cast<unsigned char*>(sc) + 4, need, "scratch is misaligned");
  // Overlaps: out with mask / values, the count inside out, the scratch with each.
  s = good();
  s.out = values.data() + 3;
  rejects(s, sc, scb, "values overlaps out");
  s = good();
  s.out = mask.data() + 8;
  s.cap = 4;
  rejects(s, sc, scb, "mask overlaps out", true);
  s = good();
  s.count = reinterpret_cast<std::int64_t*>(out.data() + 5);
  rejects(s, sc, scb, "out overlaps count");
  s = good();
  rejects(s, values.data(), need, "values overlaps scratch");
  rejects(s, out.data(), need, "out overlaps scratch");
  rejects(s, reinterpret_cast<unsigned char*>(&count[0]) - 16, need, "count overlaps scratch");
}

TEST(CudaRejects, SelectScratchRule) {
  // The rule: none for one tile, 8 bytes per tile and the counter past it.
  EXPECT_EQ(sieve::select_scratch_bytes(0), 0u);
  EXPECT_EQ(sieve::select_scratch_bytes(kTile), 0u);
  EXPECT_EQ(sieve::select_scratch_bytes(kTile + 1), 8u * 2 + 8);
  EXPECT_EQ(sieve::select_scratch_bytes(10 * kTile), 8u * 10 + 8);
  EXPECT_THROW(sieve::select_scratch_bytes(-1), std::invalid_argument);
  EXPECT_THROW(sieve::select_scratch_bytes(sieve::Impl::kSelectDeviceMaxSamples + 1),
               std::invalid_argument);
  EXPECT_NO_THROW(sieve::select_scratch_bytes(sieve::Impl::kSelectDeviceMaxSamples));
  // cuda::SelectIf takes the same scratch.
  for (const std::int64_t n : {std::int64_t(0), kTile + 1, 10 * kTile})
    EXPECT_EQ(sieve::cuda::SelectIf::scratchBytes(n), sieve::select_scratch_bytes(n));
}
