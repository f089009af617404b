// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — every face on the same inputs, outputs compared byte
// for byte: the native host twins (raw pointers), the public API on every
// enabled execution space, and the portable implementation forced onto the
// host's parallel space: compact with the trigger, reorder, restore and the
// scans (test_crossbackend_keys.cpp and test_crossbackend_api.cpp: the other
// calls). (Under the sanitizers this binary is what runs the portable face
// under UBSan: tests/CMakeLists.txt.)
#include "crossbackend.hpp"

using namespace sieve_test;
using namespace sieve_test::cross;

namespace {

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
