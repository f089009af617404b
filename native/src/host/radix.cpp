// SPDX-License-Identifier: Apache-2.0
// Sieve — radixOrderHost: the stable LSD radix order of 64-bit keys on an
// OpenMP team.
//
// One parallel region. Each thread takes a contiguous chunk [a, b) of the
// keys (the same chunk in every pass) and reads it once: the OR and the AND
// of its keys and its histogram of digit 0. After a barrier the OR checks the
// bit width and OR ^ AND names the bytes that vary: one pass per varying byte
// (a byte all keys share would put them all in one bucket), none at all ->
// the identity. Should byte 0 not vary, a second read counts the first
// varying digit.
//
// Each pass is one stable scatter: thread t's first destination in bucket v
// is the keys of the buckets below v plus those of bucket v in the chunks
// before t (an exclusive scan over (bucket, thread)), and it walks its chunk
// in order, so equal digits keep their order. The chunk histograms of the
// next pass's digit are counted while the keys go out (NextCount: each
// writer counts, per reading chunk, the keys it places there), so a pass
// costs one read and one write of the planes and one barrier.
//
// The scatter writes through per-bucket buffers of kBlock elements (whole
// cache lines of every plane; they live in L1/L2): an element goes to the
// slot its destination has within its block, and when the block's last slot
// is filled its lines go out at once (non-temporal stores for large n: no
// read for ownership, no cache pollution), one rarely taken branch per key.
// A block the thread owns only in part (the first and last of a bucket's
// range) is written element by element, so no byte outside the thread's
// destinations is ever touched.
//
// Planes: keys + indices ping-pong between the scratch's key plane with idxB
// (set Y) and `order` (as a uint64 key plane) with idxA (set X, idxA placed
// at order's slot within a cache line, so the two share their block
// boundaries), arranged so that the pass before the last writes Y: the last
// pass reads Y and writes only the int64 indices into `order`. Indices are
// uint32 when n < 2^32 (less traffic), uint64 beyond. Per call, besides the
// scratch, each thread has a heap workspace (RadixWork, ~260 KiB: its
// buffers and cursors) and the team 2 x threads^2 x 256 counters.
#include <sieve/core/radix.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/host/lines.hpp>
#include <sieve/native/host/radix.hpp>
#include <sieve/native/host/team.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace sieve {
namespace Impl {
namespace {

constexpr int kBuckets = 1 << kRadixDigitBits;
/// Elements a bucket's buffers hold: whole cache lines of every plane (8
/// lines of 8-byte items, 4 of 4-byte ones). 64 measured best against 8, 16
/// and 32 (fewer flush branches; the buffers fit in L2).
constexpr std::int64_t kBlock = 64;
constexpr std::int64_t kRadixMinPerThread = std::int64_t(1) << 14;
/// From this many keys the planes (>= 12 MiB a pass) outgrow the caches:
/// whole lines go out with non-temporal stores.
constexpr std::int64_t kRadixStreamMin = std::int64_t(1) << 19;

/// One thread's workspace: the block buffers, its bucket cursors, and what
/// every thread reads of it after a barrier (hist, keyOr, keyAnd).
template <class Idx>
struct alignas(64) RadixWork {
  alignas(64) std::uint64_t keyLines[kBuckets * kBlock];
  alignas(64) unsigned char idxLines[kBuckets * kBlock * 8];
  std::int64_t cur[kBuckets];    // next destination in each bucket
  std::int64_t first[kBuckets];  // this thread's first destination in each bucket
  std::int64_t ownEnd[kBuckets]; // where the chunk of own[v] ends (NextCount)
  int own[kBuckets];             // the next pass's reader of bucket v's next slot
  Idx hist[kBuckets];            // the chunk's histogram of the first pass's digit
  std::uint64_t keyOr, keyAnd;   // of the chunk's keys
};

/// Count the digit at `shift` of keys[a, b) into cnt (four interleaved
/// tables: repeated digits do not chain on one counter); with `BitsOf`, also
/// the OR and the AND of the keys.
template <class Idx, bool BitsOf>
void countDigit(const std::uint64_t* SIEVE_RESTRICT keys, std::int64_t a, std::int64_t b, int shift,
                Idx* cnt, std::uint64_t& keyOr, std::uint64_t& keyAnd) {
  Idx c[4][kBuckets] = {};
  std::uint64_t o0 = 0, o1 = 0, a0 = ~std::uint64_t(0), a1 = ~std::uint64_t(0);
  std::int64_t i = a;
  for (; i + 4 <= b; i += 4) {
    const std::uint64_t k0 = keys[i], k1 = keys[i + 1], k2 = keys[i + 2], k3 = keys[i + 3];
    if constexpr (BitsOf) {
      o0 |= k0 | k1;
      o1 |= k2 | k3;
      a0 &= k0 & k1;
      a1 &= k2 & k3;
    }
    ++c[0][(k0 >> shift) & 255u];
    ++c[1][(k1 >> shift) & 255u];
    ++c[2][(k2 >> shift) & 255u];
    ++c[3][(k3 >> shift) & 255u];
  }
  for (; i < b; ++i) {
    o0 |= keys[i];
    a0 &= keys[i];
    ++c[0][(keys[i] >> shift) & 255u];
  }
  for (int v = 0; v < kBuckets; ++v)
    cnt[v] = static_cast<Idx>(c[0][v] + c[1][v] + c[2][v] + c[3][v]);
  if constexpr (BitsOf) {
    keyOr = o0 | o1;
    keyAnd = a0 & a1;
  }
}

/// The next pass's chunk histograms, counted while a pass writes the keys:
/// the writer's count of the next digit of the keys it places in each
/// chunk, counts[owner][digit] (the owner reads that slot in the next pass).
/// Slots of one bucket come in increasing order, so each bucket's owner only
/// moves forward.
template <class Idx>
struct NextCount {
  Idx* counts; // this writer's [team size][kBuckets]
  int shift;   // the next pass's digit
  std::int64_t n;
  int size;
  int* own;
  std::int64_t* ownEnd;

