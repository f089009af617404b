// SPDX-License-Identifier: Apache-2.0
// Sieve CUDA tests — CudaFace, the shared suites' adapter for the native CUDA
// face (compactDevice / reorderDevice / restoreDevice / cuda::Scan), device
// buffers behind guards. Without a GPU every shared case skips with the reason.
#pragma once

#include <sieve/native/cuda/compact.hpp>
#include <sieve/native/cuda/reorder.hpp>
#include <sieve/native/cuda/scan.cuh>

#include <cstring>

#include "../common/faces.hpp"
#include "device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace sieve_test {

/// A population's buffers on the device (planes, perm, inv, map, the words
/// count / span / fire, scratch), each behind a guard.
struct DevicePopulation {
  std::int64_t n;
  std::vector<std::unique_ptr<DeviceBytes>> planes;
  std::vector<sieve::ReorderPlane> desc;
  std::size_t maskPlane;
  DeviceBytes perm, inv, map, words, scratch;

  explicit DevicePopulation(const RefState& s)
      : n(static_cast<std::int64_t>(s.perm.size())), maskPlane(s.maskPlane),
        perm(s.perm.size() * 4), inv(s.inv.size() * 4), map(s.map.size() * 4), words(16),
        scratch(
            sieve::reorder_scratch_bytes(static_cast<std::int64_t>(s.perm.size()), maxElemOf(s))) {
    for (const auto& p : s.planes) {
      planes.push_back(std::make_unique<DeviceBytes>(p.bytes.size()));
      desc.push_back({planes.back()->get(), p.elem});
    }
    upload(s);
  }
  void upload(const RefState& s) {
    for (std::size_t k = 0; k < s.planes.size(); ++k)
      if (!s.planes[k].bytes.empty()) planes[k]->upload(s.planes[k].bytes);
    if (n > 0) {
      perm.upload(s.perm);
      inv.upload(s.inv);
      map.upload(s.map);
    }
    const std::uint32_t w[3] = {s.count, s.span, s.fire};
    words.upload(w, sizeof w);
  }
  void download(RefState& s) const {
    for (std::size_t k = 0; k < s.planes.size(); ++k) {
      s.planes[k].bytes = planes[k]->bytes();
      EXPECT_TRUE(planes[k]->guardIntact()) << "plane " << k << " written past n";
    }
    s.perm = perm.download<std::int32_t>(static_cast<std::size_t>(n));
    s.inv = inv.download<std::int32_t>(static_cast<std::size_t>(n));
    s.map = map.download<std::int32_t>(static_cast<std::size_t>(n));
    const auto hw = words.download<std::uint32_t>(3);
    s.count = hw[0];
    s.span = hw[1];
    s.fire = hw[2];
    EXPECT_TRUE(perm.guardIntact() && inv.guardIntact() && map.guardIntact())
        << "perm / inv / index map written past n";
    EXPECT_TRUE(scratch.guardIntact()) << "scratch written past reorder_scratch_bytes";
  }
  std::uint32_t* word(int k) const { return words.get<std::uint32_t>() + k; }
  void reorder(bool drop, bool useFire, cudaStream_t s) {
    sieve::reorderDevice(desc.data(), static_cast<std::uint32_t>(desc.size()),
                         planes[maskPlane]->get<std::uint8_t>(),
                         drop ? sieve::kCompactMaskIsDrop : 0u, perm.get<std::int32_t>(),
                         inv.get<std::int32_t>(), map.get<std::int32_t>(), word(0), word(1),
                         useFire ? word(2) : nullptr, scratch.get(), n, s);
  }
  void restore(cudaStream_t s) {
    sieve::restoreDevice(desc.data(), static_cast<std::uint32_t>(desc.size()),
                         perm.get<std::int32_t>(), inv.get<std::int32_t>(), scratch.get(), n, s);
  }
};

struct CudaFace {
  /// The native layer keeps the seed's rule: the span is the caller's.
  static constexpr bool kCoversKept = false;
  static std::string skipReason() {
    return noDeviceReason().empty() ? std::string()
                                    : noDeviceReason() + ": the CUDA tests run on a GPU";
  }
  static std::vector<std::string> configs() { return {"cuda"}; }
  static void select(std::size_t) {}
  static void deselect() {}

