// SPDX-License-Identifier: Apache-2.0
// Sieve — the host selection kernels under sieve::findall's OpenMP face: the
// items of the selected samples of a range written in order, on the calling
// thread (host memory).
#pragma once

#include <sieve/core/select.hpp>
#include <sieve/native/host/team.hpp>

#include <cstdint>

namespace sieve {

/// Write, in order, the index k (int64) of every sample k of [a, b) whose
/// mask byte is non-zero to out[pos], out[pos + 1], ..., stopping before
/// out[end]. `end - pos` is meant to be their number (a count of the same
/// range); if the mask selects more, the extra items are not written, and no
/// byte outside out[pos, end) is ever written.
///
/// Runs on the calling thread (call it from each thread of your own parallel
/// region on disjoint ranges). O(b - a), vectorised (AVX-512 where the CPU
/// has it). With `stream`, whole cache lines of the output are written with
/// non-temporal stores (for outputs far larger than the cache; ordered by a
/// store fence before returning). `out` needs no alignment (bytes are placed
/// as a memcpy would). Throws std::invalid_argument for a > b,
/// pos > end, or a null array that would be addressed.
void selectIndicesHost(const std::uint8_t* mask, std::int64_t a, std::int64_t b, std::int64_t* out,
                       std::int64_t pos, std::int64_t end, bool stream);

/// selectIndicesHost writing the indices as std::int32_t. Throws as
/// selectIndicesHost, and for b > 2^31 (an index past INT32_MAX).
void selectIndices32Host(const std::uint8_t* mask, std::int64_t a, std::int64_t b,
                         std::int32_t* out, std::int64_t pos, std::int64_t end, bool stream);

/// selectIndicesHost writing values[k] (elements of `elemBytes` bytes: 1, 2,
/// 4 or 8, copied bit for bit) instead of k; `out` holds elements of the same
/// size; neither needs aligning to it. Throws as above, and for any other
/// element size.
void selectValuesHost(const std::uint8_t* mask, std::int64_t a, std::int64_t b, const void* values,
                      std::uint32_t elemBytes, void* out, std::int64_t pos, std::int64_t end,
                      bool stream);

/// One whole selection (core/select.hpp) on the threads of `team`, in one
/// pass over the mask: each thread takes a block of kSelectBlock samples
/// (half as many for 8-byte values), selects its items once into a staging
/// array the L2 keeps (indices block-relative as int32, values as they are),
/// learns the block's offset from their number and the blocks before it
/// (BlockPrefix, a look-back: no barrier) and writes them there. When
/// min(cap, n) items take kSelectStreamBytes or more, the result's whole
/// cache lines are written with non-temporal stores where the instruction
/// set and the result's alignment allow.
/// With `fill`, the mask bytes come from it (s.mask is ignored and may be
/// null). Items past s.cap are counted, not written; *s.count = the number
/// selected. Host memory; returns when done. O(n).
/// Throws std::invalid_argument (nothing written) for n < 0, cap < 0, a null
/// array that would be addressed, an item kind / element size other than
/// core/select.hpp allows, Index32 with n > 2^31, or arrays that overlap.
void selectHost(const HostTeam& team, const SelectSpec& s, const SelectMaskFill* fill = nullptr);

namespace Impl {
/// selectHost without its checks (the Kokkos face checks before it calls).
void selectHostChecked(const HostTeam& team, const SelectSpec& s, const SelectMaskFill* fill);
} // namespace Impl

} // namespace sieve
