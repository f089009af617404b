// SPDX-License-Identifier: Apache-2.0
// Sieve benchmark — the native face against the portable face on the same
// execution space and data: every public call of a filtering step, timed as
// it runs natively (Kokkos::OpenMP: the twins; Kokkos::Cuda: the CUDA
// kernels) and with the native face switched off (sieve::Impl::ForcePortable:
// the Kokkos kernels a space without a native face runs, e.g. Kokkos::HIP or
// Kokkos::SYCL), beside a copy of the same bytes. Both faces' outputs are
// compared byte for byte (exit status 1 when they differ).
//
//   sieve_bench_faces [--log2 N] [--reps R]     (default 2^24 elements, best of 5)
#include <sieve/sieve.hpp>

#include "harness.hpp"
#include "hash.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using i64 = std::int64_t;
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<i64>>;

namespace {

/// An element keyed by its key() member: 8 bytes (the dense scatters).
struct Elem {
  std::int32_t k;
  std::int32_t rec;
  KOKKOS_INLINE_FUNCTION std::int32_t key() const { return k; }
};
/// An element with a 64-bit key: 16 bytes (the sparse scatter).
struct WideElem {
  std::int64_t k;
  std::int64_t rec;
  KOKKOS_INLINE_FUNCTION std::int64_t key() const { return k; }
};

/// A hash of (i, seed): the benchmark's data, the same on every space.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(i64 i, std::uint64_t seed) {
  return sieve_example::mix(static_cast<std::uint64_t>(i) ^ (seed << 48));
}

/// findall's predicate: values below a threshold.
struct Below {
  std::int32_t t;
  KOKKOS_INLINE_FUNCTION bool operator()(const std::int32_t x) const { return x < t; }
};
/// sort_permutation's key: a key read by index.
struct KeyAt {
  Kokkos::View<std::int32_t*, Mem> keys;
  KOKKOS_INLINE_FUNCTION std::int32_t operator()(const i64 i) const { return keys(i); }
};

/// The bytes of Views (any rank), on the host, one after the other.
template <class... V>
std::vector<unsigned char> bytesOf(const V&... v) {
  std::vector<unsigned char> out;
  const auto append = [&](const auto& view) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, view);
    const auto* p = reinterpret_cast<const unsigned char*>(h.data());
    out.insert(out.end(), p, p + h.span() * sizeof(typename std::decay_t<decltype(h)>::value_type));
  };
  (append(v), ...);
  return out;
}

int g_failed = 0;

/// Times `call` natively and with the portable face forced, beside a copy of
/// `bytes` bytes, after checking that both write the same bytes (`outputs`,
/// after `reset`).
template <class Reset, class Call, class Outputs>
void bench(const std::string& name, double bytes, int reps, const Reset& reset, const Call& call,
           const Outputs& outputs) {
  const Exec exec;
  reset();
  call();
  exec.fence();
  const std::vector<unsigned char> native = outputs();
  reset();
  {
    const sieve::Impl::ForcePortable portable;
    call();
    exec.fence();
  }
  const std::vector<unsigned char> portable = outputs();
  const bool same = native.size() == portable.size() &&
                    std::memcmp(native.data(), portable.data(), native.size()) == 0;
  if (!same) ++g_failed;

  const i64 words = static_cast<i64>(bytes / 16);
  Kokkos::View<std::int64_t*[2], Mem> from("copy_from", words), to("copy_to", words);
  sieve_bench::Case c;
  c.name = name;
  c.baseline = "deep_copy (same bytes)";
  c.subject = "native face";
  c.variants.push_back({"deep_copy (same bytes)",
                        [&] {
                          Kokkos::deep_copy(exec, to, from);
                          exec.fence();
                        },
                        {},
                        bytes});
  c.variants.push_back({"native face",
                        [&] {
                          call();
                          exec.fence();
                        },
                        reset, bytes});
  c.variants.push_back({"portable face (forced)",
                        [&] {
                          const sieve::Impl::ForcePortable portable;
                          call();
                          exec.fence();
                        },
                        reset, bytes});
  sieve_bench::runCase(c, reps);
  sieve_bench::printCase(c);
  const double ratio = sieve_bench::find(c, "portable face (forced)")->best /
                       sieve_bench::find(c, "native face")->best;
  std::printf("faces %-34s portable / native = %6.2f   outputs %s\n\n", name.c_str(), ratio,
              same ? "identical" : "DIFFERENT");
}

} // namespace