  static CompactOut compact(const CompactIn& in) {
    const auto n = static_cast<std::int64_t>(in.mask.size());
    DeviceBytes dmask(in.mask.size() + in.maskOffset), map(in.mask.size() * 4),
        scratch(sieve::compact_scratch_bytes(n)), words(16, 0xEE);
    if (!in.mask.empty())
      SIEVE_CUDA_CHECK(cudaMemcpy(dmask.get<unsigned char>() + in.maskOffset, in.mask.data(),
                                  in.mask.size(), cudaMemcpyHostToDevice));
    auto* w = words.get<std::uint32_t>(); // count, live32, span, fire
    const std::uint32_t init[4] = {kWordSentinel, kWordSentinel, in.span, kWordSentinel};
    words.upload(init, sizeof init);
    sieve::ReorderTrigger trig{w + 1, w + 2, w + 3, in.theta};
    sieve::compactDevice(dmask.get<std::uint8_t>() + in.maskOffset,
                         in.drop ? sieve::kCompactMaskIsDrop : 0u, map.get<std::int32_t>(), w,
                         scratch.get(), n, nullptr, in.trigger ? &trig : nullptr);
    EXPECT_TRUE(map.guardIntact()) << "index map written past n";
    EXPECT_TRUE(scratch.guardIntact()) << "scratch written past compact_scratch_bytes(n)";
    const auto hw = words.download<std::uint32_t>(4);
    CompactOut o;
    o.map = map.download<std::int32_t>(in.mask.size());
    o.count = hw[0];
    o.live32 = hw[1];
    o.fire = hw[3];
    return o;
  }

  static void reorder(RefState& s, bool drop, bool useFire) {
    DevicePopulation d(s);
    d.reorder(drop, useFire, nullptr);
    d.download(s);
  }

  static void restore(RefState& s) {
    DevicePopulation d(s);
    d.restore(nullptr);
    d.download(s);
  }

  template <class T, class Op>
  static std::vector<T> scan(const std::vector<T>& in, T init, bool inclusive, Op op,
                             bool inPlace) {
    const auto n = static_cast<std::int64_t>(in.size());
    DeviceBytes din(in.size() * sizeof(T), 0x5A), dout(in.size() * sizeof(T), 0x5A),
        sums(std::max<std::size_t>(1, in.size()) * sizeof(T)); // the contract: n elements
    if (!in.empty()) din.upload(in);
    T* out = inPlace ? din.get<T>() : dout.get<T>();
    if (inclusive)
      sieve::cuda::Scan::enqueue<T, Op, true>(din.get<T>(), out, sums.get<T>(), n, init, 0, op);
    else sieve::cuda::Scan::enqueue<T, Op, false>(din.get<T>(), out, sums.get<T>(), n, init, 0, op);
    return scanResult(in, din, dout, sums, inPlace);
  }

  /// The inclusive scan without init (Seeded = false): the fold starts from
  /// in[0], as std::inclusive_scan(first, last, d, op).
  template <class T, class Op>
  static std::vector<T> scanFromFirst(const std::vector<T>& in, Op op, bool inPlace) {
    const auto n = static_cast<std::int64_t>(in.size());
    DeviceBytes din(in.size() * sizeof(T), 0x5A), dout(in.size() * sizeof(T), 0x5A),
        sums(std::max<std::size_t>(1, in.size()) * sizeof(T)); // the contract: n elements
    if (!in.empty()) din.upload(in);
    T* out = inPlace ? din.get<T>() : dout.get<T>();
    sieve::cuda::Scan::enqueue<T, Op, true, false>(din.get<T>(), out, sums.get<T>(), n, T(), 0, op);
    return scanResult(in, din, dout, sums, inPlace);
  }

  /// The checks after a scan (nothing written past the arrays, the input
  /// kept out of place) and its result, downloaded.
  template <class T>
  static std::vector<T> scanResult(const std::vector<T>& in, DeviceBytes& din, DeviceBytes& dout,
                                   DeviceBytes& sums, bool inPlace) {
    EXPECT_TRUE(sums.guardIntact()) << "blockSums written past n elements";
    EXPECT_TRUE((inPlace ? din : dout).guardIntact()) << "out written past n elements";
    if (!inPlace) {
      EXPECT_TRUE(din.guardIntact()) << "in written past n elements";
      const auto after = din.download<T>(in.size());
      EXPECT_TRUE(in.empty() || std::memcmp(after.data(), in.data(), in.size() * sizeof(T)) == 0)
          << "an out-of-place scan changed its input";
    }
    return inPlace ? din.download<T>(in.size()) : dout.download<T>(in.size());
  }
};

} // namespace sieve_test
