// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — the cross-backend comparison of the rest of the API
// (findall, sort_permutation, reduce_by_key, scans, permute / unpermute, a
// floating-point sparse scatter) on every space, the portable face forced too
// (crossbackend.hpp).
#include "crossbackend.hpp"

using namespace sieve_test;
using namespace sieve_test::cross;

namespace {

/// Selects positive values (findall's predicate form).
struct Positive32 {
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int32_t x) const { return x > 0; }
};
/// A key read by index (sort_permutation's key functor).
template <class V>
struct KeyAt {
  V keys;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const std::int64_t i) const { return keys(i); }
};
/// An element with a floating-point key (scatter_sparse's merge path); 16
/// bytes, no padding.
struct RealKeyed {
  double k;
  std::int64_t v;
  KOKKOS_INLINE_FUNCTION double key() const { return k; }
};

/// The rest of the API on space E: findall (indices, values, predicate,
/// linear indices of a rank-2 mask), sort_permutation, reduce_by_key on its
/// keys, an int64 Max and an int64 Sum scan, permute / unpermute of a rank-1
/// and a rank-2 plane by its permutation, scatter_sparse of floating-point keys.
template <class E>
Outputs runMoreOn(const std::vector<std::int32_t>& values) {
  using M = typename E::memory_space;
  const E exec;
  const auto n = static_cast<std::int64_t>(values.size());
  Kokkos::View<std::int32_t*, M> v("v", n);
  Kokkos::View<std::uint8_t*, M> mask("mask", n);
  // Linear indices follow the mask's layout: both layouts, spelled out (a
  // GPU space's default is LayoutLeft, a host space's LayoutRight).
  Kokkos::View<bool**, Kokkos::LayoutRight, M> mask2("mask2", n / 4, 4);
  Kokkos::View<bool**, Kokkos::LayoutLeft, M> mask2l("mask2l", n / 4, 4);
  Kokkos::View<std::int64_t*, M> w("w", n);
  // The space's default layout (LayoutLeft on a GPU: strided rows), compared
  // element by element.
  Kokkos::View<std::int16_t* [3], M> rows("rows", n);
  Kokkos::View<RealKeyed*, M> real("real", n), realOut("real_out", n);
  {
    auto hv = Kokkos::create_mirror_view(v);
    auto hm = Kokkos::create_mirror_view(mask);
    auto hm2 = Kokkos::create_mirror_view(mask2);
    auto hm2l = Kokkos::create_mirror_view(mask2l);
    auto hw = Kokkos::create_mirror_view(w);
    auto hr = Kokkos::create_mirror_view(rows);
    auto hx = Kokkos::create_mirror_view(real);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto x = values[static_cast<std::size_t>(i)];
      hv(i) = x;
      hm(i) = static_cast<std::uint8_t>(x % 3 == 0);
      if (i < n / 4 * 4) hm2(i / 4, i % 4) = hm2l(i / 4, i % 4) = x % 5 == 1;
      hw(i) = std::int64_t(x) * 1000003 - i;
      for (int c = 0; c < 3; ++c) hr(i, c) = static_cast<std::int16_t>(x * 3 + c);
      hx(i) = RealKeyed{static_cast<double>(x % 97) * 0.25 - 3.0, i};
    }
    Kokkos::deep_copy(v, hv);
    Kokkos::deep_copy(mask, hm);
    Kokkos::deep_copy(mask2, hm2);
    Kokkos::deep_copy(mask2l, hm2l);
    Kokkos::deep_copy(w, hw);
    Kokkos::deep_copy(rows, hr);
    Kokkos::deep_copy(real, hx);
  }
  Outputs out;
  out.addView(sieve::findall(exec, mask));
  out.addView(sieve::findall(exec, mask, sieve::items(v)));
  out.addView(sieve::findall(exec, Positive32{}, v));
  out.addView(sieve::findall(exec, mask2, sieve::linear_indices));
  out.addView(sieve::findall(exec, mask2l, sieve::linear_indices));
  out.addView(sieve::findall(exec, mask2l)); // Kokkos::Array<int64, 2> indices
  Kokkos::View<std::int64_t*, M> perm("perm", n);
  const auto keys = sieve::keys::sort_permutation(exec, n, KeyAt<decltype(v)>{v}, perm);
  out.addView(perm);
  out.addView(keys.offsets());
  const auto minKey = keys.min_key();
  out.add(&minKey, sizeof minKey, "min_key");
  Kokkos::View<std::int64_t*, M> sums("sums", keys.num_keys());
  sieve::keys::reduce_by_key(exec, keys, w, std::int64_t(0), sieve::Sum{}, sums);
  out.addView(sums);
  // Scans beyond the sequence's int32 Sum (integers: the same bytes on every
  // face): int64 Max, inclusive from its identity; int64 Sum, exclusive.
  Kokkos::View<std::int64_t*, M> wMax("w_max", n), wSum("w_sum", n);
  sieve::inclusive_scan(exec, w, wMax, sieve::Max{});
  out.addView(wMax);
  sieve::exclusive_scan(exec, w, wSum, std::int64_t(5));
  out.addView(wSum);
  Kokkos::View<unsigned char*, M> scratch("scratch", sieve::permute_scratch_bytes(v, rows));
  sieve::keys::permute(exec, perm, scratch, v, rows);
  out.addView(v);
  out.addView(rows);
  sieve::keys::unpermute(exec, perm, scratch, v, rows);
  out.addView(v);
  out.addView(rows);
  const auto sparse = sieve::keys::scatter_sparse(exec, real, realOut);
  out.addView(realOut);
  out.addView(sparse.offsets());
  out.addView(sparse.keys());
  exec.fence();
  return out;
}

} // namespace

TEST(CrossBackendApi, EverySpaceWritesTheSameBytes) {
  forCrossSizes(100003, [](const std::size_t n) {
    std::vector<std::int32_t> values(n);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<std::int32_t>((i * 2654435761u) % 2000) - 700;
    expectEverySpaceWritesTheSameBytes(
        [&](const auto space) { return runMoreOn<std::decay_t<decltype(space)>>(values); });
  });
}
