// SPDX-License-Identifier: Apache-2.0
// One face table for every translation unit: nvcc's reading of core/faces.hpp
// equals the host compiler's (faces_host.cpp), so the Kokkos face's dispatch
// is the same function in both (no ODR hazard). Needs no GPU.
#include <sieve/core/faces.hpp>

#include <gtest/gtest.h>

unsigned sieveTestHostFaceMask(int face);

TEST(CudaFaceTable, HostCompilerAndNvccAgree) {
  using sieve::Impl::Face;
  for (const Face f : {Face::Portable, Face::OpenMP, Face::Cuda}) {
    EXPECT_EQ(sieve::Impl::faceMask(f), sieveTestHostFaceMask(static_cast<int>(f)))
        << sieve::Impl::faceName(f);
  }
#if !defined(__CUDACC__)
  FAIL() << "test_faces.cu was not compiled by a CUDA compiler";
#endif
}
