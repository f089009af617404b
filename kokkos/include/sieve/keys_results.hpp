// SPDX-License-Identifier: Apache-2.0
// Sieve — the results of sieve::keys (KeyRanges, DenseKeys, SparseKeys,
// ReducedKeys, GroupedElements, Grouping): key ids with their element
// ranges; DenseWorkspace, the scratch of the asynchronous scatter_dense
// whose offsets its DenseKeys share; and SparseWorkspace, the result memory
// that scatter_sparse reuses in a loop. Every result holds its Views (Kokkos
// handle semantics: copies share them) and can be released alone; the
// results of a call given a workspace are Views into the workspace's memory,
// current until its next call. Included by <sieve/keys.hpp>.
#pragma once

#include <sieve/core/keys.hpp>
#include <sieve/impl/common.hpp>
#include <sieve/scan.hpp>

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sieve {
namespace Impl {
namespace Keys {
/// The base of every keys result (kIsKeys).
struct KeyRangesTag {};
/// The buffers a SparseWorkspace keeps (its copies share them).
template <class Key, class Mem>
struct SparseKept {
  Kokkos::View<std::int64_t*, Mem> offsets;  // capacity + 1 words
  Kokkos::View<Key*, Mem> keys;              // capacity keys
  Kokkos::View<unsigned char*, Mem> scratch; // the radix order's (its words, order, sort scratch)
  // A fixed workspace (elements >= 0): the asynchronous calls' key count and
  // rejection word; its scratch is SparseAsyncLayout's for these elements on
  // the constructor's instance's concurrency (a call on another instance
  // uses the same layout).
  std::int64_t elements = -1, concurrency = 1;
  Kokkos::View<std::int64_t, Mem> count, status;
};

/// A radix word (key - min) with the index of its element.
struct RadixItem {
  std::uint64_t u;
  std::int64_t idx;
};

/// The bytes of Exec's native radix order of n keys (0 without one).
template <class Exec>
std::size_t nativeRadixOrderBytes(std::int64_t n) {
  constexpr Face F = nativeFaceFor<Exec, Primitive::RadixOrder>();
  if constexpr (F != Face::Portable) return Faces<F>::radixOrderScratchBytes(n);
  else return 0;
}

/// The scratch of the asynchronous scatter_sparse (a fixed SparseWorkspace)
/// for up to `elements` elements of an integer Key on `concurrency` threads,
/// sorted over the key type's full width (no key range read back): by the
/// native radix order where the space has one (`nativeSortBytes` > 0: its
/// uint64 words, the order, its scratch and two status words), or by LSD
/// radix passes, each a stable counting sort of `chunks` chunks into
/// `buckets` buckets on (word, index) items; both heads start the buffer,
/// and the gather's chunks and the scan's scratch follow them. Byte offsets
/// into one buffer, 64-byte aligned; the constructor and the calls both take
/// it from here.
template <class Key>
struct SparseAsyncLayout {
  static constexpr std::uint64_t kFullSpan = ~std::uint64_t(0) >>
                                             (64 - 8 * static_cast<int>(sizeof(Key)));
  static constexpr int kBits = 8 * static_cast<int>(sizeof(Key));
  int passes = 0, bits = 0;
  std::int64_t buckets = 0, chunks = 0, gatherChunks = 0, scanWords = 0;
  std::size_t itemsA = 0, itemsB = 0, idx = 0, hist = 0, stats = 0, bucketOffsets = 0;
  std::size_t words = 0, order = 0, sort = 0, sortBytes = 0, radixStatus = 0;
  std::size_t scan = 0, chunkKeys = 0, bytes = 0;

  SparseAsyncLayout(std::int64_t elements, std::int64_t concurrency, std::size_t nativeSortBytes) {
    passes = radixPasses(kFullSpan);
    bits = radixPassBits(kFullSpan);
    buckets = std::int64_t(1) << bits;
    chunks = countingChunks(elements, buckets, concurrency);
    gatherChunks = countingChunks(elements, 1, concurrency);
    const std::int64_t a = sieve::scan_scratch_size<std::int64_t>(buckets + 1);
    const std::int64_t b = sieve::scan_scratch_size<std::int64_t>(gatherChunks + 1);
    scanWords = a > b ? a : b;
    const auto n = static_cast<std::size_t>(elements);
    const auto w = [](std::int64_t count) { return 8u * static_cast<std::size_t>(count); };
    std::size_t at = 0;
    const auto take = [&](std::size_t size) {
      const std::size_t here = at;
      at += (size + 63u) / 64u * 64u;
      return here;
    };
    itemsA = take(passes > 1 ? sizeof(RadixItem) * n : 0);
    itemsB = take(passes > 2 ? sizeof(RadixItem) * n : 0);
    idx = take(w(elements));
    hist = take(w(chunks * buckets));
    stats = take(w(3 * chunks));
    bucketOffsets = take(w(buckets + 1));
    std::size_t head = at;
    if (nativeSortBytes > 0) {
      at = 0;
      sortBytes = nativeSortBytes;
      words = take(w(elements));
      order = take(w(elements));
      sort = take(sortBytes);
      radixStatus = take(16);
      if (at > head) head = at;
    }
    at = head;
    scan = take(w(scanWords));
    chunkKeys = take(w(gatherChunks + 1));
    bytes = at + 64u; // the buffer's start aligned up to 64 bytes
  }
};

} // namespace Keys
} // namespace Impl

namespace keys {

/// What every keys result shares: `num_keys()` key ids, the elements of key
/// id k being [offset(k), offset(k + 1)) of the output it describes.
template <class ExecSpace>
class KeyRanges : public Impl::Keys::KeyRangesTag {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  /// num_keys() + 1 offsets, ascending; offsets()(num_keys()) = num_elements().
  using offsets_view = Kokkos::View<std::int64_t*, memory_space>;

  /// Empty: no keys, no elements.
  KeyRanges() = default;
  /// (internal) made by the calls of sieve::keys.
  KeyRanges(const offsets_view& offsets, std::int64_t numKeys, std::int64_t numElements)
      : offsets_(offsets), numKeys_(numKeys), numElements_(numElements) {}

  /// The number of key ids. O(1).
  std::int64_t num_keys() const { return numKeys_; }
  /// The number of elements of all keys (= offset(num_keys())). O(1).
  std::int64_t num_elements() const { return numElements_; }
  /// The offsets View (num_keys() + 1 words, in the space's memory; use it in kernels).
  const offsets_view& offsets() const { return offsets_; }
  /// The first element of key id k, for 0 <= k <= num_keys(). Reads one word
  /// from the space's memory (blocking, O(1)); in kernels use offsets().
  /// Throws std::invalid_argument for k outside [0, num_keys()], and when the
  /// asynchronous call that made it rejected its input (see DenseWorkspace).
  std::int64_t offset(std::int64_t k) const {
    if (k < 0 || k > numKeys_)
      sieve::Impl::fail("sieve::keys::offset", "k = " + std::to_string(k) + " is outside [0, " +
                                                   std::to_string(numKeys_) + "]");
    check("sieve::keys::offset");
    std::int64_t v = 0;
    if (offsets_.extent(0) == 0) return v;
    Kokkos::deep_copy(v, Kokkos::subview(offsets_, k));
    return v;
  }
  /// (internal) the workspace call that made it (0: none; compact checks
  /// that its reduced keys came from this very call).
  std::int64_t madeByCall() const { return live_ != nullptr ? generation_ : 0; }
  /// (internal) the rejection word and the workspace generation of the
  /// asynchronous call that made it.
  using status_view = Kokkos::View<std::int64_t, memory_space>;
  /// `keyCapacity` >= 0: the call was a fixed SparseWorkspace's, whose
  /// rejection word counts distinct keys beyond that capacity.
  void attachCall(const status_view& s, std::shared_ptr<const std::int64_t> live,
                  std::int64_t generation, std::int64_t keyCapacity = -1) {
    status_ = s;
    live_ = std::move(live);
    generation_ = generation;
    keyCapacity_ = keyCapacity;
  }
  /// (internal) the rejection word of the asynchronous call that made these
  /// keys (empty: none).
  const status_view& status() const { return status_; }
  /// Throws std::invalid_argument when these keys came from a call given a
  /// workspace (the asynchronous scatter_dense, or scatter_sparse with a
  /// SparseWorkspace) that has served a later call since (their offsets are
  /// that call's now). Host only, O(1), never blocks.
  void checkCurrent(const char* fn) const {
    if (live_ != nullptr && *live_ != generation_)
      sieve::Impl::fail(fn,
                        "these keys came from a call given a workspace (DenseWorkspace or "
                        "SparseWorkspace) that has served a later call since: their offsets "
                        "are that call's now (copy the keys, or use a workspace per result "
                        "kept alive)");
  }
  /// Throws std::invalid_argument when the asynchronous call that made these
  /// keys rejected its input, or as checkCurrent (reads one word: blocking;
  /// O(1) otherwise).
  void check(const char* fn) const {
    checkCurrent(fn);
    if (status_.data() == nullptr) return;
    std::int64_t v = 0;
    Kokkos::deep_copy(v, status_);
    if (v != 0 && keyCapacity_ >= 0)
      sieve::Impl::fail(fn, "the asynchronous scatter_sparse that made these keys found " +
                                std::to_string(v) +
                                " distinct keys, more than its workspace's capacity of " +
                                std::to_string(keyCapacity_) +
                                ": its output holds the elements in key order, but every key "
                                "is empty");
    if (v < 0)
      sieve::Impl::fail(fn,
                        "the asynchronous call that made these keys rejected its input: its "
                        "element count (on the device) was outside [0, the workspace's "
                        "capacity]; nothing was written and every key is empty");
    if (v != 0)
      sieve::Impl::fail(fn, "the asynchronous scatter that made these keys rejected its input (" +
                                std::to_string(v) +
                                " element key(s) outside the workspace's key range); its output "
                                "was not written and every key is empty");
  }

 protected:
  offsets_view offsets_;
  status_view status_;
  std::shared_ptr<const std::int64_t> live_;
  std::int64_t generation_ = 0;
  std::int64_t keyCapacity_ = -1;
  std::int64_t numKeys_ = 0;
  std::int64_t numElements_ = 0;
};

/// The keys of scatter_dense: every key of [min_key(), max_key()], present or
/// not; the key id of key x is x - min_key().
template <class Key, class ExecSpace>
class DenseKeys : public KeyRanges<ExecSpace> {
 public:
  using key_type = Key;
  DenseKeys() = default;
  /// (internal) made by scatter_dense.
  DenseKeys(const typename KeyRanges<ExecSpace>::offsets_view& offsets, std::int64_t numKeys,
            std::int64_t numElements, Key minKey, Key maxKey)
      : KeyRanges<ExecSpace>(offsets, numKeys, numElements), min_(minKey), max_(maxKey) {}
  /// The smallest key of the range (meaningless when num_keys() == 0).
  Key min_key() const { return min_; }
  /// The largest key of the range.
  Key max_key() const { return max_; }

 private:
  Key min_{};
  Key max_{};
};

/// The scratch of the asynchronous scatter_dense (fixed sizes: no
/// allocation, no fence, nothing read back; capture-safe on device spaces as
/// far as Kokkos' own kernel launches are): made once for `elements` View
/// elements whose keys (of type Key) lie in [min_key, max_key], then given to
/// any number of calls of that shape, one after the other (on one instance,
/// or with a fence between instances: two calls in flight at once on it
/// race). It holds the per-chunk histograms (about num_keys() x chunks
/// words), the offsets the returned DenseKeys share, the scan's scratch and a
/// rejection word. The next call overwrites those offsets: the keys of an
/// earlier call then throw when used (offset, for_each_key_range, reduce,
/// group, compact). A key outside the range cannot throw in an asynchronous
/// call: the call then writes nothing to its output, leaves every key empty
/// and counts the keys in rejected(); check() (or DenseKeys::offset(), or
/// reduce / group on those keys) throws. Copies share the scratch.
template <class Key, class ExecSpace>
class DenseWorkspace {
 public:
  using key_type = Key;
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using words_view = Kokkos::View<std::int64_t*, memory_space>;
  using status_view = Kokkos::View<std::int64_t, memory_space>;

  /// Empty: any call given it throws.
  DenseWorkspace() = default;
  /// Allocates the scratch on `exec` (blocking allocation, O(keys x chunks)
  /// words). Throws std::invalid_argument for elements < 0 or > 2^31 - 2, a
  /// min_key or max_key that is not a value of Key (never truncated), min_key
  /// > max_key, a range of more than 2^31 - 2 keys, or one whose histograms
  /// cannot be allocated.
  template <class K1, class K2>
  DenseWorkspace(const ExecSpace& exec, std::int64_t elements, const K1& min_key,
                 const K2& max_key) {
    static_assert(sieve::Impl::Keys::kIntegralKey<Key>,
                  "sieve::keys::DenseWorkspace: dense keys are integers");
    static_assert(std::is_convertible_v<K1, Key> && std::is_convertible_v<K2, Key>,
                  "sieve::keys::DenseWorkspace: min_key and max_key must convert to the key type");
    constexpr const char* fn = "sieve::keys::DenseWorkspace";
    sieve::Impl::Keys::checkKeyValue<Key>(fn, "min_key", min_key);
    sieve::Impl::Keys::checkKeyValue<Key>(fn, "max_key", max_key);
    n_ = elements;
    generation_ = std::make_shared<std::int64_t>(0);
    min_ = static_cast<Key>(min_key);
    max_ = static_cast<Key>(max_key);
    if (elements < 0 || elements > sieve::Impl::Keys::kMaxDenseKeys)
      sieve::Impl::fail(fn, "elements = " + std::to_string(elements) + " is outside [0, " +
                                std::to_string(sieve::Impl::Keys::kMaxDenseKeys) + "]");
    keys_ = sieve::Impl::Keys::checkKeyRange(fn, min_, max_);
    chunks_ = sieve::Impl::Keys::countingChunks(elements, keys_, exec.concurrency());
    const sieve::Impl::Names names("", "sieve::keys::DenseWorkspace");
    try {
      hist_ = sieve::Impl::allocate<words_view>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("histograms")),
          static_cast<std::size_t>(chunks_ * keys_));
      stats_ = sieve::Impl::allocate<words_view>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("stats")),
          static_cast<std::size_t>(3 * chunks_));
      offsets_ = sieve::Impl::allocate<words_view>(Kokkos::view_alloc(exec, names("offsets")),
                                                   static_cast<std::size_t>(keys_ + 1));
      scan_ = sieve::Impl::allocate<words_view>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("scan")),
          sieve::scan_scratch_size<std::int64_t>(keys_ + 1));
      status_ = sieve::Impl::allocate<status_view>(Kokkos::view_alloc(exec, names("rejected")));
    } catch (const std::bad_alloc& e) {
      tooLarge(fn, e.what());
    } catch (const std::runtime_error& e) {
      tooLarge(fn, e.what());
    }
    sieve::Impl::keepTeamScratch(exec, names); // GPU spaces: the calls given it allocate nothing
    sieve::Impl::fence(exec, "keys::DenseWorkspace: zeroed");
  }

  /// The elements of every call (the input View's extent).
  std::int64_t elements() const { return n_; }
  /// The key ids: max_key - min_key + 1 (0 when empty).
  std::int64_t num_keys() const { return keys_; }
  Key min_key() const { return min_; }
  Key max_key() const { return max_; }
  /// The keys the last call found outside the range (0: none), written by
  /// that call on its instance (read it after a fence).
  const status_view& rejected() const { return status_; }
  /// Fences `exec`, then throws std::invalid_argument when the last call
  /// rejected its input (naming how many keys and the range). Blocking.
  void check(const ExecSpace& exec) const {
    sieve::Impl::fence(exec, "keys::DenseWorkspace::check");
    std::int64_t v = 0;
    if (status_.data() != nullptr) Kokkos::deep_copy(v, status_);
    if (v < 0)
      sieve::Impl::fail("sieve::keys::sort_permutation",
                        "the element count (on the device) was outside [0, " + std::to_string(n_) +
                            "], the workspace's capacity; nothing was written and every key is "
                            "empty");
    if (v != 0)
      sieve::Impl::fail("sieve::keys::scatter_dense",
                        std::to_string(v) + " element key(s) lie outside the key range [" +
                            std::to_string(min_) + ", " + std::to_string(max_) +
                            "]; nothing was written and every key is empty");
  }

  /// (internal) the counting sort's scratch.
  std::int64_t chunks() const { return chunks_; }
  const words_view& histograms() const { return hist_; }
  const words_view& stats() const { return stats_; }
  const words_view& offsets() const { return offsets_; }
  const words_view& scanScratch() const { return scan_; }
  /// (internal) counts the calls made on it (host; shared by its copies).
  const std::shared_ptr<std::int64_t>& generation() const { return generation_; }

 private:
  [[noreturn]] void tooLarge(const char* fn, const char* what) const {
    sieve::Impl::Keys::failRangeTooLarge(fn, min_, max_, keys_, n_, what);
  }

  std::int64_t n_ = -1, keys_ = 0, chunks_ = 0;
  Key min_{}, max_{};
  words_view hist_, stats_, offsets_, scan_;
  status_view status_;
  std::shared_ptr<std::int64_t> generation_;
};

