// SPDX-License-Identifier: Apache-2.0
// Sieve — selectIndicesHost / selectIndices32Host / selectValuesHost: a select kernel
// (kernels_*.cpp) fills a small buffer in L1 chunk by chunk, and whole cache lines of it go to the
// output, with non-temporal stores when asked (an output far larger than the cache is then written
// without first being read for ownership). The buffer starts at the same offset within a line as
// the output, so every line it holds maps onto one line of the output; the lines the output only
// partly covers (its first and last) are written byte-exactly, and nothing
// outside [pos, end) is ever written.
#include <sieve/core/tuning.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/host/lines.hpp>
#include <sieve/native/host/select.hpp>

#include "kernels.hpp"

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace sieve {
namespace Impl {
namespace {

constexpr std::int64_t kLine = kHostLine;

/// The output of one select call, [begin, end) in bytes from `out`.
class LineSink {
 public:
  LineSink(unsigned char* out, std::int64_t begin, std::int64_t end, bool stream)
      : end_(out + end), stream_(stream) {
    const auto at = reinterpret_cast<std::uintptr_t>(out + begin);
    fill_ = head_ = static_cast<std::int64_t>(at % kLine);
    line_ = at - static_cast<std::uintptr_t>(fill_);
  }
  /// Where the next items go (room for kSelectChunk 8-byte items and the slack).
  unsigned char* cursor() { return buf_ + fill_; }
  void advance(std::int64_t bytes) {
    fill_ += bytes;
    if (fill_ >= kFlushAt) flush(false);
  }
  void finish() {
    flush(true);
    if (streamed_) storeFence();
  }

 private:
  static constexpr std::int64_t kFlushAt = kSelectChunk * 8;

  /// Write the buffer's whole lines (all of it with `all`) and keep the rest:
  /// [head_, upto) of the buffer is [line_ + head_, line_ + upto) of the
  /// output, clipped to its end; whole lines stream when asked, the rest
  /// (the output's partial first and last lines) is copied byte-exactly.
  void flush(bool all) {
    const std::int64_t upto = all ? fill_ : fill_ / kLine * kLine;
    const auto room = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(end_) - line_);
    const std::int64_t hi =
        upto < room ? upto : room; // never past the output, whatever the mask said
    const std::int64_t lo = head_;
    auto* d = reinterpret_cast<unsigned char*>(line_);
    if (lo < hi) {
      const auto bytes = static_cast<std::size_t>(hi - lo);
      if (stream_) streamed_ |= copyLines<true>(d + lo, buf_ + lo, bytes);
      else std::memcpy(d + lo, buf_ + lo, bytes);
    }
    if (upto > 0) {
      std::memcpy(buf_, buf_ + upto, static_cast<std::size_t>(fill_ - upto));
      line_ += static_cast<std::uintptr_t>(upto);
      fill_ -= upto;
      head_ = 0;
    }
  }

  alignas(64) unsigned char buf_[2 * kFlushAt + 2 * kLine];
  std::uintptr_t line_ = 0; // the output address of buf_[0] (line-aligned)
  std::int64_t fill_ = 0;   // bytes of buf_ in use, from buf_[0]
  std::int64_t head_ = 0;   // buf_[0, head_) is not the output's (its first line)
  unsigned char* end_;
  bool stream_ = false, streamed_ = false;
};

void checkSelect(const char* fn, const std::uint8_t* mask, std::int64_t a, std::int64_t b,
                 const void* out, std::int64_t pos, std::int64_t end) {
  if (a < 0 || b < a)
    fail(fn, "the range [a, b) = [" + std::to_string(a) + ", " + std::to_string(b) +
                 ") must have 0 <= a <= b");
  if (pos < 0 || end < pos)
    fail(fn, "the output slots [pos, end) = [" + std::to_string(pos) + ", " + std::to_string(end) +
                 ") must have 0 <= pos <= end");
  if (b > a && mask == nullptr) fail(fn, "mask is null");
  if (end > pos && out == nullptr) fail(fn, "out is null");
}

template <class Fill>
void selectRun(std::int64_t a, std::int64_t b, unsigned char* out, std::int64_t pos,
               std::int64_t end, std::uint32_t size, bool stream, const Fill& fill) {
  if (end == pos) return;
  LineSink sink(out, pos * size, end * size, stream);
  for (std::int64_t i = a; i < b; i += kSelectChunk) {
    const std::int64_t len = b - i < kSelectChunk ? b - i : kSelectChunk;
    sink.advance(fill(i, len, sink.cursor()) * size);
  }
  sink.finish();
}

/// The indices of the selected samples of a block (mask bytes m[0, len)),
/// relative to its start, into stage; returns how many. One read of the mask.
std::int64_t stageIndices(const HostKernels& kern, const std::uint8_t* m, std::int64_t len,
                          std::int32_t* stage) {
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < len; i += kSelectChunk)
    kept +=
        kern.selectIndices32(m, i, len - i < kSelectChunk ? len - i : kSelectChunk, stage + kept);
  return kept;
}

/// The values (elements of w bytes from v) of the selected samples of a block
/// (mask bytes m[0, len)) into stage; returns how many. One read of each.
std::int64_t stageValues(const HostKernels& kern, const std::uint8_t* m, const unsigned char* v,
                         std::uint32_t w, std::int64_t len, unsigned char* stage) {
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < len; i += kSelectChunk)
    kept += kern.selectValues(m, i, len - i < kSelectChunk ? len - i : kSelectChunk, v, w,
                              stage + kept * w);
  return kept;
}

