//===- Vectorize.cpp - apply einsum.strategy schedules ----------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Applies the #einsum.strategy of each linalg.generic: interchange, cache and
// register tiling, peeling, unit-dim folding, vectorization and accumulator
// hoisting, all with upstream machinery. No decision is taken here.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "Sizes.h"
#include "Tiling.h"
#include "VectorPatterns.h"

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMVECTORIZEPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

/// Marks the register tiles between tiling and vectorization. Its value is
/// the vector width of the split reduction of a `reduce` strategy (0: none).
static constexpr StringLiteral kRegisterTileMarker = "__einsum_register_tile__";

/// The scf.for loops that sequential tiling created, outermost first.
static SmallVector<scf::ForOp> toForLoops(ArrayRef<LoopLikeOpInterface> loops) {
  return llvm::map_to_vector(loops, [](LoopLikeOpInterface loop) {
    return cast<scf::ForOp>(loop.getOperation());
  });
}

/// Tiles `op` with `tileSizes` (0: untiled) as nested scf.for loops and
/// replaces it. Returns the tiled op and the loops, outermost first.
static FailureOr<std::pair<linalg::GenericOp, SmallVector<scf::ForOp>>>
tile(RewriterBase &rewriter, linalg::GenericOp op,
     ArrayRef<int64_t> tileSizes) {
  scf::SCFTilingOptions options;
  options.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), tileSizes));
  FailureOr<scf::SCFTilingResult> result =
      tileAndReplace(rewriter, op, options);
  if (failed(result))
    return failure();
  return std::make_pair(cast<linalg::GenericOp>(result->tiledOps.front()),
                        toForLoops(result->loops));
}

/// Marks the copies of a tile (a cache tile, a staged block) while its
/// partial tiles are peeled.
static constexpr StringLiteral kCacheTileMarker = "__einsum_cache_tile__";

/// Marks the fills fused into register tiles, vectorized with them.
static constexpr StringLiteral kRegisterFillMarker = "__einsum_register_fill__";

/// Marks a packing copy that the cache tiles of the contraction reading it
/// make slice by slice; its value is the copy's own strategy, applied to
/// each slice once the contraction is tiled.
static constexpr StringLiteral kFusedPackMarker = "__einsum_fused_pack__";

static bool isFusedPack(Operation *op) { return op->hasAttr(kFusedPackMarker); }

namespace {
/// extract_slice(collapse_shape(pack)) -> collapse_shape(extract_slice(pack))
/// for a pack fused into the cache tiles that the contraction reads through a
/// collapse_shape (getPackUse): the tiling's fusion then sees a slice of the
/// pack itself.
struct SliceAbovePackCollapse : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto reshape = slice.getSource().getDefiningOp<tensor::CollapseShapeOp>();
    Operation *pack = reshape ? reshape.getSrc().getDefiningOp() : nullptr;
    if (!pack || !isFusedPack(pack) ||
        slice.getResultType().getRank() != slice.getSourceType().getRank())
      return failure();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    if (failed(tensor::getExpandedExtractSliceInfo(
            rewriter, slice, reshape.getReassociationIndices(),
            reshape.getSrcType().getShape(), offsets, sizes, strides)))
      return failure();
    Location loc = slice.getLoc();
    Value expanded = tensor::ExtractSliceOp::create(
        rewriter, loc, reshape.getSrc(), offsets, sizes, strides);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, expanded, reshape.getReassociationIndices());
    if (collapsed.getType() != slice.getResultType())
      collapsed = tensor::CastOp::create(rewriter, loc, slice.getResultType(),
                                         collapsed);
    rewriter.replaceOp(slice, collapsed);
    return success();
  }
};

/// The pass's pattern sets that tiling applies, built once (initialize).
struct TilingPatterns {
  /// Folds what tiling and peeling leave (static sizes of full tiles).
  const FrozenRewritePatternSet &canonicalization;
  /// Slices of packs read through a collapse_shape, taken of the packs
  /// (SliceAbovePackCollapse): the cleanup patterns of the cache tiles'
  /// fusion.
  const FrozenRewritePatternSet &packSlices;
};
} // namespace

/// Tiles `op` like `tile`, but where its output is initialized by a
/// linalg.fill and reductions are tiled too (after the parallel loops), in
/// two steps: the parallel loops with the fill fused into them, so that each
/// tile fills its own slice right before its reductions instead of a pass
/// over the whole output before the op, then the reductions. At the
/// register level (`registerTile`) the fill is marked to become a vector of
/// zeros the accumulator starts from.
static FailureOr<std::pair<linalg::GenericOp, SmallVector<scf::ForOp>>>
tileFusingFill(RewriterBase &rewriter, linalg::GenericOp op,
               ArrayRef<int64_t> tileSizes, bool registerTile,
               const TilingPatterns &patterns) {
  // The cache tiles make the slices of the packed operands they read.
  std::function<bool(Operation *)> fusePacks;
  if (!registerTile)
    fusePacks = isFusedPack;
  auto fill = op.getNumDpsInits() == 1
                  ? op.getDpsInits()[0].getDefiningOp<linalg::FillOp>()
                  : linalg::FillOp();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> parallelSizes(tileSizes), reductionSizes(tileSizes);
  std::optional<unsigned> lastParallel, firstReduction;
  for (auto [loop, size] : llvm::enumerate(tileSizes)) {
    if (size == 0)
      continue;
    if (iterators[loop] == utils::IteratorType::reduction) {
      parallelSizes[loop] = 0;
      if (!firstReduction)
        firstReduction = loop;
    } else {
      reductionSizes[loop] = 0;
      lastParallel = loop;
    }
  }
  if (!fill || !fill->hasOneUse() || !lastParallel ||
      (firstReduction && *firstReduction < *lastParallel))
    return tile(rewriter, op, tileSizes);

  scf::SCFTilingOptions options;
  options.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), parallelSizes));
  auto fused = tileAndFuseFill(rewriter, op, options, fusePacks,
                               fusePacks ? &patterns.packSlices : nullptr);
  if (failed(fused))
    return failure();
  auto tiled = cast<linalg::GenericOp>(fused->first.getOperation());
  SmallVector<scf::ForOp> loops = toForLoops(fused->second);
  if (auto tiledFill = tiled.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
      tiledFill && registerTile)
    tiledFill->setAttr(kRegisterFillMarker, rewriter.getUnitAttr());
  if (!firstReduction)
    return std::make_pair(tiled, loops);
  auto inner = tile(rewriter, tiled, reductionSizes);
  if (failed(inner))
    return failure();
  llvm::append_range(loops, inner->second);
  return std::make_pair(inner->first, loops);
}

