// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — sieve::findall's algorithms resolved to one tile shape
// (the "call shape" a workspace is made for), and their validation.
#pragma once

#include <sieve/core/layout.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/impl/portable/compact.hpp>

#include <cstdint>
#include <string>

namespace sieve {

namespace Impl {
namespace Findall {

/// A findall algorithm, as the public tags (sieve::Auto, ScanScatter,
/// Partitioned, in <sieve/findall.hpp>) describe it. Auto: the space's
/// default — Partitioned on host spaces, ScanScatter with Tuning::Findall's
/// block and items on device spaces.
struct Algorithm {
  enum class Which { Auto, ScanScatter, Partitioned };
  Which which = Which::Auto;
  int block = Tuning::Findall::kBlock; // ScanScatter: block_size
  int items = Tuning::Findall::kItems; // ScanScatter: items_per_thread
};

enum class Kind { ScanScatter, Partitioned };

/// One resolved call shape: the algorithm, the element count, the tiles.
struct Plan {
  Kind kind = Kind::ScanScatter;
  int block = 0, items = 0; // ScanScatter
  int parts = 0;            // Partitioned: the partitions (at most the concurrency)
  std::int64_t n = 0;
  std::int64_t unit = 1;     // elements per unit
  Portable::TileShape shape; // units, units per tile, team size
  bool withMask = true;      // the workspace holds a predicate's mask (n bytes)
  bool withBits = false;     // else: the index form's bits (one 32-bit word per 32 elements)

  std::int64_t tiles() const { return shape.tiles(); }
  /// Bytes of the mask region: n (the predicate's mask), 4 per 32 elements
  /// (the index form's bits), or none. (The next region starts 64-byte
  /// aligned, so an n-byte region also holds the bits: align64(n) >= 4 x
  /// ceil(n / 32) for every n >= 1.)
  std::int64_t maskElems() const { return withMask ? n : (withBits ? 4 * ((n + 31) / 32) : 0); }
  /// Elements per tile.
  std::int64_t tileElems() const { return shape.unitsPerTile * unit; }
  std::size_t bytes() const { return FindallLayout::bytes(maskElems(), tiles(), n); }
  bool operator==(const Plan& o) const {
    return kind == o.kind && block == o.block && items == o.items && parts == o.parts && n == o.n;
  }
  std::string describe() const {
    const std::string a =
        kind == Kind::Partitioned
            ? "Partitioned (" + std::to_string(parts) + " partitions)"
            : "ScanScatter{" + std::to_string(block) + ", " + std::to_string(items) + "}";
    return a + " over n = " + std::to_string(n);
  }
};

template <class Exec>
inline constexpr bool kHostSpace =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

/// ScanScatter{block, items}: block a power of two in [1, 1024], items >= 1,
/// their product at most INT32_MAX.
inline void checkScanScatter(const char* fn, const Algorithm& a) {
  const int b = a.block;
  if (b < 1 || b > 1024 || (b & (b - 1)) != 0)
    fail(fn, "ScanScatter::block_size = " + std::to_string(b) +
                 "; it must be a power of two in [1, 1024]");
  if (a.items < 1)
    fail(fn,
         "ScanScatter::items_per_thread = " + std::to_string(a.items) + "; it must be at least 1");
  if (static_cast<std::int64_t>(b) * a.items > INT32_MAX)
    fail(fn, "ScanScatter block_size x items_per_thread = " +
                 std::to_string(static_cast<std::int64_t>(b) * a.items) +
                 " exceeds INT32_MAX (2147483647)");
}

inline Plan scanScatterPlan(const char* fn, const Algorithm& a, std::int64_t n, bool host) {
  checkScanScatter(fn, a);
  Plan p;
  p.kind = Kind::ScanScatter;
  p.block = a.block;
  p.items = a.items;
  p.n = n;
  p.unit = a.items;
  p.shape.units = (n + p.unit - 1) / p.unit;
  p.shape.unitsPerTile = a.block;
  // One team of block_size threads per tile on devices; on host spaces a
  // tile is one thread's (the tile shape, not the team, fixes the result).
  p.shape.teamSize = host ? 1 : a.block;
  if (p.tiles() > INT32_MAX)
    fail(fn, "ScanScatter{" + std::to_string(a.block) + ", " + std::to_string(a.items) +
                 "} cuts n = " + std::to_string(n) + " into " + std::to_string(p.tiles()) +
                 " tiles, more than INT32_MAX teams; use a larger block_size x items_per_thread");
  return p;
}

inline Plan partitionedPlan(std::int64_t n, int concurrency) {
  Plan p;
  p.kind = Kind::Partitioned;
  p.n = n;
  const std::int64_t byWork = n / Tuning::Findall::kPartitionMin;
  const std::int64_t conc = concurrency < 1 ? 1 : concurrency;
  const std::int64_t parts = byWork < 1 ? 1 : (byWork < conc ? byWork : conc);
  const std::int64_t al = Tuning::Findall::kPartitionAlign;
  std::int64_t len = (n + parts - 1) / parts;
  len = (len + al - 1) / al * al;
  if (len < al) len = al;
  p.unit = len; // one unit per partition: a thread reads it in order
  p.shape.units = (n + len - 1) / len;
  p.shape.unitsPerTile = 1;
  p.shape.teamSize = 1;
  p.parts = static_cast<int>(p.shape.units);
  return p;
}

/// The plan of algorithm `alg` for n elements on exec.
template <class Exec>
Plan planFor(const char* fn, const Exec& exec, const Algorithm& alg, std::int64_t n) {
  constexpr bool host = kHostSpace<Exec>;
  switch (alg.which) {
  case Algorithm::Which::ScanScatter: return scanScatterPlan(fn, alg, n, host);
  case Algorithm::Which::Partitioned:
    if (!host)
      fail(fn, std::string("algorithm Partitioned runs on host execution spaces only, not on ") +
                   Exec::name() + "; use sieve::ScanScatter or sieve::Auto");
    return partitionedPlan(n, static_cast<int>(exec.concurrency()));
  default:
    if constexpr (host) return partitionedPlan(n, static_cast<int>(exec.concurrency()));
    else return scanScatterPlan(fn, Algorithm{}, n, host);
  }
}

} // namespace Findall
} // namespace Impl
} // namespace sieve
