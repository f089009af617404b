// SPDX-License-Identifier: Apache-2.0
// The face table as a host compiler (not nvcc) sees it: compared with nvcc's
// reading in test_faces.cu.
#include <sieve/core/faces.hpp>

unsigned sieveTestHostFaceMask(int face) {
  return sieve::Impl::faceMask(static_cast<sieve::Impl::Face>(face));
}