/// A cache tile's slice of a packed operand stays in L2 while the tile reads
/// it.
static constexpr int64_t kMaxPackSliceBytes = 256 << 10;
/// Each element of a slice is read by this many rows of the other operand's
/// tile at least: below it, the copies that the tiles repeat (once per tile
/// of the loops the operand does not use) cost more than the one pass over
/// the whole operand they replace.
static constexpr int64_t kMinPackReuse = 32;
/// Over fewer reduction steps the slices are too thin to pay for their own
/// loops (measured: 8 steps 0.90-0.96x, 16 steps 0.94-1.03x, 24 to 64 steps
/// 0.93-1.12x, 1.02x on the geomean, of packing the whole operand first).
static constexpr int64_t kMinPackDepth = 24;
/// Except over 16 steps or more where the whole packed operand is large
/// enough to go to memory and back between the copy and the contraction.
/// On a Zen 4 (1 MiB of L2, 32 MiB of L3), one thread, 24 contractions of 16
/// steps: packs of 4.9-9.6 MB ran 1.08-1.25x fused in 10 cases of 11
/// (zrty,btz->brty 0.90x), those of 0.8-3.0 MB 0.81-1.11x, about 1.0x.
/// Over 8 steps large packs ran 0.98-1.07x: not fused.
static constexpr int64_t kMinLargePackDepth = 16;
static constexpr int64_t kMinLargePackBytes = 4 << 20;
/// A packed operand that fits L2 (1 MiB on a Zen 4) stays there between the
/// copy and the contraction: made slice by slice, it only pays for the
/// slices' loops. On the 40 generated and power-of-two contractions whose
/// fused packs were smaller (0.1-1 MB), making them whole first ran 1.015x
/// (0.96x to 1.12x: kmi,kj->mij 1.12x, rxi,rj->xij 1.09x).
static constexpr int64_t kMinFusedPackBytes = 1 << 20;

/// The use of `copy`'s result that a contraction reads: its only use, or
/// that of a tensor.collapse_shape of it that is its only use (a pack whose
/// trailing dims the contraction reads as one, [d, m, e, s] as [d, m, es]).
static OpOperand *getPackUse(linalg::GenericOp copy) {
  if (!copy->hasOneUse())
    return nullptr;
  OpOperand *use = &*copy->getUses().begin();
  if (auto reshape = dyn_cast<tensor::CollapseShapeOp>(use->getOwner())) {
    if (!reshape->hasOneUse())
      return nullptr;
    use = &*reshape->getUses().begin();
  }
  return use;
}

/// Whether `copy` is a packing copy (isPackingCopy) read only by
/// `contraction` (getPackUse), whose cache tiles (`strategy`) can make it
/// slice by slice: the whole does not fit L2 (kMinFusedPackBytes), each
/// slice fits kMaxPackSliceBytes and is reused kMinPackReuse times, over
/// kMinPackDepth reduction steps (kMinLargePackDepth for a whole of
/// kMinLargePackBytes).
static bool isFusablePack(linalg::GenericOp copy, linalg::GenericOp contraction,
                          StrategyAttr strategy) {
  if (!isPackingCopy(copy))
    return false;
  OpOperand *use = getPackUse(copy);
  if (!use || use->getOwner() != contraction.getOperation() ||
      !contraction.isDpsInput(use) || contraction.hasDynamicShape())
    return false;
  AffineMap map = contraction.getMatchingIndexingMap(use);
  if (!map.isProjectedPermutation())
    return false;
  SmallVector<int64_t> ranges = contraction.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators =
      contraction.getIteratorTypesArray();
  ArrayRef<int64_t> cache = strategy.getCacheTiles();
  auto tileOf = [&](unsigned loop) {
    return iterators[loop] == utils::IteratorType::parallel &&
                   cache[loop] > 0
               ? std::min(cache[loop], ranges[loop])
               : ranges[loop];
  };
  Type elementType = getElementTypeOrSelf(copy->getResultTypes().front());
  if (!elementType.isIntOrFloat())
    return false;
  int64_t slice = llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
  int64_t whole = slice, reuse = 1, depth = 1;
  for (unsigned loop = 0; loop < contraction.getNumLoops(); ++loop) {
    if (iterators[loop] == utils::IteratorType::reduction)
      depth *= ranges[loop];
    if (map.getResultPosition(getAffineDimExpr(loop, copy.getContext()))) {
      slice *= tileOf(loop);
      whole *= ranges[loop];
    } else if (iterators[loop] == utils::IteratorType::parallel) {
      reuse *= tileOf(loop);
    }
  }
  bool deepEnough = depth >= kMinPackDepth ||
                    (depth >= kMinLargePackDepth && whole >= kMinLargePackBytes);
  return slice <= kMaxPackSliceBytes && slice < whole &&
         whole >= kMinFusedPackBytes && reuse >= kMinPackReuse && deepEnough;
}

/// Peels the last iteration of each of `partialLoops` (loops of a tiling of
/// `tile` whose outermost loop is `outermost`), innermost first, and folds
/// the sizes of the peeled nests into their types, so that each copy of
/// `tile` has static sizes; only these nests, whose single-iteration partial
/// loops are inlined: the other ops of the function are not this op's to
/// rewrite yet. Returns the copies of `tile`, in the order of the IR.
static SmallVector<linalg::GenericOp>
peelPartialTiles(RewriterBase &rewriter, linalg::GenericOp tile,
                 scf::ForOp outermost, ArrayRef<scf::ForOp> partialLoops,
                 const FrozenRewritePatternSet &canonicalization) {
  Operation *scope = outermost->getParentOp();
  tile->setAttr(kCacheTileMarker, rewriter.getUnitAttr());
  SmallVector<Operation *> nests = {outermost};
  for (scf::ForOp loop : llvm::reverse(partialLoops)) {
    scf::ForOp partial;
    if (succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)) &&
        loop == outermost)
      nests.push_back(partial);
  }
  SmallVector<Operation *> nestOps;
  for (Operation *nest : nests)
    nest->walk([&](Operation *nested) { nestOps.push_back(nested); });
  (void)applyOpPatternsGreedily(
      nestOps, canonicalization,
      GreedyRewriteConfig().setStrictness(
          GreedyRewriteStrictness::ExistingAndNewOps));
  SmallVector<linalg::GenericOp> copies;
  scope->walk([&](linalg::GenericOp copy) {
    if (copy->removeAttr(kCacheTileMarker))
      copies.push_back(copy);
  });
  return copies;
}