/// The keys of scatter_sparse: the distinct keys, ascending by operator<; the
/// key id of a key is its position among them.
///
/// From a fixed SparseWorkspace (the asynchronous form), num_keys() is the
/// workspace's capacity and the number of distinct keys stays on the device,
/// in key_count(): the key ids from it on are empty (their offsets are
/// num_elements()) and their keys() repeat the last key, so keys() stays
/// ascending (a lower bound finds the real id) and every later call over
/// these keys (reduce, group, compact, reduce_by_key, for_each_key_range)
/// takes the count as it is, without reading it back.
template <class Key, class ExecSpace>
class SparseKeys : public KeyRanges<ExecSpace> {
 public:
  using key_type = Key;
  using keys_view = Kokkos::View<Key*, typename ExecSpace::memory_space>;
  using count_view = Kokkos::View<std::int64_t, typename ExecSpace::memory_space>;
  SparseKeys() = default;
  /// (internal) made by scatter_sparse.
  SparseKeys(const typename KeyRanges<ExecSpace>::offsets_view& offsets, const keys_view& keys,
             std::int64_t numKeys, std::int64_t numElements, const count_view& count = {})
      : KeyRanges<ExecSpace>(offsets, numKeys, numElements), keys_(keys), count_(count) {}
  /// The distinct keys (num_keys() of them), ascending.
  const keys_view& keys() const { return keys_; }
  /// The number of distinct keys, on the device (a rank-0 View in the space's
  /// memory, written by the asynchronous call that made these keys; read it
  /// in kernels, or after a fence). Empty (no data) for the keys of the
  /// blocking forms, whose num_keys() is that number.
  const count_view& key_count() const { return count_; }

