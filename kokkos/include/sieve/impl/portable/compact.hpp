// Sieve (internal) — the portable implementation: compaction (team reduction, tile scan, team scan).
#pragma once

#include <sieve/impl/portable/base.hpp>

namespace sieve {
namespace Impl {
namespace Portable {


/// Compact mask[0, n) into map: per tile, count kept samples and live groups
/// (team reduction over groups); scan the tiles; per tile, write the indices
/// (team scan over groups). Words are raw pointers into the space's memory.
template <class Exec, class MaskView, class MapView>
void compact(const Exec& exec, const std::string& label, const MaskView& mask, std::uint32_t flags, const MapView& map,
             std::uint32_t* count, void* scratch, const ReorderTrigger* trig, i64 n) {
  using Team = Kokkos::TeamPolicy<Exec>;
  using Member = typename Team::member_type;
  const bool hasTrig = trig != nullptr;
  const ReorderTrigger t = hasTrig ? *trig : ReorderTrigger{};
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
  const i64 ntiles = CompactLayout::portableTiles(n);
  std::uint32_t* tileKept = carve<std::uint32_t>(scratch, CompactLayout::portableTileKept(ntiles));
  std::uint32_t* tileLive = carve<std::uint32_t>(scratch, CompactLayout::portableTileLive(ntiles));
  std::uint32_t* tileOff = carve<std::uint32_t>(scratch, CompactLayout::portableTileOff(ntiles));

  Kokkos::parallel_for(
      label + "::count", Team(exec, static_cast<int>(ntiles), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& m) {
        const i64 g0 = m.league_rank() * kTileGroups;
        const i64 g1 = g0 + kTileGroups < ngroups ? g0 + kTileGroups : ngroups;
        std::uint64_t sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, g0, g1),
            [&](const i64 g, std::uint64_t& acc) {
              const std::uint32_t bits =
                  groupKeepBits([&](i64 i) { return mask(i); }, g * 32, n, flags);
              acc += static_cast<std::uint64_t>(popcount32(bits)) +
                     (static_cast<std::uint64_t>(bits != 0u) << 32);
            },
            sum);
        Kokkos::single(Kokkos::PerTeam(m), [&]() {
          tileKept[m.league_rank()] = static_cast<std::uint32_t>(sum & 0xFFFFFFFFu);
          tileLive[m.league_rank()] = static_cast<std::uint32_t>(sum >> 32);
        });
      });

  Kokkos::parallel_scan(
      label + "::offsets", Range<Exec>(exec, 0, ntiles),
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

  Kokkos::parallel_for(
      label + "::write", Team(exec, static_cast<int>(ntiles), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& m) {
        const i64 g0 = m.league_rank() * kTileGroups;
        const i64 g1 = g0 + kTileGroups < ngroups ? g0 + kTileGroups : ngroups;
        const auto base = static_cast<i64>(tileOff[m.league_rank()]);
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(m, g0, g1),
                              [&](const i64 g, std::uint32_t& upd, const bool final) {
                                const std::uint32_t bits = groupKeepBits(
                                    [&](i64 i) { return mask(i); }, g * 32, n, flags);
                                if (final) {
                                  i64 pos = base + upd;
                                  for (std::uint32_t b = bits; b != 0u; b &= b - 1u)
                                    map(pos++) = static_cast<std::int32_t>(g * 32 + ctz32(b));
                                }
                                upd += static_cast<std::uint32_t>(popcount32(bits));
                              });
      });
}


} // namespace Portable
} // namespace Impl
} // namespace sieve