/// Tiles the first `stage` loops of `op` (interchanged into the strategy's
/// order) with their cache tiles and computes each tile's block of the output
/// into a buffer on the stack, allocated once before the loops: the block's
/// fill, accumulations and stores stay in L1 (or L2), and a linalg.copy
/// marked kStreamCopyAttrName moves the finished block to the output, which
/// einsum-stream-copies makes whole lines of non-temporal stores. One staged
/// loop may end in a partial tile: that last tile is peeled, and its block
/// has a buffer of its own shape. Returns the ops to tile further, with the
/// cache tiles of the staged loops spent: the op of one block, then that of
/// the partial tile if any; failure (nothing changed) where the staged loops
/// are not parallel and static (a thread's part of dynamic size tiled by 1
/// aside), more than one of them ends in a partial tile, or the op reads its
/// output other than through a fill of its own (a contraction's is fused
/// into the tiles).
static FailureOr<SmallVector<linalg::GenericOp>>
stageOutput(RewriterBase &rewriter, linalg::GenericOp op,
            MutableArrayRef<int64_t> cacheTiles, int64_t stage,
            const TilingPatterns &patterns) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (stage > static_cast<int64_t>(ranges.size()) || op.getNumDpsInits() != 1)
    return failure();
  SmallVector<int64_t> sizes(ranges.size(), 0);
  std::optional<int64_t> partialLoop;
  for (int64_t loop = 0; loop < stage; ++loop) {
    // (A loop of dynamic size, the part of one thread, is tiled by 1.)
    int64_t size = cacheTiles[loop];
    if (iterators[loop] != utils::IteratorType::parallel ||
        (ShapedType::isDynamic(ranges[loop]) && size != 1))
      return failure();
    if (ShapedType::isDynamic(ranges[loop])) {
      sizes[loop] = 1;
      continue;
    }
    if (size == 0 || size >= ranges[loop])
      continue;
    if (ranges[loop] % size != 0) {
      if (partialLoop)
        return failure();
      partialLoop = loop;
    }
    sizes[loop] = size;
  }
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  auto outType = dyn_cast<RankedTensorType>(op.getResultTypes()[0]);
  AffineMap outMap = op.getIndexingMapsArray().back();
  bool readsOutput = op.payloadUsesValueFromOperand(op.getDpsInitOperand(0));
  if ((fill ? !fill->hasOneUse() : readsOutput) || !outType ||
      !outMap.isProjectedPermutation() ||
      llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return failure();
  SmallVector<int64_t> blockShape;
  for (AffineExpr expr : outMap.getResults()) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    blockShape.push_back(sizes[loop] ? sizes[loop] : ranges[loop]);
  }
  if (ShapedType::isDynamicShape(blockShape))
    return failure();

  // The last tile of the partial loop, if any, has a buffer of its shape.
  SmallVector<SmallVector<int64_t>> shapes = {blockShape};
  if (partialLoop) {
    SmallVector<int64_t> lastShape(blockShape);
    unsigned dim = *outMap.getResultPosition(
        rewriter.getAffineDimExpr(static_cast<unsigned>(*partialLoop)));
    lastShape[dim] = ranges[*partialLoop] % sizes[*partialLoop];
    shapes.push_back(lastShape);
  }

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> buffers;
  for (ArrayRef<int64_t> shape : shapes)
    buffers.push_back(memref::AllocaOp::create(
        rewriter, loc, MemRefType::get(shape, outType.getElementType()),
        rewriter.getI64IntegerAttr(64)));
  auto eraseBuffers = [&] {
    for (Value buffer : buffers)
      rewriter.eraseOp(buffer.getDefiningOp());
  };
  auto tiled = fill ? tileFusingFill(rewriter, op, sizes,
                                     /*registerTile=*/false, patterns)
                    : tile(rewriter, op, sizes);
  if (failed(tiled)) {
    eraseBuffers();
    return failure();
  }
  for (int64_t loop = 0; loop < stage; ++loop)
    cacheTiles[loop] = 0;
  SmallVector<linalg::GenericOp> ops = {tiled->first};
  if (partialLoop) {
    // Peeled: the main loop's tiles fold to the block's shape, the last one
    // to its own.
    unsigned index = llvm::count_if(ArrayRef(sizes).take_front(*partialLoop),
                                    [](int64_t size) { return size != 0; });
    ops = peelPartialTiles(rewriter, tiled->first, tiled->second.front(),
                           {tiled->second[index]}, patterns.canonicalization);
  }

  // Each tile op computes into the buffer of its shape (the op that
  // initializes its slice of the output, its fill or itself, now initializes
  // the buffer), which a marked copy then moves to that slice.
  struct Staged {
    linalg::GenericOp tile;
    DestinationStyleOpInterface initializer;
    tensor::ExtractSliceOp slice;
    Value buffer;
  };
  SmallVector<Staged> staged;
  SmallVector<Value> unused(buffers);
  for (linalg::GenericOp tileOp : ops) {
    Operation *initializer = tileOp;
    if (fill)
      initializer = tileOp.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(initializer);
    auto slice =
        dps ? dps.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>()
            : tensor::ExtractSliceOp();
    if (!slice)
      break;
    ArrayRef<int64_t> shape = slice.getResultType().getShape();
    auto *buffer = llvm::find_if(unused, [&](Value candidate) {
      return cast<MemRefType>(candidate.getType()).getShape() == shape;
    });
    if (buffer == unused.end())
      break;
    staged.push_back({tileOp, dps, slice, *buffer});
    unused.erase(buffer);
  }
  if (staged.size() != ops.size() || !unused.empty()) {
    // Tiled but not staged: still a correct schedule.
    eraseBuffers();
    return ops;
  }
  for (Staged &block : staged) {
    rewriter.setInsertionPoint(block.initializer);
    Value tensor = bufferization::ToTensorOp::create(
        rewriter, loc, block.slice.getResultType(), block.buffer,
        /*restrict=*/true, /*writable=*/true);
    rewriter.modifyOpInPlace(block.initializer, [&] {
      block.initializer.getDpsInitsMutable()[0].set(tensor);
    });
    rewriter.setInsertionPointAfter(block.tile);
    auto copy = linalg::CopyOp::create(rewriter, loc, block.tile.getResult(0),
                                       block.slice.getResult());
    copy->setAttr(kStreamCopyAttrName, rewriter.getUnitAttr());
    rewriter.replaceAllUsesExcept(block.tile.getResult(0), copy.getResult(0),
                                  copy);
  }
  return ops;
}

/// Tiles one op of `tileAndPeel` (interchanged into its strategy's order,
/// staged if it is) with `cacheTiles` and `registerTiles`, and peels and
/// marks its register tiles.
static LogicalResult
tileBlock(RewriterBase &rewriter, linalg::GenericOp op, StrategyKind kind,
          SmallVector<int64_t> cacheTiles, SmallVector<int64_t> registerTiles,
          const TilingPatterns &patterns) {
  // A `contract` schedule carries its accumulators through the reductions:
  // the output's fill is fused into the tiles. A loop whose one cache tile
  // covers it gets no loop: a reduction, so that the register tiles see the
  // fill too; a parallel loop, so that its slices are the whole dim, static
  // and at 0, which SliceAbovePackCollapse can take of a pack read through
  // a collapse_shape (sedm,dcm->dces: es of 99 in a tile of 112; a tile past
  // the end has a dynamic size it cannot expand). Elsewhere the code is the
  // same either way (the LLVM IR of 1,186 generated, suite, power-of-two and
  // realistic contractions, on 1 and 2 threads).
  bool fuseFill = kind == StrategyKind::Contract;
  if (fuseFill) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    for (auto [loop, size] : llvm::enumerate(cacheTiles))
      if (!ShapedType::isDynamic(ranges[loop]) && size >= ranges[loop])
        size = 0;
  }
  auto tileOp = [&](linalg::GenericOp target, ArrayRef<int64_t> sizes,
                    bool registerTile) {
    return fuseFill
               ? tileFusingFill(rewriter, target, sizes, registerTile, patterns)
               : tile(rewriter, target, sizes);
  };
  // Cache tiles: the loops whose last tile is partial and whose register
  // tiles are wider than 1 are peeled (innermost first), so that every copy
  // has static sizes down to the register tiles' remainders.
  SmallVector<linalg::GenericOp> cacheTileOps;
  if (llvm::any_of(cacheTiles, [](int64_t size) { return size != 0; })) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto tiled = tileOp(op, cacheTiles, /*registerTile=*/false);
    if (failed(tiled))
      return failure();
    op = tiled->first;
    SmallVector<scf::ForOp> partialLoops;
    unsigned loopIndex = 0;
    for (auto [loop, size] : llvm::enumerate(cacheTiles)) {
      if (size == 0)
        continue;
      if (registerTiles[loop] > 1 && !ShapedType::isDynamic(ranges[loop]) &&
          ranges[loop] % size != 0)
        partialLoops.push_back(tiled->second[loopIndex]);
      ++loopIndex;
    }
    if (!partialLoops.empty())
      cacheTileOps = peelPartialTiles(rewriter, op, tiled->second.front(),
                                      partialLoops, patterns.canonicalization);
  }
  if (cacheTileOps.empty())
    cacheTileOps.push_back(op);

  // A `reduce` strategy's contiguous reduction (the last loop) is not tiled
  // here: it is split into vector lanes after peeling.
  int64_t reductionLanes = 0;
  if (kind == StrategyKind::Reduce && !registerTiles.empty()) {
    reductionLanes = registerTiles.back();
    registerTiles.back() = 0;
  }

  // Register tiles: loops of a tile of 1 only iterate; the others are
  // peeled, innermost first, so every combination of full and partial
  // tiles gets a copy of its own with the sizes folded.
  for (linalg::GenericOp cacheTile : cacheTileOps) {
    op = cacheTile;
    SmallVector<scf::ForOp> peelable;
    if (llvm::any_of(registerTiles, [](int64_t size) { return size != 0; })) {
      auto tiled = tileOp(op, registerTiles, /*registerTile=*/true);
      if (failed(tiled))
        return failure();
      op = tiled->first;
      unsigned loopIndex = 0;
      for (int64_t size : registerTiles) {
        if (size == 0)
          continue;
        if (size > 1)
          peelable.push_back(tiled->second[loopIndex]);
        ++loopIndex;
      }
    }
    op->setAttr(kRegisterTileMarker,
                rewriter.getI64IntegerAttr(reductionLanes));
    for (scf::ForOp loop : llvm::reverse(peelable)) {
      scf::ForOp partial;
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
    }
  }
  return success();
}