 private:
  keys_view keys_;
  count_view count_;
};

/// The result memory of scatter_sparse called in a loop: the offsets and
/// keys buffers that the calls given it write their SparseKeys into (the
/// usual View types, of exactly num_keys() (+ 1) entries), so that a loop
/// stops allocating, and first-touching, 16 bytes or so per element every
/// step once the buffers fit; and, for integer keys sorted by a native
/// radix order (on Kokkos::OpenMP the inputs the record sort does not take:
/// below 16 MiB, records over 32 bytes, keyed or mapper inputs, skewed keys;
/// docs/keys.md), that order's scratch (about 32 bytes an element, kept
/// from the first such call on). A call grows its buffers when they are
/// short (the keys' to max(keys, 1.5 x the capacity), the scratch's likewise
/// in bytes), and takes
/// fresh ones when they share a byte with its input or output View (it would
/// overwrite what it reads); otherwise it reuses them. The SparseKeys a call
/// returns are valid until the next call given this workspace or a copy of it
/// (copies share the buffers), even one that throws: offset(k), reduce, group,
/// compact, reduce_by_key and for_each_key_range on older ones throw
/// std::invalid_argument, while their keys() and offsets() Views show the
/// newer call's data. Order the next call after any work still reading the
/// older keys (a fence, when that work runs on another instance). A key
/// functor or mapper must not read the buffers (not detected). One call at a
/// time. A moved-from workspace is a copy (it stays usable). Key: the
/// input's key type.
///
/// A fixed workspace, made with `SparseWorkspace(exec, keys, elements)`,
/// holds everything a call needs instead (for integer keys and View or keyed
/// inputs of at most `elements` elements): calls given it are asynchronous,
/// allocate nothing, fence nothing and read nothing back (capture-safe), and
/// sort by LSD radix passes over the key type's full width. Their SparseKeys
/// have num_keys() = `keys` and the number of distinct keys in key_count()
/// (see SparseKeys). More distinct keys than `keys` cannot throw in an
/// asynchronous call: the output then holds the elements in key order all
/// the same (nothing is lost), but every key is empty and rejected() holds
/// their number; check() (or offset(), reduce, group on those keys) throws.
template <class Key, class ExecSpace>
class SparseWorkspace {
 public:
  using key_type = Key;
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using offsets_view = Kokkos::View<std::int64_t*, memory_space>;
  using keys_view = Kokkos::View<Key*, memory_space>;

