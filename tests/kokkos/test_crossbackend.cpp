// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — every face on the same inputs, outputs compared byte
// for byte: the native host twins (raw pointers), the public API on every
// enabled execution space, and the portable implementation forced onto the
// host's parallel space; the keys calls, findall, sort_permutation,
// reduce_by_key and permute on every space. (Under the sanitizers this binary
// is what runs the portable face under UBSan: tests/CMakeLists.txt.)
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

using namespace sieve_test;

namespace {

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
std::string firstDifference(const Outputs& a, const Outputs& b) {
  const std::size_t size = std::min(a.bytes.size(), b.bytes.size());
  std::size_t k = 0;
  while (k < size && a.bytes[k] == b.bytes[k]) ++k;
  return "output byte " + std::to_string(k) + " (" + a.partOf(k) + ")";
}

struct Input {
  std::vector<std::uint8_t> mask;
  bool drop;
  std::vector<std::int32_t> values;
};

enum class Force { Api, Portable };

/// Compact (with trigger), reorder (5 planes), restore and scan on space E.
template <class E>
Outputs runOn(const Input& in, Force force) {
  using M = typename E::memory_space;
  const auto n = static_cast<std::int64_t>(in.mask.size());
  const std::uint32_t flags = in.drop ? sieve::kCompactMaskIsDrop : 0u; // the internal faces'
  const auto polarity = in.drop ? sieve::MaskPolarity::drop : sieve::MaskPolarity::keep;
  E exec;
  auto up = [&](const auto& v, const char* label) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    Kokkos::View<T*, M> d(std::string(label), v.size());
    auto h = Kokkos::create_mirror_view(d);
    for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
    Kokkos::deep_copy(d, h);
    return d;
  };
  auto mask = up(in.mask, "mask");
  Kokkos::View<std::int32_t*, M> map("map", n);
  Kokkos::deep_copy(map, -1);
  Kokkos::View<std::uint32_t, M> count("count");
  Kokkos::View<unsigned char*, M> cs("cs", sieve::compact_scratch_bytes(n));
  sieve::Trigger<M> trig("trig", 0.4f);
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  auto perm = up(ids, "perm"), inv = up(ids, "inv");
  std::vector<double> xs(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = 0.5 * static_cast<double>(i) - 3.0;
  auto x = up(xs, "x");
  auto v = up(in.values, "v");
  Kokkos::View<std::int16_t*, M> s16("s16", n);
  Kokkos::View<Kokkos::Array<float, 4>*, M> f4("f4", n);
  Kokkos::deep_copy(s16, std::int16_t(-2));
  Kokkos::View<unsigned char*, M> rs("rs", sieve::reorder_scratch_bytes(n, 16));
  Kokkos::View<std::int32_t*, M> scanned("scanned", n),
      sums("sums", sieve::scan_scratch_size<std::int32_t>(n));

  Outputs out;
  if (force == Force::Portable) {
    sieve::ReorderTrigger t{trig.live32.data(), trig.span.data(), trig.fire.data(), trig.theta};
    sieve::Impl::Portable::compact(exec, std::string("sieve::test"), mask, flags, map, count.data(),
                                   cs.data(), &t, n);
  } else {
    sieve::compact(exec, mask, polarity, map, count, cs, trig);
  }
  out.addView(map);
  out.addView(count);
  out.addView(trig.live32);
  out.addView(trig.fire);
  Kokkos::deep_copy(trig.fire, 1u); // reorder unconditionally, through the fire word
  if (force == Force::Portable)
    sieve::Impl::Portable::reorder(exec, std::string("sieve::test"), mask, flags, perm, inv, map,
                                   count.data(), trig.span.data(), trig.fire.data(), rs.data(), n,
                                   x, mask, v, s16, f4);
  else sieve::reorder(exec, mask, polarity, perm, inv, map, count, trig, rs, x, mask, v, s16, f4);
  for (const auto* view : {&perm, &inv, &map}) out.addView(*view);
  out.addView(x);
  out.addView(mask);
  out.addView(v);
  out.addView(count);
  out.addView(trig.span);
  out.addView(trig.fire);
  if (force == Force::Portable)
    sieve::Impl::Portable::scan<false>(exec, std::string("sieve::test"), v, scanned, sieve::Sum{},
                                       std::int32_t(3), sums.data(), n);
  else sieve::exclusive_scan(exec, v, scanned, 3, sieve::Sum{}, sums);
  out.addView(scanned);
  if (force == Force::Portable)
    sieve::Impl::Portable::restore(exec, std::string("sieve::test"), perm, inv, rs.data(), n, x,
                                   mask, v);
  else sieve::restore(exec, perm, inv, rs, x, mask, v);
  out.addView(x);
  out.addView(mask);
  out.addView(perm);
  exec.fence();
  return out;
}

/// The same sequence on the native host twins, raw pointers.
Outputs runHostTwins(const Input& in) {
  const auto n = static_cast<std::int64_t>(in.mask.size());
  const std::uint32_t flags = in.drop ? sieve::kCompactMaskIsDrop : 0u;
  std::vector<std::uint8_t> mask = in.mask;
  std::vector<std::int32_t> map(static_cast<std::size_t>(n), -1), perm(map.size()), inv(map.size());
  std::iota(perm.begin(), perm.end(), 0);
  inv = perm;
  std::vector<unsigned char> cs(sieve::compact_scratch_bytes(n) + 16);
  std::vector<unsigned char> rsStore(sieve::reorder_scratch_bytes(n, 16) + 16);
  void* rs = rsStore.data() + (16 - reinterpret_cast<std::uintptr_t>(rsStore.data()) % 16) % 16;
  std::uint32_t count = 0, live = 0, fire = 0, span = static_cast<std::uint32_t>(n);
  sieve::ReorderTrigger trig{&live, &span, &fire, 0.4f};
  sieve::compactHost(mask.data(), flags, map.data(), &count, cs.data(), n, &trig);
  Outputs out;
  out.add(map.data(), map.size() * 4, "map");
  out.add(&count, 4, "count");
  out.add(&live, 4, "trig_live32");
  out.add(&fire, 4, "trig_fire");
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5 * static_cast<double>(i) - 3.0;
  std::vector<std::int32_t> v = in.values;
  std::vector<std::int16_t> s16(x.size(), -2);
  std::vector<sieve::Impl::Bytes16> f4(x.size(), sieve::Impl::Bytes16{0, 0});
  fire = 1;
  const sieve::ReorderPlane planes[] = {
      {x.data(), 8}, {mask.data(), 1}, {v.data(), 4}, {s16.data(), 2}, {f4.data(), 16}};
  sieve::reorderHost(planes, 5, mask.data(), flags, perm.data(), inv.data(), map.data(), &count,
                     &span, &fire, rs, n);
  out.add(perm.data(), perm.size() * 4, "perm");
  out.add(inv.data(), inv.size() * 4, "inv");
  out.add(map.data(), map.size() * 4, "map");
  out.add(x.data(), x.size() * 8, "x");
  out.add(mask.data(), mask.size(), "mask");
  out.add(v.data(), v.size() * 4, "v");
  out.add(&count, 4, "count");
  out.add(&span, 4, "trig_span");
  out.add(&fire, 4, "trig_fire");
  std::vector<std::int32_t> scanned(v.size()), sums(v.size() + 1);
  sieve::cpu::Scan::exclusive<std::int32_t, sieve::Sum>(v.data(), scanned.data(), sums.data(), n,
                                                        3);
  out.add(scanned.data(), scanned.size() * 4, "scanned");
  sieve::restoreHost(planes, 3, perm.data(), inv.data(), rs, n);
  out.add(x.data(), x.size() * 8, "x");
  out.add(mask.data(), mask.size(), "mask");
  out.add(perm.data(), perm.size() * 4, "perm");
  return out;
}

} // namespace

