// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — `sieve_bench --tune`: the host crossovers core/tuning.hpp
// encodes, measured again on the machine it runs on. Each sweep times both
// sides of one choice (interleaved, best of R runs: harness.hpp) and prints
// their ratio; the summary then gives, for every number, its value in
// core/tuning.hpp and the value the sweep measured here. docs/tuning.md says
// how each number was chosen and how to read the summary.
//
//   dense   the native dense scatter (denseScatterHost) against the portable
//           counting sort (sieve::keys::scatter_dense of keyed(view, key): the
//           face the rule picks where native does not pay), 8-byte records,
//           one-pass plans (2^8, 2^10, 2^11 buckets) at 16 .. 128 MiB and
//           two-pass plans (2^12, 2^13, 2^16 buckets) at 8 .. 128 MiB:
//           kDenseNativeOnePassBytes, kDenseNativeTwoPassMinBuckets,
//           kDenseNativeTwoPassBytes (denseScatterNativePays).
//   sparse  the native sparse scatter (sparseScatterHost) against the radix
//           order of the keys and a gather of the records (radixOrderHost, the
//           path the rule picks otherwise), keys over 2^40: 16-byte records at
//           4 .. 64 MiB (kSparseNativeMinBytes), then 16-, 32- and 64-byte
//           records at 64 MiB (kSparseNativeMaxRecordBytes).
//   scan    cpu::Scan of 2^24 int32 at blocks of 1024 .. 8192 (kScanBlock).
//   reorder reorderHost of 4 planes at spans 2^8 .. 2^20: the span at which
//           its per-sample work equals its fixed cost, beside kReorderMinSpan
//           (a rule of the trigger, not a tuning number: informative).
// Both sides of a choice do the same work as the call they stand for, less
// what the call adds on both sides alike (the offsets of the keys). Under two
// minutes on 2 cores; at most ~1 GiB.
#pragma once

#include <sieve/native/host/isa.hpp>
#include <sieve/native/host/radix.hpp>
#include <sieve/native/host/reorder.hpp>
#include <sieve/native/host/scan.hpp>
#include <sieve/native/host/scatter.hpp>
#include <sieve/sieve.hpp>

#include "harness.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace sieve_bench {
namespace tune {

using i64 = std::int64_t;
using HostExec = Kokkos::DefaultHostExecutionSpace;
template <class T>
using HView = Kokkos::View<T*, Kokkos::HostSpace>;

/// The dense sweep's 8-byte record: an int32 key and an int32 id.
struct Rec8 {
  std::int32_t k, id;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
};
/// The sparse sweep's records of `Bytes` bytes: a 64-bit key, then payload.
template <int Bytes>
struct WideRec {
  std::uint64_t k;
  unsigned char pad[Bytes - 8];
  KOKKOS_INLINE_FUNCTION std::uint64_t key() const { return k; }
};

/// The portable counting sort's key functor (keyed(view, KeyOf{})).
struct KeyOf {
  template <class R>
  KOKKOS_INLINE_FUNCTION auto operator()(const R& r) const {
    return r.k;
  }
};

std::string mib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%g MiB", bytes / (1024.0 * 1024.0));
  return b;
}
std::string pow2(i64 v) {
  int l = 0;
  while ((i64(1) << l) < v) ++l;
  char b[32];
  if ((i64(1) << l) == v) std::snprintf(b, sizeof b, "2^%d", l);
  else std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  return b;
}

/// One line of the summary.
struct Finding {
  std::string name, value, measured, note;
};

/// The smallest swept size from which the ratios (native / other, by
/// ascending size) stay below 1: its index, sizes.size() when the largest
/// size does not pay, 0 when every size pays.
std::size_t paysFrom(const std::vector<double>& ratios) {
  std::size_t i = ratios.size();
  while (i > 0 && ratios[i - 1] < 1.0) --i;
  return i;
}