  Idx* at(std::size_t v, std::int64_t q) {
    while (q >= ownEnd[v]) {
      ++own[v];
      ownEnd[v] = n * (own[v] + 1) / size;
    }
    return counts + static_cast<std::size_t>(own[v]) * kBuckets;
  }
  void one(std::size_t v, std::int64_t q, std::uint64_t k) { ++at(v, q)[(k >> shift) & 255u]; }
  /// The kBlock keys of the block starting at slot ls.
  void block(std::size_t v, std::int64_t ls, const std::uint64_t* keys) {
    Idx* c = at(v, ls);
    if (SIEVE_LIKELY(ls + kBlock <= ownEnd[v])) {
      const int sh = shift; // a local: the counts may alias the members
      std::uint32_t d[kBlock];
      for (int s = 0; s < kBlock; ++s) d[s] = static_cast<std::uint32_t>(keys[s] >> sh) & 255u;
      for (int s = 0; s < kBlock; ++s) ++c[d[s]];
    } else {
      for (int s = 0; s < kBlock; ++s) one(v, ls + s, keys[s]);
    }
  }
};

/// One pass's output and its line buffers. Positions are virtual: a
/// bucket's cursor c is its next destination plus `ph`, the slot of element
/// 0 of the output planes within its cache line (the key and index planes of
/// a pass share it), so c's low bits are its slot in the bucket's line
/// buffer and a line is full when that slot is the last.
template <class Idx, class Out>
struct PassOut {
  std::uint64_t* keys; // null on the last pass
  Out* idx;
  std::uint64_t* keyLines;
  Out* idxLines;
  std::int64_t* cur;         // next virtual destination of each bucket
  const std::int64_t* first; // this thread's first virtual destination of each bucket
  std::int64_t ph;
  NextCount<Idx>* nc; // the next pass's counts (not on the last pass)
};

/// Bucket v's block was filled by virtual destination c: write it (whole
/// lines of every plane: the block starts on a line of each), or, when it
/// starts before the thread's first destination in the bucket, element by
/// element from there. Keys are counted for the next pass as they go out.
/// Off the hot loop (one call per kBlock keys).
template <bool Stream, bool Last, class Idx, class Out>
SIEVE_NOINLINE void flushBucket(const PassOut<Idx, Out>& o, std::size_t v, std::int64_t c) {
  const std::int64_t f = o.first[v], ph = o.ph, ls = c - (kBlock - 1);
  const std::uint64_t* kl = o.keyLines + v * kBlock;
  const Out* il = o.idxLines + v * kBlock;
  if (SIEVE_LIKELY(ls >= f)) {
    if constexpr (!Last) {
      o.nc->block(v, ls - ph, kl);
      for (std::int64_t l = 0; l < kBlock * 8; l += 64)
        storeLine<Stream>(reinterpret_cast<unsigned char*>(o.keys + (ls - ph)) + l,
                          reinterpret_cast<const unsigned char*>(kl) + l);
    }
    for (std::int64_t l = 0; l < kBlock * static_cast<std::int64_t>(sizeof(Out)); l += 64)
      storeLine<Stream>(reinterpret_cast<unsigned char*>(o.idx + (ls - ph)) + l,
                        reinterpret_cast<const unsigned char*>(il) + l);
  } else {
    for (std::int64_t q = f; q <= c; ++q) {
      if constexpr (!Last) {
        const std::uint64_t k = kl[q & (kBlock - 1)];
        o.keys[q - ph] = k;
        o.nc->one(v, q - ph, k);
      }
      o.idx[q - ph] = il[q & (kBlock - 1)];
    }
  }
}

/// The elements still in the line buffers when the pass ends.
template <bool Last, class Idx, class Out>
void flushTails(const PassOut<Idx, Out>& o) {
  const std::int64_t ph = o.ph;
  for (std::size_t v = 0; v < kBuckets; ++v) {
    const std::int64_t c = o.cur[v], f = o.first[v];
    const std::uint64_t* kl = o.keyLines + v * kBlock;
    const Out* il = o.idxLines + v * kBlock;
    for (std::int64_t q = c - (c & (kBlock - 1)) > f ? c - (c & (kBlock - 1)) : f; q < c; ++q) {
      if constexpr (!Last) {
        const std::uint64_t k = kl[q & (kBlock - 1)];
        o.keys[q - ph] = k;
        o.nc->one(v, q - ph, k);
      }
      o.idx[q - ph] = il[q & (kBlock - 1)];
    }
  }
}

/// One stable scatter pass of keys[a, b) (indices: i on the first pass,
/// idxIn[i] after) by the digit at `shift`, from the cursors in o.cur. The
/// last pass writes only the indices (int64); the others count the next
/// pass's digit as their key lines go out. Index lines hold 8 or 16 indices
/// and start where key lines do, so a full index line always ends on a full
/// key line: one rarely taken branch per key.
template <class Idx, bool First, bool Last, bool Stream>
SIEVE_NOINLINE void scatterPass(const PassOut<Idx, std::conditional_t<Last, std::int64_t, Idx>>& o,
                                const std::uint64_t* SIEVE_RESTRICT keysIn,
                                const Idx* SIEVE_RESTRICT idxIn, std::int64_t a, std::int64_t b,
                                int shift) {
  using Out = std::conditional_t<Last, std::int64_t, Idx>;
  std::uint64_t* SIEVE_RESTRICT kl = o.keyLines;
  Out* SIEVE_RESTRICT il = o.idxLines;
  std::int64_t* SIEVE_RESTRICT cur = o.cur;
  for (std::int64_t i = a; i < b; ++i) {
    const std::uint64_t k = keysIn[i];
    const std::size_t v = static_cast<std::size_t>(k >> shift) & 255u;
    const std::int64_t c = cur[v];
    cur[v] = c + 1;
    Out x;
    if constexpr (First) x = static_cast<Out>(i);
    else x = static_cast<Out>(idxIn[i]);
    const std::size_t slot = v * kBlock + static_cast<std::size_t>(c & (kBlock - 1));
    il[slot] = x;
    if constexpr (!Last) kl[slot] = k;
    if ((c & (kBlock - 1)) == kBlock - 1) flushBucket<Stream, Last>(o, v, c);
  }
  flushTails<Last>(o);
  if constexpr (Stream) storeFence();
}

template <class Idx, bool First, bool Last>
void scatterPass(RadixWork<Idx>& w, const std::uint64_t* keysIn, const Idx* idxIn, std::int64_t a,
                 std::int64_t b, int shift, std::uint64_t* keysOut,
                 std::conditional_t<Last, std::int64_t, Idx>* idxOut, std::int64_t ph,
                 NextCount<Idx>& nc, bool stream) {
  using Out = std::conditional_t<Last, std::int64_t, Idx>;
  const PassOut<Idx, Out> o{keysOut, idxOut,  w.keyLines, reinterpret_cast<Out*>(w.idxLines),
                            w.cur,   w.first, ph,         &nc};
  if (stream) scatterPass<Idx, First, Last, true>(o, keysIn, idxIn, a, b, shift);
  else scatterPass<Idx, First, Last, false>(o, keysIn, idxIn, a, b, shift);
}

template <class Idx>
struct RadixRun {
  const std::uint64_t* keys;
  std::int64_t n;
  int bits;
  std::int64_t* order;
  std::uint64_t* keyPlane; // set Y's keys (set X's are `order`)
  Idx* idxA;               // set X
  Idx* idxB;               // set Y
  RadixWork<Idx>* work;
  Idx* next[2]; // NextCount tables, [writer][owner][kBuckets], by pass parity
  bool stream;
  bool badKey; // written by thread 0 only
};

template <class Idx>
void radixTeamBody(const TeamCtx& t, RadixRun<Idx>& r) {
  RadixWork<Idx>& w = r.work[t.id];
  std::int64_t a, b;
  teamShare(t, r.n, a, b);
  // One read of the chunk: its OR and AND (which bytes vary: the passes)
  // and its histogram of digit 0 (the first pass's digit, unless every key
  // shares byte 0: then one more read counts the first varying digit).
  countDigit<Idx, true>(r.keys, a, b, 0, w.hist, w.keyOr, w.keyAnd);
  teamBarrier(t);

  std::uint64_t keyOr = 0, keyAnd = ~std::uint64_t(0);
  for (int j = 0; j < t.size; ++j) {
    keyOr |= r.work[j].keyOr;
    keyAnd &= r.work[j].keyAnd;
  }
  if (r.bits < 64 && (keyOr >> r.bits) != 0) { // every thread sees it: nothing is written
    if (t.id == 0) r.badKey = true;
    return;
  }
  int pass[8], passes = 0;
  for (int d = 0; d < 8; ++d)
    if (((keyOr ^ keyAnd) >> (8 * d)) & 255u) pass[passes++] = d;
  if (passes == 0) {
    for (std::int64_t i = a; i < b; ++i) r.order[i] = i;
    return;
  }
  if (pass[0] != 0) {
    std::uint64_t unused = 0;
    countDigit<Idx, false>(r.keys, a, b, 8 * pass[0], w.hist, unused, unused);
    teamBarrier(t);
  }

  auto* orderKeys = reinterpret_cast<std::uint64_t*>(r.order);
  const std::size_t table = static_cast<std::size_t>(t.size) * kBuckets;
  // Pass p < passes - 1 writes set Y when (passes - 2 - p) is even, X otherwise.
  auto writesY = [&](int p) { return (passes - 2 - p) % 2 == 0; };
  for (int p = 0; p < passes; ++p) {
    const int d = pass[p], shift = 8 * d;
    const bool first = p == 0, last = p == passes - 1;
    const std::uint64_t* keysIn = r.keys;
    const Idx* idxIn = nullptr;
    if (!first) {
      const bool y = writesY(p - 1);
      keysIn = y ? r.keyPlane : orderKeys;
      idxIn = y ? r.idxB : r.idxA;
    }
    // Cursors: the keys of the buckets below v, then bucket v of the chunks
    // before t (the first pass's chunk histograms are the counting read's;
    // later ones, what every writer counted into chunk j the pass before).
    const Idx* prev = first ? nullptr : r.next[(p - 1) & 1];
    // The slot of element 0 of the output planes in its line: `order`'s on the
    // last pass and with set X (idxA starts at the same slot), 0 with set Y.
    const std::int64_t ph = last || !writesY(p) ? linePhase(r.order) : 0;
    std::int64_t base = 0;
    for (std::size_t v = 0; v < kBuckets; ++v) {
      std::int64_t before = 0, total = 0;
      for (int j = 0; j < t.size; ++j) {
        std::int64_t c = 0; // chunk j's count of bucket v
        if (first) {
          c = static_cast<std::int64_t>(r.work[j].hist[v]);
        } else {
          for (int wr = 0; wr < t.size; ++wr)
            c += static_cast<std::int64_t>(prev[static_cast<std::size_t>(wr) * table +
                                                static_cast<std::size_t>(j) * kBuckets + v]);
        }
        total += c;
        if (j < t.id) before += c;
      }
      w.cur[v] = w.first[v] = base + before + ph;
      base += total;
    }
    NextCount<Idx> nc{nullptr, 0, r.n, t.size, w.own, w.ownEnd};
    if (!last) {
      nc.counts = r.next[p & 1] + static_cast<std::size_t>(t.id) * table;
      nc.shift = 8 * pass[p + 1];
      for (std::size_t c = 0; c < table; ++c) nc.counts[c] = 0;
      for (std::size_t v = 0; v < kBuckets; ++v) {
        w.own[v] = 0;
        w.ownEnd[v] = r.n / t.size;
      }
    }
    if (last) {
      if (first)
        scatterPass<Idx, true, true>(w, keysIn, idxIn, a, b, shift, nullptr, r.order, ph, nc,
                                     r.stream);
      else
        scatterPass<Idx, false, true>(w, keysIn, idxIn, a, b, shift, nullptr, r.order, ph, nc,
                                      r.stream);
    } else {
      const bool y = writesY(p);
      std::uint64_t* keysOut = y ? r.keyPlane : orderKeys;
      Idx* idxOut = y ? r.idxB : r.idxA;
      if (first)
        scatterPass<Idx, true, false>(w, keysIn, idxIn, a, b, shift, keysOut, idxOut, ph, nc,
                                      r.stream);
      else
        scatterPass<Idx, false, false>(w, keysIn, idxIn, a, b, shift, keysOut, idxOut, ph, nc,
                                       r.stream);
      // The plane and the next pass's counts are complete before anyone reads them.
      teamBarrier(t);
    }
  }
}

template <class Idx>
bool radixRun(const HostTeam& team, const std::uint64_t* keys, std::int64_t n, int bits,
              std::int64_t* order, void* scratch) {
  const int threads = teamSizeFor(team, n, kRadixMinPerThread);
  std::unique_ptr<RadixWork<Idx>[]> work(new RadixWork<Idx>[static_cast<std::size_t>(threads)]);
  const std::size_t tables = static_cast<std::size_t>(threads) * threads * kBuckets;
  std::unique_ptr<Idx[]> next(new Idx[2 * tables]);
  auto base = reinterpret_cast<std::uintptr_t>(scratch);
  base = (base + 63u) / 64u * 64u;
  auto* s = reinterpret_cast<unsigned char*>(base);
  RadixRun<Idx> r{keys,
                  n,
                  bits,
                  order,
                  reinterpret_cast<std::uint64_t*>(s + RadixLayout::keys(n)),
                  // idxA pairs with `order` as a key plane: the same line phase.
                  reinterpret_cast<Idx*>(s + RadixLayout::idxA(n) +
                                         sizeof(Idx) * static_cast<std::size_t>(linePhase(order))),
                  reinterpret_cast<Idx*>(s + RadixLayout::idxB(n)),
                  work.get(),
                  {next.get(), next.get() + tables},
                  n >= kRadixStreamMin,
                  false};
  runTeam(threads, [&](const TeamCtx& t) { radixTeamBody<Idx>(t, r); });
  return !r.badKey;
}

} // namespace
} // namespace Impl

