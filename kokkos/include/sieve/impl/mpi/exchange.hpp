// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — what the distributed calls share: MPI checks, the
// agreement on failure before anything is exchanged, the host staging of
// device buffers, and the pack / unpack kernels of a rebalance.
#pragma once

#include <sieve/core/distribute.hpp>
#include <sieve/core/elem.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/mpi/device_buffers.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> // MPIX_CUDA_AWARE_SUPPORT
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sieve {
namespace mpi {
namespace Impl {

using sieve::Impl::fail;

/// An MPI call's error code as an exception (under MPI_ERRORS_RETURN; the
/// default handler aborts the job first).
inline void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string("sieve::mpi: ") + what + " failed: " + text);
}

/// MPI is usable and `comm` is an intracommunicator. Checked before any
/// collective: a rank that fails here cannot take part in the agreement, so
/// these are the only errors that are not agreed (every rank passes the same
/// communicator, so they fail together).
inline void checkComm(const char* fn, MPI_Comm comm) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin)
    fail(fn,
         "MPI is not initialized or already finalized; the calls run between MPI_Init and "
         "MPI_Finalize");
  if (comm == MPI_COMM_NULL) fail(fn, "comm is MPI_COMM_NULL; give the ranks' communicator");
  int inter = 0;
  check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) fail(fn, "comm is an intercommunicator; the calls take an intracommunicator");
}

