//===- EngineTest.cpp - unit tests of the JIT engine ----------------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Engine.h"
#include "einsum/Engine/Reference.h"

#include "gtest/gtest.h"

#include <atomic>
#include <thread>

using namespace mlir::einsum;
using Shapes = llvm::SmallVector<llvm::SmallVector<int64_t>>;

namespace {

TEST(Engine, CompilesRunsAndCaches) {
  Engine engine;
  Shapes shapes = {{2, 3}, {3, 2}};
  auto kernel = engine.compile("ij,jk->ik", shapes, ElementType::F32);
  ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getOutputShape(), llvm::ArrayRef<int64_t>({2, 2}));
  EXPECT_EQ((*kernel)->getFlops(), 2.0 * 2 * 3 * 2);

  HostTensor a(ElementType::F32, {2, 3}), b(ElementType::F32, {3, 2});
  fillIota(a);
  fillIota(b);
  HostTensor c;
  ASSERT_FALSE(!!(*kernel)->run({&a, &b}, c));
  EXPECT_EQ(c.getShape(), llvm::ArrayRef<int64_t>({2, 2}));
  EXPECT_EQ(c.getAsDouble(0), 10);
  EXPECT_EQ(c.getAsDouble(3), 40);

  // The same request is answered from the cache, another one is not.
  auto again = engine.compile("ij,jk->ik", shapes, ElementType::F32);
  ASSERT_TRUE(!!again);
  EXPECT_EQ(again->get(), kernel->get());
  EXPECT_EQ(engine.getCacheHits(), 1u);
  auto f64 = engine.compile("ij,jk->ik", shapes, ElementType::F64);
  ASSERT_TRUE(!!f64);
  EXPECT_NE(f64->get(), kernel->get());
  CompileOptions threaded;
  threaded.threads = 2;
  auto twoThreads = engine.compile("ij,jk->ik", shapes, ElementType::F32,
                                   threaded);
  ASSERT_TRUE(!!twoThreads);
  EXPECT_NE(twoThreads->get(), kernel->get());
  EXPECT_EQ(engine.getCacheSize(), 3u);
  EXPECT_EQ(engine.getCacheHits(), 1u);
}

TEST(Engine, CompilesGradients) {
  Engine engine;
  Shapes shapes = {{2, 3}, {3, 2}};
  CompileOptions options;
  options.gradOperand = 1;
  options.threads = 1;
  auto kernel = engine.compile("ij,jk->ik", shapes, ElementType::F64, options);
  ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());
  // The operands and the output gradient in, operand 1's gradient out.
  EXPECT_EQ((*kernel)->getInputShapes().size(), 3u);
  EXPECT_EQ((*kernel)->getInputShapes()[2],
            llvm::ArrayRef<int64_t>({2, 2}));
  EXPECT_EQ((*kernel)->getOutputShape(), llvm::ArrayRef<int64_t>({3, 2}));

  // d/dB sum(G * (A B)) = A^T G.
  HostTensor a(ElementType::F64, {2, 3}), b(ElementType::F64, {3, 2}),
      g(ElementType::F64, {2, 2});
  fillIota(a);
  fillIota(b);
  fillIota(g);
  HostTensor gb;
  ASSERT_FALSE(!!(*kernel)->run({&a, &b, &g}, gb));
  EXPECT_EQ(gb.getShape(), llvm::ArrayRef<int64_t>({3, 2}));
  const double want[] = {6, 9, 8, 13, 10, 17};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(gb.getAsDouble(i), want[i]) << "element " << i;
  // The gradient is a kernel of its own in the cache.
  auto forward = engine.compile("ij,jk->ik", shapes, ElementType::F64);
  ASSERT_TRUE(!!forward);
  EXPECT_NE(forward->get(), kernel->get());

  options.gradOperand = 2;
  auto missing = engine.compile("ij,jk->ik", shapes, ElementType::F64, options);
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "the gradient of operand 2: the einsum has 2 operands");
}

