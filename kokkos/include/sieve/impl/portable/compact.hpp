// SPDX-License-Identifier: Apache-2.0
// Sieve (internal) — the portable implementation: compaction (team reduction, tile scan, team
// scan).
//
// The tile machinery (tileCount, tileWrite) is shared by sieve::compact and
// sieve::findall: a tile is a run of "units" (a unit is a few consecutive
// samples a thread takes at once), one team per tile; the count phase folds
// the units' counts per tile (team reduction), the caller scans the tile
// counts, and the write phase places each unit's selected items from its tile
// offset (team scan). What a unit counts and writes is the caller's.
#pragma once

#include <sieve/impl/portable/base.hpp>

namespace sieve {
namespace Impl {
namespace Portable {

/// The shape of a tiled compaction: `units` units, `unitsPerTile` of them per
/// tile (one team each), teams of `teamSize` threads (0: Kokkos::AUTO; a
/// request above what the space allows is clamped; the team size never
/// changes a result).
struct TileShape {
  i64 units = 0;
  i64 unitsPerTile = 1;
  int teamSize = 0;
  i64 tiles() const { return (units + unitsPerTile - 1) / unitsPerTile; }
};

/// Launch `body` over the tiles of `s` (one team per tile).
template <class Exec, class Body>
void launchTiles(const Exec& exec, const std::string& label, const TileShape& s, const Body& body) {
  using Team = Kokkos::TeamPolicy<Exec>;
  const int league = static_cast<int>(s.tiles());
  if (s.teamSize <= 0) {
    Kokkos::parallel_for(label, Team(exec, league, Kokkos::AUTO), body);
    return;
  }
  const Team probe(exec, league, 1);
  const int most = probe.team_size_max(body, Kokkos::ParallelForTag());
  const int size = s.teamSize < most ? s.teamSize : (most < 1 ? 1 : most);
  Kokkos::parallel_for(label, Team(exec, league, size), body);
}

/// Count phase: `store(t, c)` receives the fold (+) of `unitCount(u)` (a C)
/// over the units of tile t.
template <class C, class Exec, class UnitCount, class Store>
void tileCount(const Exec& exec, const std::string& label, const TileShape& s,
               const UnitCount& unitCount, const Store& store) {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  const i64 units = s.units, per = s.unitsPerTile;
  launchTiles(
      exec, label, s, KOKKOS_LAMBDA(const Member& m) {
        const i64 u0 = static_cast<i64>(m.league_rank()) * per;
        const i64 u1 = u0 + per < units ? u0 + per : units;
        C sum = 0;
        if (m.team_size() == 1) {
          for (i64 u = u0; u < u1; ++u) sum += unitCount(u);
        } else {
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, u0, u1), [&](const i64 u, C& acc) { acc += unitCount(u); },
              sum);
        }
        Kokkos::single(Kokkos::PerTeam(m), [&]() { store(m.league_rank(), sum); });
      });
}

/// Write phase: unit u of tile t writes its items from `base(t)` plus the
/// counts of the units before it in the tile: `unitWrite(u, pos)` writes them
/// and returns their number (a C); `unitCount(u)` returns it without writing.
/// A team of one walks its units in order (each unit read once).
template <class Exec, class Base, class UnitCount, class UnitWrite>
void tileWrite(const Exec& exec, const std::string& label, const TileShape& s, const Base& base,
               const UnitCount& unitCount, const UnitWrite& unitWrite) {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using C = std::decay_t<decltype(base(0))>;
  const i64 units = s.units, per = s.unitsPerTile;
  launchTiles(
      exec, label, s, KOKKOS_LAMBDA(const Member& m) {
        const i64 u0 = static_cast<i64>(m.league_rank()) * per;
        const i64 u1 = u0 + per < units ? u0 + per : units;
        const C b = base(m.league_rank());
        if (m.team_size() == 1) {
          C pos = b;
          for (i64 u = u0; u < u1; ++u) pos += unitWrite(u, pos);
        } else {
          Kokkos::parallel_scan(Kokkos::TeamThreadRange(m, u0, u1),
                                [&](const i64 u, C& upd, const bool final) {
                                  const C c = final ? unitWrite(u, b + upd) : unitCount(u);
                                  upd += c;
                                });
        }
      });
}

/// Compact mask[0, n) into map: per tile, count kept samples and live groups
/// (team reduction over groups); scan the tiles; per tile, write the indices
/// (team scan over groups). Words are raw pointers into the space's memory.
template <class Exec, class MaskView, class MapView>
void compact(const Exec& exec, const std::string& label, const MaskView& mask, std::uint32_t flags,
             const MapView& map, std::uint32_t* count, void* scratch, const ReorderTrigger* trig,
             i64 n) {
  const bool hasTrig = trig != nullptr;
  const ReorderTrigger t = hasTrig ? *trig : ReorderTrigger{};
  // Every kernel's label first: nothing is allocated once a kernel wrote
  // (a failure between two kernels would leave the count and the map apart).
  const std::string countLabel = label + "::count", writeLabel = label + "::write",
                    offsetsLabel = label + "::offsets";
  if (n == 0) {
    Kokkos::parallel_for(
        label + "::empty", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(i64) {
          *count = 0u;
          if (hasTrig) {
            *t.live32 = 0u;
            *t.fire = triggerFires(0u, 0u, *t.span, t.theta);
          }
        });
    return;
  }
  const i64 ngroups = groups32(n);
  if constexpr (kSequential<Exec>) {
    // Sequential: the count pass reads the mask once (a word at a time where
    // it is contiguous), keeping its keep bits in the scratch (one uint32
    // per 32 samples); the write pass reads only the bits.
    std::uint32_t* bits = carve<std::uint32_t>(scratch, CompactLayout::sequentialBits(n));
    const std::uint8_t* maskBytes = contiguousBytes(mask);
    runOnce(exec, countLabel, [=]() {
      std::uint32_t kept = 0, live = 0;
      for (i64 g = 0; g < ngroups; ++g) {
        const std::uint32_t b = hostKeepBits(mask, maskBytes, g * 32, n, flags);
        bits[g] = b;
        kept += static_cast<std::uint32_t>(popcount32(b));
        live += b != 0u ? 1u : 0u;
      }
      *count = kept;
      if (hasTrig) {
        *t.live32 = live;
        *t.fire = triggerFires(kept, live, *t.span, t.theta);
      }
    });
    runOnce(exec, writeLabel, [=]() {
      i64 pos = 0;
      for (i64 g = 0; g < ngroups; ++g) {
        const std::uint32_t b = bits[g];
        const auto first = static_cast<std::int32_t>(g * 32);
        if (b == 0xFFFFFFFFu) {
          for (std::int32_t j = 0; j < 32; ++j) map(pos + j) = first + j;
          pos += 32;
        } else {
          for (std::uint32_t r = b; r != 0u; r &= r - 1u) map(pos++) = first + ctz32(r);
        }
      }
    });
    return;
  }
  const i64 ntiles = CompactLayout::portableTiles(n);
  std::uint32_t* tileKept = carve<std::uint32_t>(scratch, CompactLayout::portableTileKept(ntiles));
  std::uint32_t* tileLive = carve<std::uint32_t>(scratch, CompactLayout::portableTileLive(ntiles));
  std::uint32_t* tileOff = carve<std::uint32_t>(scratch, CompactLayout::portableTileOff(ntiles));
  const TileShape shape{ngroups, kTileGroups, 0};
  // The count phase keeps each group's keep bits, after the tile words,
  // where the scratch has room (every n but 1): the write phase then reads
  // one word per group instead of its 32 mask bytes.
  const ScratchRegion bitsRegion = CompactLayout::portableBits(n);
  std::uint32_t* gbits = bitsRegion.bytes > 0 ? carve<std::uint32_t>(scratch, bitsRegion) : nullptr;

  // kept in the low word, live groups in the high word
  tileCount<std::uint64_t>(
      exec, countLabel, shape,
      KOKKOS_LAMBDA(const i64 g) {
        const std::uint32_t bits = groupKeepBits(MaskAt{mask}, g * 32, n, flags);
        if (gbits != nullptr) gbits[g] = bits;
        return static_cast<std::uint64_t>(popcount32(bits)) +
               (static_cast<std::uint64_t>(bits != 0u) << 32);
      },
      KOKKOS_LAMBDA(const int k, const std::uint64_t sum) {
        tileKept[k] = static_cast<std::uint32_t>(sum & 0xFFFFFFFFu);
        tileLive[k] = static_cast<std::uint32_t>(sum >> 32);
      });

  Kokkos::parallel_scan(
      offsetsLabel, Range<Exec>(exec, 0, ntiles),
      KOKKOS_LAMBDA(const i64 k, std::uint64_t& upd, const bool final) {
        // kept in the low word, live groups in the high word (no carry: the
        // kept total is below 2^31)
        const std::uint64_t v = tileKept[k] | (static_cast<std::uint64_t>(tileLive[k]) << 32);
        if (final) {
          tileOff[k] = static_cast<std::uint32_t>(upd & 0xFFFFFFFFu);
          if (k == ntiles - 1) {
            const std::uint64_t total = upd + v;
            const auto kept = static_cast<std::uint32_t>(total & 0xFFFFFFFFu);
            *count = kept;
            if (hasTrig) {
              const auto live = static_cast<std::uint32_t>(total >> 32);
              *t.live32 = live;
              *t.fire = triggerFires(kept, live, *t.span, t.theta);
            }
          }
        }
        upd += v;
      });

  const auto groupBits = KOKKOS_LAMBDA(const i64 g) {
    return gbits != nullptr ? gbits[g] : groupKeepBits(MaskAt{mask}, g * 32, n, flags);
  };
  tileWrite(
      exec, writeLabel, shape, KOKKOS_LAMBDA(const int k) { return tileOff[k]; },
      KOKKOS_LAMBDA(const i64 g) { return static_cast<std::uint32_t>(popcount32(groupBits(g))); },
      KOKKOS_LAMBDA(const i64 g, const std::uint32_t at) {
        const std::uint32_t bits = groupBits(g);
        i64 pos = at;
        for (std::uint32_t b = bits; b != 0u; b &= b - 1u)
          map(pos++) = static_cast<std::int32_t>(g * 32 + ctz32(b));
        return static_cast<std::uint32_t>(popcount32(bits));
      });
}

} // namespace Portable
} // namespace Impl
} // namespace sieve