namespace {

/// The sweep's cases; the largest size with two masks only: it is there to
/// split every face across many threads / tiles, which one random mask does.
std::vector<MaskCase> crossCases() {
  std::vector<MaskCase> out;
  for (const auto& c : maskCases())
    if (c.n <= (1 << 20) || c.kind == MaskKind::Random50 || c.kind == MaskKind::OneRun)
      out.push_back(c);
  return out;
}

struct CaseName {
  std::string operator()(const ::testing::TestParamInfo<MaskCase>& info) const {
    return name(info.param);
  }
};

} // namespace

namespace sieve_test {
inline void PrintTo(const MaskCase& c, std::ostream* os) { *os << name(c); }
} // namespace sieve_test

class CrossBackend : public ::testing::TestWithParam<MaskCase> {};

TEST_P(CrossBackend, EveryFaceWritesTheSameBytes) {
  const auto& c = GetParam();
  const auto n = c.n;
  const auto kind = c.kind;
  const bool drop = c.drop;
  {
    SCOPED_TRACE("n=" + std::to_string(n) + " mask=" + name(kind) + (drop ? " drop" : " keep"));
    Input in{makeMask(kind, n), drop, std::vector<std::int32_t>(static_cast<std::size_t>(n))};
    for (std::size_t i = 0; i < in.values.size(); ++i)
      in.values[i] = static_cast<std::int32_t>((i * 2654435761u) % 1000) - 500;
    std::map<std::string, Outputs> faces;
    faces["host twins"] = runHostTwins(in);
#if defined(KOKKOS_ENABLE_SERIAL)
    faces["Serial (portable)"] = runOn<Kokkos::Serial>(in, Force::Api);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    faces["OpenMP (twins)"] = runOn<Kokkos::OpenMP>(in, Force::Api);
    faces["OpenMP (portable forced)"] = runOn<Kokkos::OpenMP>(in, Force::Portable);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    faces["Cuda (native)"] = runOn<Kokkos::Cuda>(in, Force::Api);
    faces["Cuda (portable forced)"] = runOn<Kokkos::Cuda>(in, Force::Portable);
#endif
    ASSERT_GE(faces.size(), 3u) << "fewer than two Kokkos faces to compare";
    const auto& ref = faces["host twins"];
    for (const auto& [face, out] : faces) {
      ASSERT_EQ(out.bytes.size(), ref.bytes.size()) << face;
      if (compareBytes(out.bytes.data(), ref.bytes.data(), ref.bytes.size()) != 0)
        FAIL() << face << " differs from the host twins at " << firstDifference(out, ref);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, CrossBackend, ::testing::ValuesIn(crossCases()), CaseName{});

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
/// word, a partial tile, and `largest` (many tiles). In the sanitizer build
/// these checks are what runs findall, keys and permute on the portable face
/// (tests/CMakeLists.txt).
template <class Check>
void forCrossSizes(const std::size_t largest, const Check& check) {
  for (const std::size_t n :
       {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(4097), largest}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check(n);
  }
}

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