/// Bytes a block's selected items take in the staging array, at most: int32
/// indices (Index64 is widened when written), values as they are.
std::uint32_t stagedBytes(const SelectSpec& s) {
  return s.item == SelectItem::Value ? s.elemBytes : 4u;
}

/// Samples of one block of selectHost: kSelectBlock, fewer for 8-byte values,
/// so that a block's staging array stays at 4 * kSelectBlock bytes.
std::int64_t selectBlockSamples(const SelectSpec& s) {
  constexpr std::int64_t B = Tuning::Host::kSelectBlock;
  return stagedBytes(s) <= 4u ? B : B * 4 / stagedBytes(s);
}

/// Round r of thread t takes block r * T + t (its mask bytes from the array
/// or the fill): its items are selected once (one read of its mask and
/// values) into a staging array the L2 keeps: indices block-relative (int32),
/// values as they are. Their number gives the block's offset from the blocks
/// before it (BlockPrefix: no barrier a round), and they are written there
/// (indices offset, and widened to int64 where asked).
void selectTeamBody(const TeamCtx& t, const HostKernels& kern, const SelectSpec& s,
                    const SelectMaskFill* fill, BlockPrefix& prefix, bool stream) {
  const std::int64_t B = selectBlockSamples(s);
  const std::int64_t n = s.n, blocks = (n + B - 1) / B;
  const bool indices = s.item != SelectItem::Value;
  const std::uint32_t w = s.elemBytes; // of an item of the result
  const Aligned own(fill != nullptr ? static_cast<std::size_t>(B) : 0);
  const Aligned stage(static_cast<std::size_t>(B * stagedBytes(s) + kSelectSlack));
  auto* out = static_cast<unsigned char*>(s.out);
  for (std::int64_t blk = t.id; blk < blocks; blk += t.size) {
    const std::int64_t a = blk * B, b = a + B < n ? a + B : n;
    // The block's mask bytes, m[0, b - a).
    const std::uint8_t* m = own.p;
    if (fill != nullptr) fill->fill(fill->ctx, a, b, own.p);
    else m = s.mask + a;
    const std::int64_t kept =
        indices ? stageIndices(kern, m, b - a, reinterpret_cast<std::int32_t*>(stage.p))
                : stageValues(kern, m, static_cast<const unsigned char*>(s.values) + a * w, w,
                              b - a, stage.p);
    const std::int64_t pos = prefix.exclusive(blk, kept);
    if (kept == 0 || pos >= s.cap) continue;
    const std::int64_t end = pos + kept < s.cap ? pos + kept : s.cap;
    if (indices)
      kern.offsetIndices(reinterpret_cast<const std::int32_t*>(stage.p), end - pos, a,
                         out + pos * w, w, stream);
    else if (stream)
      copyLines<true>(out + pos * w, stage.p, static_cast<std::size_t>((end - pos) * w));
    else std::memcpy(out + pos * w, stage.p, static_cast<std::size_t>((end - pos) * w));
  }
  if (stream) storeFence();
}

} // namespace
} // namespace Impl

