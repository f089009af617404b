// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — what the sieve::keys tests (test_keys.cpp,
// test_keys_dense.cpp) share: the element types, the sequential references
// (the stable sort by key, the dense offsets) and small functors. Internal to
// each test file that includes it (an unnamed namespace, as it was when the
// two files were one).
#pragma once

#include "backend.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using i64 = std::int64_t;

/// An element: a key and the record it came from (to see the order).
template <class K>
struct Rec {
  K k;
  std::int32_t rec;
  KOKKOS_INLINE_FUNCTION K key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const Rec& o) const { return rec < o.rec; }
};
template <class K>
bool operator==(const Rec<K>& a, const Rec<K>& b) {
  return a.k == b.k && a.rec == b.rec;
}

template <class E>
sieve_test::DView<E> deviceOf(const std::vector<E>& v) {
  return sieve_test::toDevice(v, "keys_test");
}

template <class V>
std::vector<i64> offsetsOf(const V& keys) {
  return sieve_test::toHost(keys.offsets());
}

/// The stable sort of a reference: by key, record order within a key.
template <class E, class KeyFn>
std::vector<E> stableByKey(std::vector<E> v, KeyFn key) {
  std::stable_sort(v.begin(), v.end(), [&](const E& a, const E& b) { return key(a) < key(b); });
  return v;
}

/// Dense reference offsets over [lo, hi].
template <class E, class K>
std::vector<i64> denseOffsets(const std::vector<E>& v, K lo, K hi) {
  const i64 K_ = static_cast<i64>(hi) - static_cast<i64>(lo) + 1;
  std::vector<i64> off(static_cast<std::size_t>(K_ + 1), 0);
  for (const auto& e : v) ++off[static_cast<std::size_t>(static_cast<i64>(e.key()) - lo + 1)];
  for (std::size_t k = 1; k < off.size(); ++k) off[k] += off[k - 1];
  return off;
}

/// A for_each_key_range functor that does nothing.
struct Noop {
  template <class Out, class Off>
  KOKKOS_INLINE_FUNCTION void operator()(const Out&, i64, i64, const Off&) const {}
};

} // namespace
