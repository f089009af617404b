// SPDX-License-Identifier: Apache-2.0
// Sieve — radixOrderHost: the stable radix order of 64-bit keys on an OpenMP
// team.
//
// One parallel region. Each thread takes a contiguous chunk [a, b) of the
// keys (the same chunk in every pass) and reads it once: the OR and the AND
// of its keys and its histogram of the first pass's digit as the caller's
// `bits` predicts it. After a barrier the OR checks the bit width and
// OR ^ AND names the bits that vary (none: the identity); should the
// prediction be wrong, a second read counts the right digit.
//
// Keys whose varying bits span more than one byte take the top-digit order
// (radixHostTopBits, core/radix.hpp): one stable scatter by the top 8-10 of
// the varying bits into set Y (or, with no varying bit below them, the
// indices straight into `order`), then each run of one top digit (~4 Ki
// keys up to 2^22 keys, ~n / 2^10 beyond) sorted by the bits below, LSD in 8-bit digits, by the
// thread whose share of the positions holds its start: one histogram read for all of its digits,
// the digits constant within the run skipped, the passes through the thread's own planes
// (RunPlanes: in cache, reused run after run), the last into an int64 plane copied to `order`.
// Every key is read and written twice from memory whatever its width. Skewed keys (a run over n /
// (4 x threads) keys or 2^18: radixHostTopDigitPays) and keys whose varying bits fit one byte take
// LSD passes over the whole keys instead:
//
// Each LSD pass is one stable scatter: thread t's first destination in
// bucket v is the keys of the buckets below v plus those of bucket v in the
// chunks before t (an exclusive scan over (bucket, thread)), and it walks
// its chunk in order, so equal digits keep their order. The chunk
// histograms of the next pass's digit are counted while the keys go out
// (NextCount: each writer counts, per reading chunk, the keys it places
// there), so a pass costs one read and one write of the planes and one
// barrier. One pass per varying byte.
//
// Both scatters write through per-bucket buffers of whole cache lines of
// every plane (they live in L1/L2): an element goes to the slot its
// destination has within its block, and when the block's last slot is
// filled its lines go out at once (non-temporal stores for large n: no read
// for ownership, no cache pollution), one rarely taken branch per key. A
// block the thread owns only in part (the first and last of a bucket's
// range) is written element by element, so no byte outside the thread's
// destinations is ever touched.
//
// Planes: keys + indices ping-pong between the scratch's key plane with idxB
// (set Y) and `order` (as a uint64 key plane) with idxA (set X, idxA placed
// at order's slot within a cache line, so the two share their block
// boundaries), arranged so that the LSD pass before the last writes Y: the
// last pass reads Y and writes only the int64 indices into `order`. Indices
// are uint32 when n < 2^32 (less traffic), uint64 beyond (or when the caller
// of Impl::radixOrderHostIndexBytes asks for 8 bytes). Per call, besides
// the scratch, each thread has a heap workspace (RadixWork, ~280 KiB: its
// buffers and cursors) and, on the top-digit order, its RunPlanes (~32-40
// bytes a key of the largest run it sorts: at most ~10 MiB); the team
// 2 x threads^2 x 256 counters.
#include <sieve/core/keys.hpp>
#include <sieve/core/radix.hpp>
#include <sieve/core/validate.hpp>
#include <sieve/native/host/lines.hpp>
#include <sieve/native/host/radix.hpp>
#include <sieve/native/host/team.hpp>

#include <algorithm>
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
/// Elements a bucket's buffers hold in an LSD pass: whole cache lines of
/// every plane (8 lines of 8-byte items, 4 of 4-byte ones; fewer flush
/// branches than smaller blocks, and the buffers fit in L2).
constexpr std::int64_t kBlock = Tuning::Host::kRadixBlockElems;
/// The line buffers: kBlock elements for each of 256 buckets, or for the
/// top-digit pass kBufElems / 2^topBits elements for each of its buckets
/// (radixHostTopBits: 16 at 2^10 buckets, a line of 4-byte indices).
constexpr std::int64_t kBufElems = kBuckets * kBlock;
constexpr int kMaxTopBuckets = 1 << Tuning::Host::kRadixTopMaxBits;
static_assert(Tuning::Host::kRadixTopMaxBits == 10,
              "sieve: the top-digit pass (topDigitPass) is instantiated for up to 10 top bits");
