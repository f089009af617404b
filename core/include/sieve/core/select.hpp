// SPDX-License-Identifier: Apache-2.0
// Sieve — one selection (sieve::findall's native write), described once for
// every face: which samples (a byte mask), what is written for each (its
// int64 or int32 index, or its value of 1, 2, 4 or 8 bytes), where (a result
// of `cap` items) and the count word. The host twin (native/host/select.hpp)
// and the CUDA kernel (native/cuda/select.hpp) take this description.
#pragma once

#include <sieve/core/check.hpp>
#include <sieve/core/layout.hpp>
#include <sieve/core/macros.hpp>
#include <sieve/core/tuning.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sieve {

/// What a selection writes for a selected sample k.
enum class SelectItem : std::uint32_t {
  Index64 = 0, ///< k as std::int64_t
  Index32 = 1, ///< k as std::int32_t (every k < 2^31)
  Value = 2    ///< values[k], elemBytes bytes copied bit for bit
};

/// One selection: every sample k of [0, n) whose mask byte is non-zero, in
/// order, its item stored at out[0], out[1], ... up to out[cap - 1] (items
/// past `cap` are counted, never stored); `*count` = the number selected
/// (all of them, also those past cap). Arrays in the memory of the face that
/// runs it; none needs aligning to its item size (bytes are
/// placed as memcpy would).
struct SelectSpec {
  const std::uint8_t* mask = nullptr;
  std::int64_t n = 0;
  SelectItem item = SelectItem::Index64;
  const void* values = nullptr; ///< Value: n elements of elemBytes bytes
  std::uint32_t elemBytes = 8;  ///< bytes of one item: 8 (Index64), 4 (Index32), 1/2/4/8 (Value)
  void* out = nullptr;
  std::int64_t cap = 0;
  std::int64_t* count = nullptr;
};

/// Where a selection's mask bytes come from when they are not an array (a
/// face that supports it): a callback that writes the bytes of samples
/// [a, b) (non-zero selects) to dst[0, b - a), called once per sample, block
/// by block, on the face's threads; `ctx` is passed through. (sieve::findall's
/// predicate form on the host: the predicate is evaluated into a block that
/// stays in the cache, never into an n-byte mask.)
struct SelectMaskFill {
  void (*fill)(const void* ctx, std::int64_t a, std::int64_t b, std::uint8_t* dst) = nullptr;
  const void* ctx = nullptr;
};

namespace Impl {
/// The item size a selection of `item` over elements of `elemBytes` bytes
/// writes (0 for an element size no face supports).
SIEVE_INLINE constexpr std::uint32_t selectItemBytes(SelectItem item, std::uint32_t elemBytes) {
  return item == SelectItem::Index64                                                  ? 8u
         : item == SelectItem::Index32                                                ? 4u
         : (elemBytes == 1u || elemBytes == 2u || elemBytes == 4u || elemBytes == 8u) ? elemBytes
                                                                                      : 0u;
}

} // namespace Impl

} // namespace sieve