/// Tiles, peels and marks one op; vectorization comes after the function has
/// been canonicalized, so that full tiles have static shapes.
static LogicalResult
tileAndPeel(RewriterBase &rewriter, linalg::GenericOp op, StrategyAttr strategy,
            const TilingPatterns &patterns) {
  SmallVector<unsigned> order =
      llvm::map_to_vector(strategy.getOrder(), [](int64_t loop) {
        return static_cast<unsigned>(loop);
      });
  SmallVector<int64_t> cacheTiles, registerTiles;
  for (unsigned loop : order) {
    cacheTiles.push_back(strategy.getCacheTiles()[loop]);
    registerTiles.push_back(strategy.getRegisterTiles()[loop]);
  }
  if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, op, order);
    if (failed(interchanged))
      return failure();
    op = *interchanged;
  }
  SmallVector<linalg::GenericOp> blocks = {op};
  if (strategy.getStage() > 0) {
    FailureOr<SmallVector<linalg::GenericOp>> staged = stageOutput(
        rewriter, op, cacheTiles, strategy.getStage(), patterns);
    if (succeeded(staged))
      blocks = std::move(*staged);
  }
  for (linalg::GenericOp block : blocks)
    if (failed(tileBlock(rewriter, block, strategy.getKind(), cacheTiles,
                         registerTiles, patterns)))
      return failure();
  return success();
}

/// Splits the dynamic loops of a partial tile (what peeling left over) into
/// tiles of size 1, so that every vector has a static shape: no masks are
/// needed, and the remainder still runs on vectors along its full loops.
static FailureOr<linalg::GenericOp> makeStatic(RewriterBase &rewriter,
                                               linalg::GenericOp op) {
  if (!op.hasDynamicShape())
    return op;
  SmallVector<int64_t> unitTiles = llvm::map_to_vector(
      op.getStaticLoopRanges(),
      [](int64_t size) -> int64_t { return ShapedType::isDynamic(size); });
  auto tiled = tile(rewriter, op, unitTiles);
  if (failed(tiled) || tiled->first.hasDynamicShape())
    return failure();
  return tiled->first;
}

/// Folds the unit loops of `op` but the innermost reduction of a
/// multiply-add (which the contraction patterns need). Other semirings'
/// bodies (max of sums, ...) lose that loop too, so that a register tile is
/// an elementwise op on whole vectors rather than one of trailing unit
/// dimensions, which the vector lowering would scalarize.
static linalg::GenericOp foldUnitLoops(RewriterBase &rewriter,
                                       linalg::GenericOp op) {
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  control.controlFn = [](Operation *candidate) {
    auto generic = cast<linalg::GenericOp>(candidate);
    SmallVector<utils::IteratorType> types = generic.getIteratorTypesArray();
    std::optional<unsigned> keep;
    bool multiplyAdd = linalg::isaContractionOpInterface(generic);
    for (auto [loop, type] : llvm::enumerate(types))
      if (multiplyAdd && type == utils::IteratorType::reduction)
        keep = loop;
    SmallVector<unsigned> dims;
    for (unsigned loop = 0; loop < types.size(); ++loop)
      if (loop != keep)
        dims.push_back(loop);
    return dims;
  };
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, op, control);
  if (failed(dropped))
    return op;
  rewriter.replaceOp(op, dropped->replacements);
  return cast<linalg::GenericOp>(dropped->resultOp.getOperation());
}

static LogicalResult vectorizeStaticOp(RewriterBase &rewriter,
                                       linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> result =
      linalg::vectorize(rewriter, op);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return success();
}

/// Splits the innermost (contiguous) reduction of `op` into `lanes` partial
/// sums carried in a vector (upstream partial-reduction tiling), which one
/// horizontal reduction merges at the end, and vectorizes every piece.
static LogicalResult
vectorizeSplitReduction(RewriterBase &rewriter, linalg::GenericOp op,
                        int64_t lanes,
                        const FrozenRewritePatternSet &canonicalization) {
  unsigned last = op.getNumLoops() - 1;
  int64_t extent = op.getStaticLoopRanges()[last];
  if (op.getIteratorTypesArray()[last] != utils::IteratorType::reduction ||
      extent <= lanes || op.getNumDpsInits() != 1)
    return vectorizeStaticOp(rewriter, op);

  scf::SCFTilingOptions options;
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[last] = lanes;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setReductionTilingStrategy(
      ReductionTilingStrategy::PartialReductionOuterReduction);
  options.setReductionDims({last});
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result) || result->loops.size() != 1)
    return failure();
  rewriter.replaceOp(op, result->replacements);

  SmallVector<linalg::LinalgOp> pieces;
  for (Value init : result->initialValues)
    if (auto fill = init.getDefiningOp<linalg::FillOp>())
      pieces.push_back(fill);
  for (Operation *merge : result->mergeOps)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(merge))
      pieces.push_back(linalgOp);
  auto loop = cast<scf::ForOp>(result->loops.front().getOperation());
  scf::ForOp partialLoop;
  (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partialLoop);
  for (scf::ForOp forOp : {loop, partialLoop}) {
    if (!forOp)
      continue;
    // Fold the simplified bounds into static slice sizes.
    (void)applyPatternsGreedily(forOp.getOperation(), canonicalization);
    forOp.getBody()->walk(
        [&](linalg::GenericOp tiled) { pieces.push_back(tiled); });
  }
  // Pieces that cannot be vectorized stay linalg ops (loops).
  LogicalResult all = success();
  for (linalg::LinalgOp piece : pieces) {
    if (auto generic = dyn_cast<linalg::GenericOp>(piece.getOperation())) {
      FailureOr<linalg::GenericOp> staticOp = makeStatic(rewriter, generic);
      if (failed(staticOp)) {
        all = failure();
        continue;
      }
      piece = *staticOp;
    }
    if (failed(vectorizeStaticOp(rewriter, piece)))
      all = failure();
  }
  return all;
}

