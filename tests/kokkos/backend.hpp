// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — the backend a test binary runs (Kokkos "test category"
// pattern: the same sources compiled once per enabled execution space) and
// helpers to move data between std::vector and Views of its memory space.
#pragma once

#include <sieve/sieve.hpp>

#include "host_copy.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#if defined(SIEVE_TEST_SERIAL)
using TestExec = Kokkos::Serial;
inline const char* kTestBackend = "portable";
#elif defined(SIEVE_TEST_OPENMP)
using TestExec = Kokkos::OpenMP;
inline const char* kTestBackend = "openmp";
#elif defined(SIEVE_TEST_CUDA)
using TestExec = Kokkos::Cuda;
inline const char* kTestBackend = "cuda";
#else
#error "define SIEVE_TEST_SERIAL, SIEVE_TEST_OPENMP or SIEVE_TEST_CUDA"
#endif

using TestMem = TestExec::memory_space;
/// Views of the test's space *and* execution space: the overloads without an
/// instance then run on TestExec too (a View of HostSpace alone would run them
/// on the default host space).
using TestDevice = Kokkos::Device<TestExec, TestMem>;

namespace sieve_test {

/// A deterministic pseudo-random selection: about pct percent of ordinals.
inline bool picked(std::int64_t k, int pct, std::uint32_t seed) {
  std::uint64_t x = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ULL + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<int>(x % 100) < pct;
}

template <class T>
using DView = Kokkos::View<T*, TestDevice>;
using Word = Kokkos::View<std::uint32_t, TestDevice>;
using Bytes = Kokkos::View<unsigned char*, TestDevice>;

template <class T>
DView<T> toDevice(const std::vector<T>& v, const std::string& label = "sieve_test") {
  DView<T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

/// The values of any rank-1 View (strided ones included, on any space), fenced.
template <class V>
std::vector<typename V::non_const_value_type> toHost(const V& d) {
  static_assert(static_cast<int>(V::rank) == 1, "toHost: a rank-1 View");
  const auto h = hostCopy(d);
  std::vector<typename V::non_const_value_type> out(d.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = h(i);
  return out;
}

inline std::uint32_t read(const Word& w) {
  Kokkos::fence();
  std::uint32_t v = 0;
  Kokkos::deep_copy(v, w);
  return v;
}

inline Word word(std::uint32_t value, const std::string& label = "sieve_test::word") {
  Word w(label);
  Kokkos::deep_copy(w, value);
  return w;
}

template <class T>
DView<T> filled(std::size_t n, T value, const std::string& label = "sieve_test") {
  DView<T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  Kokkos::deep_copy(d, value);
  return d;
}

/// A counter-based hash to [0, 1): the same value on every backend and the
/// host (test scenarios that a device kernel and a host model both step).
KOKKOS_INLINE_FUNCTION double hashUnit(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7FB5D329728EA185ull;
  x ^= x >> 27;
  x *= 0x81DADEF4BC2DD44Dull;
  x ^= x >> 33;
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace sieve_test