/// "from X" / "not up to X" / "<= X" for a crossover over `bytes`.
std::string crossoverText(const std::vector<double>& bytes, std::size_t from) {
  if (from == bytes.size()) return "not up to " + mib(bytes.back());
  if (from == 0) return "<= " + mib(bytes.front());
  return mib(bytes[from]);
}

void printRatios(const char* title, const std::vector<double>& bytes,
                 const std::vector<std::string>& rows, const std::vector<std::vector<double>>& r) {
  std::printf("%s\n  %-10s", title, "");
  for (const double b : bytes) std::printf(" %9s", mib(b).c_str());
  std::printf("   pays from\n");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::printf("  %-10s", rows[i].c_str());
    for (const double x : r[i]) std::printf(" %9.2f", x);
    std::printf("   %s\n", crossoverText(bytes, paysFrom(r[i])).c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

/// Whether out[0, n) is in ascending key order, equal keys in ascending id
/// order (a stable sort of records numbered by their id): every timed side
/// must leave that, or its row would mean nothing.
bool stablySorted(const Rec8* out, i64 n) {
  for (i64 i = 1; i < n; ++i)
    if (out[i - 1].k > out[i].k || (out[i - 1].k == out[i].k && out[i - 1].id >= out[i].id))
      return false;
  return true;
}

/// The dense scatter: native / portable time at each size, one row a bucket count.
std::vector<double> denseRow(i64 buckets, const std::vector<i64>& sizes, int reps,
                             const HView<Rec8>& in, const HView<Rec8>& out,
                             std::vector<i64>& offsets) {
  using R = Rec8;
  const HostExec exec;
  const int threads = static_cast<int>(exec.concurrency());
  std::vector<double> ratios;
  for (const i64 n : sizes) {
    std::mt19937_64 g(static_cast<std::uint64_t>(buckets * 31 + n));
    for (i64 i = 0; i < n; ++i)
      in(i) = R{static_cast<std::int32_t>(g() % static_cast<std::uint64_t>(buckets)),
                static_cast<std::int32_t>(i)};
    const auto src = Kokkos::subview(in, std::make_pair(i64(0), n));
    const auto dst = Kokkos::subview(out, std::make_pair(i64(0), n));
    const R* p = in.data();
    R* o = out.data();
    i64* offs = offsets.data();
    Case c{"dense", {}, "", "", "dense", n};
    c.variants.push_back({"native",
                          [=] {
                            sieve::denseScatterHost(
                                sieve::HostTeam{threads}, [p](i64 i) { return p[i]; }, n,
                                [](const R& r) { return static_cast<std::uint64_t>(r.k); }, buckets,
                                o, offs);
                          },
                          {}});
    c.variants.push_back({"portable",
                          [=] {
                            const auto k = sieve::keys::scatter_dense(
                                exec, sieve::keys::keyed(src, KeyOf{}), std::int32_t(0),
                                static_cast<std::int32_t>(buckets - 1), dst);
                            (void)k;
                          },
                          {}});
    runCase(c, reps);
    bool ok = stablySorted(o, n); // the portable side ran last
    if (n == sizes.front()) {     // and once more the native side
      c.variants.front().run();
      ok = ok && stablySorted(o, n);
    }
    if (!ok)
      std::printf("  (2^%s buckets at %lld records: an output out of order)\n",
                  pow2(buckets).c_str() + 2, static_cast<long long>(n));
    ratios.push_back(find(c, "native")->best / find(c, "portable")->best);
  }
  return ratios;
}

void tuneDense(int reps, std::vector<Finding>& found) {
  using R = Rec8;
  namespace H = sieve::Tuning::Host;
  const std::vector<i64> onePass = {i64(1) << 8, i64(1) << 10, i64(1) << 11};
  const std::vector<i64> twoPass = {i64(1) << 12, i64(1) << 13, i64(1) << 16};
  const std::vector<i64> oneSizes = {i64(1) << 21, i64(1) << 22, i64(1) << 23, i64(1) << 24};
  const std::vector<i64> twoSizes = {i64(1) << 20, i64(1) << 21, i64(1) << 22, i64(1) << 23,
                                     i64(1) << 24};
  const i64 most = i64(1) << 24;
  HView<R> in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.dense.in"), most);
  HView<R> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.dense.out"), most);
  std::vector<i64> offsets(static_cast<std::size_t>(twoPass.back() + 1));
  const auto bytesOf = [](const std::vector<i64>& sizes) {
    std::vector<double> b;
    for (const i64 n : sizes) b.push_back(static_cast<double>(n) * sizeof(R));
    return b;
  };
  const std::vector<double> oneBytes = bytesOf(oneSizes), twoBytes = bytesOf(twoSizes);

  std::vector<std::string> rows;
  std::vector<std::vector<double>> r;
  for (const i64 b : onePass) {
    rows.push_back(pow2(b));
    r.push_back(denseRow(b, oneSizes, reps, in, out, offsets));
  }
  printRatios("dense scatter, one pass, 8-byte records: native / portable time, by buckets",
              oneBytes, rows, r);
  // The one-pass rule is one threshold for every one-pass bucket count: the
  // largest of their crossovers.
  std::size_t from = 0;
  std::string each;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t f = paysFrom(r[i]);
    from = std::max(from, f);
    each += (i ? ", " : "") + rows[i] + ": " + crossoverText(oneBytes, f);
  }
  found.push_back({"Host::kDenseNativeOnePassBytes", mib(double(H::kDenseNativeOnePassBytes)),
                   crossoverText(oneBytes, from), each});

  rows.clear();
  r.clear();
  for (const i64 b : twoPass) {
    rows.push_back(pow2(b));
    r.push_back(denseRow(b, twoSizes, reps, in, out, offsets));
  }
  printRatios("dense scatter, two passes, 8-byte records: native / portable time, by buckets",
              twoBytes, rows, r);
  // The two-pass rule: native pays only past a bucket count (the largest
  // swept one at which it pays at no size), then from one size on (the
  // largest crossover of the bucket counts above).
  std::size_t last = rows.size();
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (paysFrom(r[i]) == twoBytes.size()) last = i;
  std::string minBuckets;
  if (last == rows.size()) minBuckets = "< " + rows.front() + " (pays at every count swept)";
  else if (last + 1 == rows.size()) minBuckets = ">= " + rows.back() + " (pays at no count swept)";
  else minBuckets = rows[last] + " (pays from " + rows[last + 1] + ")";
  found.push_back({"Host::kDenseNativeTwoPassMinBuckets",
                   pow2(H::kDenseNativeTwoPassMinBuckets) + " (pays past it)", minBuckets, ""});
  from = 0;
  each.clear();
  for (std::size_t i = last == rows.size() ? 0 : last + 1; i < rows.size(); ++i) {
    const std::size_t f = paysFrom(r[i]);
    from = std::max(from, f);
    each += (each.empty() ? "" : ", ") + rows[i] + ": " + crossoverText(twoBytes, f);
  }
  found.push_back({"Host::kDenseNativeTwoPassBytes", mib(double(H::kDenseNativeTwoPassBytes)),
                   each.empty() ? "-" : crossoverText(twoBytes, from), each});
}

/// The sparse scatter of n records of RecT (keys over 2^40): native / the
/// radix order of the keys and a gather.
template <class RecT>
double sparseRatio(i64 n, int reps) {
  const HostExec exec;
  const int threads = static_cast<int>(exec.concurrency());
  constexpr int kBits = 40;
  constexpr std::uint64_t kMaxWord = (std::uint64_t(1) << kBits) - 1;
  HView<RecT> in(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.sparse.in"), n);
  HView<RecT> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.sparse.out"), n);
  HView<std::uint64_t> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.keys"), n);
  HView<std::int64_t> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.order"), n);
  HView<unsigned char> scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tune.scratch"),
                               sieve::radix_order_scratch_bytes(n));
  {
    std::mt19937_64 g(static_cast<std::uint64_t>(n) * 7 + sizeof(RecT));
    for (i64 i = 0; i < n; ++i) {
      RecT r{};
      r.k = g() & kMaxWord;
      in(i) = r;
    }
  }
  const RecT* p = in.data();
  RecT* o = out.data();
  const i64 maxRun = sieve::Impl::sparseScatterMaxRun(n, kMaxWord);
  Case c{"sparse", {}, "", "", "sparse", n};
  c.variants.push_back({"native",
                        [=] {
                          const auto res = sieve::sparseScatterHost(
                              sieve::HostTeam{threads}, [p](i64 i) { return p[i]; }, n,
                              [](const RecT& r) { return static_cast<std::uint64_t>(r.k); },
                              kMaxWord, maxRun, o);
                          if (!res.taken) std::printf("  (sparse scatter declined a run)\n");
                        },
                        {}});
  c.variants.push_back({"radix order + gather",
                        [=] {
                          using Range = Kokkos::RangePolicy<HostExec, Kokkos::IndexType<i64>>;
                          Kokkos::parallel_for(
                              "tune.keys", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
                                keys(i) = static_cast<std::uint64_t>(in(i).k);
                              });
                          exec.fence();
                          sieve::radixOrderHost(sieve::HostTeam{threads}, keys.data(), n, kBits,
                                                order.data(), scratch.data(), scratch.size());
                          // The gather, in chunks, prefetching ahead (as sieve::keys' gather).
                          const i64 C = static_cast<i64>(exec.concurrency());
                          Kokkos::parallel_for(
                              "tune.gather", Range(exec, 0, C), KOKKOS_LAMBDA(const i64 c) {
                                const i64 a = n * c / C, b = n * (c + 1) / C;
                                constexpr i64 kAhead = sieve::Tuning::Portable::kGatherAhead;
                                for (i64 q = a; q < b; ++q) {
                                  if (q + kAhead < b) SIEVE_PREFETCH(&in(order(q + kAhead)));
                                  out(q) = in(order(q));
                                }
                              });
                          exec.fence();
                        },
                        {}});
  runCase(c, reps);
  // Both sides leave the records in key order (the gather ran last; the
  // native side once more).
  const auto sorted = [&] {
    for (i64 i = 1; i < n; ++i)
      if (out(i - 1).k > out(i).k) return false;
    return true;
  };
  bool ok = sorted();
  c.variants.front().run();
  ok = ok && sorted();
  if (!ok)
    std::printf("  (sparse, %lld records: an output out of order)\n", static_cast<long long>(n));
  return find(c, "native")->best / find(c, "radix order + gather")->best;
}