inline int commSize(MPI_Comm comm) {
  int p = 0;
  check(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  return p;
}

inline int commRank(MPI_Comm comm) {
  int r = 0;
  check(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

/// The sieve::mpi calls, as the handshake names them.
enum class Call : std::int64_t {
  compact = 1,
  findall = 2,
  rebalance = 3,
  population_compact = 4,
  population_rebalance = 5,
};

inline const char* callName(std::int64_t id) {
  switch (static_cast<Call>(id)) {
  case Call::compact: return "sieve::mpi::compact";
  case Call::findall: return "sieve::mpi::findall";
  case Call::rebalance: return "sieve::mpi::rebalance";
  case Call::population_compact: return "sieve::mpi::compact (of a Population)";
  case Call::population_rebalance: return "sieve::mpi::rebalance (of a Population)";
  }
  return "a call that is not a sieve::mpi call";
}

/// Seconds a rank waits in a call's handshake for the other ranks before it
/// throws: $SIEVE_MPI_TIMEOUT (seconds; 0 or "off": wait for ever), else
/// 1800 (as long as common process-group watchdogs wait: a rank late by
/// minutes, e.g. behind checkpoint I/O, is not taken for a mismatch).
/// Returns a negative number for "for ever".
inline double handshakeTimeout() {
  if (const char* v = std::getenv("SIEVE_MPI_TIMEOUT")) {
    if (std::string(v) == "off") return -1;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && s == 0) return -1;
    if (end != v && s > 0) return s;
  }
  return 1800.0;
}

/// The first collective of every sieve::mpi call, of one shape whatever the
/// call: an MPI_Iallreduce (MAX) of two int64, {id, -id}, so that every rank
/// learns the lowest and the highest call id on the communicator. Ranks in
/// different sieve::mpi calls all throw std::invalid_argument naming the
/// calls, before anything else is exchanged; none waits in a collective of
/// another shape. A rank whose peers never enter a sieve::mpi call on `comm`
/// (one rank passed MPI_COMM_SELF, or threw before the call) throws
/// std::invalid_argument after handshakeTimeout() seconds instead of waiting
/// for ever; its communicator then holds an unmatched collective (end the
/// job: a peer that does arrive later completes its handshake against it and
/// waits in the next collective).
inline void handshake(const char* fn, MPI_Comm comm, Call call) {
  struct Pending {
    std::int64_t mine[2], all[2];
    MPI_Request req = MPI_REQUEST_NULL;
  };
  auto* h = new Pending;
  const std::int64_t id = static_cast<std::int64_t>(call);
  h->mine[0] = id;
  h->mine[1] = -id;
  try {
    check(MPI_Iallreduce(h->mine, h->all, 2, MPI_INT64_T, MPI_MAX, comm, &h->req),
          "MPI_Iallreduce");
  } catch (...) {
    delete h;
    throw;
  }
  const double limit = handshakeTimeout();
  const auto start = std::chrono::steady_clock::now();
  for (long spins = 0;; ++spins) {
    int done = 0;
    check(MPI_Test(&h->req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) break;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (limit >= 0 && waited > limit) {
      // MPI forbids freeing or cancelling a collective's request: its buffers
      // stay allocated (h is not deleted) for MPI to complete into.
      fail(fn, "waited " + std::to_string(static_cast<long>(waited)) +
                   " s in the call's first collective for the other " +
                   std::to_string(commSize(comm) - 1) +
                   " rank(s) of the communicator: some rank is not in a sieve::mpi call on "
                   "this communicator (it passed another one, e.g. MPI_COMM_SELF, threw before "
                   "the call, or waits in a collective of its own). Every rank must make the "
                   "same sieve::mpi calls on the same communicator in the same order; the "
                   "communicator now holds an unmatched collective (end the job: a rank that "
                   "arrives late would wait in it). The wait is $SIEVE_MPI_TIMEOUT seconds "
                   "(1800 when unset; 0 or off: for ever)");
    }
    if (spins > 2000)
      std::this_thread::sleep_for(std::chrono::microseconds(spins > 20000 ? 1000 : 20));
  }
  const std::int64_t hi = h->all[0], lo = -h->all[1];
  delete h;
  if (lo != hi) {
    const std::int64_t other = lo == id ? hi : lo;
    fail(fn, "the ranks of the communicator are in different sieve::mpi calls: this rank in " +
                 std::string(callName(id)) + ", another in " + callName(other) +
                 (lo != id && hi != id ? std::string(" (and another in ") + callName(hi) + ")"
                                       : std::string()) +
                 ". Every rank must make the same sieve::mpi calls in the same order; every "
                 "rank throws, nothing was exchanged");
  }
}

/// A local step that may throw: its exception is kept until every rank knows
/// whether some rank failed (then every rank throws, none hangs).
struct Attempt {
  std::exception_ptr error;
  template <class F>
  void run(F&& f) {
    if (error) return;
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  }
  bool failed() const { return static_cast<bool>(error); }
};

/// After the ranks agreed that `failedRank` (the lowest failing rank) failed:
/// that rank rethrows its own exception, the others throw
/// std::invalid_argument naming it.
[[noreturn]] inline void throwAgreed(const char* fn, const Attempt& mine, int failedRank, int p,
                                     const char* when) {
  if (mine.failed()) std::rethrow_exception(mine.error);
  fail(fn, "rank " + std::to_string(failedRank) + " of " + std::to_string(p) +
               " threw (its exception says why) " + when +
               "; this rank's arguments were valid. Every rank throws; nothing was exchanged");
}

/// The lowest failing rank (p when none), agreed in one collective.
inline int agreeFailure(MPI_Comm comm, const Attempt& mine, int rank, int p) {
  int key = mine.failed() ? p - rank : 0, top = 0;
  check(MPI_Allreduce(&key, &top, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  return p - top;
}

/// One counting call's global answer: sums over every rank and the sums over
/// the ranks before this one, of `k` int64 values, with the failure agreed in
/// the same round (three non-blocking collectives in flight together).
struct Tally {
  std::vector<std::int64_t> sums, before;
  int failedRank = 0;
};

inline Tally tally(MPI_Comm comm, const Attempt& mine, std::vector<std::int64_t> values) {
  const int p = commSize(comm), rank = commRank(comm);
  if (mine.failed()) values.assign(values.size(), 0);
  const int k = static_cast<int>(values.size());
  Tally t;
  t.sums.assign(values.size(), 0);
  t.before.assign(values.size(), 0);
  int key = mine.failed() ? p - rank : 0, top = 0;
  MPI_Request req[3];
  check(MPI_Iallreduce(values.data(), t.sums.data(), k, MPI_INT64_T, MPI_SUM, comm, &req[0]),
        "MPI_Iallreduce");
  check(MPI_Iexscan(values.data(), t.before.data(), k, MPI_INT64_T, MPI_SUM, comm, &req[1]),
        "MPI_Iexscan");
  check(MPI_Iallreduce(&key, &top, 1, MPI_INT, MPI_MAX, comm, &req[2]), "MPI_Iallreduce");
  check(MPI_Waitall(3, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
  if (rank == 0) t.before.assign(values.size(), 0); // MPI_Exscan leaves rank 0's undefined
  t.failedRank = p - top;
  return t;
}

/// Whether MPI reads and writes memory of space `Mem` itself, by the mode of
/// set_device_buffers: Auto: host memory, or CUDA memory under a CUDA-aware
/// Open MPI, asked at run time; otherwise the exchange stages through host
/// buffers.
template <class Mem>
bool mpiReads() {
  const DeviceBuffers mode = deviceBuffers();
  if (mode != DeviceBuffers::Auto) return mode == DeviceBuffers::Direct;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    return true;
  } else {
#if defined(KOKKOS_ENABLE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if constexpr (std::is_same_v<typename Mem::execution_space, Kokkos::Cuda>)
      return MPIX_Query_cuda_support() == 1;
#endif
    return false;
  }
}

/// The exchange datatype: `unit` contiguous bytes, freed with the object.
class UnitType {
 public:
  explicit UnitType(std::uint64_t unit) {
    check(MPI_Type_contiguous(static_cast<int>(unit), MPI_BYTE, &type_), "MPI_Type_contiguous");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~UnitType() { MPI_Type_free(&type_); }
  UnitType(const UnitType&) = delete;
  UnitType& operator=(const UnitType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// The block holding position i of the packed (or unpacked) order: the last
/// block whose `first` is <= i (blocks in ascending `first`, none empty).
template <class Blocks>
KOKKOS_INLINE_FUNCTION int blockOf(const Blocks& blocks, int count, std::int64_t i) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (blocks(mid).first <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// One plane as the pack and unpack kernels see it: its bytes, its element
/// size and where its segment starts in a block (bytes per sample before
/// it). A rank-2 plane's sample is a row of `cols` elements, `sample` bytes
/// apart in the plane (element c of it `col` bytes after element 0), and
/// `cols * elem` contiguous bytes in its segment; a rank-1 plane has cols = 1
/// and sample = elem (contiguous).
struct PlaneBytes {
  unsigned char* data;
  std::int64_t before;
  std::uint32_t elem;
  std::uint32_t cols = 1;
  std::int64_t sample = 0;
  std::int64_t col = 0;
};

/// Move element `si` of `src` to element `di` of `dst` as one word of the
/// plane's element size.
KOKKOS_INLINE_FUNCTION void moveElem(std::uint32_t elem, unsigned char* dst, std::int64_t di,
                                     const unsigned char* src, std::int64_t si) {
  using namespace sieve::Impl;
  switch (elem) {
  case 1: dst[di] = src[si]; break;
  case 2: reinterpret_cast<Bytes2*>(dst)[di] = reinterpret_cast<const Bytes2*>(src)[si]; break;
  case 4: reinterpret_cast<Bytes4*>(dst)[di] = reinterpret_cast<const Bytes4*>(src)[si]; break;
  case 8: reinterpret_cast<Bytes8*>(dst)[di] = reinterpret_cast<const Bytes8*>(src)[si]; break;
  default: reinterpret_cast<Bytes16*>(dst)[di] = reinterpret_cast<const Bytes16*>(src)[si]; break;
  }
}

/// Move sample `k` of a segment to or from sample `s` of a plane (`pack`:
/// plane to segment): one element (a rank-1 plane, as always), or its row.
KOKKOS_INLINE_FUNCTION void moveSample(const PlaneBytes& p, unsigned char* seg, std::int64_t k,
                                       std::int64_t s, bool pack) {
  if (p.cols == 1 && p.sample == static_cast<std::int64_t>(p.elem)) {
    if (pack) moveElem(p.elem, seg, k, p.data, s);
    else moveElem(p.elem, p.data, s, seg, k);
    return;
  }
  unsigned char* row = seg + k * static_cast<std::int64_t>(p.cols) * p.elem;
  unsigned char* at = p.data + s * p.sample;
  for (std::uint32_t c = 0; c < p.cols; ++c) {
    if (pack) moveElem(p.elem, row + c * p.elem, 0, at + c * p.col, 0);
    else moveElem(p.elem, at + c * p.col, 0, row + c * p.elem, 0);
  }
}

/// Pack every plane of survivor i (sample map(i)) into its block, at
/// position i - block.first of each plane's segment.
template <int N, class Map, class Blocks>
struct PackPlanes {
  Kokkos::Array<PlaneBytes, N> planes;
  Map map;
  Blocks blocks;
  int count;
  unsigned char* buffer;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const sieve::Impl::ExchangeBlock& b = blocks(blockOf(blocks, count, i));
    const std::int64_t from = map(i), to = i - b.first;
    unsigned char* block = buffer + b.byteBegin;
    for (int j = 0; j < N; ++j)
      moveSample(planes[j], block + b.samples * planes[j].before, to, from, true);
  }
};

/// Unpack every plane of new local sample i from its block: in the receive
/// buffer, or in the send buffer for the block this rank kept (`self`).
template <int N, class Blocks>
struct UnpackPlanes {
  Kokkos::Array<PlaneBytes, N> planes;
  Blocks blocks;
  int count;
  int self;
  const unsigned char* recv;
  const unsigned char* send;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const sieve::Impl::ExchangeBlock& b = blocks(blockOf(blocks, count, i));
    const unsigned char* block = (b.rank == self ? send : recv) + b.byteBegin;
    const std::int64_t from = i - b.first;
    for (int j = 0; j < N; ++j)
      moveSample(planes[j], const_cast<unsigned char*>(block) + b.samples * planes[j].before, from,
                 i, false);
  }
};

/// A View of at least `n` elements: `v` when it has them, else a new one
/// (the old one freed first). Grow-only: a workspace keeps its largest size.
template <class V>
void ensure(V& v, std::size_t n, const std::string& label) {
  if (v.extent(0) >= n && v.data() != nullptr) return;
  v = V();
  v = sieve::Impl::allocate<V>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

/// Copy a plan's blocks into `d` (grown to hold them), on `exec`.
template <class Exec, class D>
void uploadBlocks(const Exec& exec, D& d, const std::string& label,
                  const std::vector<sieve::Impl::ExchangeBlock>& blocks) {
  ensure(d, std::max<std::size_t>(blocks.size(), 1), label);
  auto h = sieve::Impl::hostMirror(d);
  for (std::size_t i = 0; i < blocks.size(); ++i) h(i) = blocks[i];
  Kokkos::deep_copy(exec, d, h);
  exec.fence(); // h may be a temporary host copy
}

} // namespace Impl
} // namespace mpi
} // namespace sieve
