// SPDX-License-Identifier: Apache-2.0
// A user of the installed package's distributed face (Sieve::mpi): one
// process, or any number under mpiexec.
#include <sieve/mpi.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdio>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int bad = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    using Exec = Kokkos::DefaultExecutionSpace;
    int p = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const std::int64_t n = 1000 * (rank + 1);
    Kokkos::View<std::uint8_t*, Exec::memory_space> alive("alive", n);
    Kokkos::View<double*, Exec::memory_space> x("x", n);
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const std::int64_t i) {
          alive(i) = i % 2;
          x(i) = static_cast<double>(i);
        });
    Kokkos::fence();
    const sieve::mpi::Global g = sieve::mpi::rebalance(Exec(), MPI_COMM_WORLD, alive, x);
    std::int64_t want = 0;
    for (int r = 0; r < p; ++r) want += 500 * (r + 1);
    bad = g.total != want;
    std::printf("rank %d of %d: %lld of %lld survivors from global %lld\n", rank, p,
                static_cast<long long>(g.local), static_cast<long long>(g.total),
                static_cast<long long>(g.offset));
  }
  MPI_Finalize();
  return bad;
}
