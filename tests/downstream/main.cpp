// SPDX-License-Identifier: Apache-2.0
// A user of the installed package: the Kokkos API and the native host face.
#include <sieve/sieve.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  using Mem = Exec::memory_space;
  const std::int64_t n = 100000;
  Kokkos::View<std::uint8_t*, Mem> alive("alive", n);
  Kokkos::View<double*, Mem> x("x", n);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        alive(i) = (i % 3 == 0) ? 1 : 0;
        x(i) = static_cast<double>(i);
      });
  Kokkos::View<std::int32_t*, Mem> map("map", n), perm("perm", n), inv("inv", n);
  Kokkos::View<std::uint32_t, Mem> count("count");
  Kokkos::View<unsigned char*, Mem> scratch("scratch", sieve::reorder_scratch_bytes(n, 8));
  sieve::Trigger<Mem> trig("trig");
  Kokkos::deep_copy(trig.span, static_cast<std::uint32_t>(n));
  Exec exec;
  sieve::compact(exec, alive, map, count, scratch, trig);
  sieve::inclusive_scan(exec, map, perm);
  Kokkos::parallel_for(
      "ids", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { perm(i) = inv(i) = static_cast<std::int32_t>(i); });
  sieve::reorder(exec, alive, perm, inv, map, count, trig.span, Kokkos::View<std::uint32_t, Mem>(),
                 scratch, alive, x);
  exec.fence();
  std::uint32_t kept = 0;
  Kokkos::deep_copy(kept, count);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  bool ok = kept == (n + 2) / 3;
  for (std::uint32_t k = 0; k < kept && ok; ++k) ok = hx(k) == 3.0 * k;

  // The native host face, raw pointers.
  std::vector<std::uint8_t> m(1000, 0);
  for (std::size_t i = 0; i < m.size(); i += 7) m[i] = 1;
  std::vector<std::int32_t> idx(m.size());
  std::vector<unsigned char> s(sieve::compact_scratch_bytes(1000));
  std::uint32_t c = 0;
  sieve::compactHost(m.data(), 0u, idx.data(), &c, s.data(), 1000);
  ok = ok && c == 143 && idx[142] == 994;

  std::printf("downstream: Sieve %d.%d.%d, kept %u of %lld, %s\n", SIEVE_VERSION_MAJOR,
              SIEVE_VERSION_MINOR, SIEVE_VERSION_PATCH, kept, static_cast<long long>(n),
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
