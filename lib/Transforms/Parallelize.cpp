//===- Parallelize.cpp - distribute linalg ops over threads -----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"

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

/// The loop whose iterations are split over `threads` threads: a parallel
/// loop of the output, of static size > 1. The outermost batch loop (one
/// every input uses), else the outermost other loop, that splits evenly
/// (chunks differ by at most an eighth, each a whole number of the op's
/// register tiles along it), else the one that splits most evenly. The
/// output's contiguous loop comes last, and only where each thread's part of
/// a row is at least kMinContiguousChunk elements: threads splitting short
/// rows would share their cache lines. (The output's first dimension alone was
/// taken before: a loop of 3 split in two left one thread idle half the
/// time, and 2 threads ran slower than 1.)
static constexpr int64_t kMinContiguousChunk = 256;

static std::optional<unsigned> distributedLoop(linalg::LinalgOp op,
                                               int64_t minIterations,
                                               int64_t threads) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap map = op.getMatchingIndexingMap(init);
  if (map.getNumResults() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // An empty or small iteration space is not worth the threads.
  int64_t points = 1;
  for (int64_t range : ranges)
    if (!ShapedType::isDynamic(range))
      points = einsum::saturatingMul(points, range);
  if (points == 0 || points < minIterations)
    return std::nullopt;
  auto strategy = op->getAttrOfType<einsum::StrategyAttr>(
      einsum::StrategyAttr::getAttrName());
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> best;
  double bestImbalance = 0;
  unsigned numResults = map.getNumResults();
  // A batch loop (one every input uses) splits every operand, not only the
  // output: no thread reads what another reads (znjr,njy->rzny split along
  // z streamed all of B through both threads, and ran slower on two).
  auto isBatch = [&](unsigned loop) {
    return op.getNumDpsInputs() > 1 &&
           llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
             return op.getMatchingIndexingMap(input)
                 .getResultPosition(getAffineDimExpr(loop, op.getContext()))
                 .has_value();
           });
  };
  // Batch loops first, then the others; each in the output's order, its
  // contiguous loop last.
  SmallVector<unsigned> candidates;
  for (bool batch : {true, false})
    for (unsigned result = 0; result < numResults; ++result)
      if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(result)))
        if (isBatch(dim.getPosition()) == batch)
          candidates.push_back(result);
  for (unsigned result : candidates) {
    unsigned loop = cast<AffineDimExpr>(map.getResult(result)).getPosition();
    int64_t extent = ranges[loop];
    if (iterators[loop] != utils::IteratorType::parallel ||
        ShapedType::isDynamic(extent) || extent <= 1)
      continue;
    int64_t parts = std::min(extent, threads);
    int64_t chunk = (extent + parts - 1) / parts;
    // The contiguous loop only in chunks of whole kilobytes of rows.
    if (result + 1 == numResults && numResults > 1 &&
        chunk < kMinContiguousChunk)
      continue;
    // Idle share of the threads: (parts * chunk - extent) / extent, plus the
    // threads a short loop leaves without work.
    double imbalance =
        static_cast<double>(parts * chunk - extent) / extent +
        static_cast<double>(threads - parts) / threads;
    int64_t tile = strategy ? strategy.getRegisterTiles()[loop] : 1;
    bool wholeTiles = tile <= 1 || chunk % tile == 0 || chunk >= 8 * tile;
    if (imbalance <= 0.125 && wholeTiles)
      return loop;
    if (!best || imbalance < bestImbalance) {
      best = loop;
      bestImbalance = imbalance;
    }
  }
  return best;
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
      if (!isa<linalg::FillOp>(op) &&
          distributedLoop(op, minIterations, numThreads))
        roots.push_back(op);
    });

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : roots) {
      unsigned loop = *distributedLoop(op, minIterations, numThreads);
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
