// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — the cross-backend comparison of sieve::keys (the dense
// and sparse scatters, reduce, compact and group by key) on every space, the
// portable face forced too (crossbackend.hpp).
#include "crossbackend.hpp"

using namespace sieve_test;
using namespace sieve_test::cross;

namespace {

/// An element of the keys check: 8 bytes, no padding.
struct KeyedPair {
  std::int32_t k, v;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
  KOKKOS_INLINE_FUNCTION bool operator<(const KeyedPair& o) const { return v < o.v; }
};

/// sieve::keys on space E: scatter_dense, scatter_sparse, SortUnique + compact, SortGroup.
template <class E>
Outputs runKeysOn(const std::vector<KeyedPair>& in) {
  using V = Kokkos::View<KeyedPair*, typename E::memory_space>;
  const E exec;
  V d("keys_in", in.size()), a("a", in.size()), b("b", in.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < in.size(); ++i) h(i) = in[i];
  Kokkos::deep_copy(d, h);
  Outputs out;
  const auto dense = sieve::keys::scatter_dense(exec, d, a);
  out.addView(a);
  out.addView(dense.offsets());
  const auto sparse = sieve::keys::scatter_sparse(exec, d, b);
  out.addView(b);
  out.addView(sparse.offsets());
  out.addView(sparse.keys());
  const auto unique = sieve::keys::reduce(exec, dense, a, sieve::keys::SortUnique{});
  V c("c", unique.num_elements());
  sieve::keys::compact(exec, dense, unique, a, c);
  exec.fence();
  out.addView(unique.offsets());
  out.addView(a);
  out.addView(c);
  const auto g = sieve::keys::group(exec, sparse, b, sieve::keys::SortGroup{});
  out.addView(b);
  out.addView(g.groups.offsets());
  out.addView(g.keys.offsets());
  return out;
}

} // namespace

TEST(CrossBackendKeys, EverySpaceWritesTheSameBytes) {
  forCrossSizes(200003, [](const std::size_t n) {
    std::vector<KeyedPair> in(n);
    for (std::size_t i = 0; i < in.size(); ++i)
      in[i] = KeyedPair{static_cast<std::int32_t>((i * 2654435761u) % 5000),
                        static_cast<std::int32_t>((i * 40503u) % 97)};
    expectEverySpaceWritesTheSameBytes(
        [&](const auto space) { return runKeysOn<std::decay_t<decltype(space)>>(in); });
  });
}
