// SPDX-License-Identifier: Apache-2.0
// Sieve Kokkos tests — KokkosFace, the shared suites' adapter for the public
// API on this binary's execution space (TestExec: Serial → the portable path,
// OpenMP → the twins, Cuda → the native CUDA face).
//
// Every buffer is a typed View carved from an allocation with guard bytes
// behind it, so the "never writes past" contract is checked on every backend.
// Planes are typed (std::uint8_t, std::int16_t, float, double and the 16-byte
// user type Kokkos::Array<float, 4>) and go to reorder / restore in shuffled
// orders; their bytes travel through unmanaged byte Views (Views of
// Kokkos::Array cannot be deep-copied before Kokkos 4.4).
#pragma once

#include "../common/faces.hpp"
#include "backend.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace sieve_test {

using F4 = Kokkos::Array<float, 4>; // a 16-byte user element
static_assert(sizeof(F4) == 16);

/// `n` elements of T in TestMem at the start (or `offset` elements in) of an
/// allocation with kGuardBytes of guard behind them.
template <class T>
inline constexpr bool kIsArray = false;
template <class T, std::size_t N>
inline constexpr bool kIsArray<Kokkos::Array<T, N>> = true;

template <class T>
class GuardedView {
 public:
  static constexpr std::size_t kGuardBytes = 256;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

  GuardedView(const std::string& label, std::size_t n, const void* bytes = nullptr,
              std::size_t offset = 0, unsigned char fill = 0x5A)
      : n_(n), offset_(kIsArray<T> ? 0 : offset),
        full_(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
              n + offset_ + (kIsArray<T> ? 0 : (kGuardBytes + sizeof(T) - 1) / sizeof(T))) {
    const std::size_t total = totalBytes(), begin = offset_ * sizeof(T), end = endByte();
    std::unique_ptr<unsigned char[]> h(new unsigned char[total]);
    std::memset(h.get(), fill, begin);
    if (bytes != nullptr) copyBytes(h.get() + begin, bytes, end - begin);
    else std::memset(h.get() + begin, fill, end - begin);
    std::memset(h.get() + end, 0xA5, total - end);
    Kokkos::deep_copy(raw(),
                      Kokkos::View<unsigned char*, Kokkos::HostSpace, Unmanaged>(h.get(), total));
  }

  /// The n elements: a subview (contiguous, the same layout) — or, for
  /// Kokkos::Array elements, which Kokkos < 4.4 can neither subview nor wrap
  /// unmanaged, the whole allocation (exactly n elements: no guard, no offset).
  auto view() const {
    if constexpr (kIsArray<T>) return full_;
    else return Kokkos::subview(full_, std::make_pair(offset_, offset_ + n_));
  }

  /// The n elements' bytes; `intact` says whether the guard still holds.
  std::vector<unsigned char> bytes(bool* intact = nullptr) const {
    Kokkos::fence();
    const std::size_t total = totalBytes(), begin = offset_ * sizeof(T), end = endByte();
    std::unique_ptr<unsigned char[]> h(new unsigned char[total]);
    Kokkos::deep_copy(Kokkos::View<unsigned char*, Kokkos::HostSpace, Unmanaged>(h.get(), total),
                      raw());
    if (intact) {
      *intact = true;
      for (std::size_t i = end; i < total; ++i)
        if (h[i] != 0xA5) *intact = false;
    }
    return std::vector<unsigned char>(h.get() + begin, h.get() + end);
  }
  /// The n elements' bytes, with a test failure naming `what` if the guard was hit.
  std::vector<unsigned char> checked(const std::string& what) const {
    bool intact = true;
    auto b = bytes(&intact);
    EXPECT_TRUE(intact) << what << " written past its extent";
    return b;
  }
  template <class U>
  std::vector<U> values(const std::string& what) const {
    const auto b = checked(what);
    std::vector<U> v(b.size() / sizeof(U));
    copyBytes(static_cast<void*>(v.data()), b.data(), b.size());
    return v;
  }
  void upload(const void* bytes) {
    Kokkos::fence();
    Kokkos::View<unsigned char*, Mem, Unmanaged> dst(raw().data() + offset_ * sizeof(T),
                                                     n_ * sizeof(T));
    Kokkos::deep_copy(dst, Kokkos::View<const unsigned char*, Kokkos::HostSpace, Unmanaged>(
                               static_cast<const unsigned char*>(bytes), n_ * sizeof(T)));
  }

