//===- Parallelize.cpp - distribute linalg ops over threads -----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "Sizes.h"

#include "Tiling.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMPARALLELIZEPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

/// The loop that iterates over the first dimension of `op`'s output, if it
/// is a parallel loop of static size > 1.
static std::optional<unsigned> distributedLoop(linalg::LinalgOp op,
                                               int64_t minIterations) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap map = op.getMatchingIndexingMap(init);
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResult(0));
  if (!dim)
    return std::nullopt;
  unsigned loop = dim.getPosition();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // An empty or small iteration space is not worth the threads.
  int64_t points = 1;
  for (int64_t range : ranges)
    if (!ShapedType::isDynamic(range))
      points = einsum::saturatingMul(points, range);
  if (points == 0 || points < minIterations)
    return std::nullopt;
  if (op.getIteratorTypesArray()[loop] != utils::IteratorType::parallel ||
      ShapedType::isDynamic(ranges[loop]) || ranges[loop] <= 1)
    return std::nullopt;
  return loop;
}

namespace {
struct EinsumParallelizePass
    : einsum::impl::EinsumParallelizePassBase<EinsumParallelizePass> {
  using Base::Base;

  void runOnOperation() override {
    if (numThreads <= 1)
      return;
    // Fills are fused into the loop of the op they initialize.
    SmallVector<linalg::LinalgOp> roots;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::FillOp>(op) && distributedLoop(op, minIterations))
        roots.push_back(op);
    });

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : roots) {
      unsigned loop = *distributedLoop(op, minIterations);
      int64_t size = op.getStaticLoopRanges()[loop];
      SmallVector<OpFoldResult> numThreadsPerLoop(op.getNumLoops(),
                                                  rewriter.getIndexAttr(0));
      numThreadsPerLoop[loop] = rewriter.getIndexAttr(
          std::min<int64_t>(size, static_cast<int64_t>(numThreads)));

      scf::SCFTilingOptions tilingOptions;
      tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      tilingOptions.setNumThreads(numThreadsPerLoop);
      if (failed(einsum::tileAndFuseFill(rewriter, op, tilingOptions))) {
        op.emitError("einsum-parallelize: tiling failed");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
