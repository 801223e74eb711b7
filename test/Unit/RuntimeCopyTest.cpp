//===- RuntimeCopyTest.cpp - unit tests of runtime::copyStrided -----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Runtime/Copy.h"

#include "gtest/gtest.h"

#include <numeric>
#include <vector>

using namespace mlir::einsum;

namespace {

/// The row-major elements of the view (sizes, strides, offset) of `base`,
/// element by element: the reference the copies are compared with.
std::vector<int> gatherByElement(const std::vector<int> &base, int64_t offset,
                                 const std::vector<int64_t> &sizes,
                                 const std::vector<int64_t> &strides) {
  std::vector<int> out;
  std::vector<int64_t> index(sizes.size(), 0);
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t at = offset;
    for (size_t d = 0; d < sizes.size(); ++d)
      at += index[d] * strides[d];
    out.push_back(base[at]);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

struct View {
  int64_t offset;
  std::vector<int64_t> sizes, strides;
};

TEST(RuntimeCopy, MatchesElementByElementBothWays) {
  std::vector<int> base(4 * 5 * 6);
  std::iota(base.begin(), base.end(), 1);
  const View views[] = {
      {0, {4, 5, 6}, {30, 6, 1}},      // row-major: one run
      {7, {4, 3, 2}, {30, 6, 1}},      // a block: a run per row
      {0, {6, 20}, {1, 6}},            // transposed: element by element
      {119, {4, 5, 6}, {-30, -6, -1}}, // reversed
      {2, {4, 1, 5}, {30, 999, 6}},    // a size-1 dim with any stride
      {1, {4, 6, 1}, {30, 1, 77}},     // a run under a size-1 dim
      {0, {2, 0, 3}, {30, 6, 1}},      // empty
      {5, {}, {}},                     // a scalar
  };
  for (const View &view : views) {
    std::vector<int> expected =
        gatherByElement(base, view.offset, view.sizes, view.strides);
    std::vector<int> dense(expected.size() + 1, -1);
    runtime::copyStrided(reinterpret_cast<char *>(base.data() + view.offset),
                         reinterpret_cast<char *>(dense.data()),
                         view.sizes.data(), view.strides.data(),
                         view.sizes.size(), sizeof(int), /*toDense=*/true);
    EXPECT_EQ(std::vector<int>(dense.begin(), dense.end() - 1), expected);
    EXPECT_EQ(dense.back(), -1) << "wrote past the row-major buffer";

    // Back: the view's elements become the dense ones, nothing else moves.
    std::vector<int> target(base.size(), 0);
    runtime::copyStrided(reinterpret_cast<char *>(target.data() + view.offset),
                         reinterpret_cast<char *>(dense.data()),
                         view.sizes.data(), view.strides.data(),
                         view.sizes.size(), sizeof(int), /*toDense=*/false);
    EXPECT_EQ(gatherByElement(target, view.offset, view.sizes, view.strides),
              expected);
    size_t written = 0;
    for (int value : target)
      written += value != 0;
    EXPECT_EQ(written, expected.size());
  }
}

} // namespace
