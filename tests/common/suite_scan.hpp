// SPDX-License-Identifier: Apache-2.0
// Sieve tests — inclusive and exclusive scans, one body for every face.
//
//   SIEVE_SCAN_SUITE(HostScan, HostFace, ::sieve_test::sizes())
//
// defines, for the face's adapter (see faces.hpp):
//   HostScan.MatchesReference/<case>_n<n>_<incl|excl>   every type x operator x init of the
//                                                       case list below, over the given sizes
//   HostScanMisc.UnsignedWraps / InPlace / DeterministicFloatingPoint
//   HostScanFromFirst.MatchesReference / InPlace / SameFoldsAsSeeded
//                    the inclusive scan without init of operators without
//                    identity (Face::scanFromFirst): the first element starts the fold
#pragma once

#include "cases.hpp"
#include "faces.hpp"
#include "ops.hpp"
#include "reference.hpp"
#include "suite_compact.hpp"

#include <sieve/core/types.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve_test {

/// The scan cases: name, value type, operator, init, input. Small integers
/// (-8..8) keep every float sum exact, so any association order gives the
/// reference's bits; `affine` is associative but not commutative.
#define SIEVE_SCAN_CASES(X)                                                            \
  X(int32_sum, std::int32_t, sieve::Sum{}, 0, Ints)                                    \
  X(int32_sum_init1000, std::int32_t, sieve::Sum{}, 1000, Ints)                        \
  X(int32_sum_initm40, std::int32_t, sieve::Sum{}, -40, Ints)                          \
  X(int32_sum_initm17, std::int32_t, sieve::Sum{}, -17, Ints)                          \
  X(int32_min, std::int32_t, sieve::Min{}, sieve::Min::identity<std::int32_t>(), Ints) \
  X(int32_max_initm3, std::int32_t, sieve::Max{}, -3, Ints)                            \
  X(int32_max_init3, std::int32_t, sieve::Max{}, 3, Ints)                              \
  X(int32_xor_init55, std::int32_t, XorOp{}, 0x55, Ints)                               \
  X(int32_xor_init5a, std::int32_t, XorOp{}, 0x5A, Ints)                               \
  X(int32_xor_init33, std::int32_t, XorOp{}, 0x33, Ints)                               \
  X(int64_sum_init2p40, std::int64_t, sieve::Sum{}, std::int64_t(1) << 40, Ints)       \
  X(int64_max, std::int64_t, sieve::Max{}, sieve::Max::identity<std::int64_t>(), Ints) \
  X(uint32_max, std::uint32_t, sieve::Max{}, 0u, Ints)                                 \
  X(int8_max_initm100, std::int8_t, sieve::Max{}, std::int8_t(-100), Ints)             \
  X(float_sum_init05, float, sieve::Sum{}, 0.5f, Ints)                                 \
  X(float_min, float, sieve::Min{}, sieve::Min::identity<float>(), Ints)               \
  X(float_absmax, float, AbsMaxOp{}, 0.0f, Ints)                                       \
  X(double_sum, double, sieve::Sum{}, 0.0, Ints)                                       \
  X(double_max_init2, double, sieve::Max{}, 2.0, Ints)                                 \
  X(double_min_init1, double, sieve::Min{}, 1.0, Ints)                                 \
  X(double_max_initm1, double, sieve::Max{}, -1.0, Ints)                               \
  X(uint64_affine, std::uint64_t, Affine{}, affineMaps(1, 22)[0], Affine)

enum class ScanCaseId {
#define SIEVE_SCAN_ENUM(name, T, op, init, input) name,
  SIEVE_SCAN_CASES(SIEVE_SCAN_ENUM)
#undef SIEVE_SCAN_ENUM
};

struct ScanCase {
  ScanCaseId id;
  std::int64_t n;
  bool inclusive;
};