void tuneSparse(int reps, std::vector<Finding>& found) {
  namespace H = sieve::Tuning::Host;
  using R16 = WideRec<16>;
  std::vector<double> bytes, ratios;
  for (int l = 18; l <= 22; ++l) {
    const i64 n = i64(1) << l;
    bytes.push_back(static_cast<double>(n) * sizeof(R16));
    ratios.push_back(sparseRatio<R16>(n, l >= 22 ? std::min(reps, 3) : reps));
  }
  printRatios("sparse scatter, 16-byte records, keys over 2^40: native / radix order + gather",
              bytes, {"16 B"}, {ratios});
  found.push_back({"Host::kSparseNativeMinBytes", mib(double(H::kSparseNativeMinBytes)),
                   crossoverText(bytes, paysFrom(ratios)), "16-byte records"});

  const i64 at = i64(64) << 20;
  const double r16 = sparseRatio<R16>(at / 16, std::min(reps, 3));
  const double r32 = sparseRatio<WideRec<32>>(at / 32, std::min(reps, 3));
  const double r64 = sparseRatio<WideRec<64>>(at / 64, std::min(reps, 3));
  std::printf(
      "sparse scatter at 64 MiB, by record bytes: native / radix order + gather\n"
      "  16 B %.2f   32 B %.2f   64 B %.2f\n\n",
      r16, r32, r64);
  std::string most = r16 >= 1.0   ? "< 16 (loses at 16 B)"
                     : r32 >= 1.0 ? "16 (loses at 32 B)"
                     : r64 >= 1.0 ? "32 (loses at 64 B)"
                                  : ">= 64 (pays at 64 B)";
  char ratiosText[96];
  std::snprintf(ratiosText, sizeof ratiosText, "at 64 MiB: 16 B %.2f, 32 B %.2f, 64 B %.2f", r16,
                r32, r64);
  found.push_back({"Host::kSparseNativeMaxRecordBytes",
                   std::to_string(H::kSparseNativeMaxRecordBytes), most, ratiosText});
}

