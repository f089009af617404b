// SPDX-License-Identifier: Apache-2.0
// Sieve host tests — selectIndicesHost / selectIndices32Host / selectValuesHost (findall's OpenMP
// write face) at every instruction set, with and without non-temporal
// stores, against a sequential loop: every output alignment within a cache
// line, sizes on the chunk and vector edges, masks of every density, guard
// bytes around the output slots, a mask selecting more or fewer than the
// slots given, and the argument checks.
#include "../common/cases.hpp"
#include "../common/expect.hpp"

#include <sieve/native/host/isa.hpp>
#include <sieve/native/host/select.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using i64 = std::int64_t;

std::vector<sieve::HostIsa> supportedIsas() {
  std::vector<sieve::HostIsa> v;
  for (auto isa : {sieve::HostIsa::Portable, sieve::HostIsa::Avx2, sieve::HostIsa::Avx512})
    if (sieve::hostIsaSupported(isa)) v.push_back(isa);
  return v;
}

/// Restores the default instruction set when a test ends.
struct IsaScope {
  sieve::HostIsa saved = sieve::hostIsa();
  ~IsaScope() { sieve::setHostIsa(saved); }
};

std::vector<std::uint8_t> makeMask(i64 n, int percent, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n));
  for (auto& b : m) {
    const int r = static_cast<int>(rng() % 100);
    // Non-zero bytes other than 1 are selected too.
    b = r < percent ? static_cast<std::uint8_t>(1 + rng() % 255) : 0;
  }
  return m;
}

constexpr unsigned char kGuard = 0xA5;
constexpr i64 kGuardBytes = 192;

/// One call of the kernel under test on [a, b) into slots [pos, end) of an
/// output that starts `shift` bytes into a 64-byte aligned buffer, checked
/// byte for byte (guards included) against the sequential loop.
template <class T, class Call, class Item>
void checkOne(const std::vector<std::uint8_t>& mask, i64 a, i64 b, i64 extra, i64 shift,
              bool stream, const Call& call, const Item& item, const std::string& what) {
  std::vector<T> expect;
  for (i64 k = a; k < b; ++k)
    if (mask[static_cast<std::size_t>(k)] != 0) expect.push_back(item(k));
  const i64 selected = static_cast<i64>(expect.size());
  const i64 slots = selected + extra < 0 ? 0 : selected + extra; // extra < 0: fewer slots
  const i64 pos = 3;
  std::vector<unsigned char> raw(
      static_cast<std::size_t>(2 * kGuardBytes + 64 + (pos + slots) * sizeof(T)));
  auto* base = raw.data() + (64 - reinterpret_cast<std::uintptr_t>(raw.data()) % 64) % 64;
  std::memset(raw.data(), kGuard, raw.size());
  unsigned char* outBytes = base + kGuardBytes / 2 + shift * sizeof(T);
  T* out = reinterpret_cast<T*>(outBytes);
  call(mask.data(), a, b, out, pos, pos + slots, stream);
  const i64 written = selected < slots ? selected : slots;
  for (i64 s = 0; s < written; ++s) {
    T got;
    std::memcpy(&got, outBytes + (pos + s) * sizeof(T), sizeof(T));
    ASSERT_EQ(std::memcmp(&got, &expect[static_cast<std::size_t>(s)], sizeof(T)), 0)
        << what << ": slot " << s << " of " << selected;
  }
  // Every byte outside the written slots is untouched (slots past `written`
  // when the mask selects fewer than given are the caller's contract and
  // not checked here beyond the guard).
  const unsigned char* lo = outBytes + pos * sizeof(T);
  const unsigned char* hi = outBytes + (pos + slots) * sizeof(T);
  for (const unsigned char* p = raw.data(); p < raw.data() + raw.size(); ++p) {
    if (p >= lo && p < hi) continue;
    ASSERT_EQ(*p, kGuard) << what << ": byte " << (p - lo) << " from the first slot written";
  }
}