 private:
  using Mem = TestMem;
  std::size_t totalBytes() const { return full_.extent(0) * sizeof(T); }
  std::size_t endByte() const { return (offset_ + n_) * sizeof(T); }
  Kokkos::View<unsigned char*, Mem, Unmanaged> raw() const {
    return Kokkos::View<unsigned char*, Mem, Unmanaged>(
        reinterpret_cast<unsigned char*>(full_.data()), totalBytes());
  }
  std::size_t n_, offset_;
  // Device<TestExec, ...>: the forms without an instance run on TestExec too
  // (a View of HostSpace alone would take the default host space, OpenMP).
  Kokkos::View<T*, Kokkos::Device<TestExec, Mem>> full_;
};

/// A population on the device, planes typed Ts... (the mask, std::uint8_t,
/// first): built from a RefState, read back into one.
template <class... Ts>
struct KokkosPopulation {
  static constexpr std::size_t N = sizeof...(Ts);
  std::size_t n;
  std::tuple<GuardedView<Ts>...> planes;
  GuardedView<std::int32_t> perm, inv, map;
  Word count, span, fire;
  GuardedView<unsigned char> scratch;

  explicit KokkosPopulation(const RefState& s)
      : n(s.perm.size()), planes(makePlanes(s, std::index_sequence_for<Ts...>{})),
        perm("perm", n, s.perm.data()), inv("inv", n, s.inv.data()), map("map", n, s.map.data()),
        count(word(s.count, "count")), span(word(s.span, "span")), fire(word(s.fire, "fire")),
        scratch("scratch",
                sieve::reorder_scratch_bytes(static_cast<std::int64_t>(n), maxElemOf(s))) {
    static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple<Ts...>>, std::uint8_t>,
                  "plane 0 is the mask");
    EXPECT_EQ(s.maskPlane, 0u);
  }

  template <std::size_t I>
  auto plane() const {
    return std::get<I>(planes).view();
  }
  auto mask() const { return plane<0>(); }

  /// Everything back into `s`, every guard checked.
  void download(RefState& s) const {
    downloadPlanes(s, std::index_sequence_for<Ts...>{});
    s.perm = perm.template values<std::int32_t>("perm");
    s.inv = inv.template values<std::int32_t>("inv");
    s.map = map.template values<std::int32_t>("index map");
    s.count = read(count);
    s.span = read(span);
    s.fire = read(fire);
    scratch.checked("scratch");
  }

 private:
  template <std::size_t... I>
  static std::tuple<GuardedView<Ts>...> makePlanes(const RefState& s, std::index_sequence<I...>) {
    return std::tuple<GuardedView<Ts>...>(
        GuardedView<Ts>("plane" + std::to_string(I), s.perm.size(),
                        s.planes[I].bytes.empty() ? nullptr : s.planes[I].bytes.data())...);
  }
  template <std::size_t... I>
  void downloadPlanes(RefState& s, std::index_sequence<I...>) const {
    ((s.planes[I].bytes = std::get<I>(planes).checked("plane " + std::to_string(I))), ...);
  }
};

struct KokkosFace {
  /// The public API widens trigger.span to cover every kept sample.
  static constexpr bool kCoversKept = true;
  static std::string skipReason() { return {}; }
  static std::vector<std::string> configs() { return {kTestBackend}; }
  static void select(std::size_t) {}
  static void deselect() {}

  /// The polarity argument: omitted for keep (the default), given for drop.
  template <class F>
  static void withPolarity(bool drop, F&& f) {
    if (drop) f(sieve::MaskPolarity::drop);
    else f();
  }

  static CompactOut compact(const CompactIn& in) {
    const auto n = in.mask.size();
    GuardedView<std::uint8_t> mask("mask", n, in.mask.empty() ? nullptr : in.mask.data(),
                                   in.maskOffset);
    GuardedView<std::int32_t> map("map", n); // 0x5A bytes: kMapSentinel
    GuardedView<unsigned char> scratch("scratch",
                                       sieve::compact_scratch_bytes(static_cast<std::int64_t>(n)));
    Word count = word(kWordSentinel, "count");
    sieve::Trigger<TestMem> trig("trig", in.theta);
    Kokkos::deep_copy(trig.span, in.span);
    Kokkos::deep_copy(trig.live32, kWordSentinel);
    Kokkos::deep_copy(trig.fire, kWordSentinel);
    TestExec exec;
    const auto m = mask.view();
    const auto mp = map.view();
    const auto s = scratch.view();
    if (in.trigger)
      withPolarity(in.drop,
                   [&](auto... pol) { sieve::compact(exec, m, pol..., mp, count, s, trig); });
    else withPolarity(in.drop, [&](auto... pol) { sieve::compact(exec, m, pol..., mp, count, s); });
    exec.fence();
    CompactOut o;
    o.map = map.values<std::int32_t>("index map");
    scratch.checked("scratch");
    mask.checked("mask");
    o.count = read(count);
    o.live32 = read(trig.live32);
    o.fire = read(trig.fire);
    o.span = read(trig.span);
    return o;
  }

