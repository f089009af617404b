// SPDX-License-Identifier: Apache-2.0
// Sieve — the differential fuzzer's run over one backend (tests/fuzz/fuzz_api.cpp
// says what it does). Each backend's run is compiled in a file of its own
// (fuzz_serial.cpp, fuzz_openmp.cpp): two compilations that build in parallel.
#pragma once

#include <sieve/sieve.hpp>

#include "../common/reference.hpp"

#include <fuzzer/FuzzedDataProvider.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace sieve_fuzz {

using sieve_test::RefPlane;
using sieve_test::RefState;

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "sieve fuzz: %s\n", what.c_str());
  std::abort();
}

#define FUZZ_CHECK(cond, what)                                \
  do {                                                        \
    if (!(cond)) finding(std::string(what) + " (" #cond ")"); \
  } while (0)

/// A 16-byte element (moved as one word).
struct Quad {
  std::uint64_t lo, hi;
};

inline auto noInit(const std::string& label) {
  return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
}

template <class Exec>
struct Run {
  using Dev = Kokkos::Device<Exec, Kokkos::HostSpace>;
  template <class T>
  using V = Kokkos::View<T*, Dev>;
  using W = Kokkos::View<std::uint32_t, Dev>;

  FuzzedDataProvider& in;
  Exec exec;
  std::int64_t n;
  float theta;
  V<std::uint8_t> alive;
  V<std::int32_t> id, perm, inv, map;
  V<double> x;
  V<std::uint16_t> h;
  V<Quad> q;
  W count, fire0; // fire0: the empty-View "unconditional" marker is a default View
  sieve::Trigger<Kokkos::HostSpace> trig;
  V<unsigned char> scratch;
  RefState model;
  bool recorded = false; // a reorder through `trig` since its last restore

  Run(FuzzedDataProvider& in_, std::int64_t n_, float theta_)
      : in(in_), n(n_), theta(theta_), alive(noInit("alive"), n), id(noInit("id"), n),
        perm(noInit("perm"), n), inv(noInit("inv"), n), map(noInit("map"), n), x(noInit("x"), n),
        h(noInit("h"), n), q(noInit("q"), n), count("count"), trig("trig", theta_),
        scratch(noInit("scratch"), sieve::reorder_scratch_bytes(n, sizeof(Quad))) {
    // Planes in model order: alive (the mask), id, x, h, q.
    const std::uint32_t elems[] = {1, 4, 8, 2, 16};
    for (std::uint32_t p = 0; p < 5; ++p) {
      RefPlane rp;
      rp.elem = elems[p];
      rp.bytes = sieve_test::planeBytes(n, elems[p], p);
      model.planes.push_back(rp);
    }
    // The mask: a density and a seed from the input; non-zero bytes vary.
    const int density = in.ConsumeIntegralInRange<int>(0, 16); // /16
    std::uint32_t seed = in.ConsumeIntegral<std::uint32_t>() | 1u;
    auto& m = model.planes[0].bytes;
    for (std::int64_t i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      const bool on = static_cast<int>((seed >> 20) & 15u) < density;
      m[static_cast<std::size_t>(i)] = on ? static_cast<std::uint8_t>(1 + ((seed >> 8) % 255)) : 0;
    }
    model.perm.resize(static_cast<std::size_t>(n));
    model.inv.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      model.perm[static_cast<std::size_t>(i)] = model.inv[static_cast<std::size_t>(i)] =
          static_cast<std::int32_t>(i);
    model.map.assign(static_cast<std::size_t>(n), -1);
    model.count = 77;
    model.span = static_cast<std::uint32_t>(n);
    model.fire = 0;
    upload();
  }

  template <class T>
  void put(const V<T>& v, const std::vector<unsigned char>& bytes) {
    if (!bytes.empty()) std::memcpy(static_cast<void*>(v.data()), bytes.data(), bytes.size());
  }
  template <class T>
  std::vector<unsigned char> get(const V<T>& v) const {
    std::vector<unsigned char> b(v.extent(0) * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), static_cast<const void*>(v.data()), b.size());
    return b;
  }
  static std::vector<unsigned char> bytesOf(const std::vector<std::int32_t>& v) {
    std::vector<unsigned char> b(v.size() * 4);
    if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
  }

  /// The model's state into the Views (after a host-side edit of the model).
  void upload() {
    exec.fence();
    put(alive, model.planes[0].bytes);
    put(id, model.planes[1].bytes);
    put(x, model.planes[2].bytes);
    put(h, model.planes[3].bytes);
    put(q, model.planes[4].bytes);
    put(perm, bytesOf(model.perm));
    put(inv, bytesOf(model.inv));
    put(map, bytesOf(model.map));
    Kokkos::deep_copy(count, model.count);
    Kokkos::deep_copy(trig.span, model.span);
    Kokkos::deep_copy(trig.fire, model.fire);
  }

  static std::uint32_t word(const W& w) {
    std::uint32_t v = 0;
    Kokkos::deep_copy(v, w);
    return v;
  }

  /// The whole state against the model.
  void compare(const char* step) {
    exec.fence();
    const std::string at = std::string(step) + ", n = " + std::to_string(n);
    FUZZ_CHECK(get(alive) == model.planes[0].bytes, "alive plane differs after " + at);
    FUZZ_CHECK(get(id) == model.planes[1].bytes, "id plane differs after " + at);
    FUZZ_CHECK(get(x) == model.planes[2].bytes, "x plane differs after " + at);
    FUZZ_CHECK(get(h) == model.planes[3].bytes, "h plane differs after " + at);
    FUZZ_CHECK(get(q) == model.planes[4].bytes, "q plane differs after " + at);
    FUZZ_CHECK(get(perm) == bytesOf(model.perm), "perm differs after " + at);
    FUZZ_CHECK(get(inv) == bytesOf(model.inv), "inv differs after " + at);
    FUZZ_CHECK(word(count) == model.count, "count differs after " + at);
    const auto m = get(map);
    const auto ref = bytesOf(model.map);
    const std::size_t mapped = std::min<std::size_t>(model.count, static_cast<std::size_t>(n));
    FUZZ_CHECK(mapped == 0 || std::memcmp(m.data(), ref.data(), mapped * 4) == 0,
               "index map differs after " + at);
    FUZZ_CHECK(word(trig.span) == model.span, "span differs after " + at);
    FUZZ_CHECK(word(trig.fire) == model.fire, "fire differs after " + at);
    // No sample lost: every live sample within [0, span) or mapped.
  }

  /// compact, with or without the trigger, on the whole mask or on [0, span).
  void compact() {
    const bool drop = in.ConsumeBool();
    const bool withTrigger = in.ConsumeBool();
    const bool onSpan = withTrigger && in.ConsumeIntegralInRange<int>(0, 3) == 0;
    const auto pol = drop ? sieve::MaskPolarity::drop : sieve::MaskPolarity::keep;
    const std::int64_t len = onSpan ? std::min<std::int64_t>(model.span, n) : n;
    const auto mask = Kokkos::subview(alive, std::make_pair(std::int64_t(0), len));
    const auto ref = sieve_test::refCompact(model.planes[0].bytes.data(), len, drop);
    if (withTrigger) sieve::compact(exec, mask, pol, map, count, scratch, trig);
    else sieve::compact(exec, mask, pol, map, count, scratch);
    for (std::size_t k = 0; k < ref.map.size(); ++k) model.map[k] = ref.map[k];
    model.count = ref.count;
    if (withTrigger) {
      const std::uint32_t covered = sieve_test::refCoveredSpan(model.span, ref.map);
      model.fire = sieve_test::refFire(ref.count, ref.live32, covered, theta);
      model.span = covered;
    }
    compare(withTrigger ? "compact with trigger" : "compact");
  }

  void reorder() {
    const bool drop = in.ConsumeBool();
    const auto pol = drop ? sieve::MaskPolarity::drop : sieve::MaskPolarity::keep;
    if (in.ConsumeBool()) {
      sieve::reorder(exec, alive, pol, perm, inv, map, count, trig, scratch, alive, id, x, h, q);
      sieve_test::refReorder(model, n, drop, true);
      recorded = recorded || n > 0;
      compare("reorder (trigger)");
    } else {
      // Unconditional, on a caller span no smaller than the last kept sample.
      std::uint32_t lastKept = 0;
      for (std::int64_t i = 0; i < n; ++i)
        if (sieve_test::refKeeps(model.planes[0].bytes[static_cast<std::size_t>(i)], drop))
          lastKept = static_cast<std::uint32_t>(i + 1);
      const std::uint32_t sp =
          in.ConsumeIntegralInRange<std::uint32_t>(lastKept, static_cast<std::uint32_t>(n));
      W span("span"), none;
      Kokkos::deep_copy(span, sp);
      sieve::reorder(exec, alive, pol, perm, inv, map, count, span, none, scratch, alive, id, x, h,
                     q);
      RefState s = model;
      s.span = sp;
      sieve_test::refReorder(s, n, drop, false);
      s.span = model.span; // the caller's span word was another View
      s.fire = model.fire;
      model = s;
      exec.fence();
      FUZZ_CHECK(word(span) == model.count, "caller span != count after an unconditional reorder");
      compare("reorder (unconditional)");
    }
  }

  void restore() {
    if (in.ConsumeBool()) {
      // Through the trigger (planes in another order: a set, not a list).
      sieve::restore(exec, trig, perm, inv, scratch, q, id, alive, h, x);
      sieve_test::refRestore(model);
      model.span = static_cast<std::uint32_t>(n);
      model.fire = 0;
      recorded = false;
      compare("restore (trigger)");
    } else {
      sieve::restore(exec, perm, inv, scratch, alive, id, x, h, q);
      sieve_test::refRestore(model);
      compare("restore");
    }
  }

  /// Set the mask of some random slots (kill with 0, revive / spawn with 1+).
  void edit(bool kill) {
    const int k = in.ConsumeIntegralInRange<int>(0, 64);
    if (n == 0) return;
    for (int j = 0; j < k; ++j) {
      const auto s = static_cast<std::size_t>(in.ConsumeIntegralInRange<std::int64_t>(0, n - 1));
      model.planes[0].bytes[s] = kill ? 0 : static_cast<std::uint8_t>(1 + j % 200);
    }
    exec.fence();
    put(alive, model.planes[0].bytes);
  }

  template <class T>
  void scanOf() {
    const std::int64_t m = in.ConsumeIntegralInRange<std::int64_t>(0, n);
    std::vector<T> a(static_cast<std::size_t>(m));
    std::uint32_t seed = in.ConsumeIntegral<std::uint32_t>();
    for (auto& v : a) {
      seed = seed * 1103515245u + 12345u;
      v = static_cast<T>(static_cast<std::int32_t>(seed >> 7) % 1000 - 300);
    }
    V<T> vin("in", m), vout("out", m);
    if (m > 0) std::memcpy(static_cast<void*>(vin.data()), a.data(), a.size() * sizeof(T));
    const bool inclusive = in.ConsumeBool();
    const T init = static_cast<T>(in.ConsumeIntegralInRange<int>(-50, 50));
    const int op = in.ConsumeIntegralInRange<int>(0, 2);
    const bool inPlace = in.ConsumeBool();
    const V<T> out = inPlace ? vin : vout;
    std::vector<T> ref;
    T total{};
    auto run = [&](auto sop, auto rop) {
      ref = sieve_test::refScan<T>(a, rop, init, inclusive);
      if (inclusive) total = sieve::inclusive_scan(vin, out, sop, init);
      else total = sieve::exclusive_scan(vin, out, init, sop);
    };
    if (op == 0) run(sieve::Sum{}, [](T u, T v) { return static_cast<T>(u + v); });
    else if (op == 1) run(sieve::Max{}, [](T u, T v) { return u < v ? v : u; });
    else run(sieve::Min{}, [](T u, T v) { return v < u ? v : u; });
    std::vector<T> got(static_cast<std::size_t>(m));
    if (m > 0)
      std::memcpy(got.data(), static_cast<const void*>(out.data()), got.size() * sizeof(T));
    FUZZ_CHECK(got == ref, "scan differs, m = " + std::to_string(m));
    if (m > 0) {
      const T last = ref.back();
      const T expect = inclusive ? last
                       : op == 0 ? static_cast<T>(last + a.back())
                       : op == 1 ? (last < a.back() ? a.back() : last)
                                 : (a.back() < last ? a.back() : last);
      FUZZ_CHECK(total == expect, "scan total differs, m = " + std::to_string(m));
    }
  }

  template <class F>
  void mustThrow(const char* what, F&& f) {
    bool threw = false;
    try {
      f();
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    FUZZ_CHECK(threw,
               std::string("no std::invalid_argument for ") + what + ", n = " + std::to_string(n));
    compare(what);
  }

  /// A deliberately invalid call: must throw and change nothing.
  void invalid() {
    const auto pol = sieve::MaskPolarity::keep;
    switch (in.ConsumeIntegralInRange<int>(0, 8)) {
    case 0: {
      if (n == 0) return;
      V<unsigned char> small("small", sieve::compact_scratch_bytes(n) - 1);
      mustThrow("compact, short scratch",
                [&] { sieve::compact(exec, alive, pol, map, count, small, trig); });
      break;
    }
    case 1: {
      if (n == 0) return;
      V<std::int32_t> shortMap("short map", n - 1);
      mustThrow("compact, short index map",
                [&] { sieve::compact(exec, alive, pol, shortMap, count, scratch); });
      break;
    }
    case 2: {
      const sieve::Trigger<Kokkos::HostSpace> aliased(trig.live32, count, trig.fire, theta);
      mustThrow("compact, span aliasing count",
                [&] { sieve::compact(exec, alive, pol, map, count, scratch, aliased); });
      break;
    }
    case 3: {
      if (n == 0) return;
      V<double> shortPlane("short plane", n - 1);
      mustThrow("reorder, a plane of another extent", [&] {
        sieve::reorder(exec, alive, pol, perm, inv, map, count, trig, scratch, alive, shortPlane);
      });
      break;
    }
    case 4: {
      if (n == 0) return; // empty Views have no address to compare: an empty batch is a no-op
      mustThrow("reorder, mask not among the planes", [&] {
        sieve::reorder(exec, alive, pol, perm, inv, map, count, trig, scratch, id);
      });
      break;
    }
    case 5: {
      if (n == 0) return;
      mustThrow("restore, perm used as a plane",
                [&] { sieve::restore(exec, perm, inv, scratch, alive, perm); });
      break;
    }
    case 7: {
      if (!recorded) return; // nothing moved through the trigger: any set is fine
      mustThrow("restore through the trigger, a plane left out",
                [&] { sieve::restore(exec, trig, perm, inv, scratch, alive, id, x, h); });
      break;
    }
    case 8: {
      if (!recorded) return;
      mustThrow("reorder through the trigger, another plane set", [&] {
        sieve::reorder(exec, alive, pol, perm, inv, map, count, trig, scratch, alive, id, x, h);
      });
      break;
    }
    default: {
      mustThrow("trigger, theta outside (0, 1)", [&] {
        sieve::Trigger<Kokkos::HostSpace> t("bad", in.ConsumeBool() ? 1.5f : 0.0f);
      });
      break;
    }
    }
  }

  void go() {
    compare("setup");
    const int steps = in.ConsumeIntegralInRange<int>(1, 32);
    static const bool verbose = std::getenv("SIEVE_FUZZ_VERBOSE") != nullptr;
    for (int s = 0; s < steps && in.remaining_bytes() > 0; ++s) {
      const int op = in.ConsumeIntegralInRange<int>(0, 9);
      if (verbose)
        std::fprintf(stderr, "n = %lld, step %d: op %d\n", static_cast<long long>(n), s, op);
      switch (op) {
      case 0:
      case 1: compact(); break;
      case 2:
      case 3: reorder(); break;
      case 4: restore(); break;
      case 5: edit(true); break;
      case 6: edit(false); break;
      case 7:
        if (in.ConsumeBool()) scanOf<std::int32_t>();
        else scanOf<std::int64_t>();
        break;
      default: invalid(); break;
      }
    }
  }
};

/// One input's run on Exec: n samples, the trigger's theta, then the steps.
template <class Exec>
void fuzzOn(FuzzedDataProvider& in, std::int64_t n, float theta) {
  Run<Exec> r(in, n, theta);
  r.go();
}

} // namespace sieve_fuzz
