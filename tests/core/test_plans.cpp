// SPDX-License-Identifier: Apache-2.0
// The face table (core/faces.hpp) and the keys' plans (core/keys_plan.hpp)
// against their rules written out case by case.
#include <sieve/core/faces.hpp>
#include <sieve/core/keys_plan.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using sieve::Impl::DensePath;
using sieve::Impl::Face;
using sieve::Impl::Primitive;
using sieve::Impl::SparseNative;
using sieve::Impl::SparsePath;

constexpr Primitive kAll[] = {Primitive::Compact,       Primitive::Reorder,
                              Primitive::Restore,       Primitive::Scan,
                              Primitive::Select,        Primitive::SelectFilled,
                              Primitive::RadixOrder,    Primitive::DenseScatter,
                              Primitive::SparseScatter, Primitive::Capture};

TEST(FaceTable, EachFaceHasWhatItImplements) {
  for (const Primitive p : kAll) {
    const bool array = p == Primitive::Compact || p == Primitive::Reorder ||
                       p == Primitive::Restore || p == Primitive::Scan;
    EXPECT_EQ(sieve::Impl::faceHas(Face::Portable, p), array);
    EXPECT_EQ(sieve::Impl::faceHas(Face::OpenMP, p), p != Primitive::Capture);
    EXPECT_EQ(sieve::Impl::faceHas(Face::Cuda, p), p != Primitive::SparseScatter);
  }
}

TEST(FaceTable, MaskHoldsOneBitPerPrimitive) {
  for (const Face f : {Face::Portable, Face::OpenMP, Face::Cuda}) {
    unsigned want = 0;
    for (const Primitive p : kAll)
      if (sieve::Impl::faceHas(f, p)) want |= 1u << static_cast<int>(p);
    EXPECT_EQ(sieve::Impl::faceMask(f), want);
  }
  static_assert(sieve::Impl::faceMask(Face::Portable) == 0xFu, "compile-time table");
}

TEST(KeysPlan, DensePath) {
  EXPECT_EQ(sieve::Impl::densePath(true), DensePath::NativeScatter);
  EXPECT_EQ(sieve::Impl::densePath(false), DensePath::CountingSort);
  EXPECT_STREQ(sieve::Impl::pathName(DensePath::NativeScatter), "dense_scatter");
  EXPECT_STREQ(sieve::Impl::pathName(DensePath::CountingSort), "counting_sort");
}

TEST(KeysPlan, SparsePathFollowsItsRules) {
  const std::uint64_t limit = std::uint64_t(1) << sieve::Tuning::Keys::kSparseByDenseSpanBits;
  EXPECT_TRUE(sieve::Impl::sparseByDenseFits(limit - 1));
  EXPECT_FALSE(sieve::Impl::sparseByDenseFits(limit));
  for (int mask = 0; mask < 8; ++mask) {
    SparseNative nat;
    nat.dense = (mask & 1) != 0;
    nat.recordSort = (mask & 2) != 0;
    nat.radixOrder = (mask & 4) != 0;
    const SparsePath after = nat.radixOrder ? SparsePath::RadixOrder : SparsePath::PortableRadix;
    for (const std::uint64_t span :
         {std::uint64_t(0), std::uint64_t(1), limit - 1, limit, ~std::uint64_t(0)}) {
      // Reference: the rules in order.
      SparsePath want;
      if (span == 0) want = SparsePath::OneKey;
      else if (nat.dense && span < limit) want = SparsePath::DenseScatter;
      else if (nat.recordSort) want = SparsePath::RecordSort;
      else want = after;
      EXPECT_EQ(sieve::Impl::sparsePath(10, true, span, nat), want) << mask << " " << span;
      EXPECT_EQ(sieve::Impl::sparsePath(0, true, span, nat), SparsePath::Empty);
      EXPECT_EQ(sieve::Impl::sparsePath(10, false, span, nat), SparsePath::MergeSort);
      EXPECT_EQ(sieve::Impl::sparsePath(0, false, span, nat), SparsePath::Empty);
    }
    EXPECT_EQ(sieve::Impl::sparseFallback(nat), after);
  }
}

TEST(KeysPlan, EveryPathHasItsOwnName) {
  const SparsePath all[] = {SparsePath::Empty,        SparsePath::OneKey,
                            SparsePath::DenseScatter, SparsePath::RecordSort,
                            SparsePath::RadixOrder,   SparsePath::PortableRadix,
                            SparsePath::MergeSort,    SparsePath::AsyncRadix};
  for (const SparsePath a : all)
    for (const SparsePath b : all)
      EXPECT_EQ(std::string(sieve::Impl::pathName(a)) == sieve::Impl::pathName(b), a == b);
}

} // namespace