/// The loop of a contraction `op` that its accumulator's vectors run along:
/// the output's contiguous loop where an input is contiguous along it too.
/// (A register tile stored transposed has the output's contiguous loop as
/// its rows, M: padding those would add rows of registers, not lanes.)
static std::optional<unsigned> getAccumulatorVectorLoop(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 ||
      !llvm::is_contained(op.getIteratorTypesArray(),
                          utils::IteratorType::reduction))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto lastDim = [](AffineMap map) -> std::optional<unsigned> {
    if (map.getNumResults() == 0)
      return std::nullopt;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!dim)
      return std::nullopt;
    return dim.getPosition();
  };
  std::optional<unsigned> loop = lastDim(maps.back());
  if (!loop || llvm::none_of(ArrayRef(maps).drop_back(), [&](AffineMap map) {
        return lastDim(map) == loop;
      }))
    return std::nullopt;
  return loop;
}

/// Whether the vectors of contraction `op`'s accumulator span two loops:
/// the output's contiguous loop N and, before it in the input that holds N,
/// another output loop of that input's with a tile of more than one
/// (einsum-select-strategy's folded rows, packed next to each other).
static bool hasFoldedRows(linalg::GenericOp op) {
  std::optional<unsigned> nLoop = getAccumulatorVectorLoop(op);
  if (!nLoop)
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (AffineMap map : ArrayRef(maps).drop_back()) {
    unsigned rank = map.getNumResults();
    if (rank < 2 ||
        map.getResult(rank - 1) != getAffineDimExpr(*nLoop, op.getContext()))
      continue;
    auto g = dyn_cast<AffineDimExpr>(map.getResult(rank - 2));
    if (g && iterators[g.getPosition()] == utils::IteratorType::parallel &&
        ranges[g.getPosition()] > 1 &&
        maps.back().getResultPosition(g).has_value())
      return true;
  }
  return false;
}

/// The lanes of a vector register of `bits` for `op`'s output elements
/// (0: no masking).
static int64_t getLanes(linalg::GenericOp op, unsigned bits) {
  Type elementType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!bits || !elementType.isIntOrFloat())
    return 0;
  return std::max<int64_t>(1, bits / elementType.getIntOrFloatBitWidth());
}

/// Splits the vector loops of a static register tile (those along which an
/// operand is contiguous) whose sizes are not powers of two into parts that
/// are (9 columns: 8 + 1; upstream linalg::splitOp), so that every vector is
/// whole registers or a power-of-two part of one: LLVM legalizes a
/// vector<9xf32> FMA and its loads element by element.
static SmallVector<linalg::GenericOp>
splitIntoPowersOfTwo(RewriterBase &rewriter, linalg::GenericOp op,
                     unsigned maskBits) {
  SmallVector<linalg::GenericOp> pieces, worklist = {op};
  while (!worklist.empty()) {
    linalg::GenericOp piece = worklist.pop_back_val();
    SmallVector<int64_t> ranges = piece.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators =
        piece.getIteratorTypesArray();
    // Only the loops along which an operand is contiguous size vectors;
    // the others count vectors (6 rows of an accumulator are 6 vectors).
    // With reductions (contractions), only the output's contiguous loop:
    // the accumulator's vectors; an input contiguous along the rows
    // (znjr,njy->rzny: A along r) is read as broadcasts, and splitting the
    // rows (7 = 4 + 2 + 1) would give each piece an accumulator that is a
    // slice, which bufferization copies in and out of every tile (that
    // case ran 17x slower than plain loops).
    bool reduces = llvm::is_contained(iterators,
                                      utils::IteratorType::reduction);
    llvm::SmallBitVector innermost(ranges.size());
    SmallVector<AffineMap> maps = piece.getIndexingMapsArray();
    for (auto [index, map] : llvm::enumerate(maps)) {
      if (reduces && index + 1 != maps.size())
        continue;
      if (map.getNumResults() > 0)
        if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
          innermost.set(dim.getPosition());
    }
    // (A contraction's rows that are cheaper as one masked vector stay
    // whole: see getMaskedExtent.)
    if (reduces && hasFoldedRows(piece)) {
      pieces.push_back(piece);
      continue;
    }
    std::optional<unsigned> padded =
        reduces ? getAccumulatorVectorLoop(piece) : std::nullopt;
    int64_t lanes = padded ? getLanes(piece, maskBits) : 0;
    std::optional<unsigned> loop;
    for (unsigned l = 0; l < ranges.size() && !loop; ++l)
      if (innermost.test(l) &&
          iterators[l] == utils::IteratorType::parallel && ranges[l] > 1 &&
          !ShapedType::isDynamic(ranges[l]) &&
          !llvm::isPowerOf2_64(ranges[l]) &&
          !(l == padded && getMaskedExtent(ranges[l], lanes)))
        loop = l;
    if (!loop) {
      pieces.push_back(piece);
      continue;
    }
    rewriter.setInsertionPoint(piece);
    auto [first, second] = linalg::splitOp(
        rewriter, cast<TilingInterface>(piece.getOperation()), *loop,
        rewriter.getIndexAttr(static_cast<int64_t>(
            llvm::bit_floor(static_cast<uint64_t>(ranges[*loop])))));
    for (TilingInterface part : {first, second})
      worklist.push_back(cast<linalg::GenericOp>(part.getOperation()));
  }
  return pieces;
}

/// Folds the unit loops of a register tile and vectorizes it.
/// Vectorizes a contraction's register tile whose output rows are padded to
/// a masked vector (getMaskedExtent); other ops as vectorizeStaticOp does.
static LogicalResult vectorizePaddedOp(RewriterBase &rewriter,
                                       linalg::GenericOp op,
                                       unsigned maskBits) {
  std::optional<unsigned> loop = getAccumulatorVectorLoop(op);
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  int64_t padded =
      loop ? getMaskedExtent(sizes[*loop], getLanes(op, maskBits)) : 0;
  if (!padded || !linalg::isaContractionOpInterface(op) || hasFoldedRows(op))
    return vectorizeStaticOp(rewriter, op);
  sizes[*loop] = padded;
  rewriter.setInsertionPoint(op);
  // (The scalable flags are spelled out, one per dim: without them, LLVM
  // 22's vectorizer made masks that printed as the plain types but were not
  // the same ones, and convert-vector-to-llvm's masks then failed to verify;
  // a print and parse in between hid it.)
  SmallVector<bool> scalable(sizes.size(), false);
  FailureOr<linalg::VectorizationResult> result =
      linalg::vectorize(rewriter, op, sizes, scalable);
  if (failed(result))
    return vectorizeStaticOp(rewriter, op);
  rewriter.replaceOp(op, result->replacements);
  return success();
}