void selectIndicesHost(const std::uint8_t* mask, std::int64_t a, std::int64_t b, std::int64_t* out,
                       std::int64_t pos, std::int64_t end, bool stream) {
  Impl::checkSelect("sieve::selectIndicesHost", mask, a, b, out, pos, end);
  const Impl::HostKernels& kern = Impl::hostKernels();
  Impl::selectRun(a, b, reinterpret_cast<unsigned char*>(out), pos, end, 8u, stream,
                  [&](std::int64_t i, std::int64_t len, unsigned char* dst) {
                    return kern.selectIndices(mask, i, len, reinterpret_cast<std::int64_t*>(dst));
                  });
}

void selectIndices32Host(const std::uint8_t* mask, std::int64_t a, std::int64_t b,
                         std::int32_t* out, std::int64_t pos, std::int64_t end, bool stream) {
  constexpr const char* fn = "sieve::selectIndices32Host";
  Impl::checkSelect(fn, mask, a, b, out, pos, end);
  if (b - 1 > INT32_MAX)
    Impl::fail(fn, "b = " + std::to_string(b) +
                       "; every index of [a, b) must fit in std::int32_t (b <= 2^31)");
  const Impl::HostKernels& kern = Impl::hostKernels();
  Impl::selectRun(a, b, reinterpret_cast<unsigned char*>(out), pos, end, 4u, stream,
                  [&](std::int64_t i, std::int64_t len, unsigned char* dst) {
                    return kern.selectIndices32(mask, i, len, reinterpret_cast<std::int32_t*>(dst));
                  });
}

void selectValuesHost(const std::uint8_t* mask, std::int64_t a, std::int64_t b, const void* values,
                      std::uint32_t elemBytes, void* out, std::int64_t pos, std::int64_t end,
                      bool stream) {
  constexpr const char* fn = "sieve::selectValuesHost";
  if (elemBytes != 1u && elemBytes != 2u && elemBytes != 4u && elemBytes != 8u)
    Impl::fail(fn, "elemBytes = " + std::to_string(elemBytes) + "; it must be 1, 2, 4 or 8");
  Impl::checkSelect(fn, mask, a, b, out, pos, end);
  if (b > a && values == nullptr) Impl::fail(fn, "values is null");
  const Impl::HostKernels& kern = Impl::hostKernels();
  Impl::selectRun(a, b, static_cast<unsigned char*>(out), pos, end, elemBytes, stream,
                  [&](std::int64_t i, std::int64_t len, unsigned char* dst) {
                    return kern.selectValues(mask, i, len, values, elemBytes, dst);
                  });
}

void Impl::selectHostChecked(const HostTeam& team, const SelectSpec& s,
                             const SelectMaskFill* fill) {
  const std::int64_t B = Impl::selectBlockSamples(s);
  const std::int64_t blocks = (s.n + B - 1) / B;
  const int threads = Impl::teamSizeFor(team, blocks, 1);
  Impl::BlockPrefix prefix(blocks);
  const std::int64_t most = s.cap < s.n ? s.cap : s.n;
  const bool stream =
      static_cast<std::uint64_t>(most) * s.elemBytes >= Tuning::Host::kSelectStreamBytes;
  const Impl::HostKernels& kern = Impl::hostKernels();
  Impl::runTeam(threads, [&](const Impl::TeamCtx& t) {
    Impl::selectTeamBody(t, kern, s, fill, prefix, stream);
  });
  *s.count = prefix.total();
}

void selectHost(const HostTeam& team, const SelectSpec& s, const SelectMaskFill* fill) {
  constexpr const char* fn = "sieve::selectHost";
  if (fill != nullptr && fill->fill == nullptr) Impl::fail(fn, "fill->fill is null");
  Impl::checkSelectSpec(fn, s, fill != nullptr);
  Impl::selectHostChecked(team, s, fill);
}

} // namespace sieve