template <unsigned B>
void addScan(Case& c, const HView<std::int32_t>& in, const HView<std::int32_t>& out,
             const HView<std::int32_t>& sums, i64 n) {
  c.variants.push_back({std::to_string(B),
                        [=] {
                          sieve::cpu::Scan::inclusive<std::int32_t, sieve::Sum, B>(
                              sieve::HostTeam{}, in.data(), out.data(), sums.data(), n);
                        },
                        {}});
}

void tuneScan(int reps, std::vector<Finding>& found) {
  const i64 n = i64(1) << 24;
  HView<std::int32_t> in("tune.scan.in", n), out("tune.scan.out", n), sums("tune.scan.sums", n);
  for (i64 i = 0; i < n; ++i) in(i) = static_cast<std::int32_t>((i * 7) % 100);
  Case c{"scan", {}, "", "", "scan", n};
  addScan<1024>(c, in, out, sums, n);
  addScan<2048>(c, in, out, sums, n);
  addScan<4096>(c, in, out, sums, n);
  addScan<8192>(c, in, out, sums, n);
  runCase(c, std::max(reps, 9)); // cheap: more runs against the noise
  const std::string current = std::to_string(sieve::Tuning::Host::kScanBlock);
  const Variant* cur = find(c, current);
  const Variant* best = &c.variants.front();
  std::printf(
      "cpu::Scan inclusive int32, 2^24 elements: time by block size (ms, and / block "
      "%s)\n ",
      current.c_str());
  for (const auto& v : c.variants) {
    std::printf("  %s %.2f (%.2f)", v.name.c_str(), v.best * 1e3, cur ? v.best / cur->best : 0.0);
    if (v.best < best->best) best = &v;
  }
  std::printf("\n\n");
  char note[96];
  std::snprintf(note, sizeof note, "%s at %.2f x the time of %s", best->name.c_str(),
                cur ? best->best / cur->best : 0.0, current.c_str());
  found.push_back({"Host::kScanBlock", current, best->name, note});
}

