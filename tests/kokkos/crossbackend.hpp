// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — the cross-backend comparison's shared parts: the bytes
// a face writes (Outputs), where two differ, and the run of one check on
// every enabled execution space. Three sources use it, one per group of
// calls (test_crossbackend*.cpp), so that they compile in parallel.
#pragma once

#include <sieve/sieve.hpp>
// The native host face, called directly below: sieve.hpp pulls it in only
// with Kokkos::OpenMP (impl/faces/openmp.hpp).
#include <sieve/native/host/compact.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/scan.hpp>

#include "../common/cases.hpp"
#include "../common/reference.hpp"
#include "host_copy.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve_test {
namespace cross {

/// Everything a face writes, as bytes, each run of bytes named by what
/// wrote it (a View's label, or the name given to add).
struct Outputs {
  Outputs() { bytes.reserve(1 << 26); }
  std::vector<unsigned char> bytes;
  std::vector<std::pair<std::size_t, std::string>> parts; ///< (first byte, name)
  void add(const void* p, std::size_t n, const std::string& name) {
    parts.emplace_back(bytes.size(), name + " #" + std::to_string(parts.size()));
    const auto* c = static_cast<const unsigned char*>(p);
    bytes.insert(bytes.end(), c, c + n);
  }
  /// Every element of v (any rank, layout or space) in logical order, last
  /// index fastest: the same bytes whatever layout the space defaults to.
  template <class V>
  void addView(const V& v) {
    const auto h = hostCopy(v);
    // size(): the elements (span() counts the scalars of Kokkos::Array elements on Kokkos 3.4).
    add(h.data(), h.size() * sizeof(typename V::value_type), v.label());
  }
  /// The name of the part holding byte k.
  std::string partOf(std::size_t k) const {
    std::string name = "?";
    for (const auto& [first, what] : parts)
      if (first <= k) name = what;
    return name;
  }
};

/// The first byte where a and b differ (a.size() if none), and what wrote it.
inline std::string firstDifference(const Outputs& a, const Outputs& b) {
  const std::size_t size = std::min(a.bytes.size(), b.bytes.size());
  std::size_t k = 0;
  while (k < size && a.bytes[k] == b.bytes[k]) ++k;
  return "output byte " + std::to_string(k) + " (" + a.partOf(k) + ")";
}

/// run(space) on every enabled execution space, their outputs compared
/// byte for byte.
template <class Run>
void expectEverySpaceWritesTheSameBytes(const Run& run) {
  std::map<std::string, Outputs> spaces;
#if defined(KOKKOS_ENABLE_SERIAL)
  spaces["Serial"] = run(Kokkos::Serial());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  spaces["OpenMP"] = run(Kokkos::OpenMP());
  {
    // The same public calls with the native face switched off: what a space
    // without one (HIP, SYCL) runs, here on the OpenMP threads.
    const sieve::Impl::ForcePortable portable;
    spaces["OpenMP (portable forced)"] = run(Kokkos::OpenMP());
  }
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  spaces["Cuda"] = run(Kokkos::Cuda());
  {
    const sieve::Impl::ForcePortable portable;
    spaces["Cuda (portable forced)"] = run(Kokkos::Cuda());
  }
#endif
  EXPECT_FALSE(sieve::Impl::portableForced().load()) << "ForcePortable left the switch set";
  ASSERT_GE(spaces.size(), 2u) << "fewer than two spaces to compare";
  const auto& ref = spaces.begin()->second;
  for (const auto& [space, out] : spaces) {
    ASSERT_EQ(out.bytes.size(), ref.bytes.size()) << space;
    EXPECT_EQ(std::memcmp(out.bytes.data(), ref.bytes.data(), ref.bytes.size()), 0)
        << space << " differs from " << spaces.begin()->first << " at "
        << firstDifference(out, ref);
  }
}

/// check(n) at the sizes of the keys and API checks: empty, one, a partial
/// word, a partial tile, and `largest` (many tiles).
template <class Check>
void forCrossSizes(const std::size_t largest, const Check& check) {
  for (const std::size_t n :
       {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(4097), largest}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check(n);
  }
}

} // namespace cross
} // namespace sieve_test
