//===- GpuTile.cpp - tile linalg ops for GPU blocks and threads -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Distributes the linalg ops of a function over GPU blocks and threads with
// the upstream TilingInterface (scf.forall with GPU mappings), stages the
// input tiles of contractions in workgroup memory, and hands each thread's
// register tile to einsum-vectorize through an #einsum.strategy.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "Tiling.h"

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMGPUTILEPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

/// Threads of a block outside contractions, and its tile: 4 x 64 outputs
/// (256 along a rank-1 output), one per thread.
static constexpr int64_t kElementwiseThreads = 256;
static constexpr int64_t kElementwiseRows = 4;

namespace {
/// How one op is distributed. Sizes are per loop; 0 means not tiled.
struct GpuTilePlan {
  /// Block tile of every parallel loop.
  SmallVector<int64_t> blockTiles;
  /// Threads along every loop within a block.
  SmallVector<int64_t> threads;
  /// Contractions: the reduction tile of each reduction loop (scf.for) and
  /// the register tile of each loop.
  SmallVector<int64_t> reductionTiles;
  SmallVector<int64_t> registerTiles;
  bool isContraction = false;
};
} // namespace

/// `count` linear mapping attributes for the non-zero entries of `sizes`,
/// the innermost (last) loop fastest: linear_dim_0.
template <typename MappingAttr>
static SmallVector<Attribute> getLinearMapping(MLIRContext *context,
                                               ArrayRef<int64_t> sizes) {
  int64_t count = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
  SmallVector<Attribute> mapping;
  for (int64_t i = count - 1; i >= 0; --i)
    mapping.push_back(MappingAttr::get(
        context, static_cast<gpu::MappingId>(
                     static_cast<int64_t>(gpu::MappingId::LinearDim0) + i)));
  return mapping;
}

/// The loops of the output's dimensions, in the output's order.
static SmallVector<unsigned> getOutputLoops(linalg::LinalgOp op) {
  SmallVector<unsigned> loops;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr expr : map.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      loops.push_back(dim.getPosition());
  return loops;
}

static GpuTilePlan planOp(linalg::LinalgOp op, ArrayRef<int64_t> tileSizes,
                          ArrayRef<int64_t> threadTile) {
  unsigned numLoops = op.getNumLoops();
  GpuTilePlan plan;
  plan.blockTiles.assign(numLoops, 0);
  plan.threads.assign(numLoops, 0);
  SmallVector<unsigned> outputLoops = getOutputLoops(op);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> reductions;
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (iterators[loop] == utils::IteratorType::reduction)
      reductions.push_back(loop);
  for (unsigned loop : outputLoops)
    plan.blockTiles[loop] = 1;
  if (outputLoops.empty())
    return plan;

  unsigned n = outputLoops.back();
  plan.isContraction = op.getNumDpsInputs() == 2 && !reductions.empty() &&
                       outputLoops.size() >= 2 &&
                       op.getNumDpsInits() == 1;
  if (plan.isContraction) {
    unsigned m = outputLoops[outputLoops.size() - 2];
    plan.blockTiles[m] = tileSizes[0];
    plan.blockTiles[n] = tileSizes[1];
    plan.threads[m] = tileSizes[0] / threadTile[0];
    plan.threads[n] = tileSizes[1] / threadTile[1];
    plan.reductionTiles.assign(numLoops, 0);
    for (unsigned loop : reductions)
      plan.reductionTiles[loop] = 1;
    plan.reductionTiles[reductions.back()] = tileSizes[2];
    plan.registerTiles.assign(numLoops, 1);
    plan.registerTiles[m] = threadTile[0];
    plan.registerTiles[n] = threadTile[1];
    return plan;
  }
  if (outputLoops.size() == 1) {
    plan.blockTiles[n] = kElementwiseThreads;
    plan.threads[n] = kElementwiseThreads;
    return plan;
  }
  unsigned m = outputLoops[outputLoops.size() - 2];
  plan.blockTiles[m] = kElementwiseRows;
  plan.threads[m] = kElementwiseRows;
  plan.blockTiles[n] = kElementwiseThreads / kElementwiseRows;
  plan.threads[n] = kElementwiseThreads / kElementwiseRows;
  return plan;
}