static LogicalResult
vectorizeRegisterTile(RewriterBase &rewriter, linalg::GenericOp op,
                      const FrozenRewritePatternSet &canonicalization,
                      unsigned maskBits) {
  int64_t reductionLanes =
      op->getAttrOfType<IntegerAttr>(kRegisterTileMarker).getInt();
  op->removeAttr(kRegisterTileMarker);
  FailureOr<linalg::GenericOp> staticOp = makeStatic(rewriter, op);
  if (failed(staticOp))
    return failure();
  // Pieces that cannot be vectorized stay linalg ops (loops).
  LogicalResult all = success();
  // Unit loops are folded before the split, so that the pieces are slices
  // of one rank-reduced accumulator: split first, each piece's own chain
  // of rank-reducing slices kept bufferization from proving them disjoint
  // (a copy of each piece's accumulator in and out of every tile).
  linalg::GenericOp folded = foldUnitLoops(rewriter, *staticOp);
  for (linalg::GenericOp piece :
       splitIntoPowersOfTwo(rewriter, folded, maskBits)) {
    // A piece of width 1 has a unit loop of its own.
    piece = foldUnitLoops(rewriter, piece);
    if (failed(reductionLanes > 1
                   ? vectorizeSplitReduction(rewriter, piece, reductionLanes,
                                             canonicalization)
                   : vectorizePaddedOp(rewriter, piece, maskBits)))
      all = failure();
  }
  return all;
}

/// Whether `indices` are all constant zeros.
static bool areZeros(ValueRange indices) {
  return llvm::all_of(indices, [](Value index) {
    std::optional<int64_t> value = getConstantIntValue(index);
    return value && *value == 0;
  });
}

/// The in_bounds of a transfer at the origin of `shaped` (static): a vector
/// dim is in bounds where it does not exceed the dim it walks.
static ArrayAttr getInBounds(OpBuilder &builder, VectorType vectorType,
                             AffineMap map, ShapedType shaped) {
  SmallVector<bool> inBounds;
  for (auto [index, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    inBounds.push_back(!dim || vectorType.getDimSize(index) <=
                                   shaped.getDimSize(dim.getPosition()));
  }
  return builder.getBoolArrayAttr(inBounds);
}

/// The masks that vectorizing a padded register tile made (each the bounds
/// of the tile, constant): its reads and writes become transfers that are
/// out of bounds along the padded dims, which the LLVM lowering turns into
/// masked loads and stores (the padding lanes read zeros and are never
/// stored), and its reductions over whole dims lose the mask (the padding
/// lanes compute what is never stored). The contraction patterns and the
/// accumulator hoisting then see plain transfers and reductions.
static void dropPaddingMasks(RewriterBase &rewriter, Operation *root) {
  SmallVector<vector::MaskOp> masks;
  root->walk([&](vector::MaskOp mask) { masks.push_back(mask); });
  for (vector::MaskOp mask : masks) {
    Operation *inner = mask.getMaskableOp();
    auto create = mask.getMask().getDefiningOp<vector::CreateMaskOp>();
    if (!inner || !create || mask.hasPassthru() ||
        !llvm::all_of(create.getOperands(), [](Value bound) {
          return getConstantIntValue(bound).has_value();
        }))
      continue;
    rewriter.setInsertionPoint(mask);
    Operation *unmasked = nullptr;
    if (auto read = dyn_cast<vector::TransferReadOp>(inner)) {
      auto shaped = dyn_cast<ShapedType>(read.getBase().getType());
      if (!shaped || !shaped.hasStaticShape() || !areZeros(read.getIndices()))
        continue;
      auto clone = cast<vector::TransferReadOp>(rewriter.clone(*read));
      Type elementType = shaped.getElementType();
      Value zero = arith::ConstantOp::create(rewriter, read.getLoc(),
                                             rewriter.getZeroAttr(elementType));
      clone.getPaddingMutable().assign(zero);
      clone.setInBoundsAttr(getInBounds(rewriter, read.getVectorType(),
                                        read.getPermutationMap(), shaped));
      unmasked = clone;
    } else if (auto write = dyn_cast<vector::TransferWriteOp>(inner)) {
      auto shaped = dyn_cast<ShapedType>(write.getBase().getType());
      if (!shaped || !shaped.hasStaticShape() ||
          !areZeros(write.getIndices()))
        continue;
      auto clone = cast<vector::TransferWriteOp>(rewriter.clone(*write));
      clone.setInBoundsAttr(getInBounds(rewriter, write.getVectorType(),
                                        write.getPermutationMap(), shaped));
      unmasked = clone;
    } else if (auto reduction = dyn_cast<vector::MultiDimReductionOp>(inner)) {
      ArrayRef<int64_t> shape = create.getVectorType().getShape();
      bool wholeReductions = llvm::all_of(
          reduction.getReductionDims(), [&](int64_t dim) {
            return *getConstantIntValue(create.getOperand(dim)) == shape[dim];
          });
      if (!wholeReductions)
        continue;
      unmasked = rewriter.clone(*reduction);
    }
    if (!unmasked)
      continue;
    rewriter.replaceOp(mask, unmasked->getResults());
    if (create->use_empty())
      rewriter.eraseOp(create);
  }
}

/// The value of every element of `tensor` where one splat constant is all
/// of it: a linalg.fill, a transfer_write of a splat vector over the whole
/// of its destination (a vectorized fill), or a slice of either.
static Attribute getSplatTensorValue(Value tensor) {
  while (auto slice = tensor.getDefiningOp<tensor::ExtractSliceOp>())
    tensor = slice.getSource();
  if (auto fill = tensor.getDefiningOp<linalg::FillOp>()) {
    Attribute value;
    if (matchPattern(fill.getInputs()[0], m_Constant(&value)))
      return value;
    return {};
  }
  auto write = tensor.getDefiningOp<vector::TransferWriteOp>();
  if (!write || write.getMask() || !areZeros(write.getIndices()) ||
      !write.getPermutationMap().isIdentity())
    return {};
  auto shaped = dyn_cast<RankedTensorType>(write.getBase().getType());
  if (!shaped || shaped.getShape() != write.getVectorType().getShape())
    return {};
  DenseElementsAttr splat;
  if (!matchPattern(write.getVector(), m_Constant(&splat)) ||
      !splat.isSplat())
    return {};
  return splat.getSplatValue<Attribute>();
}

namespace {
/// A register tile's first read of its accumulator, where the fill fused
/// into the tile wrote one value to all of it, becomes that value: the
/// accumulators start in registers and the output tile is written once,
/// never read (`transfer_read` only folds a `transfer_write` of its own
/// shape; a padded tile's rank-reduced slice of 8x13 read as 8x16 reloaded
/// the zeros just stored, and the masked 64-byte loads of smaller stores
/// stalled on store forwarding: 2/3 of zrty,btz->brty's time).
struct FoldReadOfSplatTensor final
    : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(read.getBase().getType()))
      return failure();
    auto value =
        dyn_cast_or_null<TypedAttr>(getSplatTensorValue(read.getBase()));
    if (!value || value.getType() != read.getVectorType().getElementType())
      return failure();
    // Lanes out of bounds or masked off read the padding.
    Attribute padding;
    bool allInBounds = llvm::all_of(read.getInBoundsValues(),
                                    [](bool inBounds) { return inBounds; });
    if ((read.getMask() || !allInBounds) &&
        (!matchPattern(read.getPadding(), m_Constant(&padding)) ||
         padding != value))
      return failure();
    auto splat = DenseElementsAttr::get(read.getVectorType(), value);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(read, splat);
    return success();
  }
};

