// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the OpenMP face: the native host twins (native/host) on
// the threads of a Kokkos::OpenMP instance. Synchronous: the twins return
// when their work is done.
#pragma once

#include <sieve/impl/call.hpp>
#include <sieve/impl/faces/table.hpp>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <sieve/native/host/compact.hpp>
#include <sieve/native/host/radix.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/scan.hpp>
#include <sieve/native/host/scatter.hpp>
#include <sieve/native/host/select.hpp>

namespace sieve {
namespace Impl {

template <>
struct Faces<Face::OpenMP> {
  static constexpr bool has(Primitive p) { return faceHas(Face::OpenMP, p); }

  /// The OpenMP team of a Kokkos::OpenMP instance: its own threads.
  static HostTeam team(const Kokkos::OpenMP& exec) {
    return HostTeam{static_cast<int>(exec.concurrency())};
  }

  template <class Mask, class Map>
  static void compact(const Kokkos::OpenMP& exec, const Names& names, const Mask& mask,
                      std::uint32_t flags, const Map& map, std::uint32_t* count, void* scratch,
                      const ReorderTrigger* trig, std::int64_t n) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    compactHostChecked(team(exec), mask.data(), flags, map.data(), count, scratch, n, trig);
  }

  template <class Mask, class Perm, class Inv, class Map>
  static void reorder(const Kokkos::OpenMP& exec, const Names& names, const Mask& mask,
                      std::uint32_t flags, const Perm& perm, const Inv& inv, const Map& map,
                      std::uint32_t* count, std::uint32_t* span, std::uint32_t* fire, void* scratch,
                      std::int64_t n, const ReorderPlane* desc, std::uint32_t nPlanes,
                      const std::size_t* /*strides: every word plane is contiguous here*/) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    reorderHostChecked(team(exec), desc, nPlanes, mask.data(), flags, perm.data(), inv.data(),
                       map.data(), count, span, fire, scratch, n);
  }

  template <class Perm, class Inv>
  static void restore(const Kokkos::OpenMP& exec, const Names& names, const Perm& perm,
                      const Inv& inv, void* scratch, std::int64_t n, const ReorderPlane* desc,
                      std::uint32_t nPlanes,
                      const std::size_t* /*strides: every word plane is contiguous here*/) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    restoreHostChecked(team(exec), desc, nPlanes, perm.data(), inv.data(), scratch, n);
  }

  /// One selection (core/select.hpp) in one pass over the mask.
  /// (No scratch: the blocks' counts live in the call's own small heap array.)
  static void select(const Kokkos::OpenMP& exec, const Names& names, const SelectSpec& spec,
                     void* /*scratch*/, std::size_t /*scratchBytes*/) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    selectHostChecked(team(exec), spec, nullptr);
  }

  /// The same selection with its mask bytes from the predicate
  /// (SelectFilled): `from.fill` (a PredFill) writes them block by block, in
  /// the cache.
  template <class From>
  static void selectFilled(const Kokkos::OpenMP& exec, const Names& names, const SelectSpec& spec,
                           void* /*scratch*/, std::size_t /*scratchBytes*/, const From& from) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    const SelectMaskFill fill{&From::fill, &from};
    selectHostChecked(team(exec), spec, &fill);
  }

  /// Scratch bytes of radixOrder (core/radix.hpp).
  static constexpr std::size_t radixOrderScratchBytes(std::int64_t n) {
    return radix_order_scratch_bytes(n);
  }

  /// The stable order of n 64-bit keys below 2^bits (core/radix.hpp):
  /// 8-bit LSD passes on the instance's threads, on `scratch`
  /// (radix_order_scratch_bytes(n)).
  static void radixOrder(const Kokkos::OpenMP& exec, const Names& names, const std::uint64_t* keys,
                         std::int64_t n, int bits, std::int64_t* order, void* scratch,
                         std::size_t scratchBytes) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    radixOrderHost(team(exec), keys, n, bits, order, scratch, scratchBytes);
  }

  /// radixOrder, for the asynchronous forms' callers (the twins run it
  /// synchronously; no status word).
  static void radixOrderAsync(const Kokkos::OpenMP& exec, const Names& names,
                              const std::uint64_t* keys, std::int64_t n, int bits,
                              std::int64_t* order, std::int64_t* /*status*/, void* scratch,
                              std::size_t scratchBytes) {
    radixOrder(exec, names, keys, n, bits, order, scratch, scratchBytes);
  }

  /// Whether the native dense scatter pays here against the portable
  /// counting sort (core/radix.hpp, denseScatterNativePays).
  static constexpr bool denseScatterPays(std::int64_t buckets, std::int64_t records,
                                         std::int64_t recordBytes) {
    return denseScatterNativePays(buckets, records, recordBytes);
  }

  /// The stable counting scatter of n records (recOf(i)) by a dense digit
  /// in [0, buckets) (core/radix.hpp, denseScatterPlan) on the instance's
  /// threads: out in digit order, offsets[0 .. buckets]; records outside
  /// counted (nothing written), a digit that changed between reads counted.
  template <class Rec, class RecOf, class DigitOf>
  static DenseScatterResult denseScatter(const Kokkos::OpenMP& exec, const Names& names,
                                         const RecOf& recOf, std::int64_t n, const DigitOf& digitOf,
                                         std::int64_t buckets, Rec* out, std::int64_t* offsets) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    return denseScatterHost(team(exec), recOf, n, digitOf, buckets, out, offsets);
  }

  /// Whether the native sparse scatter pays here against the radix order
  /// and a gather (core/radix.hpp, sparseScatterNativePays).
  static constexpr bool sparseScatterPays(std::int64_t records, std::int64_t recordBytes) {
    return sparseScatterNativePays(records, recordBytes);
  }

  /// The stable sort of n records (recOf(i)) by a 64-bit word in [0,
  /// maxWord] on the instance's threads (core/radix.hpp, sparseScatterPlan):
  /// out in word order and the runs' starts and key counts; nothing written
  /// when a run exceeds sparseScatterMaxRun (skewed words: `taken` false) or
  /// a word exceeds maxWord; a word that changed between reads counted.
  template <class Rec, class RecOf, class WordOf>
  static SparseScatterResult sparseScatter(const Kokkos::OpenMP& exec, const Names& names,
                                           const RecOf& recOf, std::int64_t n, const WordOf& wordOf,
                                           std::uint64_t maxWord, Rec* out) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    return sparseScatterHost(team(exec), recOf, n, wordOf, maxWord, sparseScatterMaxRun(n, maxWord),
                             out);
  }

  /// Seeded: the fold starts from `init`; unseeded (inclusive only), from
  /// in(0), `init` unused.
  template <bool Inclusive, bool Seeded = true, class In, class Out, class Op, class T>
  static void scan(const Kokkos::OpenMP& exec, const Names& names, const In& in, const Out& out,
                   const Op& op, const T& init, T* blockSums, std::int64_t n) {
    const NativeKernel<Kokkos::OpenMP> k(exec, names, Face::OpenMP);
    cpu::Scan::scan<T, Op, Inclusive, Tuning::Host::kScanBlock, Seeded>(
        team(exec), in.data(), out.data(), blockSums, n, init, op);
  }
};

} // namespace Impl
} // namespace sieve
#endif
