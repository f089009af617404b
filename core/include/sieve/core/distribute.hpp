// SPDX-License-Identifier: Apache-2.0
// Sieve — the rules of the distributed face (sieve::mpi), written once: which
// rank holds which global survivors after a rebalance, how one rank's
// survivors are cut into blocks for the other ranks, and how a block lays out
// the planes' bytes. Pure arithmetic on host values: no MPI, no Kokkos.
//
// Global order: rank r's survivors are the global survivors [offset_r,
// offset_r + count_r), offset_r = count_0 + ... + count_{r-1}. After a
// rebalance rank q holds [shareBegin(N, p, q), shareBegin(N, p, q + 1)): every
// rank floor(N / p) or ceil(N / p) of the N survivors, the lower ranks the
// larger shares, global order kept.
#pragma once

#include <sieve/core/check.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace sieve {
namespace Impl {

/// The first global survivor rank q holds after a rebalance of `total`
/// survivors over `p` ranks (q in [0, p]; shareBegin(total, p, p) == total).
inline std::int64_t shareBegin(std::int64_t total, int p, int q) {
  const std::int64_t base = total / p, rem = total % p;
  return q * base + std::min<std::int64_t>(q, rem);
}

/// How many survivors rank q holds after a rebalance: floor or ceil(total / p).
inline std::int64_t shareSize(std::int64_t total, int p, int q) {
  return shareBegin(total, p, q + 1) - shareBegin(total, p, q);
}

/// The rank whose share holds global survivor g (0 <= g < total).
inline int shareOwner(std::int64_t total, int p, std::int64_t g) {
  const std::int64_t base = total / p, rem = total % p;
  const std::int64_t big = rem * (base + 1); // the survivors of the ceil-sized shares
  return static_cast<int>(g < big ? g / (base + 1) : rem + (g - big) / base);
}

/// How one sample's planes lie in an exchange block: the planes in descending
/// element size (stable), each plane's elements together. A block of k
/// samples holds plane j's k elements from byte k * before[j]: every segment
/// is aligned to its element size when the block is (blocks start on a
/// multiple of the exchange unit, itself a multiple of 16).
struct RecordLayout {
  std::vector<std::uint32_t> elem;   // element bytes of each plane, in call order
  std::vector<std::uint64_t> before; // bytes per sample of the planes laid out before plane j
  std::uint64_t bytes = 0;           // bytes per sample of all planes
};

/// The layout of planes whose sample is a row of `cols[j]` elements of
/// `elem[j]` bytes (a rank-2 plane; 1 for a rank-1 plane): ordered by element
/// size as above, each segment `cols[j] * elem[j]` bytes per sample (still
/// aligned to its element size: every segment before it is a whole number of
/// larger elements).
inline RecordLayout recordLayout(const std::vector<std::uint32_t>& elem,
                                 const std::vector<std::uint32_t>& cols) {
  RecordLayout r;
  r.elem = elem;
  r.before.assign(elem.size(), 0);
  for (std::size_t j = 0; j < elem.size(); ++j) {
    for (std::size_t i = 0; i < elem.size(); ++i)
      if (elem[i] > elem[j] || (elem[i] == elem[j] && i < j))
        r.before[j] += std::uint64_t(elem[i]) * cols[i];
    r.bytes += std::uint64_t(elem[j]) * cols[j];
  }
  return r;
}

inline RecordLayout recordLayout(const std::vector<std::uint32_t>& elem) {
  return recordLayout(elem, std::vector<std::uint32_t>(elem.size(), 1u));
}

/// A 64-bit digest of a plane set's element sizes, in call order (FNV-1a over
/// the count and the sizes): ranks compare it to agree on the plane set.
inline std::uint64_t planeSignature(const std::vector<std::uint32_t>& elem) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  mix(elem.size());
  for (const std::uint32_t e : elem) mix(e);
  return h;
}

/// The exchange unit every rank uses for one call (the MPI datatype's size):
/// 16 << t bytes, t the smallest for which every rank's buffer, counted in
/// units, fits an int (MPI's counts and displacements). `maxSamples`: the most
/// samples any rank sends or receives; `recordBytes`: bytes per sample; `p`:
/// the ranks (each block pads to a whole unit). The same on every rank when
/// computed from agreed values.
inline std::uint64_t exchangeUnit(std::int64_t maxSamples, std::uint64_t recordBytes, int p) {
  std::uint64_t unit = 16;
  const auto units = [&](std::uint64_t u) {
    return (static_cast<std::uint64_t>(maxSamples) * recordBytes + u - 1) / u +
           static_cast<std::uint64_t>(p);
  };
  while (units(unit) > static_cast<std::uint64_t>(INT_MAX)) unit *= 2;
  return unit;
}