  /// No buffers yet: the first call allocates them. O(1).
  SparseWorkspace() = default;
  SparseWorkspace(const SparseWorkspace&) = default; // (no move: a moved-from one copies)
  SparseWorkspace& operator=(const SparseWorkspace&) = default;
  /// Buffers for up to `keys` distinct keys, allocated and zero-filled on
  /// `exec` (which first-touches their pages; blocking, O(keys)). Throws
  /// std::invalid_argument for keys < 0 or more than 2^31 - 2 (and what
  /// Kokkos throws when the allocation fails).
  SparseWorkspace(const ExecSpace& exec, std::int64_t keys) {
    constexpr const char* fn = "sieve::keys::SparseWorkspace";
    if (keys < 0 || keys > Impl::Keys::kMaxSparseElements)
      Impl::fail(fn, "keys = " + std::to_string(keys) + " is outside [0, " +
                         std::to_string(Impl::Keys::kMaxSparseElements) + "]");
    const Impl::Names names("", fn);
    kept_->offsets = Impl::allocate<offsets_view>(Kokkos::view_alloc(exec, names("offsets")),
                                                  static_cast<std::size_t>(keys + 1));
    kept_->keys = Impl::allocate<keys_view>(Kokkos::view_alloc(exec, names("keys")),
                                            static_cast<std::size_t>(keys));
    Impl::fence(exec, "keys::SparseWorkspace: buffers filled");
  }