void tuneReorder(int reps, std::vector<Finding>& found) {
  const int lo = 8, hi = 20;
  const i64 most = i64(1) << hi;
  HView<std::uint8_t> mask("tune.mask", most);
  HView<double> x("tune.x", most), y("tune.y", most), z("tune.z", most);
  HView<std::int32_t> perm("tune.perm", most), inv("tune.inv", most), map("tune.map", most);
  HView<unsigned char> scratch("tune.scratch", sieve::reorder_scratch_bytes(most, 8));
  std::uint32_t count = 0, span = 0, fire = 0;
  std::vector<std::uint8_t> pristine(static_cast<std::size_t>(most));
  {
    std::mt19937_64 g(3);
    for (auto& m : pristine) m = static_cast<std::uint8_t>(g() & 1);
  }
  std::vector<double> spans, seconds;
  std::printf("reorderHost of 4 planes (mask + 3 doubles), keep 50%%: time by span\n ");
  for (int l = lo; l <= hi; l += 2) {
    const i64 n = i64(1) << l;
    Case c{"reorder", {}, "", "", "reorder", n};
    c.variants.push_back({"reorder",
                          [&, n] {
                            const sieve::ReorderPlane planes[] = {
                                {mask.data(), 1}, {x.data(), 8}, {y.data(), 8}, {z.data(), 8}};
                            sieve::reorderHost(planes, 4, mask.data(), 0u, perm.data(), inv.data(),
                                               map.data(), &count, &span, &fire, scratch.data(), n);
                          },
                          [&, n] {
                            std::memcpy(mask.data(), pristine.data(), static_cast<std::size_t>(n));
                            std::iota(perm.data(), perm.data() + n, 0);
                            std::iota(inv.data(), inv.data() + n, 0);
                            span = static_cast<std::uint32_t>(n);
                            fire = 1;
                          }});
    runCase(c, l <= 14 ? std::max(reps, 31) : reps);
    spans.push_back(static_cast<double>(n));
    seconds.push_back(c.variants.front().best);
    std::printf("  2^%d %.1f us", l, c.variants.front().best * 1e6);
  }
  std::printf("\n\n");
  // t(s) = fixed + s x perSample: perSample the least time a sample of the
  // spans from 2^14 on (robust against one slow size on a busy machine),
  // fixed what it leaves of the smallest span's time.
  double perSample = 1e30;
  for (std::size_t i = 0; i < spans.size(); ++i)
    if (spans[i] >= 16384.0) perSample = std::min(perSample, seconds[i] / spans[i]);
  const double fixed = std::max(seconds.front() - spans.front() * perSample, 0.0);
  const double even = perSample > 0 ? fixed / perSample : 0.0;
  char note[128], measured[48];
  std::snprintf(note, sizeof note,
                "rule, not tuning: fixed cost %.1f us, %.2f ns a sample; informative", fixed * 1e6,
                perSample * 1e9);
  std::snprintf(measured, sizeof measured, "%.0f (work = fixed cost)", even);
  found.push_back(
      {"kReorderMinSpan (types.hpp)", std::to_string(sieve::kReorderMinSpan), measured, note});
}

