// SPDX-License-Identifier: Apache-2.0
// Sieve — the host selection kernels under sieve::findall's OpenMP face: the
// items of the selected samples of a range written in order, on the calling
// thread (host memory).
#pragma once

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

} // namespace sieve