  /// A fixed workspace: the buffers for up to `keys` distinct keys and the
  /// scratch of calls of up to `elements` elements (about 40 bytes an element
  /// for keys of more than 32 bits, 24 up to 32 bits, plus the histograms of
  /// the radix passes), allocated and zero-filled on `exec` (blocking,
  /// O(keys + elements)). Throws std::invalid_argument for keys or elements
  /// outside [0, 2^31 - 2].
  SparseWorkspace(const ExecSpace& exec, std::int64_t keys, std::int64_t elements) {
    static_assert(Impl::Keys::kIntegralKey<Key>,
                  "sieve::keys::SparseWorkspace(exec, keys, elements): the asynchronous "
                  "scatter_sparse sorts integer keys (other keys: SparseWorkspace(exec, keys))");
    constexpr const char* fn = "sieve::keys::SparseWorkspace";
    if (keys < 0 || keys > Impl::Keys::kMaxSparseElements)
      Impl::fail(fn, "keys = " + std::to_string(keys) + " is outside [0, " +
                         std::to_string(Impl::Keys::kMaxSparseElements) + "]");
    if (elements < 0 || elements > Impl::Keys::kMaxSparseElements)
      Impl::fail(fn, "elements = " + std::to_string(elements) + " is outside [0, " +
                         std::to_string(Impl::Keys::kMaxSparseElements) + "]");
    const Impl::Names names("", fn);
    const Impl::Keys::SparseAsyncLayout<Key> layout(
        elements, exec.concurrency(), Impl::Keys::nativeRadixOrderBytes<ExecSpace>(elements));
    using bytes_view = Kokkos::View<unsigned char*, memory_space>;
    using word_view = Kokkos::View<std::int64_t, memory_space>;
    kept_->offsets = Impl::allocate<offsets_view>(Kokkos::view_alloc(exec, names("offsets")),
                                                  static_cast<std::size_t>(keys + 1));
    kept_->keys = Impl::allocate<keys_view>(Kokkos::view_alloc(exec, names("keys")),
                                            static_cast<std::size_t>(keys));
    kept_->scratch =
        Impl::allocate<bytes_view>(Kokkos::view_alloc(exec, names("scratch")), layout.bytes);
    kept_->count = Impl::allocate<word_view>(Kokkos::view_alloc(exec, names("key_count")));
    kept_->status = Impl::allocate<word_view>(Kokkos::view_alloc(exec, names("rejected")));
    kept_->elements = elements;
    kept_->concurrency = exec.concurrency();
    Impl::keepTeamScratch(exec, names); // GPU spaces: the calls given it allocate nothing
    Impl::fence(exec, "keys::SparseWorkspace: buffers filled");
  }

