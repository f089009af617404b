// SPDX-License-Identifier: Apache-2.0
// Sieve tests — the cases every face runs: sizes, masks, polarities. One home,
// so the host, Kokkos and CUDA suites test exactly the same inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace sieve_test {

/// Whether this binary runs under AddressSanitizer (the sanitized binaries,
/// -DSIEVE_TEST_SANITIZERS=ON, ~5x slower): the few cases of tens of millions of elements take a smaller
/// size there, on the same code paths; every other build runs them whole.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

/// The sample counts of the compaction / reorder cases.
inline const std::vector<std::int64_t>& sizes() {
  static const std::vector<std::int64_t> s{
      0,    1,    7,      31,     32,
      33,   255,  256,    257,    4095,
      4096, 4097, 100003, 300007, (std::int64_t(1) << 20) + 4099};
  return s;
}

enum class MaskKind { Random20, Random50, Random90, All, None, Alternating, OneRun };

inline const std::vector<MaskKind>& maskKinds() {
  static const std::vector<MaskKind> k{
      MaskKind::Random20, MaskKind::Random50,    MaskKind::Random90, MaskKind::All,
      MaskKind::None,     MaskKind::Alternating, MaskKind::OneRun};
  return k;
}

inline std::string name(MaskKind k) {
  switch (k) {
  case MaskKind::Random20: return "random20";
  case MaskKind::Random50: return "random50";
  case MaskKind::Random90: return "random90";
  case MaskKind::All: return "all";
  case MaskKind::None: return "none";
  case MaskKind::Alternating: return "alternating";
  case MaskKind::OneRun: return "onerun";
  }
  return "?";
}

/// A mask of `n` bytes: set bytes carry assorted non-zero values (not just 1),
/// so "non-zero keeps" is what is tested.
inline std::vector<std::uint8_t> makeMask(MaskKind k, std::int64_t n, std::uint32_t seed = 7) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n), 0);
  std::mt19937 g(seed + static_cast<std::uint32_t>(n));
  std::uniform_int_distribution<int> v(1, 255);
  auto setWithP = [&](double p) {
    std::bernoulli_distribution b(p);
    for (auto& x : m) x = b(g) ? static_cast<std::uint8_t>(v(g)) : 0;
  };
  switch (k) {
  case MaskKind::Random20: setWithP(0.2); break;
  case MaskKind::Random50: setWithP(0.5); break;
  case MaskKind::Random90: setWithP(0.9); break;
  case MaskKind::All:
    for (auto& x : m) x = static_cast<std::uint8_t>(v(g));
    break;
  case MaskKind::None: break;
  case MaskKind::Alternating:
    for (std::int64_t i = 0; i < n; i += 2) m[static_cast<std::size_t>(i)] = 1;
    break;
  case MaskKind::OneRun: {
    const std::int64_t a = n / 3, b = n - n / 4;
    for (std::int64_t i = a; i < b; ++i) m[static_cast<std::size_t>(i)] = 0xFF;
    break;
  }
  }
  return m;
}

/// One case of the size x mask x polarity sweep.
struct MaskCase {
  std::int64_t n;
  MaskKind kind;
  bool drop; ///< polarity: a set byte drops (true) or keeps (false) its sample
};

/// Every size x kind x polarity, in that order.
inline std::vector<MaskCase> maskCases(const std::vector<MaskKind>& kinds = maskKinds()) {
  std::vector<MaskCase> out;
  for (const auto n : sizes())
    for (const auto k : kinds)
      for (const bool drop : {false, true}) out.push_back({n, k, drop});
  return out;
}

/// "n4097_random20_keep": the readable name of a case (and its gtest suffix).
inline std::string name(const MaskCase& c) {
  return "n" + std::to_string(c.n) + "_" + name(c.kind) + (c.drop ? "_drop" : "_keep");
}

/// A mask with every 5th sample kept (a scattered 20%), or the first 20% kept
/// (contiguous): the trigger must fire on the first and stay silent on the
/// second.
inline std::vector<std::uint8_t> scattered20(std::int64_t n) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; i += 5) m[static_cast<std::size_t>(i)] = 1;
  return m;
}
inline std::vector<std::uint8_t> contiguous20(std::int64_t n) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n / 5; ++i) m[static_cast<std::size_t>(i)] = 1;
  return m;
}

/// A thinning sequence of keep masks for a population: step s keeps each live
/// sample with probability `survive`.
inline std::vector<std::uint8_t> thin(const std::vector<std::uint8_t>& live, double survive,
                                      std::uint32_t seed) {
  std::mt19937 g(seed);
  std::bernoulli_distribution b(survive);
  std::vector<std::uint8_t> m(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) m[i] = (live[i] && b(g)) ? 1 : 0;
  return m;
}

/// memcmp / memcpy that accept empty (possibly null) ranges.
inline int compareBytes(const void* a, const void* b, std::size_t n) {
  return n == 0 ? 0 : std::memcmp(a, b, n);
}
inline void copyBytes(void* dst, const void* src, std::size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

/// Small integers (-8..8) as T: their sums are exact in every type tested, so
/// any association order gives the reference's bits.
template <class T>
std::vector<T> smallInts(std::int64_t n, std::uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<T>(d(g));
  return v;
}

} // namespace sieve_test
