// SPDX-License-Identifier: Apache-2.0
// Sieve MPI tests — MPI and Kokkos initialised once around every test, on
// every rank. Rank 0 prints the usual report; the other ranks print only
// their failures (--gtest_brief). A rank's failing case fails its exit code,
// and so mpiexec's. A run in which nothing passed exits with the skip code.
#include "../common/main.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Kokkos::initialize(argc, argv);
  if (rank != 0) ::testing::GTEST_FLAG(brief) = true; // before InitGoogleTest picks the printer
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  // Every rank's verdict: a case that failed on one rank fails on all.
  int mine = result != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return sieve_test::finishRun(any != 0 ? 1 : 0);
}