  /// A fixed workspace's elements (-1 for one that grows). O(1).
  std::int64_t elements() const { return kept_->elements; }
  /// A fixed workspace's distinct keys of the last call, on the device (see
  /// SparseKeys::key_count(); empty for one that grows).
  const Kokkos::View<std::int64_t, memory_space>& key_count() const { return kept_->count; }
  /// A fixed workspace's rejection word: the distinct keys of the last call
  /// when more than capacity(), else 0 (read it after a fence).
  const Kokkos::View<std::int64_t, memory_space>& rejected() const { return kept_->status; }
  /// Fences `exec`, then throws std::invalid_argument when the last call
  /// given this fixed workspace found more distinct keys than its capacity
  /// (a no-op for one that grows). Blocking.
  void check(const ExecSpace& exec) const {
    Impl::fence(exec, "keys::SparseWorkspace::check");
    if (kept_->status.data() == nullptr) return;
    std::int64_t v = 0;
    Kokkos::deep_copy(v, kept_->status);
    if (v != 0)
      Impl::fail("sieve::keys::scatter_sparse",
                 std::to_string(v) + " distinct keys, more than the workspace's capacity of " +
                     std::to_string(capacity()) +
                     ": the output holds the elements in key order, but every key is empty");
  }

  /// The distinct keys its buffers hold now (0 before the first call). O(1).
  std::int64_t capacity() const { return static_cast<std::int64_t>(kept_->keys.extent(0)); }
  /// The bytes of radix-order scratch it holds now (0 until a call took the
  /// native radix order). O(1).
  std::size_t scratch_bytes() const { return kept_->scratch.extent(0); }

