//===- ContractionPathTest.cpp - tests of the contraction path search -----===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/ContractionPath.h"
#include "einsum/Engine/Engine.h"
#include "einsum/Engine/Reference.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::einsum;
using llvm::SmallVector;
using Shapes = SmallVector<SmallVector<int64_t>>;

namespace {

const PathStrategy kStrategies[] = {PathStrategy::Optimal, PathStrategy::DP,
                                    PathStrategy::Greedy,
                                    PathStrategy::LeftToRight};

EinsumResolution resolve(llvm::StringRef equation, const Shapes &shapes) {
  auto res = resolveEinsum(equation, shapes);
  if (!res) {
    ADD_FAILURE() << llvm::toString(res.takeError());
    return {};
  }
  return std::move(*res);
}

ContractionPath findPath(const EinsumResolution &res, PathOptions options) {
  auto path = findContractionPath(res, options);
  if (!path) {
    ADD_FAILURE() << llvm::toString(path.takeError());
    return {};
  }
  return std::move(*path);
}

TEST(ContractionPath, MatrixChainOfSixIsOptimal) {
  // The textbook chain: 30x35, 35x15, 15x5, 5x10, 10x20, 20x25 needs 15125
  // scalar multiplications, as ((A1 (A2 A3)) ((A4 A5) A6)).
  EinsumResolution res =
      resolve("ab,bc,cd,de,ef,fg->ag",
              {{30, 35}, {35, 15}, {15, 5}, {5, 10}, {10, 20}, {20, 25}});
  for (PathStrategy strategy : {PathStrategy::Optimal, PathStrategy::DP,
                                PathStrategy::Auto}) {
    PathOptions options;
    options.strategy = strategy;
    ContractionPath path = findPath(res, options);
    EXPECT_EQ(path.optimizedFlops, 2 * 15125.0) << getName(strategy).str();
    ASSERT_EQ(path.steps.size(), 5u);
    EXPECT_EQ(path.steps[0].equation, "bc,cd->bd");
  }
  PathOptions leftToRight;
  leftToRight.strategy = PathStrategy::LeftToRight;
  ContractionPath path = findPath(res, leftToRight);
  // ((((A1 A2) A3) A4) A5) A6
  EXPECT_EQ(path.optimizedFlops,
            2.0 * (30 * 35 * 15 + 30 * 15 * 5 + 30 * 5 * 10 + 30 * 10 * 20 +
                   30 * 20 * 25));
  EXPECT_EQ(bruteForceOptimalFlops(res, leftToRight), 2 * 15125.0);
}

TEST(ContractionPath, ExplicitPathInNumpysConvention) {
  // numpy's [(1, 2), (0, 1)]: jk x kl first (appended as tensor 3), then
  // the list is (ij, jl) and positions 0, 1 name them.
  EinsumResolution res = resolve("ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 6}});
  PathOptions options;
  ASSERT_FALSE(!!parsePathOption("explicit:1,2;0,1", options));
  EXPECT_EQ(options.strategy, PathStrategy::Explicit);
  ContractionPath path = findPath(res, options);
  ASSERT_EQ(path.steps.size(), 2u);
  EXPECT_EQ(path.steps[0].equation, "jk,kl->jl");
  EXPECT_EQ(path.steps[1].inputs, (llvm::SmallVector<unsigned, 2>{0, 3}));
  // One step of three tensors is joined left to right.
  ASSERT_FALSE(!!parsePathOption("explicit:0,1,2", options));
  EXPECT_EQ(findPath(res, options).steps.size(), 2u);
  // Refused: out-of-range and repeated positions, leftovers, bad text.
  auto errorOf = [&](llvm::StringRef text) {
    PathOptions bad;
    if (llvm::Error err = parsePathOption(text, bad))
      return llvm::toString(std::move(err));
    auto found = findContractionPath(res, bad);
    return found ? std::string() : llvm::toString(found.takeError());
  };
  EXPECT_EQ(errorOf("explicit:1,3"),
            "explicit path: step 0 names tensor 3, but there are 3");
  EXPECT_EQ(errorOf("explicit:1,1"),
            "explicit path: step 0 names tensor 1 twice");
  EXPECT_EQ(errorOf("explicit:0,1"),
            "explicit path: it leaves 2 tensors, not one");
  EXPECT_EQ(errorOf("explicit:0,x"),
            "explicit path: 'x' is not a tensor position (steps are "
            "positions separated by ',', steps by ';')");
  EXPECT_EQ(errorOf("best"),
            "unknown path strategy 'best' (expected auto, optimal, dp, "
            "greedy, left-to-right or explicit:STEPS, e.g. "
            "explicit:1,2;0,1)");
}

TEST(ContractionPath, SkewedChain) {
  EinsumResolution res = resolve(
      "ij,jk,kl,lm->im", {{1024, 16}, {16, 1024}, {1024, 16}, {16, 1024}});
  ContractionPath best = findPath(res, PathOptions());
  PathOptions l2r;
  l2r.strategy = PathStrategy::LeftToRight;
  ContractionPath naive = findPath(res, l2r);
  EXPECT_EQ(best.optimizedFlops, 2.0 * (16 * 1024 * 16 + 16 * 16 * 1024 +
                                        1024 * 16 * 1024));
  EXPECT_GT(naive.optimizedFlops / best.optimizedFlops, 2.9);
  EXPECT_EQ(best.largestIntermediateBytes, 16u * 1024 * 4);
  EXPECT_EQ(naive.largestIntermediateBytes, 1024u * 1024 * 4);
}

TEST(ContractionPath, SemiringWorkPerElementIsCounted) {
  // The log semiring's lowering takes exponentials of each operand and the
  // logarithm of each result element: a step's flops count them.
  EinsumResolution res = resolve("ij,jk->ik", {{10, 20}, {20, 30}});
  PathOptions log;
  log.operandElementFlops = 24;
  log.resultElementFlops = 24;
  ContractionPath path = findPath(res, log);
  ASSERT_EQ(path.steps.size(), 1u);
  double expected = 2.0 * 10 * 20 * 30 + 24.0 * (10 * 20 + 20 * 30) +
                    24.0 * 10 * 30;
  EXPECT_EQ(path.steps[0].flops, expected);
  EXPECT_EQ(path.naiveFlops, expected);
  // Along a path every step pays for the tensors it reads and writes.
  EinsumResolution chain =
      resolve("ij,jk,kl->il", {{64, 8}, {8, 64}, {64, 64}});
  ContractionPath plain = findPath(chain, PathOptions());
  ContractionPath weighted = findPath(chain, log);
  EXPECT_GT(weighted.optimizedFlops, plain.optimizedFlops);
}

TEST(ContractionPath, UnaryStepsComeFirst) {
  // 'i' is a diagonal of operand 0, 'x' occurs only in operand 2.
  EinsumResolution res =
      resolve("iij,jk,kx,k->i", {{3, 3, 4}, {4, 5}, {5, 6}, {5}});
  ContractionPath path = findPath(res, PathOptions());
  ASSERT_GE(path.steps.size(), 2u);
  EXPECT_EQ(path.steps[0].equation, "iij->ji");
  EXPECT_EQ(path.steps[0].inputs, (SmallVector<unsigned, 2>{0}));
  EXPECT_EQ(path.steps[1].equation, "kx->k");
  EXPECT_EQ(path.steps.back().shape, (SmallVector<int64_t, 8>{3}));
}

TEST(ContractionPath, EllipsisGetsLetters) {
  EinsumResolution res =
      resolve("...ij,...jk,...kl->...il", {{2, 3, 4}, {2, 4, 5}, {5, 6}});
  ContractionPath path = findPath(res, PathOptions());
  for (const PathStep &step : path.steps)
    EXPECT_EQ(step.equation.find('.'), std::string::npos) << step.equation;
  EXPECT_EQ(path.steps.back().shape, (SmallVector<int64_t, 8>{2, 3, 6}));
}

TEST(ContractionPath, MemoryLimit) {
  EinsumResolution res = resolve(
      "ij,jk,kl,lm->im", {{1024, 16}, {16, 1024}, {1024, 16}, {16, 1024}});
  PathOptions options;
  options.strategy = PathStrategy::LeftToRight;
  options.memoryLimit = 100000;
  auto path = findContractionPath(res, options);
  ASSERT_FALSE(!!path);
  EXPECT_EQ(llvm::toString(path.takeError()),
            "no contraction path keeps every intermediate within the memory "
            "limit of 100000 bytes (strategy left-to-right; minimizing "
            "memory, the largest intermediate needs 65536 bytes)");
  options.strategy = PathStrategy::Optimal;
  ContractionPath fits = findPath(res, options);
  EXPECT_LE(fits.largestIntermediateBytes, 100000u);
  options.memoryLimit = 1000;
  auto none = findContractionPath(res, options);
  ASSERT_FALSE(!!none);
  llvm::consumeError(none.takeError());
}

TEST(ContractionPath, MinimizeMemory) {
  // Flops favour a large intermediate here; memory does not.
  EinsumResolution res = resolve("ab,bc,cd->ad", {{64, 2}, {2, 64}, {64, 64}});
  PathOptions flops;
  ContractionPath byFlops = findPath(res, flops);
  PathOptions memory;
  memory.objective = PathObjective::Memory;
  ContractionPath byMemory = findPath(res, memory);
  EXPECT_LE(byMemory.largestIntermediateBytes,
            byFlops.largestIntermediateBytes);
  EXPECT_LT(byMemory.largestIntermediateBytes, 64u * 64 * 4);
}

TEST(ContractionPath, ReportAndJSON) {
  EinsumResolution res = resolve("bn,anm,bm->ba", {{2, 5}, {3, 5, 4}, {2, 4}});
  ContractionPath path = findPath(res, PathOptions());
  std::string json = path.getJSON("bn,anm,bm->ba");
  for (const char *key : {"\"naive_flops\": 360", "\"optimized_flops\": 288",
                          "\"largest_intermediate_bytes\": 96", "\"steps\": [",
                          "\"equation\": \"bn,anm->mba\"",
                          "\"shape\": [4, 2, 3]", "\"bytes\": 96"})
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  EXPECT_NE(path.getReport("bn,anm,bm->ba").find("speedup 1.25x"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Random einsums
//===----------------------------------------------------------------------===//

struct RandomEinsum {
  std::string equation;
  Shapes shapes;
};

/// Small random einsums of 3 to 6 operands: shared labels, diagonals,
/// size-1 broadcasts, ellipses, labels of one operand, implicit outputs.
RandomEinsum makeRandomEinsum(std::mt19937 &rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  int numLabels = 2 + pick(6);
  std::string labels = "abcdefgh";
  SmallVector<int64_t> sizes;
  for (int l = 0; l < numLabels; ++l)
    sizes.push_back(1 + pick(4));
  bool ellipsis = pick(4) == 0;
  SmallVector<int64_t> ellShape;
  for (int k = pick(3); k > 0; --k)
    ellShape.push_back(1 + pick(3));
  RandomEinsum r;
  int numOperands = 3 + pick(4);
  std::string present;
  for (int i = 0; i < numOperands; ++i) {
    std::string term;
    SmallVector<int64_t> shape;
    for (int k = pick(4); k >= 0; --k) {
      int l = pick(numLabels);
      term += labels[l];
      bool repeated = std::count(term.begin(), term.end(), labels[l]) > 1;
      // A label's dims within one operand are equal (E5); elsewhere size 1
      // may broadcast (E6).
      if (repeated) {
        size_t first = term.find(labels[l]);
        shape.push_back(shape[first]);
      } else {
        shape.push_back(pick(6) == 0 ? 1 : sizes[l]);
      }
      present += labels[l];
    }
    if (ellipsis && pick(2) == 0) {
      term = "..." + term;
      int r = pick(ellShape.size() + 1);
      SmallVector<int64_t> dims(ellShape.end() - r, ellShape.end());
      shape.insert(shape.begin(), dims.begin(), dims.end());
    }
    r.equation += (i ? "," : "") + term;
    r.shapes.push_back(shape);
  }
  if (pick(3) != 0) {
    std::string out;
    for (char c : labels.substr(0, numLabels))
      if (present.find(c) != std::string::npos && pick(2) == 0)
        out += c;
    std::shuffle(out.begin(), out.end(), rng);
    if (ellipsis && pick(2) == 0)
      out = "..." + out;
    r.equation += "->" + out;
  }
  return r;
}

/// Evaluates a path step by step with the reference evaluator (in f64) and
/// returns the result.
HostTensor evaluatePath(const ContractionPath &path,
                        llvm::ArrayRef<const HostTensor *> inputs) {
  SmallVector<HostTensor> intermediates;
  intermediates.reserve(path.steps.size());
  SmallVector<const HostTensor *> tensors(inputs.begin(), inputs.end());
  for (const PathStep &step : path.steps) {
    SmallVector<const HostTensor *> operands;
    Shapes shapes;
    for (unsigned t : step.inputs) {
      operands.push_back(tensors[t]);
      shapes.emplace_back(tensors[t]->getShape());
    }
    EinsumResolution res = resolve(step.equation, shapes);
    EXPECT_EQ(llvm::ArrayRef<int64_t>(res.outputShape),
              llvm::ArrayRef<int64_t>(step.shape))
        << step.equation;
    ReferenceResult ref = evaluateReference(res, operands);
    HostTensor out(ElementType::F64, res.outputShape);
    for (int64_t k = 0; k < out.getNumElements(); ++k)
      out.setFromDouble(k, ref.values[k]);
    intermediates.push_back(std::move(out));
    tensors.push_back(&intermediates.back());
  }
  return std::move(intermediates.back());
}

TEST(ContractionPath, RandomEinsums) {
  std::mt19937 rng(20261202);
  int tested = 0, withUnary = 0, withEllipsis = 0;
  while (tested < 200) {
    RandomEinsum r = makeRandomEinsum(rng);
    auto res = resolveEinsum(r.equation, r.shapes);
    if (!res) { // Broadcasting did not fit; draw again.
      llvm::consumeError(res.takeError());
      continue;
    }
    ++tested;
    withEllipsis += r.equation.find("...") != std::string::npos;
    SCOPED_TRACE(r.equation);

    SmallVector<HostTensor> inputs;
    SmallVector<const HostTensor *> pointers;
    for (auto [i, shape] : llvm::enumerate(r.shapes)) {
      inputs.emplace_back(ElementType::F64, shape);
      fillRandom(inputs.back(), tested * 31 + i);
    }
    for (HostTensor &t : inputs)
      pointers.push_back(&t);
    ReferenceResult unsplit = evaluateReference(*res, pointers);

    PathOptions exact;
    exact.strategy = PathStrategy::Optimal;
    double brute = bruteForceOptimalFlops(*res, exact);
    for (PathStrategy strategy : kStrategies) {
      PathOptions options;
      options.strategy = strategy;
      options.elementBytes = 8;
      ContractionPath path = findPath(*res, options);
      if (strategy == PathStrategy::Optimal) {
        EXPECT_EQ(path.optimizedFlops, brute);
        withUnary += path.steps.front().inputs.size() == 1;
      } else {
        EXPECT_GE(path.optimizedFlops, brute);
      }
      // Every strategy computes the unsplit einsum.
      HostTensor result = evaluatePath(path, pointers);
      Comparison cmp = compareWithReference(result, unsplit);
      EXPECT_TRUE(cmp.ok) << getName(strategy).str() << ": " << cmp.message;

      // A limit below the largest intermediate is met or refused.
      if (path.largestIntermediateBytes > 8) {
        options.memoryLimit = path.largestIntermediateBytes / 2;
        auto limited = findContractionPath(*res, options);
        if (limited)
          EXPECT_LE(limited->largestIntermediateBytes, options.memoryLimit);
        else
          EXPECT_NE(llvm::toString(limited.takeError())
                        .find("no contraction path keeps every intermediate"),
                    std::string::npos);
      }
    }
  }
  EXPECT_GT(withUnary, 20);
  EXPECT_GT(withEllipsis, 20);
}

TEST(ContractionPath, RandomEinsumsCompiled) {
  // The same kind of einsums through the whole pipeline and the JIT, every
  // strategy, against the reference of the unsplit einsum.
  std::mt19937 rng(7);
  Engine engine;
  int tested = 0;
  while (tested < 30) {
    RandomEinsum r = makeRandomEinsum(rng);
    auto res = resolveEinsum(r.equation, r.shapes);
    if (!res) {
      llvm::consumeError(res.takeError());
      continue;
    }
    ++tested;
    SCOPED_TRACE(r.equation);
    SmallVector<HostTensor> inputs;
    SmallVector<const HostTensor *> pointers;
    for (auto [i, shape] : llvm::enumerate(r.shapes)) {
      inputs.emplace_back(ElementType::F32, shape);
      fillRandom(inputs.back(), tested * 17 + i);
    }
    for (HostTensor &t : inputs)
      pointers.push_back(&t);
    ReferenceResult reference = evaluateReference(*res, pointers);
    for (PathStrategy strategy : kStrategies) {
      CompileOptions options;
      options.pathStrategy = getName(strategy).str();
      auto kernel = engine.compile(r.equation, r.shapes, ElementType::F32,
                                   options);
      ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());
      HostTensor out;
      ASSERT_FALSE(!!(*kernel)->run(pointers, out));
      Comparison cmp = compareWithReference(out, reference);
      EXPECT_TRUE(cmp.ok) << getName(strategy).str() << ": " << cmp.message;
    }
  }
}

} // namespace
