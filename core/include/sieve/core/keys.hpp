// SPDX-License-Identifier: Apache-2.0
// Sieve — the backend-neutral rules of sieve::keys: the key id of a dense
// key, the key-range checks, the chunks of the stable counting sort,
// the radix digits of the sparse sort, and the element-balanced split of the
// key ids. Header-only, no Kokkos; the arithmetic is host and device callable,
// the checks are host only and throw std::invalid_argument.
#pragma once

#include <sieve/core/macros.hpp>
#include <sieve/core/tuning.hpp>
#include <sieve/core/validate.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {

/// The most keys a dense key range may hold: its offsets (keys + 1 words) are
/// scanned by sieve's scan, whose limit is INT32_MAX elements.
inline constexpr std::int64_t kMaxDenseKeys = 2147483646;
/// The most elements a sparse scatter takes: its start flags (n + 1 words)
/// are scanned by sieve's scan.
inline constexpr std::int64_t kMaxSparseElements = 2147483646;

/// A dense key type: an integer type other than bool.
template <class K>
inline constexpr bool kIntegralKey = std::is_integral_v<K> && !std::is_same_v<K, bool>;

/// The distance `key - min` of two integers as an unsigned 64-bit word, exact
/// for every pair with min <= key (also across the sign, e.g. INT64_MIN to
/// INT64_MAX). The key id of a dense key; the radix word of a sparse one.
template <class K>
SIEVE_INLINE constexpr std::uint64_t keyDistance(K key, K min) {
  using U = std::make_unsigned_t<K>;
  return static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(key) - static_cast<U>(min)));
}

/// The key range [min, max] of a dense scatter must be ordered and hold at
/// most kMaxDenseKeys keys. Returns the number of keys.
template <class K>
std::int64_t checkKeyRange(const char* fn, K min, K max) {
  if (max < min)
    fail(fn, "min_key = " + std::to_string(min) + " is greater than max_key = " +
                 std::to_string(max) + "; the key range [min_key, max_key] must not be empty");
  const std::uint64_t span = keyDistance(max, min);
  if (span >= static_cast<std::uint64_t>(kMaxDenseKeys))
    fail(fn, "the key range [" + std::to_string(min) + ", " + std::to_string(max) + "] holds " +
                 std::to_string(span) + " + 1 keys; a dense scatter takes at most " +
                 std::to_string(kMaxDenseKeys) + " (use scatter_sparse for sparse keys)");
  return static_cast<std::int64_t>(span) + 1;
}

/// Whether `v` (a min_key or max_key argument) is a value of the key type K
/// (an integer type): an integer within K's limits, or an integral floating
/// value within them. Other types convert as the caller's static_cast does.
template <class K, class T>
bool isKeyValue(const T& v) {
  using L = std::numeric_limits<K>;
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T> && std::is_signed_v<K>) return v >= L::min() && v <= L::max();
    else if constexpr (!std::is_signed_v<T> && !std::is_signed_v<K>)
      return v <= L::max(); // (both unsigned: no lower bound to test)
    else if constexpr (std::is_signed_v<T>)
      return v >= 0 && static_cast<std::make_unsigned_t<T>>(v) <= L::max();
    else return v <= static_cast<std::make_unsigned_t<K>>(L::max());
  } else if constexpr (std::is_floating_point_v<T>) {
    const long double x = static_cast<long double>(v);
    // K's values are [-2^digits, 2^digits) signed, [0, 2^digits) unsigned:
    // powers of two, exact in every floating type.
    const long double top = std::ldexp(1.0L, L::digits);
    const long double bottom = std::is_signed_v<K> ? -top : 0.0L;
    return x == x && x >= bottom && x < top && std::trunc(x) == x;
  } else {
    return true;
  }
}

/// A min_key / max_key argument must be a value of the key type: never
/// silently truncated to another range.
template <class K, class T>
void checkKeyValue(const char* fn, const char* name, const T& v) {
  if (isKeyValue<K>(v)) return;
  std::string value;
  if constexpr (std::is_arithmetic_v<T>) value = " = " + std::to_string(v);
  fail(fn, std::string(name) + value + " is not a value of the key type [" +
               std::to_string(std::numeric_limits<K>::min()) + ", " +
               std::to_string(std::numeric_limits<K>::max()) +
               "]; it would be truncated to another range");
}

/// Every key of a dense scatter must lie in its range: nothing is written
/// when one does not.
inline void checkKeysInRange(const char* fn, std::int64_t outside, const std::string& range) {
  if (outside > 0)
    fail(fn, std::to_string(outside) + " element key(s) lie outside the key range " + range +
                 "; nothing was written");
}