/// One block of an exchange: `samples` consecutive survivors of this rank
/// (sent: the survivors `first`, ...; received: the new local samples
/// `first`, ...) to or from `rank`, from byte `byteBegin` of the buffer.
struct ExchangeBlock {
  std::int64_t first = 0;
  std::int64_t samples = 0;
  std::int64_t byteBegin = 0;
  std::int64_t rank = 0;
};

/// One rank's side of a rebalance: what it sends to and receives from every
/// rank, in exchange units (the MPI_Alltoallv arrays) and as the non-empty
/// blocks in rank order (what the pack and unpack kernels read). The block a
/// rank keeps for itself is packed into the send buffer like the others but
/// never goes through MPI (its units are 0 in both arrays): its receive block
/// has rank == this rank and points into the send buffer.
struct ExchangePlan {
  std::int64_t total = 0;    // survivors on every rank
  std::int64_t offset = 0;   // survivors on the ranks before this one
  std::int64_t kept = 0;     // this rank's survivors before the exchange
  std::int64_t received = 0; // this rank's samples after it
  std::uint64_t unit = 16;   // bytes of one exchange unit
  std::vector<int> sendUnits, sendDispl, recvUnits, recvDispl;
  std::vector<ExchangeBlock> sends, recvs;
  std::uint64_t sendBytes = 0, recvBytes = 0; // buffer sizes
};

/// The plan of rank `rank` given every rank's survivor count (`counts`, the
/// same vector on every rank) and the record layout.
inline ExchangePlan exchangePlan(const std::vector<std::int64_t>& counts, int rank,
                                 const RecordLayout& layout) {
  const int p = static_cast<int>(counts.size());
  ExchangePlan plan;
  std::vector<std::int64_t> offsets(counts.size() + 1, 0);
  std::int64_t maxSamples = 0;
  for (int q = 0; q < p; ++q) {
    offsets[q + 1] = offsets[q] + counts[q];
    maxSamples = std::max(maxSamples, counts[q]);
  }
  plan.total = offsets[p];
  plan.offset = offsets[rank];
  plan.kept = counts[rank];
  plan.received = shareSize(plan.total, p, rank);
  maxSamples = std::max(maxSamples, plan.total / p + 1);
  plan.unit = exchangeUnit(maxSamples, layout.bytes, p);
  const std::uint64_t recBytes = layout.bytes;
  const auto unitsOf = [&](std::int64_t k) {
    return static_cast<int>((static_cast<std::uint64_t>(k) * recBytes + plan.unit - 1) / plan.unit);
  };
  plan.sendUnits.assign(p, 0);
  plan.sendDispl.assign(p, 0);
  plan.recvUnits.assign(p, 0);
  plan.recvDispl.assign(p, 0);

  // Sends: this rank's survivors [offset, offset + kept) cut at the share bounds.
  int at = 0;
  std::int64_t self = 0; // where the block this rank keeps starts in the send buffer
  for (std::int64_t g = plan.offset; g < plan.offset + plan.kept;) {
    const int q = shareOwner(plan.total, p, g);
    const std::int64_t end = std::min(plan.offset + plan.kept, shareBegin(plan.total, p, q + 1));
    const std::int64_t k = end - g;
    plan.sends.push_back(
        ExchangeBlock{g - plan.offset, k, static_cast<std::int64_t>(at * plan.unit), q});
    if (q != rank) {
      plan.sendUnits[q] = unitsOf(k);
      plan.sendDispl[q] = at;
    } else {
      self = plan.sends.back().byteBegin;
    }
    at += unitsOf(k);
    g = end;
  }
  plan.sendBytes = static_cast<std::uint64_t>(at) * plan.unit;

  // Receives: this rank's share [begin, end) cut at the senders' offsets.
  const std::int64_t begin = shareBegin(plan.total, p, rank);
  const std::int64_t end = begin + plan.received;
  at = 0;
  int s =
      static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin()) -
      1;
  for (std::int64_t g = begin; g < end; ++s) {
    const std::int64_t stop = std::min(end, offsets[s + 1]);
    if (stop <= g) continue; // a rank with no survivors
    const std::int64_t k = stop - g;
    if (s == rank) {
      plan.recvs.push_back(ExchangeBlock{g - begin, k, self, s}); // from the send buffer
    } else {
      plan.recvUnits[s] = unitsOf(k);
      plan.recvDispl[s] = at;
      plan.recvs.push_back(
          ExchangeBlock{g - begin, k, static_cast<std::int64_t>(at * plan.unit), s});
      at += plan.recvUnits[s];
    }
    g = stop;
  }
  plan.recvBytes = static_cast<std::uint64_t>(at) * plan.unit;
  return plan;
}

} // namespace Impl
} // namespace sieve