/// Whether `extract` takes the slice that `insert` puts back (the same
/// offsets, sizes and strides).
static bool isSameSlice(tensor::ExtractSliceOp extract,
                        tensor::InsertSliceOp insert) {
  return llvm::equal(extract.getMixedOffsets(), insert.getMixedOffsets()) &&
         llvm::equal(extract.getMixedSizes(), insert.getMixedSizes()) &&
         llvm::equal(extract.getMixedStrides(), insert.getMixedStrides());
}

/// A register tile's fill that the tile then overwrites whole is dropped:
/// once its reads are folded (FoldReadOfSplatTensor), the tile's values
/// are all computed in registers and only stored, so the vector of zeros
/// stored first, to the same output lines, is dead. Matches the single
/// accumulator of a register tile (`W1` the fill, `S` all of it, `W2` the
/// accumulator over all of `S`, inserted back where `S` was taken):
///   %w1 = vector.transfer_write %splat, %dest
///   %s = tensor.extract_slice %w1 (all of it, rank-reduced)
///   %w2 = vector.transfer_write %acc, %s (all of it)
///   %i = tensor.insert_slice %w2 into %w1 (where %s was)
/// and makes %s and %i use %dest. (Split tiles, 8 + 4 + 1, keep their fill:
/// their stores are the same width as the accumulators'.) A padded tile's
/// fill goes too: its masked stores cover the slice. (They once ran 0.8x
/// without the zeros stored first, a masked store to a line not in cache;
/// einsum-prefetch-stores now asks for the tile's lines before its
/// reductions, and dropping the zeros ran 1.01x on the suite's geomean,
/// zrty,btz->brty with rows of 13 1.10x, hsaw,lhnw->hnasl 1.17x.)
struct DropOverwrittenSplatWrite final
    : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferWriteOp fill,
                                PatternRewriter &rewriter) const override {
    Value filled = fill.getResult();
    if (!filled || !getSplatTensorValue(filled))
      return failure();
    tensor::ExtractSliceOp slice;
    tensor::InsertSliceOp insert;
    for (OpOperand &use : filled.getUses()) {
      if (auto extract = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
          extract && !slice)
        slice = extract;
      else if (auto back = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
               back && !insert && use.get() == back.getDest() &&
               back.getSource() != filled)
        insert = back;
      else
        return failure();
    }
    if (!slice || !insert || !slice->hasOneUse())
      return failure();
    auto sliceType = slice.getResultType();
    auto filledType = cast<RankedTensorType>(filled.getType());
    if (!sliceType.hasStaticShape() ||
        sliceType.getNumElements() != filledType.getNumElements() ||
        !areAllConstantIntValue(slice.getMixedOffsets(), 0) ||
        !areAllConstantIntValue(slice.getMixedStrides(), 1) ||
        !isSameSlice(slice, insert))
      return failure();
    auto overwrite = insert.getSource().getDefiningOp<vector::TransferWriteOp>();
    // From the origin, with at least as many lanes as elements along every
    // dimension: all of the slice is written (a padded tile's lanes out of
    // bounds, 4 lanes over 3 columns, are dropped).
    if (!overwrite || overwrite.getBase() != slice.getResult() ||
        overwrite.getMask() || !areZeros(overwrite.getIndices()) ||
        !overwrite.getPermutationMap().isMinorIdentity() ||
        overwrite.getVectorType().getRank() != sliceType.getRank())
      return failure();
    for (auto [lanes, size] : llvm::zip_equal(
             overwrite.getVectorType().getShape(), sliceType.getShape()))
      if (lanes < size)
        return failure();
    rewriter.replaceAllUsesWith(filled, fill.getBase());
    rewriter.eraseOp(fill);
    return success();
  }
};

/// Chains the stores of a split register tile's pieces. After hoisting, the
/// pieces' accumulators are written back as
///   %e2 = tensor.extract_slice %t[B]
///   %w2 = vector.transfer_write %acc2, %e2
///   %i1 = tensor.insert_slice %w1 into %t[A]
///   %i2 = tensor.insert_slice %w2 into %i1[B]
/// (18 columns: 16 + 2). The slices A and B are disjoint, but one-shot
/// bufferization does not see that %e2 and %i2 are the same subset of one
/// buffer (%e2 is taken from %t, %i2 inserts into %i1): it writes %w2 to a
/// new buffer and copies it in, an allocation and a copy per register tile
/// (jrg,rjx->xrg's 8 x 16 pieces). Where every insert between %t and %i2's
/// destination is disjoint from B, the store writes a slice taken from %i1
/// instead, which holds the same values at B, and moves down to just before
/// %i2; reads of %e2 (an accumulator's initial value) keep it.
struct ChainDisjointSliceWrites final
    : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto write = insert.getSource().getDefiningOp<vector::TransferWriteOp>();
    if (!write || !write->hasOneUse() ||
        write->getBlock() != insert->getBlock())
      return failure();
    auto extract = write.getBase().getDefiningOp<tensor::ExtractSliceOp>();
    if (!extract || extract.getSourceType() != insert.getDestType() ||
        !isSameSlice(extract, insert))
      return failure();
    // Walk %i2's destination down through inserts disjoint from B to the
    // tensor %e2 is taken from.
    HyperrectangularSlice target(
        cast<OffsetSizeAndStrideOpInterface>(insert.getOperation()));
    Value dest = insert.getDest();
    if (dest == extract.getSource())
      return failure(); // Already a matching pair.
    while (dest != extract.getSource()) {
      auto previous = dest.getDefiningOp<tensor::InsertSliceOp>();
      if (!previous)
        return failure();
      FailureOr<bool> overlapping =
          ValueBoundsConstraintSet::areOverlappingSlices(
              getContext(), target,
              HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(
                  previous.getOperation())));
      if (failed(overlapping) || *overlapping)
        return failure();
      dest = previous.getDest();
    }
    rewriter.setInsertionPoint(insert);
    auto chained = tensor::ExtractSliceOp::create(
        rewriter, extract.getLoc(), extract.getType(), insert.getDest(),
        extract.getMixedOffsets(), extract.getMixedSizes(),
        extract.getMixedStrides());
    rewriter.moveOpBefore(write, insert);
    rewriter.modifyOpInPlace(
        write, [&] { write.getBaseMutable().assign(chained.getResult()); });
    // (Reads of the accumulator's initial value keep %e2.)
    if (extract->use_empty())
      rewriter.eraseOp(extract);
    return success();
  }
};
} // namespace

static void addCanonicalizationPatterns(MLIRContext *context,
                                        RewritePatternSet &patterns) {
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
}