/// Tiles `op` with `options` and replaces it; returns the tiled op.
static FailureOr<linalg::LinalgOp> tileOp(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          const scf::SCFTilingOptions &options) {
  FailureOr<scf::SCFTilingResult> result =
      tileAndReplace(rewriter, op, options);
  if (failed(result))
    return failure();
  return cast<linalg::LinalgOp>(result->tiledOps.front());
}

/// Distributes `op` over `threads` (per loop, 0: not split) with a
/// thread-mapped scf.forall.
static FailureOr<linalg::LinalgOp>
distributeOverThreads(RewriterBase &rewriter, linalg::LinalgOp op,
                      ArrayRef<int64_t> threads) {
  if (llvm::all_of(threads, [](int64_t t) { return t == 0; }))
    return op;
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  options.setNumThreads(getAsIndexOpFoldResult(rewriter.getContext(), threads));
  options.setMapping(
      getLinearMapping<gpu::GPUThreadMappingAttr>(op.getContext(), threads));
  return tileOp(rewriter, op, options);
}

/// Threads for copying a tile of `shape` with `numThreads` threads: the
/// innermost dimension first (consecutive threads, consecutive addresses),
/// then the next one that is not a unit.
static SmallVector<int64_t> planCopy(ArrayRef<int64_t> shape,
                                     int64_t numThreads) {
  SmallVector<int64_t> threads(shape.size(), 0);
  int64_t left = numThreads;
  for (int64_t d = shape.size() - 1; d >= 0 && left > 1; --d) {
    if (shape[d] <= 1)
      continue;
    threads[d] = std::min(shape[d], left);
    left /= threads[d];
  }
  return threads;
}

/// Copies the input tiles of `op` to workgroup memory when they fit in
/// `maxBytes`, with the copies distributed over `numThreads` threads.
static LogicalResult promoteInputs(RewriterBase &rewriter, linalg::LinalgOp op,
                                   ArrayRef<int64_t> tileBounds,
                                   int64_t numThreads, int64_t maxBytes,
                                   bool workgroupMemory) {
  MLIRContext *context = op.getContext();
  Attribute workgroup =
      workgroupMemory
          ? gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup)
          : Attribute();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      continue;
    // The largest tile this operand can have: its static size, or the tile
    // of the loop that indexes it.
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<int64_t> bounds;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      int64_t bound = type.getDimSize(d);
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (ShapedType::isDynamic(bound) && dim &&
          tileBounds[dim.getPosition()] != 0)
        bound = tileBounds[dim.getPosition()];
      bounds.push_back(bound);
    }
    if (llvm::any_of(bounds, ShapedType::isDynamic))
      continue;
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    for (int64_t bound : bounds)
      bytes *= bound;
    if (bytes > maxBytes || bytes == 0)
      continue;

    Location loc = operand->get().getLoc();
    rewriter.setInsertionPoint(op);
    auto allocType = RankedTensorType::get(bounds, type.getElementType());
    auto alloc = bufferization::AllocTensorOp::create(
        rewriter, loc, allocType, ValueRange());
    if (workgroup)
      alloc.setMemorySpaceAttr(workgroup);
    Value dest = alloc.getResult();
    if (!type.hasStaticShape()) {
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, operand->get());
      dest = tensor::ExtractSliceOp::create(rewriter, loc, type, dest, offsets,
                                            sizes, strides);
    }
    auto copy =
        linalg::CopyOp::create(rewriter, loc, operand->get(), dest);
    rewriter.modifyOpInPlace(op, [&] { operand->set(copy.getResult(0)); });
    if (failed(distributeOverThreads(
            rewriter, cast<linalg::LinalgOp>(copy.getOperation()),
            planCopy(bounds, numThreads))))
      return copy.emitError("einsum-gpu-tile: cannot distribute the copy to "
                            "workgroup memory");
  }
  return success();
}

