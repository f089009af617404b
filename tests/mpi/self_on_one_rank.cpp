// SPDX-License-Identifier: Apache-2.0
// Sieve MPI test (a process of its own) — one rank passes MPI_COMM_SELF where
// the others pass MPI_COMM_WORLD. The rank on MPI_COMM_SELF completes its
// call (alone, a valid call); every other rank must throw
// std::invalid_argument after $SIEVE_MPI_TIMEOUT seconds instead of waiting
// for ever. The unmatched collective left on MPI_COMM_WORLD makes that
// communicator unusable, so no rank uses it again: each prints its verdict
// and exits with it (MPI_Finalize does not wait on the collective in Open
// MPI; a hang here is caught by ctest's timeout).
#include "../kokkos/backend.hpp"

#include <sieve/mpi.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  bool ok = false;
  std::string what;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    using namespace sieve_test;
    const TestExec exec;
    DView<std::uint8_t> mask = filled<std::uint8_t>(100, 1, "mask");
    DView<std::int32_t> map("map", 100);
    Word count("count");
    Bytes scratch("scratch", sieve::compact_scratch_bytes(100));
    const MPI_Comm comm = rank == 0 ? MPI_COMM_SELF : MPI_COMM_WORLD;
    try {
      const auto g = sieve::mpi::compact(exec, comm, mask, map, count, scratch);
      ok = rank == 0 && g.total == 100; // alone on MPI_COMM_SELF: a valid call
      what = "no throw, total " + std::to_string(g.total);
    } catch (const std::invalid_argument& e) {
      what = e.what();
      ok = rank != 0 &&
           what.find("not in a sieve::mpi call on this communicator") != std::string::npos;
    }
  }
  std::printf("sieve self_on_one_rank: rank %d of %d %s: %s\n", rank, p, ok ? "OK" : "WRONG",
              what.c_str());
  std::fflush(stdout);
  MPI_Finalize();
  return ok ? 0 : 1;
}
