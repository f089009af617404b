// SPDX-License-Identifier: Apache-2.0
// Sieve — radixOrderHost, the OpenMP stable radix order of 64-bit unsigned
// keys (host memory).
#pragma once

#include <sieve/core/radix.hpp>
#include <sieve/native/host/team.hpp>

#include <cstddef>
#include <cstdint>

namespace sieve {

/// The stable ascending order of `n` 64-bit unsigned keys: order[p] = the
/// index i of the p-th key when the keys are sorted by value, equal keys in
/// index order (so the result is unique: the same bytes on every team size).
/// Every key must be < 2^bits, bits in [0, 64] (pass the bit width of the
/// largest key; 0: all keys are 0 and order is the identity).
///
/// Keys whose varying bits span more than one byte: one read of the keys
/// (OR, AND, histogram of the top 8-10 varying bits), one stable scatter by
/// that top digit, then each run of one top digit (~4 Ki keys up to
/// 2^22 keys, ~n / 2^10 beyond) sorted by
/// the bits below in cache (LSD, 8-bit digits) into `order`: two reads and
/// two writes of the keys whatever their width. Skewed keys (one top digit
/// holding over n / (4 x threads) of them or 2^18) and keys whose varying
/// bits fit one byte: LSD radix with 8-bit digits, one stable scatter pass
/// per byte that is not the same in every key (random 64-bit keys: 8
/// passes; all keys equal: none, the identity). Scatters go through
/// per-bucket buffers of whole cache lines (non-temporal stores for large
/// n). `scratch` holds radix_order_scratch_bytes(n) bytes (any alignment;
/// contents internal); `order` also serves as a key plane between passes.
/// Besides, each call allocates ~280 KiB of heap per thread, and on the
/// top-digit order ~32-40 bytes a key of the largest run a thread sorts (at
/// most ~10 MiB). O(n * passes), blocking, on `team` (its own parallel
/// region; fewer threads for n below 2^14 per thread). Deterministic: the
/// result is unique.
///
/// Throws std::invalid_argument, with nothing written, for n < 0, bits
/// outside [0, 64], null or misaligned (8 bytes) keys / order while n > 0, a
/// null scratch or scratchBytes < radix_order_scratch_bytes(n), keys, order
/// and scratch sharing a byte, or a key >= 2^bits (found by the counting
/// read, before any byte is written).
void radixOrderHost(const HostTeam& team, const std::uint64_t* keys, std::int64_t n, int bits,
                    std::int64_t* order, void* scratch, std::size_t scratchBytes);

namespace Impl {
/// radixOrderHost with index planes of `indexBytes` bytes (4 or 8, at least
/// radixIndexBytes(n)) in a scratch of Impl::radixOrderScratchBytes(n,
/// indexBytes) bytes: radixOrderHost is this at radixIndexBytes(n). The
/// 8-byte planes, which only 2^32 keys and more take, so run at any n (the
/// tests: no test machine sorts 2^32 keys). The same result and the same
/// throws as radixOrderHost (messages naming `fn`), and for a bad indexBytes.
void radixOrderHostIndexBytes(const HostTeam& team, const std::uint64_t* keys, std::int64_t n,
                              int bits, std::int64_t* order, void* scratch,
                              std::size_t scratchBytes, std::size_t indexBytes, const char* fn);
} // namespace Impl

} // namespace sieve