int main(int argc, char* argv[]) {
  int lg = 24, reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2" && i + 1 < argc) lg = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  sieve_bench::keepFreedPages();
  Kokkos::initialize(argc, argv);
  {
    const Exec exec;
    const i64 n = i64(1) << lg;
    std::printf(
        "sieve faces benchmark: %s, n = 2^%d, best of %d (the portable face is what a "
        "space without a native face runs)\n\n",
        Exec::name(), lg, reps);
    sieve_bench::printHeader();
    const auto none = [] {};
    const auto alloc = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };

    Kokkos::View<std::int32_t*, Mem> v32(alloc("v32"), n), s32(alloc("s32"), n);
    Kokkos::View<std::int64_t*, Mem> v64(alloc("v64"), n), s64(alloc("s64"), n);
    Kokkos::View<std::uint8_t*, Mem> mask(alloc("mask"), n);
    Kokkos::parallel_for(
        "bench_init", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
          const std::uint64_t x = mix(i, 1);
          v32(i) = static_cast<std::int32_t>(x % 1000);
          v64(i) = static_cast<std::int64_t>(x % 100000);
          mask(i) = static_cast<std::uint8_t>((x >> 20) % 2);
        });
    exec.fence();
    const double nd = static_cast<double>(n);

    // --- scans --------------------------------------------------------------
    Kokkos::View<std::int32_t*, Mem> sums32("sums32", sieve::scan_scratch_size<std::int32_t>(n));
    Kokkos::View<std::int64_t*, Mem> sums64("sums64", sieve::scan_scratch_size<std::int64_t>(n));
    bench(
        "inclusive_scan int32", 8 * nd, reps, none,
        [&] { sieve::inclusive_scan(exec, v32, s32, sieve::Sum{}, sums32); },
        [&] { return bytesOf(s32); });
    bench(
        "inclusive_scan int64", 16 * nd, reps, none,
        [&] { sieve::inclusive_scan(exec, v64, s64, sieve::Sum{}, sums64); },
        [&] { return bytesOf(s64); });

    // --- compaction, findall --------------------------------------------------
    Kokkos::View<std::int32_t*, Mem> map(alloc("map"), n);
    Kokkos::View<std::uint32_t, Mem> count("count");
    Kokkos::View<unsigned char*, Mem> cscratch("cscratch", sieve::compact_scratch_bytes(n));
    bench(
        "compact (50 % kept)", 5 * nd, reps, none,
        [&] { sieve::compact(exec, mask, map, count, cscratch); },
        [&] { return bytesOf(map, count); });
    Kokkos::View<std::int64_t*, Mem> found;
    bench(
        "findall mask (50 %)", 5 * nd, reps, none, [&] { found = sieve::findall(exec, mask); },
        [&] { return bytesOf(found); });
    bench(
        "findall predicate (1 %)", 4 * nd, reps, none,
        [&] { found = sieve::findall(exec, Below{10}, v32); }, [&] { return bytesOf(found); });

    // --- reorder: two planes (and the mask) moved by a compaction's permutation --
    Kokkos::View<std::int32_t*, Mem> perm(alloc("perm"), n), inv(alloc("inv"), n);
    Kokkos::View<double*, Mem> x(alloc("x"), n), x0(alloc("x0"), n);
    Kokkos::View<float*, Mem> y(alloc("y"), n), y0(alloc("y0"), n);
    Kokkos::View<std::int32_t*, Mem> map0(alloc("map0"), n);
    Kokkos::View<std::uint8_t*, Mem> mask0(alloc("mask0"), n);
    Kokkos::deep_copy(exec, mask0, mask);
    Kokkos::View<std::uint32_t, Mem> count0("count0");
    Kokkos::View<unsigned char*, Mem> rscratch("rscratch", sieve::reorder_scratch_bytes(n, 8));
    sieve::Trigger<Mem> trig("trig", 0.5f);
    sieve::compact(exec, mask, map0, count0, cscratch);
    Kokkos::parallel_for(
        "bench_planes", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
          x0(i) = 0.5 * static_cast<double>(i);
          y0(i) = static_cast<float>(i % 977);
        });
    exec.fence();
    bench(
        "reorder (3 planes, 13 B)", 2 * 13 * nd + 12 * nd, reps,
        [&] {
          Kokkos::parallel_for(
              "bench_reset", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
                perm(i) = inv(i) = static_cast<std::int32_t>(i);
                x(i) = x0(i);
                y(i) = y0(i);
                map(i) = map0(i);
                mask(i) = mask0(i);
              });
          Kokkos::deep_copy(exec, count, count0);
          Kokkos::deep_copy(exec, trig.span, static_cast<std::uint32_t>(n));
          Kokkos::deep_copy(exec, trig.fire, 1u);
          exec.fence();
        },
        [&] { sieve::reorder(exec, mask, perm, inv, map, count, trig, rscratch, x, y, mask); },
        [&] { return bytesOf(perm, inv, map, x, y, mask); });

    // --- keys ---------------------------------------------------------------------
    Kokkos::View<Elem*, Mem> in(alloc("in"), n), out(alloc("out"), n);
    for (const int bits : {10, 16}) {
      const i64 K = i64(1) << bits;
      Kokkos::parallel_for(
          "bench_keys", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
            in(i) = Elem{static_cast<std::int32_t>(mix(i, 7) % static_cast<std::uint64_t>(K)),
                         static_cast<std::int32_t>(i)};
          });
      exec.fence();
      sieve::keys::DenseKeys<std::int32_t, Exec> keys;
      bench(
          "scatter_dense 2^" + std::to_string(bits) + " keys", 2 * 8 * nd, reps, none,
          [&] { keys = sieve::keys::scatter_dense(exec, in, 0, static_cast<int>(K - 1), out); },
          [&] { return bytesOf(out, keys.offsets()); });
    }
    {
      Kokkos::View<WideElem*, Mem> win(alloc("win"), n), wout(alloc("wout"), n);
      Kokkos::parallel_for(
          "bench_wide", Range(exec, 0, n), KOKKOS_LAMBDA(const i64 i) {
            win(i) = WideElem{static_cast<std::int64_t>(mix(i, 9) >> 24), i};
          });
      exec.fence();
      sieve::keys::SparseKeys<std::int64_t, Exec> keys;
      bench(
          "scatter_sparse int64 over 2^40", 2 * 16 * nd, reps, none,
          [&] { keys = sieve::keys::scatter_sparse(exec, win, wout); },
          [&] { return bytesOf(wout, keys.offsets(), keys.keys()); });
    }
    {
      Kokkos::View<std::int32_t*, Mem> cell(alloc("cell"), n);
      Kokkos::View<std::int64_t*, Mem> order(alloc("order"), n);
      Kokkos::View<std::int64_t*, Mem> tally(alloc("tally"), i64(1) << 16);
      Kokkos::parallel_for(
          "bench_cells", Range(exec, 0, n),
          KOKKOS_LAMBDA(const i64 i) { cell(i) = static_cast<std::int32_t>(mix(i, 5) % 65536); });
      exec.fence();
      sieve::keys::DenseKeys<std::int32_t, Exec> keys;
      bench(
          "sort_permutation 2^16 keys", 4 * nd + 8 * nd, reps, none,
          [&] { keys = sieve::keys::sort_permutation(exec, n, KeyAt{cell}, 0, 65535, order); },
          [&] { return bytesOf(order, keys.offsets()); });
      keys = sieve::keys::sort_permutation(exec, n, KeyAt{cell}, 0, 65535, order);
      bench(
          "reduce_by_key 2^16 keys (int64 Sum)", 8 * nd, reps, none,
          [&] {
            sieve::keys::reduce_by_key(exec, keys, v64, std::int64_t(0), sieve::Sum{}, tally);
          },
          [&] { return bytesOf(tally); });
    }
    std::printf("faces: %s\n", g_failed == 0 ? "every output identical" : "OUTPUTS DIFFER");
  }
  Kokkos::finalize();
  return g_failed == 0 ? 0 : 1;
}
