// SPDX-License-Identifier: Apache-2.0
// Sieve — the results of sieve::keys: key ids with their element ranges.
// Every result owns its Views (Kokkos handle semantics: copies share them)
// and can be released alone.
#pragma once

#include <sieve/impl/common.hpp>

#include <cstdint>
#include <type_traits>

namespace sieve {
namespace keys {

namespace Impl {
struct KeyRangesTag {};
} // namespace Impl

/// What every keys result shares: `num_keys()` key ids, the elements of key
/// id k being [offset(k), offset(k + 1)) of the output it describes.
template <class ExecSpace>
class KeyRanges : public Impl::KeyRangesTag {
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
  std::int64_t offset(std::int64_t k) const {
    if (k < 0 || k > numKeys_)
      sieve::Impl::fail("sieve::keys::offset", "k = " + std::to_string(k) + " is outside [0, " +
                                                   std::to_string(numKeys_) + "]");
    std::int64_t v = 0;
    if (offsets_.extent(0) == 0) return v;
    Kokkos::deep_copy(v, Kokkos::subview(offsets_, k));
    return v;
  }

 protected:
  offsets_view offsets_;
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

/// The keys of scatter_sparse: the distinct keys, ascending by operator<; the
/// key id of a key is its position among them.
template <class Key, class ExecSpace>
class SparseKeys : public KeyRanges<ExecSpace> {
 public:
  using key_type = Key;
  using keys_view = Kokkos::View<Key*, typename ExecSpace::memory_space>;
  SparseKeys() = default;
  /// (internal) made by scatter_sparse.
  SparseKeys(const typename KeyRanges<ExecSpace>::offsets_view& offsets, const keys_view& keys,
             std::int64_t numKeys, std::int64_t numElements)
      : KeyRanges<ExecSpace>(offsets, numKeys, numElements), keys_(keys) {}
  /// The distinct keys (num_keys() of them), ascending.
  const keys_view& keys() const { return keys_; }

 private:
  keys_view keys_;
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
  /// from the keys whose offsets View starts at `source`.
  ReducedKeys(const typename base::offsets_view& offsets, std::int64_t numKeys,
              std::int64_t numElements, const void* source, bool grouped)
      : base(offsets, numKeys, numElements), source_(source), grouped_(grouped) {}
  /// (internal) the offsets of the keys it was made from, for compact's check.
  const void* source() const { return source_; }
  /// (internal) whether it holds the groups of a Grouping (not survivors).
  bool grouped() const { return grouped_; }

 private:
  const void* source_ = nullptr;
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

namespace Impl {
template <class T>
inline constexpr bool kIsKeys = std::is_base_of_v<KeyRangesTag, T>;
template <class T>
struct IsGroups : std::false_type {};
template <class K>
struct IsGroups<GroupedElements<K>> : std::true_type {};
template <class T>
struct IsReduced : std::false_type {};
template <class K>
struct IsReduced<ReducedKeys<K>> : std::true_type {};
} // namespace Impl

} // namespace keys
} // namespace sieve