/// The sweep (`only`: one of dense, sparse, scan, reorder; empty: all of
/// them); returns the process's exit code.
inline int run(int reps, const std::string& only) {
  const HostExec exec;
  std::printf(
      "Sieve tuning sweep (sieve_bench --tune): %s, %d threads, host ISA %s, best of %d "
      "interleaved runs\n"
      "Ratios < 1: the native side is faster. docs/tuning.md: what each number "
      "controls.\n\n",
      HostExec::name(), static_cast<int>(exec.concurrency()), sieve::hostIsaName(sieve::hostIsa()),
      reps);
  std::fflush(stdout);
  std::vector<Finding> found;
  const double t0 = now();
  const auto section = [&](const char* name, void (*f)(int, std::vector<Finding>&)) {
    if (!only.empty() && only != name) return;
    const double t = now();
    f(reps, found);
    std::printf("(%s: %.0f s)\n\n", name, now() - t);
    std::fflush(stdout);
  };
  section("dense", tuneDense);
  section("sparse", tuneSparse);
  section("scan", tuneScan);
  section("reorder", tuneReorder);
  std::printf("%-38s %-22s %-28s %s\n", "constant (core/tuning.hpp)", "value", "measured here",
              "detail");
  std::printf("%s\n", std::string(120, '-').c_str());
  for (const auto& f : found)
    std::printf("%-38s %-22s %-28s %s\n", f.name.c_str(), f.value.c_str(), f.measured.c_str(),
                f.note.c_str());
  std::printf(
      "\n(%.0f s) A measured value far from the table's on this machine is a reason to "
      "measure on the machines the defaults serve before changing one (docs/tuning.md).\n",
      now() - t0);
  return 0;
}

} // namespace tune
} // namespace sieve_bench