  /// Runs `f` with a KokkosPopulation typed after the planes of `s`: the mask
  /// and planes of 2, 4, 8, 16 bytes, the mask and one plane of any size, or
  /// the mask and planes of 4 and 8 bytes (the shapes the suites use).
  template <class F>
  static void withPopulation(const RefState& s, F&& f) {
    std::vector<std::uint32_t> e;
    for (const auto& p : s.planes) e.push_back(p.elem);
    using U8 = std::uint8_t;
    using I16 = std::int16_t;
    if (e == std::vector<std::uint32_t>{1, 2, 4, 8, 16})
      f(KokkosPopulation<U8, I16, float, double, F4>(s));
    else if (e == std::vector<std::uint32_t>{1, 1}) f(KokkosPopulation<U8, U8>(s));
    else if (e == std::vector<std::uint32_t>{1, 2}) f(KokkosPopulation<U8, I16>(s));
    else if (e == std::vector<std::uint32_t>{1, 4}) f(KokkosPopulation<U8, float>(s));
    else if (e == std::vector<std::uint32_t>{1, 8}) f(KokkosPopulation<U8, double>(s));
    else if (e == std::vector<std::uint32_t>{1, 16}) f(KokkosPopulation<U8, F4>(s));
    else if (e == std::vector<std::uint32_t>{1, 4, 8}) f(KokkosPopulation<U8, float, double>(s));
    else ADD_FAILURE() << "KokkosFace: no typed population for these planes";
  }

  template <std::size_t... I, class Pop, class F>
  static void reversedPlanes(const Pop& pop, std::index_sequence<I...>, F&& f) {
    f(pop.template plane<Pop::N - 1 - I>()...);
  }
  template <std::size_t... I, class Pop, class F>
  static void rotatedPlanes(const Pop& pop, std::index_sequence<I...>, F&& f) {
    f(pop.template plane<(I + 1) % Pop::N>()...);
  }

  /// The planes go in reversed order (the mask last).
  static void reorder(RefState& s, bool drop, bool useFire) {
    withPopulation(s, [&](const auto& pop) {
      using Pop = std::decay_t<decltype(pop)>;
      TestExec exec;
      const Word noFire;
      reversedPlanes(pop, std::make_index_sequence<Pop::N>{}, [&](const auto&... planes) {
        withPolarity(drop, [&](auto... pol) {
          sieve::reorder(exec, pop.mask(), pol..., pop.perm.view(), pop.inv.view(), pop.map.view(),
                         pop.count, pop.span, useFire ? pop.fire : noFire, pop.scratch.view(),
                         planes...);
        });
      });
      exec.fence();
      pop.download(s);
    });
  }

  /// The planes go rotated by one (the mask last).
  static void restore(RefState& s) {
    withPopulation(s, [&](const auto& pop) {
      using Pop = std::decay_t<decltype(pop)>;
      TestExec exec;
      rotatedPlanes(pop, std::make_index_sequence<Pop::N>{}, [&](const auto&... planes) {
        sieve::restore(exec, pop.perm.view(), pop.inv.view(), pop.scratch.view(), planes...);
      });
      exec.fence();
      pop.download(s);
    });
  }

  /// The scan total against the sequential fold: bit for bit for integers,
  /// within rounding for floating point (the face associates differently).
  template <class T>
  static void expectTotal(T got, T fold, std::size_t n, const char* what) {
    if (compareBytes(&got, &fold, sizeof(T)) == 0) return;
    if constexpr (std::is_floating_point_v<T>) {
      const double tol = 1e-12 * double(n + 1) * (1.0 + (fold < 0 ? -double(fold) : double(fold)));
      EXPECT_NEAR(double(got), double(fold), tol) << what;
    } else {
      EXPECT_EQ(0, compareBytes(&got, &fold, sizeof(T))) << what << ": " << +got << " vs " << +fold;
    }
  }