constexpr std::int64_t kRadixMinPerThread = Tuning::Host::kRadixMinPerThread;
/// From this many keys the planes (>= 12 MiB a pass) outgrow the caches:
/// whole lines go out with non-temporal stores.
constexpr std::int64_t kRadixStreamMin = Tuning::Host::kRadixStreamKeys;

/// One thread's workspace: the block buffers, its bucket cursors, and what
/// every thread reads of it after a barrier (hist, keyOr, keyAnd).
template <class Idx>
struct alignas(64) RadixWork {
  alignas(64) std::uint64_t keyLines[kBufElems];
  alignas(64) unsigned char idxLines[kBufElems * 8];
  std::int64_t cur[kMaxTopBuckets];   // next destination in each bucket
  std::int64_t first[kMaxTopBuckets]; // this thread's first destination in each bucket
  std::int64_t ownEnd[kBuckets];      // where the chunk of own[v] ends (NextCount)
  int own[kBuckets];                  // the next pass's reader of bucket v's next slot
  Idx hist[kMaxTopBuckets];           // the chunk's histogram of the first pass's digit
  std::uint64_t keyOr, keyAnd;        // of the chunk's keys
};

/// Count the digit at `shift` of keys[a, b) into cnt (four interleaved
/// tables: repeated digits do not chain on one counter); with `BitsOf`, also
/// the OR and the AND of the keys.
template <class Idx, bool BitsOf>
void countDigit(const std::uint64_t* SIEVE_RESTRICT keys, std::int64_t a, std::int64_t b, int shift,
                std::uint64_t mask, Idx* cnt, std::uint64_t& keyOr, std::uint64_t& keyAnd) {
  Idx c[4][kMaxTopBuckets] = {};
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
    ++c[0][(k0 >> shift) & mask];
    ++c[1][(k1 >> shift) & mask];
    ++c[2][(k2 >> shift) & mask];
    ++c[3][(k3 >> shift) & mask];
  }
  for (; i < b; ++i) {
    o0 |= keys[i];
    a0 &= keys[i];
    ++c[0][(keys[i] >> shift) & mask];
  }
  for (std::uint64_t v = 0; v <= mask; ++v)
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
  /// The Block keys of the block starting at slot ls.
  template <std::int64_t Block>
  void block(std::size_t v, std::int64_t ls, const std::uint64_t* keys) {
    Idx* c = at(v, ls);
    if (SIEVE_LIKELY(ls + Block <= ownEnd[v])) {
      const int sh = shift; // a local: the counts may alias the members
      std::uint32_t d[Block];
      for (int s = 0; s < Block; ++s) d[s] = static_cast<std::uint32_t>(keys[s] >> sh) & 255u;
      for (int s = 0; s < Block; ++s) ++c[d[s]];
    } else {
      for (int s = 0; s < Block; ++s) one(v, ls + s, keys[s]);
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
  NextCount<Idx>* nc; // the next pass's counts (null on the last and the top-digit pass)
  std::uint64_t mask; // of the digit: buckets - 1
};

/// Bucket v's block was filled by virtual destination c: write it (whole
/// lines of every plane: the block starts on a line of each), or, when it
/// starts before the thread's first destination in the bucket, element by
/// element from there. Keys are counted for the next pass as they go out.
/// Off the hot loop (one call per kBlock keys).
template <std::int64_t Block, bool Stream, bool Last, class Idx, class Out>
SIEVE_NOINLINE void flushBucket(const PassOut<Idx, Out>& o, std::size_t v, std::int64_t c) {
  const std::int64_t f = o.first[v], ph = o.ph, ls = c - (Block - 1);
  const std::uint64_t* kl = o.keyLines + v * Block;
  const Out* il = o.idxLines + v * Block;
  if (SIEVE_LIKELY(ls >= f)) {
    if constexpr (!Last) {
      if (o.nc != nullptr) o.nc->template block<Block>(v, ls - ph, kl);
      for (std::int64_t l = 0; l < Block * 8; l += 64)
        storeLine<Stream>(reinterpret_cast<unsigned char*>(o.keys + (ls - ph)) + l,
                          reinterpret_cast<const unsigned char*>(kl) + l);
    }
    for (std::int64_t l = 0; l < Block * static_cast<std::int64_t>(sizeof(Out)); l += 64)
      storeLine<Stream>(reinterpret_cast<unsigned char*>(o.idx + (ls - ph)) + l,
                        reinterpret_cast<const unsigned char*>(il) + l);
  } else {
    for (std::int64_t q = f; q <= c; ++q) {
      if constexpr (!Last) {
        const std::uint64_t k = kl[q & (Block - 1)];
        o.keys[q - ph] = k;
        if (o.nc != nullptr) o.nc->one(v, q - ph, k);
      }
      o.idx[q - ph] = il[q & (Block - 1)];
    }
  }
}

/// The elements still in the line buffers when the pass ends.
template <std::int64_t Block, bool Last, class Idx, class Out>
void flushTails(const PassOut<Idx, Out>& o) {
  const std::int64_t ph = o.ph;
  for (std::size_t v = 0; v <= o.mask; ++v) {
    const std::int64_t c = o.cur[v], f = o.first[v];
    const std::uint64_t* kl = o.keyLines + v * Block;
    const Out* il = o.idxLines + v * Block;
    for (std::int64_t q = c - (c & (Block - 1)) > f ? c - (c & (Block - 1)) : f; q < c; ++q) {
      if constexpr (!Last) {
        const std::uint64_t k = kl[q & (Block - 1)];
        o.keys[q - ph] = k;
        if (o.nc != nullptr) o.nc->one(v, q - ph, k);
      }
      o.idx[q - ph] = il[q & (Block - 1)];
    }
  }
}

/// One stable scatter pass of keys[a, b) (indices: i on the first pass,
/// idxIn[i] after) by the digit (k >> shift) & o.mask, from the cursors in
/// o.cur, through Block-element buffers. The last pass writes only the
/// indices (int64); the others count the next pass's digit as their key
/// lines go out (o.nc, when there is a next global pass). Index lines hold 8
/// or 16 indices and start where key lines do, so a full index line always
/// ends on a full key line: one rarely taken branch per key.
template <std::int64_t Block, class Idx, bool First, bool Last, bool Stream>
SIEVE_NOINLINE void scatterPass(const PassOut<Idx, std::conditional_t<Last, std::int64_t, Idx>>& o,
                                const std::uint64_t* SIEVE_RESTRICT keysIn,
                                const Idx* SIEVE_RESTRICT idxIn, std::int64_t a, std::int64_t b,
                                int shift) {
  using Out = std::conditional_t<Last, std::int64_t, Idx>;
  static_assert(Block * sizeof(Idx) % kHostLine == 0, "a block is whole lines of every plane");
  std::uint64_t* SIEVE_RESTRICT kl = o.keyLines;
  Out* SIEVE_RESTRICT il = o.idxLines;
  std::int64_t* SIEVE_RESTRICT cur = o.cur;
  const std::uint64_t mask = o.mask;
  for (std::int64_t i = a; i < b; ++i) {
    const std::uint64_t k = keysIn[i];
    const std::size_t v = static_cast<std::size_t>((k >> shift) & mask);
    const std::int64_t c = cur[v];
    cur[v] = c + 1;
    Out x;
    if constexpr (First) x = static_cast<Out>(i);
    else x = static_cast<Out>(idxIn[i]);
    const std::size_t slot = v * Block + static_cast<std::size_t>(c & (Block - 1));
    il[slot] = x;
    if constexpr (!Last) kl[slot] = k;
    if ((c & (Block - 1)) == Block - 1) flushBucket<Block, Stream, Last>(o, v, c);
  }
  flushTails<Block, Last>(o);
  if constexpr (Stream) storeFence();
}

template <std::int64_t Block, class Idx, bool First, bool Last>
void scatterPass(RadixWork<Idx>& w, const std::uint64_t* keysIn, const Idx* idxIn, std::int64_t a,
                 std::int64_t b, int shift, std::uint64_t mask, std::uint64_t* keysOut,
                 std::conditional_t<Last, std::int64_t, Idx>* idxOut, std::int64_t ph,
                 NextCount<Idx>* nc, bool stream) {
  using Out = std::conditional_t<Last, std::int64_t, Idx>;
  const PassOut<Idx, Out> o{keysOut, idxOut,  w.keyLines, reinterpret_cast<Out*>(w.idxLines),
                            w.cur,   w.first, ph,         nc,
                            mask};
  if (stream) scatterPass<Block, Idx, First, Last, true>(o, keysIn, idxIn, a, b, shift);
  else scatterPass<Block, Idx, First, Last, false>(o, keysIn, idxIn, a, b, shift);
}

/// The top-digit pass (radixHostTopBits = topBits): keys[a, b) with their
/// indices i, by the digit at `shift`, into set Y (or, `last`, only the int64
/// indices into `order`), through buffers of kBufElems >> topBits elements.
template <class Idx>
void topDigitPass(RadixWork<Idx>& w, const std::uint64_t* keys, std::int64_t a, std::int64_t b,
                  int shift, int topBits, std::uint64_t* keysOut, Idx* idxOut, std::int64_t* order,
                  std::int64_t ph, bool last, bool stream) {
  const std::uint64_t mask = (std::uint64_t(1) << topBits) - 1;
  auto go = [&](auto block) {
    constexpr std::int64_t B = decltype(block)::value;
    if (last)
      scatterPass<B, Idx, true, true>(w, keys, nullptr, a, b, shift, mask, nullptr, order, ph,
                                      nullptr, stream);
    else
      scatterPass<B, Idx, true, false>(w, keys, nullptr, a, b, shift, mask, keysOut, idxOut, ph,
                                       nullptr, stream);
  };
  if (topBits <= 8) go(std::integral_constant<std::int64_t, kBufElems / 256>{});
  else if (topBits == 9) go(std::integral_constant<std::int64_t, kBufElems / 512>{});
  else go(std::integral_constant<std::int64_t, kBufElems / 1024>{});
}

/// The 8-bit (or narrower, at the top) digits of the bits below `lo` in
/// which keys vary (`varying`): LSD order, their shifts and masks.
struct LowDigits {
  int count = 0;
  int shift[8];
  std::uint64_t mask[8];
  LowDigits(std::uint64_t varying, int lo) {
    for (int s = 0; s < lo; s += kRadixDigitBits) {
      const int w = lo - s < kRadixDigitBits ? lo - s : kRadixDigitBits;
      const std::uint64_t m = (std::uint64_t(1) << w) - 1;
      if ((varying >> s) & m) {
        shift[count] = s;
        mask[count++] = m;
      }
    }
  }
};

/// One thread's planes for the runs it sorts: two key and two index planes
/// and an int64 output plane of `cap` elements (the largest run), reused run
/// after run, so they stay in cache.
template <class Idx>
struct RunPlanes {
  std::int64_t cap;
  Aligned mem;
  explicit RunPlanes(std::int64_t c)
      : cap(c), mem(static_cast<std::size_t>(c) * (2 * 8 + 2 * sizeof(Idx) + 8) + 6 * kHostLine) {}
  std::uint64_t* keys(int i) { return reinterpret_cast<std::uint64_t*>(mem.p) + i * lines(8); }
  Idx* idx(int i) {
    return reinterpret_cast<Idx*>(mem.p + 2 * 8 * lines(8)) + i * lines(sizeof(Idx));
  }
  /// The output plane, its element 0 at `phase` (elements) within a line.
  std::int64_t* out(int phase) {
    return reinterpret_cast<std::int64_t*>(mem.p + 2 * 8 * lines(8) +
                                           2 * sizeof(Idx) * lines(sizeof(Idx))) +
           phase;
  }

 private:
  /// Elements of `bytes` bytes in a plane of cap of them rounded up to lines.
  std::int64_t lines(std::size_t bytes) const {
    const std::int64_t per = kHostLine / static_cast<std::int64_t>(bytes);
    return (cap + per - 1) / per * per;
  }
};

/// One thread's sort of the run [s, s + m) of set Y by the low digits
/// (stable LSD; the digits constant within the run skipped), its int64
/// indices written to order[s, s + m): one read of the run's keys counts
/// every digit, the passes go through the thread's planes (in cache), the
/// last one into its output plane, which is then copied to `order` at the
/// same line phase (whole lines streamed with `Stream`).
template <bool Stream, class Idx>
void sortRun(const LowDigits& low, std::int64_t s, std::int64_t m, const std::uint64_t* yKeys,
             const Idx* yIdx, std::int64_t* order, RunPlanes<Idx>& pl, std::int64_t* h) {
  const std::uint64_t* kIn = yKeys + s;
  const Idx* iIn = yIdx + s;
  std::fill(h, h + low.count * kBuckets, 0);
  for (std::int64_t j = 0; j < m; ++j) {
    const std::uint64_t k = kIn[j];
    for (int d = 0; d < low.count; ++d) ++h[d * kBuckets + ((k >> low.shift[d]) & low.mask[d])];
  }
  int pass[8], passes = 0;
  for (int d = 0; d < low.count; ++d)
    if (h[d * kBuckets + ((kIn[0] >> low.shift[d]) & low.mask[d])] != m) pass[passes++] = d;
  if (passes == 0) {
    for (std::int64_t j = 0; j < m; ++j) order[s + j] = static_cast<std::int64_t>(iIn[j]);
    return;
  }
  std::int64_t* SIEVE_RESTRICT out = pl.out(linePhase(order + s));
  for (int p = 0; p < passes; ++p) {
    const int d = pass[p], sh = low.shift[d];
    const std::uint64_t dm = low.mask[d];
    std::int64_t* SIEVE_RESTRICT cur = h + d * kBuckets;
    std::int64_t c = 0;
    for (std::uint64_t v = 0; v <= dm; ++v) {
      const std::int64_t t = cur[v];
      cur[v] = c;
      c += t;
    }
    if (p + 1 < passes) {
      std::uint64_t* SIEVE_RESTRICT kOut = pl.keys(p & 1);
      Idx* SIEVE_RESTRICT iOut = pl.idx(p & 1);
      for (std::int64_t j = 0; j < m; ++j) {
        const std::uint64_t k = kIn[j];
        const std::int64_t q = cur[(k >> sh) & dm]++;
        kOut[q] = k;
        iOut[q] = iIn[j];
      }
      kIn = kOut;
      iIn = iOut;
    } else {
      for (std::int64_t j = 0; j < m; ++j)
        out[cur[(kIn[j] >> sh) & dm]++] = static_cast<std::int64_t>(iIn[j]);
    }
  }
  copyLines<Stream>(order + s, out, static_cast<std::size_t>(m) * 8u);
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

/// The order by the top digit (`top` bits at `shift`; the threads'
/// histograms of it in work[].hist), then each run sorted by the bits below
/// in cache: false, with nothing written, when the largest run says it does
/// not pay (radixHostTopDigitPays). The top-digit pass writes set Y (or,
/// with no varying bit below it, the indices into `order`); each thread then
/// sorts the runs that start in its share of the positions.
template <class Idx>
bool topDigitOrder(const TeamCtx& t, RadixRun<Idx>& r, int top, int shift, std::uint64_t varying) {
  RadixWork<Idx>& w = r.work[t.id];
  const std::size_t V = std::size_t(1) << top;
  std::vector<std::int64_t> starts(V + 1);
  // No varying bit below the top digit: its pass writes the order itself.
  const bool last = (varying & ((std::uint64_t(1) << shift) - 1)) == 0;
  const std::int64_t ph = last ? linePhase(r.order) : 0;
  std::int64_t base = 0, largest = 0;
  for (std::size_t v = 0; v < V; ++v) {
    std::int64_t before = 0, total = 0;
    for (int j = 0; j < t.size; ++j) {
      const auto c = static_cast<std::int64_t>(r.work[j].hist[v]);
      total += c;
      if (j < t.id) before += c;
    }
    w.cur[v] = w.first[v] = base + before + ph;
    starts[v] = base;
    base += total;
    largest = total > largest ? total : largest;
  }
  starts[V] = base;
  if (!radixHostTopDigitPays(largest, r.n, t.size)) return false;
  std::int64_t a, b;
  teamShare(t, r.n, a, b);
  topDigitPass(w, r.keys, a, b, shift, top, r.keyPlane, r.idxB, r.order, ph, last, r.stream);
  if (last) return true;
  teamBarrier(t);
  const LowDigits low(varying, shift);
  const std::int64_t lo = r.n * t.id / t.size;
  const std::int64_t hi = t.id + 1 == t.size ? r.n + 1 : r.n * (t.id + 1) / t.size;
  std::int64_t cap = 1;
  for (std::size_t v = 0; v < V; ++v)
    if (starts[v] >= lo && starts[v] < hi && starts[v + 1] - starts[v] > cap)
      cap = starts[v + 1] - starts[v];
  RunPlanes<Idx> planes(cap);
  std::vector<std::int64_t> hist(static_cast<std::size_t>(low.count) * kBuckets);
  for (std::size_t v = 0; v < V; ++v) {
    const std::int64_t s = starts[v], m = starts[v + 1] - s;
    if (m == 0 || s < lo || s >= hi) continue;
    if (r.stream) sortRun<true>(low, s, m, r.keyPlane, r.idxB, r.order, planes, hist.data());
    else sortRun<false>(low, s, m, r.keyPlane, r.idxB, r.order, planes, hist.data());
  }
  if (r.stream) storeFence();
  return true;
}

template <class Idx>
void radixTeamBody(const TeamCtx& t, RadixRun<Idx>& r) {
  RadixWork<Idx>& w = r.work[t.id];
  std::int64_t a, b;
  teamShare(t, r.n, a, b);
  // One read of the chunk: its OR and AND (which bits vary) and its
  // histogram of the first pass's digit as `bits` predicts it: the top digit
  // (radixHostTopBits of bits) or, for keys of one byte, digit 0. Should the
  // keys' own width say otherwise, one more read counts the right digit.
  const int guessTop = radixHostTopBits(r.n, r.bits);
  const int countShift = guessTop > 0 ? r.bits - guessTop : 0;
  const std::uint64_t countMask = guessTop > 0 ? (std::uint64_t(1) << guessTop) - 1 : 255u;
  countDigit<Idx, true>(r.keys, a, b, countShift, countMask, w.hist, w.keyOr, w.keyAnd);
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
  const std::uint64_t varying = keyOr ^ keyAnd;
  if (varying == 0) {
    for (std::int64_t i = a; i < b; ++i) r.order[i] = i;
    return;
  }
  const int width = Keys::radixTotalBits(varying);
  bool counted = false; // w.hist holds the LSD pass's first digit
  if (const int top = radixHostTopBits(r.n, width); top > 0) {
    const int shift = width - top;
    const std::uint64_t mask = (std::uint64_t(1) << top) - 1;
    if (shift != countShift || mask != countMask) {
      std::uint64_t unused = 0;
      countDigit<Idx, false>(r.keys, a, b, shift, mask, w.hist, unused, unused);
      teamBarrier(t);
    }
    if (topDigitOrder(t, r, top, shift, varying)) return;
    teamBarrier(t); // (everyone has read the histograms the LSD count overwrites)
  } else {
    counted = countShift == 0 && countMask == 255u;
  }
  int pass[8], passes = 0;
  for (int d = 0; d < 8; ++d)
    if ((varying >> (8 * d)) & 255u) pass[passes++] = d;
  if (pass[0] != 0 || !counted) {
    std::uint64_t unused = 0;
    countDigit<Idx, false>(r.keys, a, b, 8 * pass[0], 255u, w.hist, unused, unused);
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
        scatterPass<kBlock, Idx, true, true>(w, keysIn, idxIn, a, b, shift, 255u, nullptr, r.order,
                                             ph, nullptr, r.stream);
      else
        scatterPass<kBlock, Idx, false, true>(w, keysIn, idxIn, a, b, shift, 255u, nullptr, r.order,
                                              ph, nullptr, r.stream);
    } else {
      const bool y = writesY(p);
      std::uint64_t* keysOut = y ? r.keyPlane : orderKeys;
      Idx* idxOut = y ? r.idxB : r.idxA;
      if (first)
        scatterPass<kBlock, Idx, true, false>(w, keysIn, idxIn, a, b, shift, 255u, keysOut, idxOut,
                                              ph, &nc, r.stream);
      else
        scatterPass<kBlock, Idx, false, false>(w, keysIn, idxIn, a, b, shift, 255u, keysOut, idxOut,
                                               ph, &nc, r.stream);
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
                  reinterpret_cast<Idx*>(s + RadixLayout::idxB(n, sizeof(Idx))),
                  work.get(),
                  {next.get(), next.get() + tables},
                  n >= kRadixStreamMin,
                  false};
  runTeam(threads, [&](const TeamCtx& t) { radixTeamBody<Idx>(t, r); });
  return !r.badKey;
}

} // namespace
} // namespace Impl