inline const char* caseName(ScanCaseId id) {
  switch (id) {
#define SIEVE_SCAN_NAME(name, T, op, init, input) \
  case ScanCaseId::name: return #name;
    SIEVE_SCAN_CASES(SIEVE_SCAN_NAME)
#undef SIEVE_SCAN_NAME
  }
  return "?";
}
inline std::string name(const ScanCase& c) {
  return std::string(caseName(c.id)) + "_n" + std::to_string(c.n) +
         (c.inclusive ? "_incl" : "_excl");
}
inline void PrintTo(const ScanCase& c, std::ostream* os) { *os << name(c); }

/// Every case x size x direction; float sums stay exact up to 2^20 elements only.
inline std::vector<ScanCase> scanCases(const std::vector<std::int64_t>& ns) {
  std::vector<ScanCase> out;
#define SIEVE_SCAN_LIST(name, T, op, init, input)                   \
  for (const auto n : ns)                                           \
    if (!(std::is_same_v<T, float> && n > (std::int64_t(1) << 20))) \
      for (const bool inclusive : {true, false}) out.push_back({ScanCaseId::name, n, inclusive});
  SIEVE_SCAN_CASES(SIEVE_SCAN_LIST)
#undef SIEVE_SCAN_LIST
  return out;
}

enum class ScanInput { Ints, Affine };

/// The input of a case, computed once per (type, input, n).
template <class T>
const std::vector<T>& scanInput(ScanInput kind, std::int64_t n) {
  static std::map<std::pair<int, std::int64_t>, std::vector<T>> cache;
  const auto key = std::make_pair(static_cast<int>(kind), n);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<T> v;
    if constexpr (std::is_same_v<T, std::uint64_t>)
      if (kind == ScanInput::Affine) v = affineMaps(n, 21);
    if (kind == ScanInput::Ints) v = smallInts<T>(n, 3);
    it = cache.emplace(key, std::move(v)).first;
  }
  return it->second;
}

template <class Face, class T, class Op>
void scanCheck(const ScanCase& c, Op op, T init, ScanInput input) {
  const auto& in = scanInput<T>(input, c.n);
  const auto ref = refScan(in, op, init, c.inclusive);
  forEachConfig<Face>([&] {
    const auto out = Face::scan(in, init, c.inclusive, op, false);
    ASSERT_EQ(out.size(), ref.size());
    ASSERT_EQ(0, compareBytes(out.data(), ref.data(), ref.size() * sizeof(T)));
  });
}

template <class Face>
void scanMatchesReference(const ScanCase& c) {
  switch (c.id) {
#define SIEVE_SCAN_RUN(name, T, op, init, input) \
  case ScanCaseId::name: scanCheck<Face, T>(c, op, static_cast<T>(init), ScanInput::input); break;
    SIEVE_SCAN_CASES(SIEVE_SCAN_RUN)
#undef SIEVE_SCAN_RUN
  }
}

template <class Face>
void scanUnsignedWraps() {
  const std::vector<std::uint32_t> in(100003, 0x9E3779B9u);
  const auto ref = refScan(
      in, [](std::uint32_t a, std::uint32_t b) { return a + b; }, 7u, true);
  forEachConfig<Face>([&] { EXPECT_EQ(Face::scan(in, 7u, true, sieve::Sum{}, false), ref); });
}

template <class Face>
void scanInPlace() {
  const auto a = smallInts<std::int32_t>(300007, 4);
  const auto b = smallInts<std::int64_t>(300007, 5);
  const auto c = smallInts<std::int32_t>(3000017, 8);
  forEachConfig<Face>([&] {
    EXPECT_EQ(Face::scan(a, 5, true, sieve::Sum{}, true), refScan(a, sieve::Sum{}, 5, true));
    EXPECT_EQ(Face::scan(a, 5, false, sieve::Sum{}, true), refScan(a, sieve::Sum{}, 5, false));
    EXPECT_EQ(Face::scan(a, -9, false, sieve::Max{}, true), refScan(a, sieve::Max{}, -9, false));
    EXPECT_EQ(Face::scan(b, std::int64_t(7), true, sieve::Sum{}, true),
              refScan(b, sieve::Sum{}, std::int64_t(7), true));
    EXPECT_EQ(Face::scan(c, 4, true, sieve::Sum{}, true), refScan(c, sieve::Sum{}, 4, true));
  });
}

