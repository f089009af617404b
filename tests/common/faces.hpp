// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the face adapters: what a face must offer so that the shared
// suites (suite_compact.hpp, suite_reorder.hpp, suite_scan.hpp) run on it.
//
// One test body per primitive, run on every face (the way Cabana generates
// per-backend tests from one source): each test binary includes the suites
// and instantiates them with its adapter —
//
//   host/face.hpp    HostFace            compactHost / reorderHost / restoreHost / cpu::Scan
//   kokkos/face.hpp  KokkosFace<Exec>    the public API on this binary's execution space
//   cuda/face.hpp    CudaFace            compactDevice / reorderDevice / restoreDevice / cuda::Scan
//
// An adapter is a struct of static members, std::vector in and out:
//
//   static std::string skipReason();            // non-empty: every shared case skips (no GPU)
//   static std::vector<std::string> configs();  // the configurations every case runs under
//   static void select(std::size_t config);     //   (host: each instruction set), one at least
//   static void deselect();                     //   back to the default after the loop
//
//   static CompactOut compact(const CompactIn&);
//       the map comes back whole (n slots), pre-filled with kMapSentinel; the
//       count and trigger words pre-filled with kWordSentinel (span = in.span).
//   static void reorder(RefState& s, bool drop, bool useFire);
//   static void restore(RefState& s);
//       the population s (planes as bytes, the mask among them, perm / inv /
//       map, count / span / fire) goes to the face, is reordered (restored)
//       there and comes back into s. useFire = false: no fire word is passed.
//   template <class T, class Op>
//   static std::vector<T> scan(const std::vector<T>& in, T init, bool inclusive, Op op,
//                              bool inPlace);
//
// Every adapter puts its buffers behind guards (or past-the-end sentinels)
// and reports a byte written past the documented size with ADD_FAILURE, so the
// suites check the "never writes past" contract on every face.
#pragma once

#include "cases.hpp"
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace sieve_test {

/// The index map's fill: a slot still holding it was not written.
inline constexpr std::int32_t kMapSentinel = 0x5A5A5A5A;
/// The count and trigger words' fill.
inline constexpr std::uint32_t kWordSentinel = 0xDEADBEEFu;

struct CompactIn {
  std::vector<std::uint8_t> mask;
  bool drop = false;
  bool trigger = false;   ///< compute the trigger words
  std::uint32_t span = 0; ///< the trigger's span word (read)
  float theta = 0.5f;
  std::size_t maskOffset = 0; ///< shift the mask this many bytes off its allocation's alignment
};

struct CompactOut {
  std::vector<std::int32_t> map; ///< all n slots
  std::uint32_t count = 0, live32 = 0, fire = 0;
  std::uint32_t span = 0; ///< the span word after the call (faces with kCoversKept)
};

/// planeBytes(), computed once per (n, elem, plane).
inline const std::vector<unsigned char>& cachedPlaneBytes(std::int64_t n, std::uint32_t elem,
                                                          std::uint32_t p) {
  static std::map<std::tuple<std::int64_t, std::uint32_t, std::uint32_t>,
                  std::vector<unsigned char>>
      cache;
  const auto key = std::make_tuple(n, elem, p);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, planeBytes(n, elem, p)).first;
  return it->second;
}

/// makeMask(), computed once per (kind, n) (the sweeps ask for each mask twice,
/// once per polarity, and every face of a binary uses the same).
inline const std::vector<std::uint8_t>& cachedMask(MaskKind kind, std::int64_t n) {
  static std::map<std::pair<int, std::int64_t>, std::vector<std::uint8_t>> cache;
  const auto key = std::make_pair(static_cast<int>(kind), n);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, makeMask(kind, n)).first;
  return it->second;
}

/// The one population every face reorders: plane 0 the mask (1 byte), then
/// one plane per element size in `extra` (deterministic bytes); perm / inv the
/// identity, the index map -1, count 0, span n, fire 1.
inline RefState makePopulation(const std::vector<std::uint8_t>& mask,
                               const std::vector<std::uint32_t>& extra) {
  const auto n = static_cast<std::int64_t>(mask.size());
  RefState s;
  s.planes.push_back({std::vector<unsigned char>(mask.begin(), mask.end()), 1});
  for (std::size_t p = 0; p < extra.size(); ++p)
    s.planes.push_back(
        {cachedPlaneBytes(n, extra[p], static_cast<std::uint32_t>(p + 1)), extra[p]});
  s.maskPlane = 0;
  s.perm.resize(mask.size());
  std::iota(s.perm.begin(), s.perm.end(), 0);
  s.inv = s.perm;
  s.map.assign(mask.size(), -1);
  s.count = 0;
  s.span = static_cast<std::uint32_t>(n);
  s.fire = 1;
  return s;
}

/// The mask plane's bytes as a mask.
inline std::vector<std::uint8_t> maskOf(const RefState& s) {
  const auto& b = s.planes[s.maskPlane].bytes;
  return std::vector<std::uint8_t>(b.begin(), b.end());
}

/// The largest element size among the planes.
inline std::uint32_t maxElemOf(const RefState& s) {
  std::uint32_t m = 1;
  for (const auto& p : s.planes) m = p.elem > m ? p.elem : m;
  return m;
}

/// Every byte of two populations, plane by plane and word by word.
inline void expectSameState(const RefState& got, const RefState& want) {
  ASSERT_EQ(got.planes.size(), want.planes.size());
  for (std::size_t p = 0; p < want.planes.size(); ++p)
    ASSERT_TRUE(got.planes[p].bytes == want.planes[p].bytes)
        << "plane " << p << " (elemBytes " << want.planes[p].elem << ")";
  ASSERT_TRUE(got.perm == want.perm) << "perm";
  ASSERT_TRUE(got.inv == want.inv) << "inv";
  ASSERT_TRUE(got.map == want.map) << "index map";
  ASSERT_EQ(got.count, want.count) << "count";
  ASSERT_EQ(got.span, want.span) << "span";
  ASSERT_EQ(got.fire, want.fire) << "fire";
}

/// Runs `f()` under every configuration of the face (the host's instruction
/// sets), with the configuration in the failure trace.
template <class Face, class F>
void forEachConfig(F&& f) {
  const auto configs = Face::configs();
  for (std::size_t c = 0; c < configs.size(); ++c) {
    Face::select(c);
    SCOPED_TRACE(configs[c]);
    f();
    if (::testing::Test::HasFatalFailure()) break;
  }
  Face::deselect();
}

} // namespace sieve_test

/// Skip the shared case when the face cannot run here (no GPU).
#define SIEVE_FACE_REQUIRED(Face)                      \
  do {                                                 \
    const std::string sieveWhy_ = Face::skipReason();  \
    if (!sieveWhy_.empty()) GTEST_SKIP() << sieveWhy_; \
  } while (0)
