// SPDX-License-Identifier: Apache-2.0
// Sieve — radixOrderDevice: the stable LSD radix order of 64-bit keys on a
// CUDA device, on the pass kernels of cuda::DenseScatter (one count of
// every digit, then one sweep by each 8-bit digit, chained by look-back). A pass moves (key, index)
// pairs between the planes of core/radix.hpp's RadixLayout: keys ping-pong between the scratch's
// key plane and `order`, indices between the two index planes (uint32 below 2^32 keys), and the
// last pass writes only the int64 indices.
#include <sieve/core/radix.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/cuda/radix.hpp>
#include <sieve/native/cuda/scatter.cuh>

#include <cstdint>
#include <string>
#include <vector>

namespace sieve {
namespace Impl {
namespace {

template <class Idx>
struct KeyIdx {
  std::uint64_t key;
  Idx idx;
};
/// The first pass reads the keys and makes the indices.
template <class Idx>
struct FirstKeys {
  const std::uint64_t* keys;
  __device__ __forceinline__ KeyIdx<Idx> operator()(std::int64_t i) const {
    return KeyIdx<Idx>{keys[i], static_cast<Idx>(i)};
  }
};
template <class Idx>
struct PlaneKeys {
  const std::uint64_t* keys;
  const Idx* idx;
  __device__ __forceinline__ KeyIdx<Idx> operator()(std::int64_t i) const {
    return KeyIdx<Idx>{keys[i], idx[i]};
  }
};
template <class Idx>
struct ToPlanes {
  std::uint64_t* keys;
  Idx* idx;
  __device__ __forceinline__ void operator()(std::int64_t at, const KeyIdx<Idx>& r) const {
    keys[at] = r.key;
    idx[at] = r.idx;
  }
};
/// The last pass writes the indices only.
template <class Idx>
struct ToOrder {
  std::int64_t* order;
  __device__ __forceinline__ void operator()(std::int64_t at, const KeyIdx<Idx>& r) const {
    order[at] = static_cast<std::int64_t>(r.idx);
  }
};
struct KeyOf {
  template <class R>
  __device__ __forceinline__ std::uint64_t operator()(const R& r) const {
    return r.key;
  }
};

template <class Idx>
void radixRunDevice(const std::uint64_t* keys, std::int64_t n, int bits, std::int64_t* order,
                    std::int64_t* status, void* scratch, cudaStream_t stream) {
  namespace D = DenseDevice;
  const std::uint64_t maxKey = bits >= 64 ? ~0ull : (std::uint64_t(1) << bits) - 1u;
  // One pass at least: the count finds the keys >= 2^bits (bits = 0: every key must be 0).
  const int passes = bits > 0 ? (bits + kRadixDigitBits - 1) / kRadixDigitBits : 1;
  const auto run = D::Passes::carve(scratch, n, maxKey, passes, status);
  run.start(FirstKeys<Idx>{keys}, KeyOf{}, stream);
  if (n == 0) return;
  unsigned char* planes = D::Passes::end(scratch, n); // 64-byte aligned
  auto* keyPlane = reinterpret_cast<std::uint64_t*>(planes + RadixLayout::keys(n));
  auto* idxA = reinterpret_cast<Idx*>(planes + RadixLayout::idxA(n));
  auto* idxB = reinterpret_cast<Idx*>(planes + RadixLayout::idxB(n, sizeof(Idx)));
  // The planes pass p reads (p >= 1) and writes (p < passes - 1): the key
  // plane the last pass reads is the scratch's, so it may write `order`.
  const auto keysOf = [&](int j) {
    return (passes - 1 - j) % 2 == 0 ? keyPlane : reinterpret_cast<std::uint64_t*>(order);
  };
  const auto idxOf = [&](int j) { return j % 2 == 1 ? idxA : idxB; };
  constexpr const char* what = "sieve::radixOrderDevice (pass)";
  for (int p = 0; p < passes; ++p) {
    const bool last = p == passes - 1;
    if (p == 0 && last)
      run.pass(FirstKeys<Idx>{keys}, KeyOf{}, ToOrder<Idx>{order}, p, stream, what);
    else if (p == 0)
      run.pass(FirstKeys<Idx>{keys}, KeyOf{}, ToPlanes<Idx>{keysOf(1), idxOf(1)}, p, stream, what);
    else if (last)
      run.pass(PlaneKeys<Idx>{keysOf(p), idxOf(p)}, KeyOf{}, ToOrder<Idx>{order}, p, stream, what);
    else
      run.pass(PlaneKeys<Idx>{keysOf(p), idxOf(p)}, KeyOf{},
               ToPlanes<Idx>{keysOf(p + 1), idxOf(p + 1)}, p, stream, what);
  }
}

} // namespace
} // namespace Impl

namespace Impl {

void radixOrderDeviceIndexBytes(const std::uint64_t* keys, std::int64_t n, int bits,
                                std::int64_t* order, std::int64_t* status, void* scratch,
                                std::size_t scratchBytes, cudaStream_t stream,
                                std::size_t indexBytes, const char* fn) {
  checkRadixOrderArgs(fn, keys, n, bits, order);
  checkRadixIndexBytes(fn, n, indexBytes);
  checkDeviceScatterRecords(fn, n);
  checkPtr(fn, status, "status", alignof(std::int64_t));
  checkPtr(fn, scratch, "scratch");
  const std::size_t need = radixOrderDeviceScratchBytes(n, indexBytes);
  checkRadixScratchBytes(fn, n, indexBytes, scratchBytes, need, true);
  const std::vector<ArrayBytes> arrays{
      arrayBytes("keys", keys, n, sizeof(std::uint64_t)),
      arrayBytes("order", order, n, sizeof(std::int64_t)),
      arrayBytes("status", status, 2, sizeof(std::int64_t)),
      arrayBytes("scratch", scratch, static_cast<std::int64_t>(need), 1)};
  checkApart(fn, arrays, 1, true, "keys, order, status and scratch must not share a byte");
  if (indexBytes == 4u)
    radixRunDevice<std::uint32_t>(keys, n, bits, order, status, scratch, stream);
  else radixRunDevice<std::uint64_t>(keys, n, bits, order, status, scratch, stream);
}

} // namespace Impl

void radixOrderDevice(const std::uint64_t* keys, std::int64_t n, int bits, std::int64_t* order,
                      std::int64_t* status, void* scratch, std::size_t scratchBytes,
                      cudaStream_t stream) {
  Impl::radixOrderDeviceIndexBytes(keys, n, bits, order, status, scratch, scratchBytes, stream,
                                   Impl::radixIndexBytes(n), "sieve::radixOrderDevice");
}

} // namespace sieve