/// Whether the range is to blame when a dense key range's histograms cannot
/// be allocated: more keys than elements, and over 2^20 of them (a range of
/// mostly empty keys). Otherwise the memory is, and the failure stays one.
inline bool rangeExplainsAllocationFailure(std::int64_t keys, std::int64_t elements) {
  return keys > elements && keys > (std::int64_t(1) << 20);
}

/// Called from the handler of a failed allocation of a dense key range's
/// histograms (`what`: the allocator's message): a range to blame is an
/// argument error; otherwise the allocation failure is rethrown as it is.
template <class K>
[[noreturn]] void failRangeTooLarge(const char* fn, K min, K max, std::int64_t keys,
                                    std::int64_t elements, const char* what) {
  if (!rangeExplainsAllocationFailure(keys, elements)) throw;
  fail(fn, "the key range [" + std::to_string(min) + ", " + std::to_string(max) + "] of " +
               std::to_string(keys) +
               " keys is too large: its histograms could not be allocated (" + what +
               "); nothing was written (use scatter_sparse for sparse keys)");
}

/// The output of a scatter must hold every element.
inline void checkOutputHolds(const char* fn, std::int64_t extent, std::int64_t elements) {
  if (extent < elements)
    fail(fn, "output.extent(0) = " + std::to_string(extent) + " is smaller than the " +
                 std::to_string(elements) + " elements of the input; nothing was written");
}

/// The chunks of a stable counting sort of `records` records into `buckets`
/// buckets on a space of `concurrency` threads: one chunk per thread, at least
/// kMinChunk records each, and per-chunk histograms of at most about
/// Tuning::Portable::kCountingHistogramRatio (2) times the records plus the
/// buckets. The sort's output does not depend on it (a stable sort's output
/// is unique).
inline constexpr std::int64_t kMinChunk = Tuning::Portable::kCountingMinChunk;
SIEVE_INLINE constexpr std::int64_t countingChunks(std::int64_t records, std::int64_t buckets,
                                                   std::int64_t concurrency) {
  std::int64_t c = concurrency > 0 ? concurrency : 1;
  const std::int64_t bySize = (records + kMinChunk - 1) / kMinChunk;
  if (bySize < c) c = bySize;
  const std::int64_t byMemory =
      buckets > 0 ? Tuning::Portable::kCountingHistogramRatio * (records + buckets) / buckets : c;
  if (byMemory < c) c = byMemory;
  return c > 0 ? c : 1;
}

/// Radix digits of the sparse sort of integer keys: the bits of the largest
/// key distance, in passes of at most kRadixBits bits, split evenly.
inline constexpr int kRadixBits = Tuning::Portable::kSparseRadixBits;
SIEVE_INLINE constexpr int radixTotalBits(std::uint64_t span) { return bitWidth(span); }
SIEVE_INLINE constexpr int radixPasses(std::uint64_t span) {
  return (radixTotalBits(span) + kRadixBits - 1) / kRadixBits;
}
SIEVE_INLINE constexpr int radixPassBits(std::uint64_t span) {
  const int p = radixPasses(span);
  return p == 0 ? 0 : (radixTotalBits(span) + p - 1) / p;
}

/// The element-balanced split of key ids into `parts` ranges: part p starts
/// at the first key id k whose weight offsets[k] + k reaches p * (n + keys) /
/// parts (elements and keys both cost), so a range holds about (n + keys) /
/// parts of them; a key is never split.
SIEVE_INLINE constexpr std::int64_t splitTarget(std::int64_t p, std::int64_t parts, std::int64_t n,
                                                std::int64_t keys) {
  // (n + keys) * p may overflow for huge n: split the product.
  const std::int64_t w = n + keys;
  return (w / parts) * p + (w % parts) * p / parts;
}

/// The fixed fold order of sieve::keys::reduce_by_key: the element positions
/// are cut at the multiples of kFoldPiece (whatever the backend or thread
/// count); each piece of a key is folded left to right from its first value,
/// and the key's result is init, then its pieces in order. foldPieces(n): the
/// pieces of n positions.
inline constexpr std::int64_t kFoldPiece = 2048;
SIEVE_INLINE constexpr std::int64_t foldPieces(std::int64_t n) {
  return (n + kFoldPiece - 1) / kFoldPiece;
}
/// A key of more elements is folded piece by piece in parallel (the same
/// order: it only decides who computes it).
inline constexpr std::int64_t kFoldBigKey = Tuning::Portable::kFoldBigKeyPieces * kFoldPiece;
/// The scratch of a fold over n positions: a value per piece twice over
/// (each piece's first and last partial fold), none when no key can be big.
SIEVE_INLINE constexpr std::int64_t foldScratchPieces(std::int64_t n) {
  return n <= kFoldBigKey ? 0 : foldPieces(n);
}

} // namespace Keys
} // namespace Impl
} // namespace sieve