  /// (internal) the buffers and the count of calls served (shared by copies).
  Impl::Keys::SparseKept<Key, memory_space>& kept() const { return *kept_; }
  const std::shared_ptr<std::int64_t>& generation() const { return generation_; }

 private:
  std::shared_ptr<Impl::Keys::SparseKept<Key, memory_space>> kept_ =
      std::make_shared<Impl::Keys::SparseKept<Key, memory_space>>();
  std::shared_ptr<std::int64_t> generation_ = std::make_shared<std::int64_t>(0);
};

/// Scratch for keys::reduce_by_key with results of type T over keys of at
/// most `elements` elements, allocated once: reduce_by_key given it allocates
/// nothing and does not fence, so it is asynchronous on its instance and
/// capture-safe (a sieve::Graph node, a CUDA graph). It holds two values of T
/// per 2048 elements (the pieces of the keys too big for one thread), none
/// when no key can be that big. One call at a time: the next call given it (or a
/// copy: copies share the scratch) must be ordered after the last one (the
/// same instance, or a fence between instances).
template <class T, class ExecSpace>
class ReduceWorkspace {
 public:
  using value_type = T;
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using scratch_view = Kokkos::View<T*, memory_space>;

  /// Empty: reduce_by_key given it throws. O(1).
  ReduceWorkspace() = default;
  /// Allocates the scratch on `exec` (O(elements / 2048) values, not
  /// initialised; blocking as an allocation is). Throws
  /// std::invalid_argument for elements < 0.
  ReduceWorkspace(const ExecSpace& exec, std::int64_t elements) {
    constexpr const char* fn = "sieve::keys::ReduceWorkspace";
    if (elements < 0) Impl::fail(fn, "elements = " + std::to_string(elements) + " is negative");
    const Impl::Names names("", fn);
    const std::int64_t pieces = Impl::Keys::foldScratchPieces(elements);
    first_ = Impl::allocate<scratch_view>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("first")),
        static_cast<std::size_t>(pieces));
    last_ = Impl::allocate<scratch_view>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, names("last")),
        static_cast<std::size_t>(pieces));
    n_ = elements;
  }

  /// (internal) over scratch owned elsewhere (a Graph's arena): two Views of
  /// Impl::Keys::foldScratchPieces(elements) values each.
  ReduceWorkspace(const scratch_view& first, const scratch_view& last, std::int64_t elements)
      : first_(first), last_(last), n_(elements) {}

  /// The most elements the keys of a call given it may have (-1: empty). O(1).
  std::int64_t elements() const { return n_; }

  /// (internal) the two scratch Views of foldByKey.
  const scratch_view& first() const { return first_; }
  const scratch_view& last() const { return last_; }

 private:
  scratch_view first_, last_;
  std::int64_t n_ = -1;
};