static LogicalResult tileForGpu(RewriterBase &rewriter, linalg::LinalgOp op,
                                ArrayRef<int64_t> tileSizes,
                                ArrayRef<int64_t> threadTile,
                                int64_t maxSharedBytes, bool workgroupMemory) {
  // An empty iteration space computes nothing (upstream tiling cannot
  // split it); einsum-gpu-map runs it as it is.
  if (llvm::is_contained(op.getStaticLoopRanges(), 0))
    return success();
  GpuTilePlan plan = planOp(op, tileSizes, threadTile);
  if (llvm::all_of(plan.blockTiles, [](int64_t t) { return t == 0; }))
    return success();
  MLIRContext *context = op.getContext();

  // Blocks.
  scf::SCFTilingOptions blockOptions;
  blockOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  blockOptions.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), plan.blockTiles));
  blockOptions.setMapping(
      getLinearMapping<gpu::GPUBlockMappingAttr>(context, plan.blockTiles));
  FailureOr<linalg::LinalgOp> tiled = tileOp(rewriter, op, blockOptions);
  if (failed(tiled))
    return op.emitError("einsum-gpu-tile: cannot tile the op for blocks");

  if (plan.isContraction) {
    // The reduction step, with the input tiles in workgroup memory.
    scf::SCFTilingOptions stepOptions;
    stepOptions.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), plan.reductionTiles));
    tiled = tileOp(rewriter, *tiled, stepOptions);
    if (failed(tiled))
      return op.emitError("einsum-gpu-tile: cannot tile the reductions");
    SmallVector<int64_t> tileBounds = plan.blockTiles;
    for (auto [bound, step] : llvm::zip(tileBounds, plan.reductionTiles))
      if (step != 0)
        bound = step;
    int64_t numThreads = 1;
    for (int64_t t : plan.threads)
      numThreads *= std::max<int64_t>(t, 1);
    if (failed(promoteInputs(rewriter, *tiled, tileBounds, numThreads,
                             maxSharedBytes, workgroupMemory)))
      return failure();
  }

  // Threads.
  tiled = distributeOverThreads(rewriter, *tiled, plan.threads);
  if (failed(tiled))
    return op.emitError("einsum-gpu-tile: cannot distribute the op over "
                        "threads");

  // Register tiles are vectorized; operands read along a diagonal
  // (`iij,jk->ik`) are not, their tiles stay loops.
  bool vectorizable = llvm::all_of(
      tiled->getIndexingMapsArray(),
      [](AffineMap map) { return map.isProjectedPermutation(); });
  if (plan.isContraction && vectorizable &&
      isa<linalg::GenericOp>(tiled->getOperation())) {
    SmallVector<int64_t> order =
        llvm::to_vector(llvm::seq<int64_t>(0, tiled->getNumLoops()));
    SmallVector<int64_t> cacheTiles(tiled->getNumLoops(), 0);
    (*tiled)->setAttr(StrategyAttr::getAttrName(),
                      StrategyAttr::get(context, StrategyKind::Contract, order,
                                        cacheTiles, plan.registerTiles));
  }
  return success();
}

namespace {
struct EinsumGpuTilePass
    : einsum::impl::EinsumGpuTilePassBase<EinsumGpuTilePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<int64_t> blockTile = llvm::to_vector(tileSizes);
    if (blockTile.empty())
      blockTile = {128, 128, 8};
    SmallVector<int64_t> registerTile = llvm::to_vector(threadTile);
    if (registerTile.empty())
      registerTile = {8, 8};
    if (blockTile.size() != 3 || registerTile.size() != 2 ||
        llvm::any_of(blockTile, [](int64_t s) { return s <= 0; }) ||
        llvm::any_of(registerTile, [](int64_t s) { return s <= 0; }) ||
        blockTile[0] % registerTile[0] != 0 ||
        blockTile[1] % registerTile[1] != 0) {
      func.emitError("einsum-gpu-tile: tile-sizes must be three positive "
                     "sizes M,N,K and thread-tile two positive sizes that "
                     "divide M and N");
      return signalPassFailure();
    }
    int64_t threads =
        (blockTile[0] / registerTile[0]) * (blockTile[1] / registerTile[1]);
    if (threads > 1024) {
      func.emitError("einsum-gpu-tile: a block of ")
          << blockTile[0] << "x" << blockTile[1] << " with thread tiles of "
          << registerTile[0] << "x" << registerTile[1] << " needs " << threads
          << " threads; a GPU block has at most 1024";
      return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> ops;
    for (Operation &op : func.getBody().getOps())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
        if (linalgOp.hasPureTensorSemantics() &&
            linalgOp.getNumDpsInits() == 1)
          ops.push_back(linalgOp);
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(tileForGpu(rewriter, op, blockTile, registerTile,
                            maxSharedBytes, workgroupMemory)))
        return signalPassFailure();
  }
};
} // namespace