TEST(Engine, CacheDropsTheLeastRecentlyUsed) {
  Engine engine;
  engine.setCacheCapacity(2);
  auto compile = [&](int64_t n) {
    auto kernel = engine.compile("ij->ji", {{n, 3}}, ElementType::F32);
    EXPECT_TRUE(!!kernel);
    return kernel ? *kernel : nullptr;
  };
  std::shared_ptr<Kernel> one = compile(1);
  compile(2);
  EXPECT_EQ(compile(1), one); // A hit: 1 is now the most recently used.
  compile(3);                 // Drops 2.
  EXPECT_EQ(engine.getCacheSize(), 2u);
  EXPECT_EQ(engine.getCacheEvictions(), 1u);
  EXPECT_EQ(compile(1), one);
  size_t hits = engine.getCacheHits();
  compile(2); // Compiled again.
  EXPECT_EQ(engine.getCacheHits(), hits);
  EXPECT_EQ(engine.getCacheEvictions(), 2u);
  // A dropped kernel that a caller holds still runs.
  engine.setCacheCapacity(0);
  EXPECT_EQ(engine.getCacheSize(), 0u);
  HostTensor a(ElementType::F32, {1, 3}), b;
  fillIota(a);
  ASSERT_FALSE(!!one->run({&a}, b));
  EXPECT_EQ(b.getAsDouble(2), 2);
}

TEST(Engine, RefusesWrongInputs) {
  Engine engine;
  auto kernel = engine.compile("i,i->", {{3}, {3}}, ElementType::I32);
  ASSERT_TRUE(!!kernel);
  HostTensor a(ElementType::I32, {3}), b(ElementType::I32, {4}), c;
  llvm::Error err = (*kernel)->run({&a, &b}, c);
  ASSERT_TRUE(!!err);
  EXPECT_EQ(llvm::toString(std::move(err)),
            "input 1 has type 4xi32, but the kernel expects 3xi32");
  llvm::Error count = (*kernel)->run({&a}, c);
  ASSERT_TRUE(!!count);
  EXPECT_EQ(llvm::toString(std::move(count)),
            "the kernel takes 2 inputs, but 1 was given");
}

TEST(Engine, ReportsEquationErrors) {
  Engine engine;
  auto kernel = engine.compile("ij,jk->ik", {{2, 3}, {4, 2}},
                               ElementType::F32);
  ASSERT_FALSE(!!kernel);
  EXPECT_EQ(llvm::toString(kernel.takeError()),
            "operand 1: label 'j' has size 4, but size 3 was seen before in "
            "operand 0 (column 4)");
  auto emitted = engine.emit("ji", {{2, 3}}, ElementType::F32, Stage::Linalg);
  ASSERT_TRUE(!!emitted);
  EXPECT_NE(emitted->find("linalg.generic"), std::string::npos);
}

TEST(Engine, ThreadSafe) {
  // Several threads compile (partly the same kernels) and run concurrently.
  Engine engine;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        int64_t n = 2 + (t + i) % 3;
        auto kernel =
            engine.compile("ij,jk->ik", {{n, 3}, {3, n}}, ElementType::F64);
        if (!kernel) {
          llvm::consumeError(kernel.takeError());
          ++failures;
          continue;
        }
        HostTensor a(ElementType::F64, {n, 3}), b(ElementType::F64, {3, n});
        fillIota(a);
        fillIota(b);
        HostTensor c;
        if (llvm::Error err = (*kernel)->run({&a, &b}, c)) {
          llvm::consumeError(std::move(err));
          ++failures;
          continue;
        }
        auto res = resolveEinsum("ij,jk->ik", {{n, 3}, {3, n}});
        if (!compareWithReference(c, evaluateReference(*res, {&a, &b})).ok)
          ++failures;
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(engine.getCacheSize(), 3u);
}

TEST(Reference, MatchesHandComputedValues) {
  auto res = resolveEinsum("ii->i", {{3, 3}});
  ASSERT_TRUE(!!res);
  HostTensor a(ElementType::I64, {3, 3});
  fillIota(a);
  ReferenceResult ref = evaluateReference(*res, {&a});
  EXPECT_EQ(ref.intValues, (std::vector<int64_t>{0, 4, 8}));
  HostTensor good(ElementType::I64, {3});
  good.setFromInt(1, 4);
  good.setFromInt(2, 8);
  EXPECT_TRUE(compareWithReference(good, ref).ok);
  good.setFromInt(2, 9);
  Comparison bad = compareWithReference(good, ref);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.message, "element 2 is 9, expected 8");
}

TEST(HostTensor, LargeBuffersStartOnHugePages) {
  // 3 MiB: on a huge page boundary, zeroed to its end.
  HostTensor large(ElementType::F32, {1024, 768});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % kHugePageBytes, 0u);
  const auto *bytes = static_cast<const unsigned char *>(large.data());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1024 * 768 * 4 - 1], 0);
  // Just under 2 MiB: the usual 64-byte alignment.
  HostTensor small(ElementType::F64, {1023, 256});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % kBufferAlignment, 0u);
  HostTensor empty(ElementType::F32, {0, 5});
  EXPECT_NE(empty.data(), nullptr);
}

} // namespace