/// The keys of the survivors of reduce (or of the groups of group): the key
/// ids of the keys it was made from, the survivors of key id k being
/// [offset(k), offset(k + 1)) of the compacted output.
template <class Keys>
class ReducedKeys : public KeyRanges<typename Keys::execution_space> {
 public:
  using base = KeyRanges<typename Keys::execution_space>;
  ReducedKeys() = default;
  /// (internal) made by reduce (grouped = false) or group (grouped = true)
  /// from the keys whose offsets View starts at `source`, made by the
  /// workspace call `sourceCall` (0: none).
  ReducedKeys(const typename base::offsets_view& offsets, std::int64_t numKeys,
              std::int64_t numElements, const void* source, bool grouped, std::int64_t sourceCall)
      : base(offsets, numKeys, numElements), source_(source), sourceCall_(sourceCall),
        grouped_(grouped) {}
  /// (internal) the offsets of the keys it was made from, and the workspace
  /// call that made them, for compact's check.
  const void* source() const { return source_; }
  std::int64_t sourceCall() const { return sourceCall_; }
  /// (internal) whether it holds the groups of a Grouping (not survivors).
  bool grouped() const { return grouped_; }

 private:
  const void* source_ = nullptr;
  std::int64_t sourceCall_ = 0;
  bool grouped_ = false;
};

/// The groups of equal elements made by group, in key order: group g is
/// [group_offset(g), group_offset(g + 1)) of the grouped output.
template <class Keys>
class GroupedElements {
 public:
  using execution_space = typename Keys::execution_space;
  using offsets_view = typename KeyRanges<execution_space>::offsets_view;
  GroupedElements() = default;
  /// (internal) made by group.
  GroupedElements(const offsets_view& offsets, std::int64_t numGroups, std::int64_t numElements)
      : ranges_(offsets, numGroups, numElements) {}
  /// The number of groups. O(1).
  std::int64_t num_groups() const { return ranges_.num_keys(); }
  /// The number of elements grouped. O(1).
  std::int64_t num_elements() const { return ranges_.num_elements(); }
  /// The first element of group g (0 <= g <= num_groups()); blocking, O(1).
  std::int64_t group_offset(std::int64_t g) const { return ranges_.offset(g); }
  /// The group offsets (num_groups() + 1 words).
  const offsets_view& offsets() const { return ranges_.offsets(); }

 private:
  KeyRanges<execution_space> ranges_;
};

/// The result of group: the groups, and the keys of the groups (the groups of
/// key id k are [keys.offset(k), keys.offset(k + 1)); once compacted, they
/// are also the first elements of the groups).
template <class Keys>
struct Grouping {
  GroupedElements<Keys> groups;
  ReducedKeys<Keys> keys;
};

} // namespace keys

namespace Impl {
namespace Keys {
/// Whether T is a keys result: DenseKeys, SparseKeys or ReducedKeys.
template <class T>
inline constexpr bool kIsKeys = std::is_base_of_v<KeyRangesTag, T>;
template <class T>
struct IsDenseWorkspace : std::false_type {};
template <class K, class E>
struct IsDenseWorkspace<sieve::keys::DenseWorkspace<K, E>> : std::true_type {};
template <class T>
struct IsSparseWorkspace : std::false_type {};
template <class K, class E>
struct IsSparseWorkspace<sieve::keys::SparseWorkspace<K, E>> : std::true_type {};
template <class T>
struct IsReduceWorkspace : std::false_type {};
template <class V, class E>
struct IsReduceWorkspace<sieve::keys::ReduceWorkspace<V, E>> : std::true_type {};
} // namespace Keys
} // namespace Impl
} // namespace sieve