namespace Impl {

void radixOrderHostIndexBytes(const HostTeam& team, const std::uint64_t* keys, std::int64_t n,
                              int bits, std::int64_t* order, void* scratch,
                              std::size_t scratchBytes, std::size_t indexBytes, const char* fn) {
  checkRadixOrderArgs(fn, keys, n, bits, order);
  checkRadixIndexBytes(fn, n, indexBytes);
  if (scratch == nullptr) fail(fn, "scratch is null");
  const std::size_t need = radixOrderScratchBytes(n, indexBytes);
  checkRadixScratchBytes(fn, n, indexBytes, scratchBytes, need, false);
  if (n > 0) {
    const std::vector<ArrayBytes> arrays{
        arrayBytes("keys", keys, n, sizeof(std::uint64_t)),
        arrayBytes("order", order, n, sizeof(std::int64_t)),
        arrayBytes("scratch", scratch, static_cast<std::int64_t>(need), 1)};
    checkApart(fn, arrays, 1, true, "keys, order and scratch must not share a byte");
  } else {
    return;
  }
  const bool ok = indexBytes == 4u ? radixRun<std::uint32_t>(team, keys, n, bits, order, scratch)
                                   : radixRun<std::uint64_t>(team, keys, n, bits, order, scratch);
  if (!ok)
    fail(fn, "a key is >= 2^bits (bits = " + std::to_string(bits) +
                 "); bits must be at least the bit width of the largest key");
}

} // namespace Impl

void radixOrderHost(const HostTeam& team, const std::uint64_t* keys, std::int64_t n, int bits,
                    std::int64_t* order, void* scratch, std::size_t scratchBytes) {
  Impl::radixOrderHostIndexBytes(team, keys, n, bits, order, scratch, scratchBytes,
                                 Impl::radixIndexBytes(n), "sieve::radixOrderHost");
}

} // namespace sieve