namespace {
struct EinsumVectorizePass
    : einsum::impl::EinsumVectorizePassBase<EinsumVectorizePass> {
  using Base::Base;

  /// The pattern sets are built once per pass instance (as the canonicalizer
  /// does), not on every compiled kernel.
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet canonicalizationPatterns(context);
    addCanonicalizationPatterns(context, canonicalizationPatterns);
    canonicalization = FrozenRewritePatternSet(
        std::move(canonicalizationPatterns));

    RewritePatternSet contractPatterns(context);
    vector::populateVectorReductionToContractPatterns(contractPatterns);
    addCanonicalizationPatterns(context, contractPatterns);
    contraction = FrozenRewritePatternSet(std::move(contractPatterns));

    RewritePatternSet foldRowsPatterns(context);
    einsum::populateFoldContractRowsPatterns(foldRowsPatterns,
                                             vectorBits ? unsigned(vectorBits)
                                                        : getHostVectorBits());
    addCanonicalizationPatterns(context, foldRowsPatterns);
    foldRows = FrozenRewritePatternSet(std::move(foldRowsPatterns));

    RewritePatternSet packSlicePatterns(context);
    packSlicePatterns.add<SliceAbovePackCollapse>(context);
    packSlices = FrozenRewritePatternSet(std::move(packSlicePatterns));

    RewritePatternSet emptySlicePatterns(context);
    tensor::populateFoldTensorEmptyPatterns(emptySlicePatterns);
    foldEmptySlices = FrozenRewritePatternSet(std::move(emptySlicePatterns));

    RewritePatternSet permutationPatterns(context);
    vector::populateVectorTransferPermutationMapLoweringPatterns(
        permutationPatterns);
    vector::populateVectorReductionToContractPatterns(permutationPatterns);
    permutationPatterns.add<FoldReadOfSplatTensor, DropOverwrittenSplatWrite,
                            ChainDisjointSliceWrites>(context);
    // Contractions of unit reductions (a row at a time, `ij,ij->j`) become
    // elementwise multiply-adds.
    einsum::populateUnitReductionContractPatterns(permutationPatterns);
    addCanonicalizationPatterns(context, permutationPatterns);
    transferPermutation =
        FrozenRewritePatternSet(std::move(permutationPatterns));
    return success();
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *root = getOperation();
    SmallVector<std::pair<linalg::GenericOp, StrategyAttr>> work;
    root->walk([&](linalg::GenericOp op) {
      auto strategy =
          op->getAttrOfType<StrategyAttr>(StrategyAttr::getAttrName());
      if (!strategy)
        return;
      op->removeAttr(StrategyAttr::getAttrName());
      if (strategy.getKind() != StrategyKind::Loops &&
          op.hasPureTensorSemantics())
        work.emplace_back(op, strategy);
    });
    if (work.empty())
      return;

    // Packing copies that only a contraction reads are made slice by slice
    // in its cache tiles (GETT's packing in the cache loops): a slice stays
    // in cache between the copy and the reads, where the whole packed
    // operand went to memory and back.
    DenseMap<Operation *, StrategyAttr> strategies;
    for (auto [op, strategy] : work)
      strategies[op] = strategy;
    llvm::erase_if(work, [&](std::pair<linalg::GenericOp, StrategyAttr> &entry) {
      auto [op, strategy] = entry;
      OpOperand *use = getPackUse(op);
      if (strategy.getKind() != StrategyKind::Elementwise || !use)
        return false;
      auto consumer = dyn_cast<linalg::GenericOp>(use->getOwner());
      auto it = consumer ? strategies.find(consumer) : strategies.end();
      if (it == strategies.end() ||
          it->second.getKind() != StrategyKind::Contract ||
          !isFusablePack(op, consumer, it->second))
        return false;
      op->setAttr(kFusedPackMarker, strategy);
      return true;
    });

    // A step that cannot apply leaves correct linalg ops behind (tiled or
    // not), which the pipeline lowers to loops: a schedule that does not fit
    // costs speed, never the compile.
    IRRewriter rewriter(context);
    TilingPatterns tilingPatterns{canonicalization, packSlices};
    for (auto [op, strategy] : work)
      (void)tileAndPeel(rewriter, op, strategy, tilingPatterns);

    // Fold the peeled tiles' sizes to constants.
    (void)applyPatternsGreedily(root, canonicalization);

    // Each slice of a packing copy (or the whole copy, where the tiles fused
    // none) is scheduled with the copy's strategy, into a buffer of its own
    // rather than a slice of the whole packed tensor.
    SmallVector<linalg::GenericOp> packs;
    root->walk([&](linalg::GenericOp op) {
      if (isFusedPack(op))
        packs.push_back(op);
    });
    if (!packs.empty()) {
      SmallVector<Operation *> emptySlices;
      for (linalg::GenericOp pack : packs)
        if (auto slice =
                pack.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>())
          emptySlices.push_back(slice);
      (void)applyOpPatternsGreedily(emptySlices, foldEmptySlices);
      for (linalg::GenericOp pack : packs) {
        auto strategy = cast<StrategyAttr>(pack->getAttr(kFusedPackMarker));
        pack->removeAttr(kFusedPackMarker);
        (void)tileAndPeel(rewriter, pack, strategy, tilingPatterns);
      }
      (void)applyPatternsGreedily(root, canonicalization);
    }

    SmallVector<linalg::GenericOp> tiles;
    root->walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kRegisterTileMarker))
        tiles.push_back(op);
    });
    unsigned maskBits =
        maskedRemainders ? (vectorBits ? unsigned(vectorBits)
                                       : getHostVectorBits())
                         : 0;
    for (linalg::GenericOp op : tiles)
      (void)vectorizeRegisterTile(rewriter, op, canonicalization, maskBits);
    if (maskBits)
      dropPaddingMasks(rewriter, root);
    root->walk([&](Operation *op) {
      op->removeAttr(kRegisterTileMarker);
      op->removeAttr(kCacheTileMarker);
    });
    // The fills of the register tiles (of full tiles; those of partial ones
    // have dynamic shapes and stay loops): vectors of zeros that the
    // accumulators' first reads fold to.
    SmallVector<linalg::FillOp> fills;
    root->walk([&](linalg::FillOp fill) {
      if (fill->removeAttr(kRegisterFillMarker) &&
          fill.hasPureTensorSemantics() &&
          cast<ShapedType>(fill.getResultTypes()[0]).hasStaticShape())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills)
      (void)vectorizeStaticOp(rewriter, fill);

    // Multiply-reductions to vector.contract, then CSE so that the
    // accumulator's reads and writes match, then hoist them out of the
    // reduction loops (innermost first).
    (void)applyPatternsGreedily(root, contraction);
    DominanceInfo dominance(root);
    eliminateCommonSubExpressions(rewriter, dominance, root);
    root->walk([&](scf::ForOp loop) {
      (void)hoistLoopInvariantSubsets(
          rewriter, cast<LoopLikeOpInterface>(loop.getOperation()));
    });

    // Transposing transfers become minor-identity transfers and
    // vector.transpose only now: before hoisting, the contraction patterns
    // would fold the transpose of a transposed output into the accumulator's
    // layout (for `ij,jk->ki`, 32 rows of 8 lanes instead of 8 rows of 32).
    // After it, they only fold the operands' broadcasts and transposes.
    (void)applyPatternsGreedily(root, transferPermutation);
    // Accumulator rows packed next to each other fill whole registers.
    (void)applyPatternsGreedily(root, foldRows);
  }

private:
  FrozenRewritePatternSet canonicalization;
  FrozenRewritePatternSet contraction;
  FrozenRewritePatternSet foldEmptySlices;
  FrozenRewritePatternSet foldRows;
  FrozenRewritePatternSet packSlices;
  FrozenRewritePatternSet transferPermutation;
};
} // namespace