void radixOrderHost(const HostTeam& team, const std::uint64_t* keys, std::int64_t n, int bits,
                    std::int64_t* order, void* scratch, std::size_t scratchBytes) {
  constexpr const char* fn = "sieve::radixOrderHost";
  Impl::checkRadixOrderArgs(fn, keys, n, bits, order);
  if (scratch == nullptr) Impl::fail(fn, "scratch is null");
  const std::size_t need = radix_order_scratch_bytes(n);
  if (scratchBytes < need)
    Impl::fail(fn, "scratchBytes = " + std::to_string(scratchBytes) +
                       " is less than radix_order_scratch_bytes(n) = " + std::to_string(need));
  if (n > 0) {
    const std::vector<Impl::ArrayBytes> arrays{
        Impl::arrayBytes("keys", keys, n, sizeof(std::uint64_t)),
        Impl::arrayBytes("order", order, n, sizeof(std::int64_t)),
        Impl::arrayBytes("scratch", scratch, static_cast<std::int64_t>(need), 1)};
    Impl::checkApart(fn, arrays, 1, true, "keys, order and scratch must not share a byte");
  } else {
    return;
  }
  const bool ok = Impl::radixIndexBytes(n) == 4u
                      ? Impl::radixRun<std::uint32_t>(team, keys, n, bits, order, scratch)
                      : Impl::radixRun<std::uint64_t>(team, keys, n, bits, order, scratch);
  if (!ok)
    Impl::fail(fn, "a key is >= 2^bits (bits = " + std::to_string(bits) +
                       "); bits must be at least the bit width of the largest key");
}

} // namespace sieve