/// Floating-point scans are run-to-run deterministic on each face.
template <class Face>
void scanDeterministicFloatingPoint() {
  for (const std::int64_t n : {std::int64_t(1) << 20, std::int64_t(2000003)}) {
    std::mt19937 g(static_cast<std::uint32_t>(n));
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    std::vector<double> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = d(g);
    forEachConfig<Face>([&] {
      for (const bool inclusive : {true, false}) {
        const auto a = Face::scan(in, 0.0, inclusive, sieve::Sum{}, false);
        const auto b = Face::scan(in, 0.0, inclusive, sieve::Sum{}, false);
        ASSERT_EQ(0, compareBytes(a.data(), b.data(), a.size() * sizeof(double)))
            << "n=" << n << (inclusive ? " inclusive" : " exclusive");
      }
    });
  }
}

/// Operators without identity(), for the scans without init (the first
/// element starts the fold, as std::inclusive_scan(first, last, d, op)).
/// The first nonzero operand: associative, not commutative.
struct FirstNonZero {
  template <class T>
  SIEVE_INLINE T operator()(const T& a, const T& b) const {
    return a != T(0) ? a : b;
  }
};
/// The left operand: associative, not commutative; every output is in[0].
struct LeftOp {
  template <class T>
  SIEVE_INLINE T operator()(const T& a, const T&) const {
    return a;
  }
};
/// max(a, b) without identity (a fold from T{} would lift negative inputs).
struct MaxNoIdentity {
  template <class T>
  SIEVE_INLINE T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};
/// a + b without identity.
struct PlusNoIdentity {
  template <class T>
  SIEVE_INLINE T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

/// The plain sequential inclusive scan from the first element.
template <class T, class Op>
std::vector<T> refScanFromFirst(const std::vector<T>& in, Op op) {
  std::vector<T> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = i == 0 ? in[0] : op(out[i - 1], in[i]);
  return out;
}

/// Sizes around every face's block / tile (host 1024, portable 2048, CUDA
/// 2304 and 1280 elements, single-pass 2816), and past two levels of block
/// totals (portable 2048^2, CUDA 1280^2 for 8-byte values).
inline const std::vector<std::int64_t>& fromFirstSizes() {
  static const std::vector<std::int64_t> s{
      0,    1,    2,    3,    31,     1023,    1024,
      1025, 1279, 1280, 1281, 2047,   2048,    2049,
      2303, 2304, 2305, 2817, 100003, 1638401, (std::int64_t(1) << 22) + 1};
  if (kSanitized) { // the faces run there (host, CUDA) pass two levels at 1638401
    static const std::vector<std::int64_t> sampled(s.begin(), s.end() - 1);
    return sampled;
  }
  return s;
}

/// Zeros with a few nonzeros after the first third (FirstNonZero's output
/// changes once, past the first blocks), and a nonzero first element when
/// `leading` (LeftOp's outputs are all in[0]).
template <class T>
std::vector<T> sparseNonZeros(std::int64_t n, bool leading) {
  std::vector<T> v(static_cast<std::size_t>(n), T(0));
  std::mt19937 g(static_cast<std::uint32_t>(n) + 11u);
  for (std::int64_t i = n / 3; i < n; ++i)
    if (g() % 64u == 0u) v[static_cast<std::size_t>(i)] = static_cast<T>(1 + g() % 97u);
  if (leading && n > 0) v[0] = T(-5);
  return v;
}

template <class Face, class T, class Op>
void fromFirstCheck(const std::vector<T>& in, Op op, bool inPlace, const char* what) {
  SCOPED_TRACE(std::string(what) + " n=" + std::to_string(in.size()));
  const auto ref = refScanFromFirst(in, op);
  forEachConfig<Face>([&] {
    const auto out = Face::scanFromFirst(in, op, inPlace);
    ASSERT_EQ(out.size(), ref.size());
    ASSERT_EQ(0, compareBytes(out.data(), ref.data(), ref.size() * sizeof(T)));
  });
}

/// Every operator without identity at every size, against the reference.
template <class Face>
void fromFirstMatchesReference() {
  for (const std::int64_t n : fromFirstSizes()) {
    fromFirstCheck<Face>(sparseNonZeros<std::int32_t>(n, false), FirstNonZero{}, false,
                         "int32 first nonzero");
    fromFirstCheck<Face>(sparseNonZeros<std::int64_t>(n, true), LeftOp{}, false, "int64 left");
    fromFirstCheck<Face>(smallInts<std::int32_t>(n, 3), XorOp{}, false, "int32 xor");
    fromFirstCheck<Face>(affineMaps(n, 23), Affine{}, false, "uint64 affine");
    fromFirstCheck<Face>(smallInts<std::int8_t>(n, 5), MaxNoIdentity{}, false, "int8 max");
    fromFirstCheck<Face>(smallInts<double>(n, 6), PlusNoIdentity{}, false, "double plus");
    fromFirstCheck<Face>(smallInts<float>(n, 7), AbsMaxOp{}, false, "float absmax");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class Face>
void fromFirstInPlace() {
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(2049), std::int64_t(300007)}) {
    fromFirstCheck<Face>(affineMaps(n, 24), Affine{}, true, "uint64 affine");
    fromFirstCheck<Face>(smallInts<std::int32_t>(n, 8), MaxNoIdentity{}, true, "int32 max");
    fromFirstCheck<Face>(sparseNonZeros<std::int32_t>(n, true), LeftOp{}, true, "int32 left");
  }
}

/// The fold order of a scan without init is the seeded one with init left
/// out: on random doubles (inexact sums), a sum without identity gives the
/// bits of sieve::Sum from init -0.0 (-0.0 + x == x exactly), on each face.
template <class Face>
void fromFirstSameFoldsAsSeeded() {
  for (const std::int64_t n : {std::int64_t(2049), std::int64_t(1) << 20, std::int64_t(2000003)}) {
    std::mt19937 g(static_cast<std::uint32_t>(n) + 5u);
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    std::vector<double> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = d(g);
    forEachConfig<Face>([&] {
      const auto a = Face::scanFromFirst(in, PlusNoIdentity{}, false);
      const auto b = Face::scan(in, -0.0, true, sieve::Sum{}, false);
      ASSERT_EQ(a.size(), b.size());
      ASSERT_EQ(0, compareBytes(a.data(), b.data(), a.size() * sizeof(double))) << "n=" << n;
    });
  }
}

} // namespace sieve_test