template <class T>
void valuesCase(const std::vector<std::uint8_t>& mask, const std::vector<T>& values, i64 a, i64 b,
                i64 extra, i64 shift, bool stream, const std::string& what) {
  checkOne<T>(
      mask, a, b, extra, shift, stream,
      [&](const std::uint8_t* m, i64 x, i64 y, T* out, i64 pos, i64 end, bool st) {
        sieve::selectValuesHost(m, x, y, values.data(), sizeof(T), out, pos, end, st);
      },
      [&](i64 k) { return values[static_cast<std::size_t>(k)]; }, what);
}

} // namespace

TEST(HostSelect, MatchesTheSequentialLoop) {
  IsaScope scope;
  const std::vector<i64> sizes = {0,   1,   7,   15,   16,   17,   63,   64,   65,
                                  511, 512, 513, 1023, 1024, 1025, 4097, 20000};
  std::vector<std::uint16_t> v16;
  std::vector<std::uint32_t> v32;
  std::vector<double> v64;
  std::vector<std::uint8_t> v8;
  for (const sieve::HostIsa isa : supportedIsas()) {
    ASSERT_TRUE(sieve::setHostIsa(isa));
    for (const i64 n : sizes) {
      v8.resize(static_cast<std::size_t>(n));
      v16.resize(static_cast<std::size_t>(n));
      v32.resize(static_cast<std::size_t>(n));
      v64.resize(static_cast<std::size_t>(n));
      for (i64 k = 0; k < n; ++k) {
        v8[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k * 7 + 1);
        v16[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(k * 31 + 3);
        v32[static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(k * 2654435761u);
        v64[static_cast<std::size_t>(k)] = 0.5 + static_cast<double>(k);
      }
      for (const int pct : {0, 1, 50, 99, 100}) {
        const auto mask = makeMask(n, pct, static_cast<unsigned>(n * 101 + pct));
        // Whole ranges, and ranges starting and ending off the vector edges.
        for (const auto& ab : {std::pair<i64, i64>{0, n}, std::pair<i64, i64>{n / 3, n - n / 5}}) {
          for (const i64 shift : {0, 1, 5}) {
            for (const bool stream : {false, true}) {
              const std::string what = std::string(sieve::hostIsaName(isa)) + " n " +
                                       std::to_string(n) + " " + std::to_string(pct) + "% [" +
                                       std::to_string(ab.first) + ", " + std::to_string(ab.second) +
                                       ") shift " + std::to_string(shift) +
                                       (stream ? " stream" : "");
              checkOne<i64>(
                  mask, ab.first, ab.second, 0, shift, stream,
                  [](const std::uint8_t* m, i64 x, i64 y, i64* out, i64 pos, i64 end, bool st) {
                    sieve::selectIndicesHost(m, x, y, out, pos, end, st);
                  },
                  [](i64 k) { return k; }, "indices " + what);
              checkOne<std::int32_t>(
                  mask, ab.first, ab.second, 0, shift, stream,
                  [](const std::uint8_t* m, i64 x, i64 y, std::int32_t* out, i64 pos, i64 end,
                     bool st) { sieve::selectIndices32Host(m, x, y, out, pos, end, st); },
                  [](i64 k) { return static_cast<std::int32_t>(k); }, "int32 indices " + what);
              valuesCase(mask, v8, ab.first, ab.second, 0, shift, stream, "uint8 " + what);
              valuesCase(mask, v16, ab.first, ab.second, 0, shift, stream, "uint16 " + what);
              valuesCase(mask, v32, ab.first, ab.second, 0, shift, stream, "uint32 " + what);
              valuesCase(mask, v64, ab.first, ab.second, 0, shift, stream, "double " + what);
            }
          }
        }
      }
    }
  }
}

// A mask that selects more than the slots given (changed between its count
// and the write) never makes the kernel write past them; one that selects
// fewer leaves the rest of the slots to the caller.
TEST(HostSelect, NeverWritesPastTheSlotsGiven) {
  IsaScope scope;
  for (const sieve::HostIsa isa : supportedIsas()) {
    ASSERT_TRUE(sieve::setHostIsa(isa));
    for (const i64 n : {100, 5000}) {
      const auto mask = makeMask(n, 60, 7u);
      std::vector<double> values(static_cast<std::size_t>(n));
      for (i64 k = 0; k < n; ++k) values[static_cast<std::size_t>(k)] = static_cast<double>(k);
      for (const i64 extra : {-1, -17, -1000, 9})
        for (const bool stream : {false, true}) {
          const std::string what = std::string(sieve::hostIsaName(isa)) + " n " +
                                   std::to_string(n) + " extra " + std::to_string(extra);
          checkOne<i64>(
              mask, 0, n, extra, 1, stream,
              [](const std::uint8_t* m, i64 x, i64 y, i64* out, i64 pos, i64 end, bool st) {
                sieve::selectIndicesHost(m, x, y, out, pos, end, st);
              },
              [](i64 k) { return k; }, "indices " + what);
          checkOne<std::int32_t>(
              mask, 0, n, extra, 1, stream,
              [](const std::uint8_t* m, i64 x, i64 y, std::int32_t* out, i64 pos, i64 end,
                 bool st) { sieve::selectIndices32Host(m, x, y, out, pos, end, st); },
              [](i64 k) { return static_cast<std::int32_t>(k); }, "int32 indices " + what);
          valuesCase(mask, values, 0, n, extra, 2, stream, "double " + what);
        }
    }
  }
}

// Output and values need not be aligned to their element size (the raw
// pointers of the native face are void*): every byte still lands where the
// sequential loop puts it.
TEST(HostSelect, MisalignedOutputAndValues) {
  IsaScope scope;
  const i64 n = 3000;
  const auto mask = makeMask(n, 50, 99u);
  std::vector<unsigned char> values(n * 8 + 16), out(n * 8 + 64), expect;
  for (std::size_t b = 0; b < values.size(); ++b)
    values[b] = static_cast<unsigned char>(b * 13 + 1);
  const unsigned char* v = values.data() + 1; // 8-byte elements at an odd address
  for (const sieve::HostIsa isa : supportedIsas()) {
    ASSERT_TRUE(sieve::setHostIsa(isa));
    for (const std::uint32_t size : {2u, 4u, 8u})
      for (const bool stream : {false, true}) {
        expect.assign(out.size(), 0xEE);
        i64 f = 0;
        for (i64 k = 0; k < n; ++k)
          if (mask[static_cast<std::size_t>(k)] != 0)
            std::memcpy(expect.data() + 3 + (f++) * size, v + k * size, size);
        std::vector<unsigned char> got(out.size(), 0xEE);
        sieve::selectValuesHost(mask.data(), 0, n, v, size, got.data() + 3, 0, f, stream);
        ASSERT_EQ(got, expect) << sieve::hostIsaName(isa) << " values of " << size << " bytes";
        if (size == 8u) {
          std::vector<unsigned char> idx(out.size(), 0xEE), want(out.size(), 0xEE);
          i64 g = 0;
          for (i64 k = 0; k < n; ++k)
            if (mask[static_cast<std::size_t>(k)] != 0)
              std::memcpy(want.data() + 5 + 8 * g++, &k, 8);
          sieve::selectIndicesHost(mask.data(), 0, n, reinterpret_cast<i64*>(idx.data() + 5), 0, g,
                                   stream);
          ASSERT_EQ(idx, want) << sieve::hostIsaName(isa) << " indices";
        }
      }
  }
}

TEST(HostSelect, RejectsBadArguments) {
  std::vector<std::uint8_t> mask(64, 1);
  std::vector<i64> out(64);
  std::vector<float> values(64);
  sieve_test::expectInvalid(
      [&] { sieve::selectIndicesHost(mask.data(), 5, 4, out.data(), 0, 64, false); }, "[a, b)");
  sieve_test::expectInvalid(
      [&] { sieve::selectIndicesHost(mask.data(), -1, 4, out.data(), 0, 64, false); }, "[a, b)");
  sieve_test::expectInvalid(
      [&] { sieve::selectIndicesHost(mask.data(), 0, 64, out.data(), 9, 8, false); }, "[pos, end)");
  sieve_test::expectInvalid(
      [&] { sieve::selectIndicesHost(nullptr, 0, 64, out.data(), 0, 64, false); }, "mask is null");
  sieve_test::expectInvalid(
      [&] { sieve::selectIndicesHost(mask.data(), 0, 64, nullptr, 0, 64, false); }, "out is null");
  sieve_test::expectInvalid(
      [&] {
        sieve::selectValuesHost(mask.data(), 0, 64, values.data(), 3, out.data(), 0, 64, false);
      },
      "elemBytes = 3");
  sieve_test::expectInvalid(
      [&] { sieve::selectValuesHost(mask.data(), 0, 64, nullptr, 4, out.data(), 0, 64, false); },
      "values is null");
  std::vector<std::int32_t> out32(64);
  sieve_test::expectInvalid(
      [&] { sieve::selectIndices32Host(mask.data(), 0, 64, out32.data(), 9, 8, false); },
      "[pos, end)");
  // An index past INT32_MAX is refused before the mask is read.
  sieve_test::expectInvalid(
      [&] {
        sieve::selectIndices32Host(mask.data(), (i64(1) << 31) - 8, (i64(1) << 31) + 8,
                                   out32.data(), 0, 16, false);
      },
      "must fit in std::int32_t");
  // Empty ranges and empty outputs need no arrays.
  EXPECT_NO_THROW(sieve::selectIndicesHost(nullptr, 0, 0, nullptr, 0, 0, true));
  EXPECT_NO_THROW(sieve::selectValuesHost(nullptr, 3, 3, nullptr, 8, nullptr, 2, 2, true));
}

namespace {

/// The mask bytes of a fill callback: mask[k] for k in [a, b).
void fillFrom(const void* ctx, std::int64_t a, std::int64_t b, std::uint8_t* dst) {
  const auto* m = static_cast<const std::uint8_t*>(ctx);
  std::memcpy(dst, m + a, static_cast<std::size_t>(b - a));
}

} // namespace

// selectHost: the whole selection on a team (blocks of 64 Ki samples, their
// offsets by look-back), every item kind, mask array or fill callback, every
// cap, against the sequential loop, at several team sizes (one larger than
// the machine) and every instruction set; nothing written past the cap.
TEST(HostSelectTeam, MatchesTheSequentialLoop) {
  const IsaScope scope;
  for (const auto isa : supportedIsas()) {
    sieve::setHostIsa(isa);
    for (const i64 n : {i64(0), i64(1), i64(65535), i64(65536 * 5 + 77)}) {
      const auto mask = makeMask(n, 37, 5u + static_cast<unsigned>(n));
      std::vector<std::uint16_t> values(static_cast<std::size_t>(n));
      std::vector<std::uint64_t> wide(static_cast<std::size_t>(n));
      for (i64 k = 0; k < n; ++k) {
        values[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(k * 3 + 1);
        wide[static_cast<std::size_t>(k)] = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15u;
      }
      std::vector<i64> ref;
      for (i64 k = 0; k < n; ++k)
        if (mask[static_cast<std::size_t>(k)] != 0) ref.push_back(k);
      const i64 total = static_cast<i64>(ref.size());
      for (const int threads : {1, 2, 3, 8}) { // 8: up to one a block (6 here)
        for (const i64 cap : {i64(0), total / 2 + 1, total + 3}) {
          for (const bool useFill : {false, true}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(threads) +
                         " cap=" + std::to_string(cap) + (useFill ? " fill" : " mask"));
            const sieve::SelectMaskFill fill{&fillFrom, mask.data()};
            // int64 indices
            std::vector<i64> out(static_cast<std::size_t>(cap + 8), -5);
            i64 count = -1;
            sieve::SelectSpec s;
            s.mask = useFill ? nullptr : mask.data();
            s.n = n;
            s.out = out.data();
            s.cap = cap;
            s.count = &count;
            sieve::selectHost(sieve::HostTeam{threads}, s, useFill ? &fill : nullptr);
            EXPECT_EQ(count, total);
            for (i64 k = 0; k < cap + 8; ++k)
              ASSERT_EQ(out[static_cast<std::size_t>(k)],
                        k < cap && k < total ? ref[static_cast<std::size_t>(k)] : -5)
                  << "slot " << k;
            // 2- and 8-byte values
            const auto checkValues = [&](const auto& vals) {
              using T = typename std::decay_t<decltype(vals)>::value_type;
              std::vector<T> vout(static_cast<std::size_t>(cap + 8), T(0xEEEE));
              s.item = sieve::SelectItem::Value;
              s.elemBytes = sizeof(T);
              s.values = vals.data();
              s.out = vout.data();
              count = -1;
              sieve::selectHost(sieve::HostTeam{threads}, s, useFill ? &fill : nullptr);
              EXPECT_EQ(count, total);
              for (i64 k = 0; k < cap + 8; ++k)
                ASSERT_EQ(vout[static_cast<std::size_t>(k)],
                          k < cap && k < total
                              ? vals[static_cast<std::size_t>(ref[static_cast<std::size_t>(k)])]
                              : T(0xEEEE))
                    << sizeof(T) << "-byte values, slot " << k;
            };
            checkValues(values);
            checkValues(wide);
          }
        }
      }
    }
  }
}

TEST(HostSelectTeam, RejectsBadArguments) {
  std::vector<std::uint8_t> mask(100, 1);
  std::vector<i64> out(100, -5);
  i64 count = -9;
  const auto spec = [&]() {
    sieve::SelectSpec s;
    s.mask = mask.data();
    s.n = 100;
    s.out = out.data();
    s.cap = 100;
    s.count = &count;
    return s;
  };
  const auto rejects = [&](sieve::SelectSpec s, const char* needle,
                           const sieve::SelectMaskFill* fill = nullptr) {
    SCOPED_TRACE(needle);
    try {
      sieve::selectHost(sieve::HostTeam{2}, s, fill);
      ADD_FAILURE() << "no throw";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_EQ(count, -9);
    for (const i64 v : out) ASSERT_EQ(v, -5);
  };
  auto s = spec();
  s.n = -1;
  rejects(s, "n = -1");
  s = spec();
  s.cap = -2;
  rejects(s, "cap = -2");
  s = spec();
  s.mask = nullptr;
  rejects(s, "mask is null");
  s = spec();
  s.count = nullptr;
  rejects(s, "count is null");
  s = spec();
  s.out = nullptr;
  rejects(s, "out is null");
  s = spec();
  s.item = sieve::SelectItem::Value;
  s.elemBytes = 3;
  s.values = out.data();
  rejects(s, "elemBytes = 3");
  s = spec();
  s.item = sieve::SelectItem::Value;
  s.elemBytes = 8;
  rejects(s, "values is null");
  s = spec();
  s.elemBytes = 4;
  rejects(s, "elemBytes = 4");
  s = spec();
  s.item = sieve::SelectItem::Index32;
  s.elemBytes = 4;
  s.n = (i64(1) << 31) + 1;
  rejects(s, "2^31");
  s = spec();
  s.out = mask.data() + 8; // the output over the mask
  rejects(s, "overlaps");
  s = spec();
  s.count = out.data() + 3; // the count inside the output
  rejects(s, "overlaps");
  const sieve::SelectMaskFill none{};
  rejects(spec(), "fill->fill is null", &none);
}

// selectHost's items past the size from which it streams (whole lines of
// the result with non-temporal stores: Tuning::Host::kSelectStreamBytes,
// 32 MiB, reached by every case here, capped or not): int64 and int32
// indices, 4- and 8-byte values (8-byte ones in blocks of half the samples),
// into a result starting at several offsets within a cache line (one not
// even item-aligned), with a cap in the last block, and guard bytes around
// it, on two threads at every instruction set.
TEST(HostSelectTeam, LargeResultsAtEveryAlignment) {
  const IsaScope scope;
  // ~10 M selected: 40 MiB as int32 (under the sanitizers 1.3 M: as many blocks a thread)
  const i64 n = (i64(1) << (sieve_test::kSanitized ? 21 : 24)) + 77;
  const auto mask = makeMask(n, 60, 11u);
  std::vector<std::uint32_t> narrow(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> wide(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) {
    narrow[static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(k) * 2654435761u;
    wide[static_cast<std::size_t>(k)] = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15u;
  }
  // The sequential loop's results, one per item kind.
  std::vector<i64> ref;
  for (i64 k = 0; k < n; ++k)
    if (mask[static_cast<std::size_t>(k)] != 0) ref.push_back(k);
  const i64 total = static_cast<i64>(ref.size());
  std::vector<std::int32_t> ref32(ref.begin(), ref.end());
  std::vector<std::uint32_t> refNarrow;
  std::vector<std::uint64_t> refWide;
  for (const i64 k : ref) {
    refNarrow.push_back(narrow[static_cast<std::size_t>(k)]);
    refWide.push_back(wide[static_cast<std::size_t>(k)]);
  }
  struct Kind {
    sieve::SelectItem item;
    std::uint32_t bytes;
    const void* values;
    const void* want;
  };
  const Kind kinds[] = {{sieve::SelectItem::Index64, 8u, nullptr, ref.data()},
                        {sieve::SelectItem::Index32, 4u, nullptr, ref32.data()},
                        {sieve::SelectItem::Value, 4u, narrow.data(), refNarrow.data()},
                        {sieve::SelectItem::Value, 8u, wide.data(), refWide.data()}};
  for (const auto isa : supportedIsas()) {
    sieve::setHostIsa(isa);
    for (const Kind& kind : kinds) {
      const std::uint32_t bytes = kind.bytes;
      for (const i64 shift : {i64(0), i64(24), i64(1)}) { // bytes past a line start
        for (const i64 cap : {n, total - 10}) {           // the last block has 77 samples
          SCOPED_TRACE("isa=" + std::to_string(static_cast<int>(isa)) +
                       " item=" + std::to_string(static_cast<int>(kind.item)) +
                       " bytes=" + std::to_string(bytes) + " shift=" + std::to_string(shift) +
                       " cap=" + std::to_string(cap));
          std::vector<unsigned char> raw(
              static_cast<std::size_t>(2 * kGuardBytes + 64 + cap * bytes), kGuard);
          unsigned char* out = raw.data() +
                               (64 - reinterpret_cast<std::uintptr_t>(raw.data()) % 64) % 64 +
                               kGuardBytes + shift;
          i64 count = -1;
          sieve::SelectSpec s;
          s.mask = mask.data();
          s.n = n;
          s.item = kind.item;
          s.elemBytes = bytes;
          s.values = kind.values;
          s.out = out;
          s.cap = cap;
          s.count = &count;
          sieve::selectHost(sieve::HostTeam{2}, s);
          EXPECT_EQ(count, total);
          const i64 written = cap < total ? cap : total;
          const auto* want = static_cast<const unsigned char*>(kind.want);
          if (std::memcmp(out, want, static_cast<std::size_t>(written * bytes)) != 0) {
            i64 k = 0; // the first slot that differs, for the message
            while (std::memcmp(out + k * bytes, want + k * bytes, bytes) == 0) ++k;
            FAIL() << "slot " << k << " (sample " << ref[static_cast<std::size_t>(k)]
                   << ") differs from the sequential loop's";
          }
          // Nothing before the result or past its last item written.
          const auto notGuard = [](unsigned char c) { return c != kGuard; };
          const unsigned char *first = raw.data(), *end = first + raw.size(), *o = out;
          const unsigned char* hit = std::find_if(first, o, notGuard);
          ASSERT_EQ(hit, o) << "byte " << (hit - o) << " from the result's start written";
          hit = std::find_if(o + written * bytes, end, notGuard);
          ASSERT_EQ(hit, end) << "byte " << (hit - o) << " from the result's start written";
        }
      }
    }
  }
}