  /// Three calls, compared: the allocating form on an instance, the form
  /// with caller scratch (scan_scratch_size, behind a guard) and a total View,
  /// and the fencing form without an instance, which returns the total.
  template <class T, class Op>
  static std::vector<T> scan(const std::vector<T>& in, T init, bool inclusive, Op op,
                             bool inPlace) {
    T fold = init;
    for (const auto& x : in) fold = op(fold, x);
    return threeForms<T>(
        in, fold, inPlace,
        [&](const auto& exec, const auto& i, const auto& o) {
          if (inclusive) sieve::inclusive_scan(exec, i, o, op, init);
          else sieve::exclusive_scan(exec, i, o, init, op);
        },
        [&](const auto& exec, const auto& i, const auto& o, const auto& scratch,
            const auto& total) {
          if (inclusive) sieve::inclusive_scan(exec, i, o, op, init, scratch, total);
          else sieve::exclusive_scan(exec, i, o, init, op, scratch, total);
        },
        [&](const auto& i, const auto& o) {
          return inclusive ? sieve::inclusive_scan(i, o, op, init)
                           : sieve::exclusive_scan(i, o, init, op);
        });
  }

  /// The inclusive scan without init of an operator without identity (the
  /// fold starts from in(0), as std::inclusive_scan(first, last, d, op)), on
  /// the same three forms as scan(), compared; the totals against the
  /// sequential fold from in[0] (T{} when n == 0; as expectTotal).
  template <class T, class Op>
  static std::vector<T> scanFromFirst(const std::vector<T>& in, Op op, bool inPlace) {
    T fold{};
    for (std::size_t i = 0; i < in.size(); ++i) fold = i == 0 ? in[0] : op(fold, in[i]);
    return threeForms<T>(
        in, fold, inPlace,
        [&](const auto& exec, const auto& i, const auto& o) {
          sieve::inclusive_scan(exec, i, o, op);
        },
        [&](const auto& exec, const auto& i, const auto& o, const auto& scratch,
            const auto& total) {
          Kokkos::deep_copy(total, T(99));
          sieve::inclusive_scan(exec, i, o, op, scratch, total);
        },
        [&](const auto& i, const auto& o) { return sieve::inclusive_scan(i, o, op); });
  }

 private:
  /// One scan's three forms on `in`, compared byte for byte, their totals
  /// against `fold`: `onExec(exec, in, out)` allocating on an instance,
  /// `withScratch(exec, in, out, scratch, total)` with caller scratch behind
  /// a guard and a total View, `fenced(in, out)` without an instance,
  /// returning the total (not in place). Returns the first form's output.
  template <class T, class OnExec, class WithScratch, class Fenced>
  static std::vector<T> threeForms(const std::vector<T>& in, const T& fold, bool inPlace,
                                   const OnExec& onExec, const WithScratch& withScratch,
                                   const Fenced& fenced) {
    const auto n = in.size();
    const void* src = in.empty() ? nullptr : in.data();
    TestExec exec;
    // 1. allocating, on the instance
    GuardedView<T> a("in", n, src), aOut("out", n);
    onExec(exec, a.view(), inPlace ? a.view() : aOut.view());
    exec.fence();
    const auto firstBytes = (inPlace ? a : aOut).checked("out");
    if (!inPlace)
      EXPECT_EQ(0, compareBytes(a.checked("in").data(), src, n * sizeof(T))) << "in changed";
    // 2. caller scratch and total
    GuardedView<T> b("in", n, src), bOut("out", n);
    GuardedView<T> scratch("scratch", sieve::scan_scratch_size<T>(static_cast<std::int64_t>(n)));
    Kokkos::View<T, TestMem> total("total");
    withScratch(exec, b.view(), inPlace ? b.view() : bOut.view(), scratch.view(), total);
    exec.fence();
    EXPECT_TRUE((inPlace ? b : bOut).checked("out") == firstBytes)
        << "caller scratch and total: other bytes than the allocating form";
    scratch.checked("scratch");
    T t{};
    Kokkos::deep_copy(t, total);
    expectTotal(t, fold, n, "total View");
    // 3. fencing, without an instance (on TestExec: the Views' space): returns the total
    if (!inPlace) {
      GuardedView<T> cOut("out", n);
      const T r = fenced(a.view(), cOut.view());
      expectTotal(r, fold, n, "returned total");
      EXPECT_TRUE(cOut.checked("out") == firstBytes)
          << "the fencing form: other bytes than the form on an instance";
    }
    std::vector<T> first(n);
    copyBytes(static_cast<void*>(first.data()), firstBytes.data(), firstBytes.size());
    return first;
  }
};

} // namespace sieve_test