#define SIEVE_SCAN_SUITE(Suite, Face, Sizes)                                                  \
  class Suite : public ::testing::TestWithParam<::sieve_test::ScanCase> {};                   \
  TEST_P(Suite, MatchesReference) {                                                           \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::scanMatchesReference<Face>(GetParam());                                     \
  }                                                                                           \
  INSTANTIATE_TEST_SUITE_P(Sweep, Suite, ::testing::ValuesIn(::sieve_test::scanCases(Sizes)), \
                           ::sieve_test::ParamName{});                                        \
  TEST(Suite##Misc, UnsignedWraps) {                                                          \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::scanUnsignedWraps<Face>();                                                  \
  }                                                                                           \
  TEST(Suite##Misc, InPlace) {                                                                \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::scanInPlace<Face>();                                                        \
  }                                                                                           \
  TEST(Suite##Misc, DeterministicFloatingPoint) {                                             \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::scanDeterministicFloatingPoint<Face>();                                     \
  }                                                                                           \
  TEST(Suite##FromFirst, MatchesReference) {                                                  \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::fromFirstMatchesReference<Face>();                                          \
  }                                                                                           \
  TEST(Suite##FromFirst, InPlace) {                                                           \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::fromFirstInPlace<Face>();                                                   \
  }                                                                                           \
  TEST(Suite##FromFirst, SameFoldsAsSeeded) {                                                 \
    SIEVE_FACE_REQUIRED(Face);                                                                \
    ::sieve_test::fromFirstSameFoldsAsSeeded<Face>();                                         \
  }                                                                                           \
  static_assert(true, "")
