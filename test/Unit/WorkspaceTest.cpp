//===- WorkspaceTest.cpp - unit tests of the kernels' workspace -----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Engine.h"
#include "einsum/Runtime/Workspace.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mlir::einsum;

namespace {

TEST(Workspace, KeepsLargeBuffersForReuse) {
  workspace::trim();
  uint64_t reuses = workspace::getStatistics().reuses;
  void *large = workspace::allocate(3 << 20);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % 16, 0u);
  std::memset(large, 1, 3 << 20);
  workspace::release(large);
  EXPECT_EQ(workspace::getStatistics().cachedBytes, uint64_t(3) << 20);
  // The same size (up to the page) gets the same buffer back.
  void *again = workspace::allocate((3 << 20) - 100);
  EXPECT_EQ(again, large);
  EXPECT_EQ(workspace::getStatistics().reuses, reuses + 1);
  EXPECT_EQ(workspace::getStatistics().cachedBytes, 0u);
  workspace::release(again);
  workspace::trim();
  EXPECT_EQ(workspace::getStatistics().cachedBytes, 0u);
}

TEST(Workspace, SmallBuffersAreFreed) {
  workspace::trim();
  void *small = workspace::allocate(1000);
  ASSERT_NE(small, nullptr);
  workspace::release(small);
  EXPECT_EQ(workspace::getStatistics().cachedBytes, 0u);
  workspace::release(nullptr);
  void *empty = workspace::allocate(0);
  EXPECT_NE(empty, nullptr);
  workspace::release(empty);
}

TEST(Workspace, KernelsReuseTheirTemporaries) {
  // A bilinear form: its path has an intermediate of 128 x 16 x 128
  // floats (1 MiB) and a packed copy of the 8 MiB tensor; the second run
  // takes them from the workspace.
  Engine engine;
  llvm::SmallVector<llvm::SmallVector<int64_t>> shapes = {
      {16, 128}, {128, 128, 128}, {16, 128}};
  auto kernel = engine.compile("bn,anm,bm->ba", shapes, ElementType::F32);
  ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());
  HostTensor a(ElementType::F32, {16, 128}),
      b(ElementType::F32, {128, 128, 128}), c(ElementType::F32, {16, 128});
  HostTensor out;
  workspace::trim();
  uint64_t reuses = workspace::getStatistics().reuses;
  ASSERT_FALSE(!!(*kernel)->run({&a, &b, &c}, out));
  ASSERT_FALSE(!!(*kernel)->run({&a, &b, &c}, out));
  EXPECT_GT(workspace::getStatistics().reuses, reuses);
}

} // namespace

namespace {
TEST(Engine, MisalignedOperandsGiveTheSameResult) {
  // A compute-bound kernel copies operands that are not 64-byte aligned to
  // aligned buffers; the results do not change.
  Engine engine;
  // 128 flops per operand byte: compute-bound.
  llvm::SmallVector<llvm::SmallVector<int64_t>> shapes = {{512, 512},
                                                          {512, 512}};
  auto kernel = engine.compile("ij,jk->ik", shapes, ElementType::F32);
  ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());
  std::vector<float> a(512 * 512 + 16), b(512 * 512 + 16);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(i % 7) - 3;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(i % 5) - 2;
  std::vector<float> aligned(512 * 512), shifted(512 * 512);
  ASSERT_FALSE(!!(*kernel)->runOnBuffers({a.data(), b.data()},
                                         aligned.data()));
  // The same values one float further on.
  std::vector<float> a1(a.size() + 1), b1(b.size() + 1);
  std::copy(a.begin(), a.end(), a1.begin() + 1);
  std::copy(b.begin(), b.end(), b1.begin() + 1);
  ASSERT_FALSE(!!(*kernel)->runOnBuffers({a1.data() + 1, b1.data() + 1},
                                         shifted.data()));
  EXPECT_EQ(aligned, shifted);
}
} // namespace
