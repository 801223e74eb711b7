//===- SelectStrategy.cpp - choose CPU kernel schedules ---------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The one place that decides how a linalg op is scheduled on the CPU: the
// kind of kernel, the loop order, and the cache and register tile sizes. The
// decision is recorded as an #einsum.strategy attribute; einsum-vectorize
// only reads it.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "Sizes.h"
#include "Tiling.h"

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/bit.h"

#include <limits>

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMSELECTSTRATEGYPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

namespace {
/// What the strategy needs to know about one linalg.generic.
struct LoopInfo {
  unsigned numLoops = 0;
  SmallVector<int64_t> ranges;
  SmallVector<bool> isReduction;
  /// For each operand (inputs then output), the loop along which it is
  /// contiguous, if any.
  SmallVector<std::optional<unsigned>> contiguousLoop;
  /// For each operand, the loops it uses.
  SmallVector<llvm::SmallBitVector> usedLoops;
  /// For each operand, whether its map is a projected permutation (no
  /// diagonal, no index expression).
  SmallVector<bool> isProjectedPermutation;
  /// For each operand, its number of elements (static sizes only; dynamic
  /// sizes count as 1024).
  SmallVector<int64_t> numElements;
  /// For each operand, the loop of its second-last dim (next to its
  /// contiguous one), if any; the output's is nextLoop.back().
  SmallVector<std::optional<unsigned>> nextLoop;
};
} // namespace

static LoopInfo analyze(linalg::GenericOp op) {
  LoopInfo info;
  info.numLoops = op.getNumLoops();
  info.ranges = op.getStaticLoopRanges();
  for (utils::IteratorType type : op.getIteratorTypesArray())
    info.isReduction.push_back(type == utils::IteratorType::reduction);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    llvm::SmallBitVector used(info.numLoops);
    for (AffineExpr expr : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        used.set(dim.getPosition());
    info.isProjectedPermutation.push_back(map.isProjectedPermutation());
    std::optional<unsigned> contiguous;
    if (map.getNumResults() > 0) {
      if (auto last = dyn_cast<AffineDimExpr>(map.getResults().back())) {
        unsigned uses = llvm::count_if(map.getResults(), [&](AffineExpr e) {
          return e == last;
        });
        if (uses == 1)
          contiguous = last.getPosition();
      }
    }
    // Saturated: only compared, and sizes may be huge (2^40 x 0 inputs).
    int64_t elements = 1;
    if (auto type = dyn_cast<ShapedType>(operand.get().getType()))
      for (int64_t size : type.getShape())
        elements = saturatingMul(
            elements, ShapedType::isDynamic(size) ? int64_t(1024) : size);
    std::optional<unsigned> next;
    if (map.getNumResults() >= 2)
      if (auto dim = dyn_cast<AffineDimExpr>(
              map.getResult(map.getNumResults() - 2)))
        next = dim.getPosition();
    info.contiguousLoop.push_back(contiguous);
    info.nextLoop.push_back(next);
    info.usedLoops.push_back(std::move(used));
    info.numElements.push_back(elements);
  }
  return info;
}

/// The largest divisor of `extent` that is at most `limit` and a multiple of
/// `multiple`, or `limit` rounded down to `multiple` when `extent` is
/// dynamic or has none.
static int64_t fitTile(int64_t extent, int64_t limit, int64_t multiple) {
  limit = std::max<int64_t>(multiple, limit / multiple * multiple);
  if (ShapedType::isDynamic(extent))
    return limit;
  if (extent <= limit)
    return (extent + multiple - 1) / multiple * multiple;
  for (int64_t tile = limit; tile >= multiple; tile -= multiple)
    if (extent % tile == 0 && tile * 2 >= limit)
      return tile;
  return limit;
}

/// The register tile along the vector loop of a contraction: two vector
/// registers, or for a shorter static loop the largest power of two that
/// fits it (a loop of 48 is split into a tile of 32 and a peeled one of 16).
/// Where the tile's vectors are output rows (`wholeRows`: stored as they
/// are) and einsum-vectorize pads such a row to one masked vector
/// (getMaskedExtent: 13 columns in 16 lanes rather than 8 + 4 + 1), the
/// row is one tile instead (yanl,kny->ankl, rows of 14: 1.3x). Rows whose
/// pieces are not fewer masked (18 = 16 + 2) keep the power of two and a
/// peeled remainder (as one tile, split in it, they ran 0.7x), and so does a
/// tile stored transposed (27 columns as one tile, 16 + 8 + 2 + 1, ran 16x
/// slower than 16 and a peeled 11).
static int64_t chooseVectorTile(int64_t extent, int64_t lanes,
                                bool wholeRows) {
  if (ShapedType::isDynamic(extent) || extent >= 2 * lanes)
    return 2 * lanes;
  if (wholeRows && getMaskedExtent(extent, lanes))
    return extent;
  return static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(extent)));
}

/// The number of reduction steps of `op` (static sizes).
static int64_t getReductionPoints(linalg::GenericOp op) {
  int64_t points = 1;
  for (auto [range, type] : llvm::zip_equal(op.getStaticLoopRanges(),
                                            op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction)
      points = saturatingMul(points, range);
  return points;
}

/// Whether the packing steps handle `op`: a contraction of two inputs into
/// one output, with reductions, static non-empty sizes and no diagonals.
static bool isPackableContraction(linalg::GenericOp op) {
  return op.getNumDpsInputs() == 2 && op.getNumDpsInits() == 1 &&
         op.getNumReductionLoops() > 0 && op.hasPureTensorSemantics() &&
         !op.hasDynamicShape() &&
         !llvm::is_contained(op.getStaticLoopRanges(), 0) &&
         llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation();
         });
}

/// Packs input `operand` of contraction `op` into the order the `contract`
/// schedule walks it: its parallel dimensions, then its reductions (in loop
/// order), then the `trailing` loops (in loop order: the output's) and
/// `lane`'s dimension innermost. With a `panelWidth`, `lane`'s
/// dimension is split into (panel, lane) of that width, the panel index
/// placed after the other parallel dimensions (each panel is then
/// contiguous through the reductions); the contraction gets a loop for the
/// panel index and writes the output through an expand_shape of `lane`'s
/// dimension. The copy is a linalg.generic of its own (a transpose,
/// scheduled like one). Nothing changes when the order is the operand's
/// already and there is no split.
static void packOperand(OpBuilder &builder, linalg::GenericOp op,
                        unsigned operand, unsigned lane, int64_t panelWidth,
                        ArrayRef<unsigned> trailing = {}) {
  bool split = panelWidth > 0;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap bMap = maps[operand];
  AffineMap outMap = maps.back();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = op.getNumLoops();
  unsigned panelLoop = numLoops;
  // The operand's dimensions (lane's split when splitting), each with the
  // contraction loop it iterates over (the panel index gets a new loop after
  // the others) and its rank in the order the schedule visits them.
  struct Dim {
    std::pair<unsigned, unsigned> rank;
    unsigned loop;
    int64_t size;
  };
  SmallVector<Dim> dims;
  SmallVector<ReassociationIndices> bGroups;
  for (AffineExpr expr : bMap.getResults()) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    bGroups.emplace_back();
    if (loop == lane && split) {
      bGroups.back().push_back(dims.size());
      dims.push_back({{0, panelLoop}, panelLoop, ranges[loop] / panelWidth});
      bGroups.back().push_back(dims.size());
      dims.push_back({{2, loop}, loop, panelWidth});
      continue;
    }
    unsigned group =
        loop == lane || llvm::is_contained(trailing, loop) ? 2
        : iterators[loop] == utils::IteratorType::reduction ? 1
                                                            : 0;
    // The other parallel dimensions keep the operand's order: each of
    // their points holds a block (reductions x N) that the schedule walks
    // whole, so their order only reorders whole blocks, and an operand
    // whose blocks are already in place is not copied (fqyo,fyqh->yofh, B's
    // batches f, y in the other order: 1.04x; abik,bakj->abij 1.13-1.18x).
    unsigned within = group == 0 ? static_cast<unsigned>(dims.size()) : loop;
    // N and the trailing loops in the output's order.
    if (group == 2)
      if (std::optional<unsigned> position =
              outMap.getResultPosition(builder.getAffineDimExpr(loop)))
        within = *position;
    bGroups.back().push_back(dims.size());
    dims.push_back({{group, within}, loop, ranges[loop]});
  }
  SmallVector<unsigned> permutation =
      llvm::to_vector(llvm::seq<unsigned>(0, dims.size()));
  llvm::sort(permutation, [&](unsigned x, unsigned y) {
    return dims[x].rank < dims[y].rank;
  });
  if (!split &&
      llvm::equal(permutation, llvm::seq<unsigned>(0, permutation.size())))
    return;

  // packed[i] = B[permutation^-1 ...]: a copy whose loops are the packed
  // dimensions, from the operand itself or from its split view.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  builder.setInsertionPoint(op);
  Value source = op.getDpsInputs()[operand];
  Type elementType = getElementTypeOrSelf(source.getType());
  SmallVector<int64_t> splitShape =
      llvm::map_to_vector(dims, [](const Dim &dim) { return dim.size; });
  if (split)
    source = tensor::ExpandShapeOp::create(
        builder, loc, RankedTensorType::get(splitShape, elementType), source,
        bGroups);
  unsigned packedRank = permutation.size();
  SmallVector<int64_t> packedShape;
  SmallVector<AffineExpr> sourceExprs(packedRank);
  SmallVector<AffineExpr> packedExprs;
  unsigned newNumLoops = split ? numLoops + 1 : numLoops;
  for (auto [i, dim] : llvm::enumerate(permutation)) {
    packedShape.push_back(splitShape[dim]);
    sourceExprs[dim] = builder.getAffineDimExpr(i);
    packedExprs.push_back(builder.getAffineDimExpr(dims[dim].loop));
  }
  Value empty =
      tensor::EmptyOp::create(builder, loc, packedShape, elementType);
  auto copy = linalg::GenericOp::create(
      builder, loc, empty.getType(), ValueRange{source}, ValueRange{empty},
      ArrayRef<AffineMap>{
          AffineMap::get(packedRank, 0, sourceExprs, context),
          AffineMap::getMultiDimIdentityMap(packedRank, context)},
      SmallVector<utils::IteratorType>(packedRank,
                                       utils::IteratorType::parallel),
      [](OpBuilder &b, Location nested, ValueRange args) {
        linalg::YieldOp::create(b, nested, args[0]);
      });
  maps[operand] = AffineMap::get(newNumLoops, 0, packedExprs, context);
  if (!split) {
    op->setOperand(operand, copy.getResult(0));
    op.setIndexingMapsAttr(builder.getAffineMapArrayAttr(maps));
    return;
  }

  // The contraction over the split loop: its output is the init's split
  // view (a fill of it, where the init is a fill, so that the fill stays
  // fusable with the tiles), collapsed back for the users.
  for (auto [input, map] : llvm::enumerate(maps))
    if (input != operand && input + 1 < maps.size())
      map = AffineMap::get(newNumLoops, 0, map.getResults(), context);
  unsigned nPosition =
      *outMap.getResultPosition(builder.getAffineDimExpr(lane));
  SmallVector<AffineExpr> outExprs(outMap.getResults());
  outExprs.insert(outExprs.begin() + nPosition,
                  builder.getAffineDimExpr(panelLoop));
  maps.back() = AffineMap::get(newNumLoops, 0, outExprs, context);
  Value init = op.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> outShape(initType.getShape());
  outShape[nPosition] = panelWidth;
  outShape.insert(outShape.begin() + nPosition, ranges[lane] / panelWidth);
  SmallVector<ReassociationIndices> outGroups;
  for (int64_t dim = 0; dim < initType.getRank(); ++dim) {
    int64_t first = dim <= nPosition ? dim : dim + 1;
    outGroups.push_back({first});
    if (dim == nPosition)
      outGroups.back().push_back(first + 1);
  }
  auto outType = RankedTensorType::get(outShape, initType.getElementType());
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Value base = fill ? fill.getDpsInits()[0] : init;
  Value newInit =
      tensor::ExpandShapeOp::create(builder, loc, outType, base, outGroups);
  if (fill)
    newInit = linalg::FillOp::create(builder, loc, fill.getInputs(), newInit)
                  .getResult(0);
  SmallVector<Value> inputs(op.getDpsInputs());
  inputs[operand] = copy.getResult(0);
  iterators.push_back(utils::IteratorType::parallel);
  auto product = linalg::GenericOp::create(
      builder, loc, TypeRange{outType}, inputs, ValueRange{newInit}, maps,
      iterators);
  product.getRegion().takeBody(op.getRegion());
  Value result = tensor::CollapseShapeOp::create(
      builder, loc, initType, product.getResult(0), outGroups);
  op.getResult(0).replaceAllUsesWith(result);
  op.erase();
  if (fill && fill->use_empty())
    fill.erase();
}

/// The rows of N (of `nExtent` columns, `lanes` to a register) that a
/// contraction's register tile folds into its vectors, out of `rows` rows of
/// an output loop G that only N's input holds (packed as [.., G, N]): the
/// most full use of 1, 2 or 4 registers (getFoldedRegisters), or 0 where
/// folding does not pay. Rows that are not whole vectors waste lanes, and each
/// lane costs an FMA per step (rows of 17 took as long as rows of 32); folded,
/// g rows of 20 fill 60 of 64 lanes, and one broadcast of A serves them
/// all. Rows shorter than a vector fold wherever two or more fit (the
/// shared broadcasts paid even at the same use of lanes: rows of 13 and 14
/// 1.08-1.31x); longer rows only where the lanes' use grows by a tenth
/// (rows of 23 or 30, 94% used either way, ran 0.91-1.03x folded).
static int64_t chooseFoldedRows(int64_t nExtent, int64_t rows, int64_t lanes) {
  if (ShapedType::isDynamic(nExtent) || ShapedType::isDynamic(rows) ||
      rows < 2 || lanes < 2 || nExtent % lanes == 0 || nExtent >= 2 * lanes)
    return 0;
  // Uses in thousandths of the lanes.
  auto use = [&](int64_t columns) {
    return columns * 1000 / (getFoldedRegisters(columns, lanes) * lanes);
  };
  int64_t best = 0, bestUse = 0;
  for (int64_t tile = 2; tile <= std::min(rows, 4 * lanes / nExtent); ++tile)
    if (use(tile * nExtent) >= bestUse) {
      best = tile;
      bestUse = use(tile * nExtent);
    }
  int64_t rowUse = nExtent * 1000 / llvm::alignTo(nExtent, lanes);
  if (!best || (nExtent > lanes && bestUse * 10 < rowUse * 11))
    return 0;
  return best;
}

/// Rows of the other input (M) from which a contraction's N operand is split
/// into panels: the split copies B once, which the product repays over M.
static constexpr int64_t kMinPanelRows = 256;
/// Reduction steps from which panels pay: a register tile walks its panel
/// through them, and fewer rows (K = 16) do not fill a cache set, while the
/// product, then bound by writing its output, writes it in panel-wide strips
/// (1024x16x1024: 0.15 ms in place, 0.53 ms with panels).
static constexpr int64_t kMinPanelDepth = 64;
/// Reduction steps from which an N that is not a whole number of panels is
/// split into its whole panels and a rest, where B's rows lie 2 KiB or more
/// apart (interleaved A/B, medians, one thread: 1000x999x1001 1.11-1.25x,
/// ji,jk->ik with N = 1001 1.36-1.41x; N = 1001 over 256, 512 and 768 steps
/// 1.05x, 1.12x, 1.18x; rows of 530 and 200 0.97-1.03x; 38 generated
/// contractions over 128 steps 1.00x, over 64 0.97x).
static constexpr int64_t kMinRestPanelDepth = 256;
/// Reduction steps from which a contraction whose output rows are shorter
/// than a vector takes the other input's contiguous loop as N instead (the
/// accumulator tile stored transposed, once per tile of these steps); from
/// kMinShortRowDepth only when a row takes three or more power-of-two
/// vectors (13 = 8 + 4 + 1). Measured on km,nk->mn with M = 8192 and
/// kdcy-like tensor contractions: N of 4, 8, 12, 13, 15 over 24 or more
/// steps ran 2-2.5x faster transposed; over 16 steps 13 gained 1.2-1.7x and
/// 12 (8 + 4) lost 0.8x; over 8 steps both lost up to 0.65x.
static constexpr int64_t kMinTransposedDepth = 24;
static constexpr int64_t kMinShortRowDepth = 16;
/// The span of addresses over which an L1 data cache's sets repeat (64 sets
/// of 64-byte lines on x86 cores): rows whose stride is a multiple of it
/// all compete for the same few sets.
static constexpr int64_t kSetSpanBytes = 4096;
/// The elements of the N input's block in a contraction's cache tile (256
/// reduction steps x 128 columns of N).
static constexpr int64_t kBlockElements = 256 * 128;
/// The longest output row that a contraction writes in stretches of the
/// output loop next to it where its M rows lie apart, and the elements of
/// such a stretch.
static constexpr int64_t kShortRowElements = 128;
static constexpr int64_t kRowStretchElements = 2048;
/// The most reduction steps over which output rows of up to half a stretch
/// (kRowStretchElements / 2) are written in stretches too.
static constexpr int64_t kMaxStretchDepth = 32;
/// The elements of the N input's block that a stretch along a batch loop
/// makes (its steps x reduction steps x N): each register tile of M reads
/// it again. Rows of N of at most kMaxL1StretchRowElements keep it in L1,
/// at a third of 48 KiB (kStretchBlockElements); longer rows in L2
/// (kLongRowStretchBlockElements, 128 KiB of f32), where the register
/// tile's one load of it per row of FMAs does not notice the difference,
/// and the longer stretches write longer runs of each output row. The bound
/// is in elements, not bytes: f64 rows of 9 to 16 elements ran 0.90x with
/// the L2 bound (43 generated contractions), as f32 rows of up to 16 did.
static constexpr int64_t kStretchBlockElements = 4096;
static constexpr int64_t kLongRowStretchBlockElements = 32768;
static constexpr int64_t kMaxL1StretchRowElements = 16;
/// The iterations of a contraction's reduction cache tiles, shared by its
/// reduction loops. Each reduction tile loads and stores every register
/// tile's accumulators once more; a long one streams the N input's panel
/// (1024 steps x 2 vectors: 64 KiB of f32) from L2 rather than L1, which
/// the register tile's one load per 8 FMAs does not notice. 1024 against
/// 256 (A/B, interleaved, Zen 4): 1.05x on 11 deep contractions on one
/// thread, 1.05x on two (GEMM 1024^3 1.08-1.10x, ji,jk->ik 1.08-1.10x,
/// bsd,hdk->bhsk 1.11-1.21x, f64 GEMM 1.08-1.10x; 512x4096x512 0.98x);
/// 2048 ran 0.98x against 1024. A product without M rows, which streams the
/// N input once (jk,ijkl->il), keeps kRowlessReductionTileSteps: 512 and
/// more ran 0.88-0.91x there.
static constexpr int64_t kReductionTileSteps = 1024;
static constexpr int64_t kRowlessReductionTileSteps = 256;

/// Splits contraction `op` along its parallel loop `loop` into two
/// contractions on slices of the operands: one over the loop's first
/// `extent` iterations and one over the rest, which writes into the first's
/// result. A fill of the init is split with it (each part fills its own
/// slice of the fill's destination), so that each part's fill stays
/// fusable with its tiles. Returns the two parts.
static std::pair<linalg::GenericOp, linalg::GenericOp>
splitAlongLoop(OpBuilder &builder, linalg::GenericOp op, unsigned loop,
               int64_t extent) {
  Location loc = op.getLoc();
  builder.setInsertionPoint(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t range = op.getStaticLoopRanges()[loop];
  Value init = op.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Value dest = fill ? fill.getDpsInits()[0] : init;
  // The offsets, sizes and strides of the part of `type` (read through
  // `map`) from `offset` to `offset + size` along `loop`.
  struct Box {
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  auto getBox = [&](Type type, AffineMap map, int64_t offset, int64_t size) {
    auto shaped = cast<RankedTensorType>(type);
    Box box{SmallVector<OpFoldResult>(shaped.getRank(),
                                      builder.getIndexAttr(0)),
            getAsIndexOpFoldResult(builder.getContext(), shaped.getShape()),
            SmallVector<OpFoldResult>(shaped.getRank(),
                                      builder.getIndexAttr(1))};
    if (std::optional<unsigned> position =
            map.getResultPosition(builder.getAffineDimExpr(loop))) {
      box.offsets[*position] = builder.getIndexAttr(offset);
      box.sizes[*position] = builder.getIndexAttr(size);
    }
    return box;
  };
  SmallVector<linalg::GenericOp, 2> parts;
  for (auto [offset, size] : {std::pair<int64_t, int64_t>{0, extent},
                              {extent, range - extent}}) {
    SmallVector<Value> inputs;
    for (auto [input, map] : llvm::zip(op.getDpsInputs(), maps)) {
      if (!map.getResultPosition(builder.getAffineDimExpr(loop))) {
        inputs.push_back(input);
        continue;
      }
      Box box = getBox(input.getType(), map, offset, size);
      inputs.push_back(tensor::ExtractSliceOp::create(
          builder, loc, input, box.offsets, box.sizes, box.strides));
    }
    Box outBox = getBox(dest.getType(), maps.back(), offset, size);
    Value partInit = tensor::ExtractSliceOp::create(
        builder, loc, dest, outBox.offsets, outBox.sizes, outBox.strides);
    if (fill)
      partInit =
          linalg::FillOp::create(builder, loc, fill.getInputs(), partInit)
              .getResult(0);
    auto part = linalg::GenericOp::create(
        builder, loc, TypeRange{partInit.getType()}, inputs,
        ValueRange{partInit}, maps, op.getIteratorTypesArray());
    IRMapping mapping;
    op.getRegion().cloneInto(&part.getRegion(), mapping);
    parts.push_back(part);
    dest = tensor::InsertSliceOp::create(builder, loc, part.getResult(0),
                                         dest, outBox.offsets, outBox.sizes,
                                         outBox.strides);
  }
  op.getResult(0).replaceAllUsesWith(dest);
  op.erase();
  if (fill && fill->use_empty())
    fill.erase();
  return {parts[0], parts[1]};
}

/// Packs the input of a contraction that holds the output's contiguous loop
/// N into the layout the `contract` schedule walks: its other parallel
/// dimensions (in its own order), then its reductions (in loop order), then
/// N innermost. The copy is a linalg.generic of its own (a transpose,
/// scheduled like one); the contraction reads the packed tensor through the
/// permuted map. This turns an "NT" product (`bhqd,bhkd->bhqk`: B
/// contiguous along the reduction) into one with N contiguous, and makes the
/// reduction steps of a tensor contraction (`abcd,dbef->aecf`) walk B with
/// unit strides between rows. Only static, diagonal-free contractions whose
/// other input has output rows of its own (M of at least 8) are packed: the
/// copy costs a pass over B, the product 2 M flops per element of B.
///
/// Where M is large and `panelWidth` divides N, N is also split into panels
/// of `panelWidth` (the register tile's width): B becomes
/// [other parallel, N / panelWidth, reductions, panelWidth], so the register
/// tile walks one contiguous panel through the reductions instead of rows
/// one N-stride apart (with power-of-two strides, those rows all fall into
/// the same few cache sets). The contraction then gets a loop for the panel
/// index and writes its output through an expand_shape of the N dimension.
static void packForContraction(OpBuilder &builder, linalg::GenericOp op,
                               int64_t panelWidth) {
  if (!isPackableContraction(op))
    return;
  AffineMap outMap = op.getIndexingMapsArray().back();
  if (outMap.getNumResults() < 2)
    return;
  unsigned nLoop =
      cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto uses = [&](unsigned input, unsigned loop) {
    return maps[input].getResultPosition(builder.getAffineDimExpr(loop))
        .has_value();
  };
  if (uses(0, nLoop) == uses(1, nLoop))
    return;
  unsigned bInput = uses(0, nLoop) ? 0 : 1;
  unsigned aInput = 1 - bInput;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto countRows = [&] {
    int64_t points = 1;
    for (unsigned loop = 0; loop < op.getNumLoops(); ++loop)
      if (uses(aInput, loop) && !uses(bInput, loop) &&
          iterators[loop] == utils::IteratorType::parallel)
        points = saturatingMul(points, ranges[loop]);
    return points;
  };
  int64_t mPoints = countRows();
  if (mPoints < 8)
    return;

  // A product whose other input is contiguous along an output loop of its
  // own (`ij,jk->ki`) has its schedule already: N is that loop (the
  // accumulator tile is transposed once per reduction tile), and that input
  // is only split into panels, if at all.
  AffineMap bMap = maps[bInput];
  AffineMap aMap = maps[aInput];
  bool bContiguousAlongN =
      cast<AffineDimExpr>(bMap.getResults().back()).getPosition() == nLoop;
  bool splitOnly = false;
  // Where N is shorter than the register tile's width or not a multiple of
  // a vector, the output's other trailing loops that only B uses go after
  // the reductions too, next to N (sedm,dcm->dces, N = s of 9, packs A as
  // [d, m, e, s]): they are then adjacent to N in B and in the output, and
  // collapse with it into one longer vector loop, whose partial vector comes
  // once per stretch rather than once per row. yerp,yexq->eqxrp with rows
  // of 34 (32 + a peeled 2) ran 1.43x faster as one loop of 28 x 34; rows
  // of 40 to 300 1.06-1.59x, of 1000 1.04-1.08x. Rows of whole vectors gain
  // nothing (48 = 32 + 16: 0.95-1.06x).
  auto getTrailing = [&] {
    SmallVector<unsigned> trailing;
    int64_t lanes = std::max<int64_t>(1, panelWidth / 2);
    if ((ranges[nLoop] >= panelWidth && ranges[nLoop] % lanes == 0) ||
        cast<AffineDimExpr>(outMap.getResults().back()).getPosition() != nLoop)
      return trailing;
    for (AffineExpr expr : llvm::reverse(outMap.getResults().drop_back())) {
      unsigned loop = cast<AffineDimExpr>(expr).getPosition();
      if (!uses(bInput, loop) || uses(aInput, loop))
        break;
      trailing.push_back(loop);
    }
    // Else the output loop nearest N that only B holds, whose rows the
    // register tile folds (chooseFoldedRows), next to N.
    if (!trailing.empty())
      return trailing;
    for (AffineExpr expr : llvm::reverse(outMap.getResults().drop_back())) {
      unsigned loop = cast<AffineDimExpr>(expr).getPosition();
      if (uses(bInput, loop) && !uses(aInput, loop) &&
          iterators[loop] == utils::IteratorType::parallel) {
        if (chooseFoldedRows(ranges[nLoop], ranges[loop], lanes))
          trailing.push_back(loop);
        break;
      }
    }
    return trailing;
  };
  // Only over long reductions, in products without batch loops (below), is
  // the other input's contiguous loop taken as N (the accumulator tile then
  // stored transposed, once per tile of 64 or more reduction steps); over
  // short ones (jmpe,ejmi->jimp: 16 steps) the
  // transposed stores of a large output cost more than packing B, and N
  // stays the output's contiguous loop, as GETT does. Output rows shorter
  // than a vector that collapse with nothing are the exception
  // (jkc,kydj->kdcy: rows of 13, 24 steps: 43 -> 77 GFLOP/s): their
  // vectors are mostly empty lanes, and from kMinTransposedDepth steps on
  // the transposed stores cost less.
  // The short rows then become the register tile's M rows, read unpacked
  // from B: only where B's rows are near each other (leox,oxv->oevl, B's
  // rows of l 121 KiB apart: 57 -> 45 GFLOP/s transposed).
  int64_t depth = getReductionPoints(op);
  int64_t nExtent = ranges[nLoop];
  auto bType = cast<ShapedType>(op.getDpsInputs()[bInput].getType());
  int64_t bRowBytes =
      bType.getElementTypeBitWidth() / 8 *
      ShapedType::getNumElements(bType.getShape().drop_front(
          *maps[bInput].getResultPosition(builder.getAffineDimExpr(nLoop)) +
          1));
  bool shortRows = nExtent * 2 < panelWidth && getTrailing().empty() &&
                   bRowBytes < kSetSpanBytes &&
                   (depth >= kMinTransposedDepth ||
                    (depth >= kMinShortRowDepth &&
                     llvm::popcount(static_cast<uint64_t>(nExtent)) >= 3));
  // Long reductions take the transposed orientation only in products
  // without batch loops (a GEMM: ij,jk->ki at 1024^3 ran 1.05x so, at K =
  // 64 0.96x); with them B is packed (urc,xru->crx at K = 64 to 256 ran
  // 2.2-2.4x faster packed, zej,etjh->thez 1.4x).
  bool hasBatch = llvm::any_of(llvm::seq<unsigned>(0, op.getNumLoops()),
                               [&](unsigned loop) {
                                 return iterators[loop] ==
                                            utils::IteratorType::parallel &&
                                        uses(0, loop) && uses(1, loop);
                               });
  if (!bContiguousAlongN && aMap.getNumResults() > 0 &&
      ((depth >= kMinPanelDepth && !hasBatch) || shortRows)) {
    unsigned aLast =
        cast<AffineDimExpr>(aMap.getResults().back()).getPosition();
    if (iterators[aLast] == utils::IteratorType::parallel &&
        (depth >= kMinPanelDepth || ranges[aLast] * 2 >= panelWidth)) {
      if (!outMap.getResultPosition(builder.getAffineDimExpr(aLast)))
        return;
      std::swap(aInput, bInput);
      std::swap(aMap, bMap);
      nLoop = aLast;
      mPoints = countRows();
      splitOnly = true;
    }
  }
  unsigned elementBytes =
      getElementTypeOrSelf(op.getDpsInputs()[bInput].getType())
          .getIntOrFloatBitWidth() / 8;
  // N is split into panels where B's rows lie a multiple of a set span
  // apart. Where N is not a whole number of panels, its rows straddle
  // lines, and where they lie half a page (2 KiB) or more apart, a register
  // tile's walk down them reads two lines of a new page every step or two,
  // which the prefetchers, stopping at pages, do not fetch ahead (rows of
  // 4004 bytes gained 1.1-1.2x from panels, of 2120 bytes nothing, of 800
  // bytes lost 0.99x): from kMinRestPanelDepth steps the product is split
  // along N first, its whole panels packed, and the rest (fewer columns
  // than a panel) made a contraction of its own, which reads B in place.
  int64_t rowBytes = ranges[nLoop] * elementBytes;
  bool panelable = panelWidth > 1 && mPoints >= kMinPanelRows &&
                   depth >= kMinPanelDepth && ranges[nLoop] > panelWidth;
  bool split = panelable && ranges[nLoop] % panelWidth == 0 &&
               rowBytes % kSetSpanBytes == 0;
  if (panelable && ranges[nLoop] % panelWidth != 0 &&
      rowBytes >= kSetSpanBytes / 2 && depth >= kMinRestPanelDepth) {
    auto [whole, rest] = splitAlongLoop(
        builder, op, nLoop, llvm::alignDown(ranges[nLoop], panelWidth));
    packOperand(builder, whole, bInput, nLoop, panelWidth);
    packForContraction(builder, rest, panelWidth);
    return;
  }
  if (splitOnly && !split)
    return;

  SmallVector<unsigned> trailing;
  if (!split)
    trailing = getTrailing();
  packOperand(builder, op, bInput, nLoop, split ? panelWidth : 0, trailing);
}

/// The block argument a value of `op`'s body is computed from through
/// conversions (extf, extsi, ...), if any.
static std::optional<unsigned> getSourceArgument(linalg::GenericOp op,
                                                 Value value) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == op.getBody()
                 ? std::optional<unsigned>(arg.getArgNumber())
                 : std::nullopt;
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumOperands() != 1)
      return std::nullopt;
    value = def->getOperand(0);
  }
}

/// Puts the factor that comes from the N input second in the body's
/// multiplications: the vector contraction takes its operands in that order
/// and lowers to outer products of the first operand's columns (M) with the
/// second's rows (N). The other order (`jk,ij->ik`) ran at 5 GFLOP/s.
static void orderFactors(linalg::GenericOp op, unsigned nInput) {
  op.getBody()->walk([&](Operation *mul) {
    if (!isa<arith::MulFOp, arith::MulIOp>(mul))
      return;
    std::optional<unsigned> first = getSourceArgument(op, mul->getOperand(0));
    std::optional<unsigned> second = getSourceArgument(op, mul->getOperand(1));
    if (first == nInput && second && *second != nInput)
      mul->setOperands({mul->getOperand(1), mul->getOperand(0)});
  });
}

namespace {
/// A strategy under construction: everything indexed by the op's loops.
struct Plan {
  /// A plan of `kind` for `numLoops` loops: every cache tile `cacheTile`,
  /// every register tile 1, no order yet.
  Plan(StrategyKind kind, unsigned numLoops, int64_t cacheTile)
      : kind(kind), cache(numLoops, cacheTile), registerTiles(numLoops, 1) {}

  /// `contract`: the input that holds N (its rows are the vectors).
  std::optional<unsigned> nInput;
  StrategyKind kind;
  SmallVector<int64_t> order;
  SmallVector<int64_t> cache;
  SmallVector<int64_t> registerTiles;
};
} // namespace

/// `contract`: an M x N register tile carried through the reductions.
static std::optional<Plan> planContract(const LoopInfo &info, unsigned lanes,
                                        const VectorTarget &target) {
  unsigned numInputs = info.contiguousLoop.size() - 1;
  if (numInputs != 2 || llvm::none_of(info.isReduction, [](bool r) {
        return r;
      }))
    return std::nullopt;
  const llvm::SmallBitVector &outLoops = info.usedLoops.back();
  // N: a parallel loop along which an input is contiguous; the output's own
  // contiguous loop first, so the accumulator rows are stored contiguously.
  std::optional<unsigned> nLoop, nInput;
  auto tryN = [&](std::optional<unsigned> loop) {
    if (nLoop || !loop || info.isReduction[*loop])
      return;
    for (unsigned input = 0; input < numInputs; ++input)
      if (info.contiguousLoop[input] == loop) {
        nLoop = loop;
        nInput = input;
        return;
      }
  };
  tryN(info.contiguousLoop.back());
  for (unsigned input = 0; input < numInputs; ++input)
    tryN(info.contiguousLoop[input]);
  if (!nLoop)
    return std::nullopt;

  // M: an output loop of the other input only (a broadcast along N); the
  // one that input is contiguous along (its rows' elements are then
  // adjacent, as in a packed panel); else, where N is not the output's
  // contiguous loop (the tile is stored transposed), the output's
  // contiguous loop, so that the transposed rows are stored contiguously
  // (leox,oxv->oevl with N = v: M = l of 12, not e of 16, whose rows are 27
  // KiB apart in the output: 36 -> 57 GFLOP/s); else the largest, the one
  // nearest the output's contiguous end on ties.
  unsigned otherInput = 1 - *nInput;
  const llvm::SmallBitVector &other = info.usedLoops[otherInput];
  const llvm::SmallBitVector &nOperand = info.usedLoops[*nInput];
  auto isMCandidate = [&](unsigned loop) {
    return loop != *nLoop && !info.isReduction[loop] && outLoops.test(loop) &&
           other.test(loop) && !nOperand.test(loop);
  };
  std::optional<unsigned> mLoop;
  std::optional<unsigned> otherContiguous = info.contiguousLoop[otherInput];
  std::optional<unsigned> outContiguous = info.contiguousLoop.back();
  if (!(otherContiguous && isMCandidate(*otherContiguous)) && outContiguous &&
      outContiguous != nLoop && isMCandidate(*outContiguous))
    otherContiguous = outContiguous;
  bool contiguousM = otherContiguous && isMCandidate(*otherContiguous);
  if (contiguousM)
    mLoop = otherContiguous;
  for (unsigned loop = 0; loop < info.numLoops && !contiguousM; ++loop) {
    if (!isMCandidate(loop))
      continue;
    auto extent = [&](unsigned l) {
      return ShapedType::isDynamic(info.ranges[l]) ? INT64_MAX
                                                   : info.ranges[l];
    };
    if (!mLoop || extent(loop) >= extent(*mLoop))
      mLoop = loop;
  }

  Plan plan(StrategyKind::Contract, info.numLoops, /*cacheTile=*/1);
  plan.nInput = nInput;
  for (unsigned loop = 0; loop < info.numLoops; ++loop)
    if (!info.isReduction[loop] && loop != *nLoop && loop != mLoop)
      plan.order.push_back(loop);
  if (mLoop)
    plan.order.push_back(*mLoop);
  plan.order.push_back(*nLoop);
  SmallVector<unsigned> reductions;
  for (unsigned loop = 0; loop < info.numLoops; ++loop)
    if (info.isReduction[loop]) {
      plan.order.push_back(loop);
      reductions.push_back(loop);
    }

  // Register tile: 8 x 2 vectors fill 16 of AVX-512's 32 registers (6 x 2
  // of AVX2's 16; Zen 4's 256-bit schedules have the 32 registers too: 8
  // rows ran 1.01x its 6); three vectors per row when that divides N.
  int64_t nTile = chooseVectorTile(info.ranges[*nLoop], lanes,
                                   *nLoop == info.contiguousLoop.back());
  // Without rows of its own (jk,ijkl->il: every output element reads its
  // own B), the product streams B once, at one FMA per element loaded: the
  // register tile spans up to 8 vectors of N, so that B's rows are read
  // whole, in order, rather than in 2-vector strips swept N / 32 times.
  if (!mLoop && !ShapedType::isDynamic(info.ranges[*nLoop]))
    for (int64_t vectors = 8; vectors > 2; vectors /= 2)
      if (info.ranges[*nLoop] % (vectors * lanes) == 0) {
        nTile = vectors * lanes;
        break;
      }
  int64_t mRows = target.registers >= 32 ? 8 : 6;
  plan.registerTiles[*nLoop] = nTile;
  plan.cache[*nLoop] = fitTile(info.ranges[*nLoop], 128, nTile);
  if (mLoop) {
    int64_t extent = info.ranges[*mLoop];
    int64_t mTile = ShapedType::isDynamic(extent)
                        ? mRows
                        : std::min<int64_t>(mRows, extent);
    plan.registerTiles[*mLoop] = mTile;
    plan.cache[*mLoop] = fitTile(extent, 256, mTile);
  }
  // Panel indices (other parallel loops that only one input uses: B's N
  // panels, A's M panels) are cache-blocked too, so that a cache tile spans
  // 512 columns of N and 256 rows of M as it does without panels: A's block
  // is then reused from L2 across 16 B panels rather than re-read from
  // memory once per panel (2048^3: 167 -> 198 GFLOP/s).
  // (Without M rows there is no block of A to reuse, and B streams best
  // in order.)
  for (unsigned loop = 0; loop < info.numLoops && mLoop; ++loop) {
    if (info.isReduction[loop] || loop == *nLoop || loop == mLoop ||
        ShapedType::isDynamic(info.ranges[loop]))
      continue;
    bool nPanel = nOperand.test(loop) && !other.test(loop);
    bool mPanel = other.test(loop) && !nOperand.test(loop);
    if (nPanel)
      plan.cache[loop] =
          fitTile(info.ranges[loop], std::max<int64_t>(1, 512 / nTile), 1);
    else if (mPanel)
      plan.cache[loop] = fitTile(
          info.ranges[loop],
          std::max<int64_t>(1, 256 / plan.registerTiles[*mLoop]), 1);
  }
  // A short output row (N within the 128 columns of N's cache tile) whose
  // M rows lie far apart in the output: the output loop just outside N runs
  // inside M's tiles, so that each of the register tile's rows is written
  // as one contiguous stretch of that loop's cache tile (about 2048
  // elements), not a piece of one row per tile, every piece another cache
  // line of another page. (jrg,rjx->xrg, 82 columns: 2.2-2.6x; rows longer
  // than 128 columns ran 0.88-1.0x.) Over short reductions (at most
  // kMaxStretchDepth steps), where the output's writes dominate, rows of up
  // to half a stretch are written so too where M spans more than one
  // register tile: with the next loop's tile of 1, each of its steps wrote
  // a piece of every one of M's rows, a page apiece (jrg,rjx->xrg, 146
  // columns, 8 steps, 213 rows: 4.2-4.6x; pqk,kqr->rqp, 12 steps:
  // 1.5-3.0x; fbkj,fhkj->hfkb 1.3-1.6x; 48 rows: 0.91x; one register tile
  // of 7 rows ran 0.91x, so it stays out). Where that loop is a batch loop,
  // each of its steps brings a new block of the N input (reductions x N),
  // which every register tile of M reads again: the stretch is cut so that
  // its blocks fit kStretchBlockElements where N is 16 elements or less
  // (zrty,btz->brty: 157 steps of 16 x 13 -> 19, 1.09x; the 11 suite cases
  // that change 1.075x on one thread, 1.07x on two, jrg,rjx->xrg 0.95x; 24
  // generated ones 1.12x), kLongRowStretchBlockElements where it is longer
  // (fbkj,fhkj->hfkb: 1 step of 16 x 206 -> 9, 1.38x; wxsi,xisf->xwsf 2 ->
  // 10, 1.44x; aewf,ewdf->aewd 1.30x; 348 suite and generated contractions
  // change with the L2 bound: 1.10x on the 295 whose N is longer than 16
  // f32, 0.93x on the 53 whose N is not, which keep the L1 bound).
  if (mLoop && info.nextLoop.back()) {
    unsigned next = *info.nextLoop.back();
    int64_t nExtent = info.ranges[*nLoop];
    int64_t steps = 1;
    for (unsigned loop : reductions)
      steps = ShapedType::isDynamic(info.ranges[loop])
                  ? std::numeric_limits<int64_t>::max()
                  : saturatingMul(steps, info.ranges[loop]);
    bool shortRow =
        nExtent <= kShortRowElements ||
        (steps <= kMaxStretchDepth && 2 * nExtent <= kRowStretchElements &&
         info.ranges[*mLoop] > plan.registerTiles[*mLoop]);
    if (next != *mLoop && next != *nLoop && !info.isReduction[next] &&
        other.test(next) && !ShapedType::isDynamic(nExtent) && shortRow &&
        !ShapedType::isDynamic(info.ranges[next]) && info.ranges[next] > 1) {
      llvm::erase(plan.order, static_cast<int64_t>(next));
      auto *m = llvm::find(plan.order, static_cast<int64_t>(*mLoop));
      plan.order.insert(std::next(m), next);
      int64_t stretch = kRowStretchElements / nExtent;
      int64_t block =
          saturatingMul(std::min(steps, kReductionTileSteps), nExtent);
      if (nOperand.test(next))
        stretch = std::min(stretch, (nExtent <= kMaxL1StretchRowElements
                                         ? kStretchBlockElements
                                         : kLongRowStretchBlockElements) /
                                        block);
      plan.cache[next] =
          fitTile(info.ranges[next], std::max<int64_t>(1, stretch), 1);
    }
  }
  // Reductions share a cache budget of kReductionTileSteps iterations
  // (kRowlessReductionTileSteps without M), innermost first.
  int64_t budget = mLoop ? kReductionTileSteps : kRowlessReductionTileSteps;
  for (unsigned loop : llvm::reverse(reductions)) {
    int64_t tile = fitTile(info.ranges[loop], budget, 1);
    plan.cache[loop] = tile;
    budget = std::max<int64_t>(1, budget / tile);
  }
  // Output rows that lie apart (M is not the output's next loop: each M row
  // on a page of its own) are written whole, or in as long stretches as
  // keep the N input's block of a cache tile (its reduction tiles x N) at
  // the 256 x 128 elements a GEMM's block holds: N's tile of 128 wrote a
  // piece of every M row per N tile, and the short reductions, where the
  // output's writes dominate, paid for it (suite A/B, interleaved: 20 of
  // the 40 cases change, 1.24x on their geomean on one thread, 1.15x on
  // two; puzw,upzo->zopw 1.6x, urc,xru->crx 1.5x, jmpe,ejmi->jimp 1.3x,
  // none below 0.98x). Rows that follow each other (M is the output's next
  // loop, as in a GEMM) keep the tile of 128: longer ones ran 0.87-0.95x.
  int64_t nExtent = info.ranges[*nLoop];
  std::optional<unsigned> outputNextLoop = info.nextLoop.back();
  if (mLoop && outputNextLoop && *outputNextLoop != *mLoop &&
      nLoop == info.contiguousLoop.back() &&
      !ShapedType::isDynamic(nExtent)) {
    int64_t depth = 1;
    for (unsigned loop : reductions)
      depth = saturatingMul(depth, plan.cache[loop]);
    int64_t stretch = std::max<int64_t>(128, kBlockElements / depth);
    plan.cache[*nLoop] =
        nExtent <= stretch ? nExtent : fitTile(nExtent, stretch, nTile);
  }
  // Rows of N folded into the register tile's vectors (chooseFoldedRows):
  // the loop G before N in N's input, an output loop of its own that the
  // output does not hold next to N (else the two collapse into one loop).
  // The tile takes whole rows of N and `folded` rows of G, in that order
  // innermost, and as many rows of M as keep the accumulators within half
  // the registers (3/4 with AVX-512).
  std::optional<unsigned> gLoop = info.nextLoop[*nInput];
  int64_t folded = 0;
  if (mLoop && gLoop && !info.isReduction[*gLoop] && outLoops.test(*gLoop) &&
      !other.test(*gLoop) && info.nextLoop.back() != gLoop &&
      nLoop == info.contiguousLoop.back())
    folded = chooseFoldedRows(nExtent, info.ranges[*gLoop], lanes);
  if (folded) {
    int64_t registers = getFoldedRegisters(folded * nExtent, lanes);
    int64_t accumulators = target.registers >= 32 ? 24 : 12;
    int64_t mTile =
        std::min<int64_t>({info.ranges[*mLoop], mRows,
                           std::max<int64_t>(1, accumulators / registers)});
    plan.registerTiles[*gLoop] = folded;
    plan.registerTiles[*nLoop] = nExtent;
    plan.registerTiles[*mLoop] = mTile;
    plan.cache[*mLoop] = fitTile(info.ranges[*mLoop], 256, mTile);
    plan.cache[*gLoop] =
        fitTile(info.ranges[*gLoop],
                std::max<int64_t>(folded, kShortRowElements / nExtent / folded *
                                              folded),
                folded);
    plan.cache[*nLoop] = nExtent;
    llvm::erase(plan.order, static_cast<int64_t>(*gLoop));
    plan.order.insert(llvm::find(plan.order, static_cast<int64_t>(*nLoop)),
                      *gLoop);
  }
  return plan;
}

/// Staged output blocks (the `stage` of a `contract` or `elementwise`
/// strategy). A
/// contraction of at most kMaxStagedDepth reduction steps whose output is
/// kMinStagedOutputBytes or more is bound by writing that output, and each
/// line its register tiles' stores touch is first read for ownership from
/// memory. From those sizes, each tile of the outermost loops computes its
/// block of the output in a buffer on the stack, which is then streamed out
/// in whole lines (einsum-stream-copies): blocks that are contiguous in the
/// output, of at most kMaxStageBytes (in L2 while they are written, twice:
/// see below), or kMaxShortStageBytes over at most kMaxShortStagedDepth
/// steps.
///
/// Measured on a Zen 4 (1 thread, A/B against writing in place, two sets of
/// 3 interleaved runs) on the 80 contractions of 8 and 16 steps from the
/// generated suites (seeds 14-21) that have such a block: contiguous blocks
/// of up to 64 KiB ran 1.15x on the geomean over 8 steps (18 cases) and
/// 1.19x over 16 (10); larger ones up to 542 KB 1.30x over 8 steps (6).
/// Blocks of rows apart in the output (runs of 1-9 KB) ran 0.87-0.95x: not
/// staged. The gain is the streaming stores': the same blocks copied out
/// with ordinary stores ran 0.61x (17 cases of 8 steps), a burst of stores
/// whose lines are all read first.
///
/// Over 9 to 24 steps (with huge pages for the operands), blocks of up to
/// 256 KiB ran 1.11x on the 39 contractions of 16 and 24 steps of seeds
/// 14-31 that they newly stage, and 1.11x on the 29 of seeds 32-41 (0.83x
/// to 1.52x), but only where the rows of a register tile are
/// kMinStagedRowBytes or more apart in the output: rows closer than that
/// (outputs whose last dims are 13 to 21 wide) make each tile's stores one
/// short contiguous run, which the stores in place already write well, and
/// staging them ran 0.82-0.88x (4 cases). Over 8 steps they still gain:
/// the 22 such contractions staged before ran 0.96x written in place. On
/// two threads the suite's three newly staged 24-step ones ran 1.20-1.29x.
///
/// Where the plan's cache tiles make no block (a tile that does not divide
/// its loop, a block too large or not contiguous), the staged loops get
/// tiles of their own (1 for the outer ones, as many register tiles of the
/// last as fit the bound, its last tile partial). Those blocks gain only
/// where the register tile's rows are at most kMaxStagedRowBytes apart: on
/// the 83 contractions of seeds 14-31 that they stage, rows up to 2 KiB
/// apart ran 1.18x (33 cases, 0.59x to 2.17x) and rows further apart 0.90x
/// (50 cases: 8 parallel row streams, which the stores in place already
/// write well).
/// With that bound over 9 to 24 steps for both kinds of blocks, the 37
/// contractions of seeds 32-41 whose schedule changed ran 1.08x on one
/// thread (0.74x to 1.64x) and 1.07x on two.
///
/// Since einsum-stream-copies pipelines a loop of blocks (two buffers, each
/// block streamed out during the next one's tiles), blocks over 9 to 24 steps
/// are of at most 128 KiB, not 256: the two buffers then leave most of L2 to
/// the operands. Measured on an Intel Xeon with AVX-512 (48 KiB of L1d and 2
/// MiB of L2 per core, the host's 512-bit schedules), not on the Zen 4 of the
/// measurements above: the 32 generated contractions of seeds 100-111 whose
/// blocks that changes ran 1.045-1.054x on one thread (two runs, 0.93x to
/// 1.20x), 18 of them and the suite's two 1.05x on two. Over 8 steps, blocks of
/// 256 KiB instead of 512 ran 1.02x on one thread and 0.96x on two (7 cases):
/// they stay as they were, and unpipelined above 256 KiB. Deeper staging still
/// loses pipelined: over 25 to 64 steps, 37 contractions ran 0.87x staged; rows
/// closer than kMinStagedRowBytes 0.95x (16), rows further apart than
/// kMaxStagedRowBytes 0.89x (41).
static constexpr int64_t kMaxStagedDepth = 24;
static constexpr int64_t kMaxShortStagedDepth = 8;
static constexpr int64_t kMinStagedOutputBytes = 8 << 20;
static constexpr int64_t kMaxStageBytes = 128 << 10;
static constexpr int64_t kMaxShortStageBytes = 512 << 10;
/// The rows of an outer product's staged block (see chooseStage).
static constexpr int64_t kMaxOuterProductRowBytes = 256 << 10;
static constexpr int64_t kMinStagedRowBytes = 256;
static constexpr int64_t kMaxStagedRowBytes = 2048;
/// The operands and output of a staged op: all of them in the last-level
/// cache (32 MiB on a Zen 4 CCD), the output stays there between calls, and
/// streaming it out to memory loses (every staged contraction measured had
/// 36 MiB or more). An outer product needs twice that: i,jk->ijk and
/// ij,i->ij with 12 MB outputs ran 0.43-0.80x streamed, an ij,kl->ijkl of 36
/// MB 0.67-1.0x.
static constexpr int64_t kMinStagedFootprintBytes = 32 << 20;
/// Outer products are staged in blocks of about 16 KiB (4096^2 i,j->ij:
/// 1.5-1.8x, 5003x4001 1.5x, bi,bj->bij 64 MB 1.25-1.34x; ij,kl->ijkl 93 MB
/// 0.91x). Elementwise ops that read as much as they write are not:
/// ij,ij->ij, ij,j->ij, ij,i->ij and bij,bj->bij of 64-192 MB ran 0.63-1.0x.
static constexpr int64_t kElementwiseStageBytes = 16 << 10;
static constexpr int64_t kMinOuterProductRatio = 16;

/// The elements of the block of `outMap`'s output that one tile of the loops
/// writes (`extents`: each loop's tile), and whether it is contiguous: the
/// output dims it does not span whole come before those it does, all but the
/// last of them of extent 1.
static std::pair<int64_t, bool> getBlock(const LoopInfo &info,
                                         AffineMap outMap,
                                         ArrayRef<int64_t> extents) {
  int64_t elements = 1;
  bool contiguous = true, partial = false;
  for (AffineExpr expr : llvm::reverse(outMap.getResults())) {
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    elements = saturatingMul(elements, extents[dim]);
    if (partial && extents[dim] != 1)
      contiguous = false;
    partial = partial || extents[dim] != info.ranges[dim];
  }
  return {elements, contiguous};
}

/// The fewest bytes between two rows of `plan`'s register tile in the
/// output (`outMap` into the static `shape`): the least stride of the
/// register-tiled loops other than the output's contiguous one; std::nullopt
/// for a tile of one row.
static std::optional<int64_t> getRowStrideBytes(const LoopInfo &info,
                                                const Plan &plan,
                                                AffineMap outMap,
                                                ArrayRef<int64_t> shape,
                                                int64_t elementBytes) {
  SmallVector<int64_t> strides = computeStrides(shape);
  std::optional<int64_t> rowStride;
  for (auto [position, expr] : llvm::enumerate(outMap.getResults())) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (plan.registerTiles[loop] <= 1 || loop == info.contiguousLoop.back())
      continue;
    int64_t stride = saturatingMul(strides[position], elementBytes);
    rowStride = std::min(rowStride.value_or(stride), stride);
  }
  return rowStride;
}

/// The number of leading loops of `plan`'s order whose cache tiles each
/// write one staged block of `op`'s output, or 0 (see kMaxStagedDepth): the
/// fewest whose block is contiguous and small enough, all of them parallel
/// and split evenly by their tiles; else the fewest that make such a block
/// with tiles of their own, which become their cache tiles (see
/// kMaxStagedRowBytes). An outer product (an `elementwise` plan
/// without reductions or blocked loops, whose operands are a
/// kMinOuterProductRatio-th of its output or less) gets cache tiles for it:
/// 1 for the outer loops, then as many steps of the next as keep the block
/// within kElementwiseStageBytes (at least one step, of at most
/// kMaxOuterProductRowBytes). A transpose that moves the contiguous dimension is
/// staged as a contraction without reductions is: on 40 random ones of 3
/// to 5 dims and 17-32 MB (interleaved A/B, medians, one thread), the 17
/// that this stages ran 1.30x on the geomean (0.99x to 2.30x; ijk->ikj
/// 1.21-1.58x, ijk->jki 1.04-1.41x); those that keep the contiguous
/// dimension (ijk->jik, ijkl->kijl: rows copied whole) ran 0.55-0.83x
/// staged and are not.
static int64_t chooseStage(linalg::GenericOp op, const LoopInfo &info,
                           Plan &plan) {
  auto outType = cast<ShapedType>(op.getDpsInits()[0].getType());
  AffineMap outMap = op.getIndexingMapsArray().back();
  Type elementType = outType.getElementType();
  if (!outType.hasStaticShape() || !outMap.isProjectedPermutation() ||
      !elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t outBytes = saturatingMul(outType.getNumElements(), elementBytes);
  if (outBytes < kMinStagedOutputBytes ||
      llvm::any_of(info.ranges, ShapedType::isDynamic))
    return 0;
  // The operands and the output: where they all fit the last-level cache,
  // the output stays there between calls, and streaming it to memory loses.
  int64_t footprint = outBytes;
  for (Value input : op.getDpsInputs()) {
    auto type = dyn_cast<ShapedType>(input.getType());
    Type inputElement = getElementTypeOrSelf(input.getType());
    if (type && type.hasStaticShape() && inputElement.isIntOrFloat())
      footprint += saturatingMul(
          type.getNumElements(),
          llvm::divideCeil(inputElement.getIntOrFloatBitWidth(), 8));
  }
  if (footprint < kMinStagedFootprintBytes)
    return 0;
  // A transpose into a destination (not a packing copy, which a
  // contraction reads) that moves the contiguous dimension: its stores in
  // place write each register tile's rows as short pieces.
  bool isTranspose = plan.kind == StrategyKind::Elementwise &&
                     linalg::isaTransposeOpInterface(op).has_value() &&
                     !isPackingCopy(op) &&
                     info.contiguousLoop.front() != info.contiguousLoop.back();
  if (plan.kind == StrategyKind::Elementwise && !isTranspose) {
    // Outer products only: where the operands are large too (a product of
    // same-shape operands, a row scaling), streaming the output ran
    // 0.63-1.0x.
    if (footprint < 2 * kMinStagedFootprintBytes ||
        (footprint - outBytes) * kMinOuterProductRatio > outBytes)
      return 0;
    if (llvm::is_contained(info.isReduction, true) ||
        llvm::any_of(plan.cache, [](int64_t tile) { return tile != 0; }) ||
        outMap.getNumResults() != info.numLoops)
      return 0;
    SmallVector<int64_t> extents(info.ranges);
    for (auto [position, loop] : llvm::enumerate(plan.order)) {
      int64_t inner = getBlock(info, outMap, extents).first / extents[loop];
      if (saturatingMul(inner, elementBytes) > kMaxOuterProductRowBytes) {
        extents[loop] = 1;
        continue;
      }
      int64_t tile = std::max<int64_t>(
          1, kElementwiseStageBytes / (inner * elementBytes));
      int64_t registerTile = std::max<int64_t>(1, plan.registerTiles[loop]);
      tile = std::min(tile, info.ranges[loop]);
      while (tile > 1 && info.ranges[loop] % tile != 0)
        --tile;
      if ((tile >= info.ranges[loop] && position == 0) ||
          tile % registerTile != 0)
        return 0;
      extents[loop] = tile;
      if (!getBlock(info, outMap, extents).second)
        return 0;
      for (unsigned i = 0; i <= position; ++i)
        plan.cache[plan.order[i]] = extents[plan.order[i]];
      return position + 1;
    }
    return 0;
  }
  if (plan.kind != StrategyKind::Contract && !isTranspose)
    return 0;
  int64_t depth = 1;
  for (unsigned loop = 0; loop < info.numLoops; ++loop)
    if (info.isReduction[loop])
      depth = saturatingMul(depth, info.ranges[loop]);
  if (depth > kMaxStagedDepth)
    return 0;
  std::optional<int64_t> rowStride = getRowStrideBytes(
      info, plan, outMap, outType.getShape(), elementBytes);
  bool nearRows = !rowStride || *rowStride <= kMaxStagedRowBytes;
  if (depth > kMaxShortStagedDepth &&
      (!nearRows || (rowStride && *rowStride < kMinStagedRowBytes)))
    return 0;
  int64_t maxBlockBytes =
      depth <= kMaxShortStagedDepth ? kMaxShortStageBytes : kMaxStageBytes;
  // The plan's cache tiles, where they make a block: the extent of each
  // loop's tile within one staged block.
  SmallVector<int64_t> extents(info.ranges);
  for (auto [position, loop] : llvm::enumerate(plan.order)) {
    int64_t range = info.ranges[loop];
    int64_t tile = plan.cache[loop];
    if (info.isReduction[loop])
      break;
    if (tile != 0 && tile < range) {
      if (range % tile != 0)
        break;
      extents[loop] = tile;
    }
    auto [blockElements, contiguous] = getBlock(info, outMap, extents);
    int64_t blockBytes = saturatingMul(blockElements, elementBytes);
    if (blockBytes < outBytes && blockBytes <= maxBlockBytes) {
      if (contiguous)
        return position + 1;
      break;
    }
  }
  if (!nearRows)
    return 0;
  // Else tiles of their own: each loop of the order the fewest steps (its
  // register tile), until one fits as many whole register tiles as keep the
  // block within the bound; its last tile may be partial (staged in a buffer
  // of its own shape, einsum-vectorize).
  extents.assign(info.ranges.begin(), info.ranges.end());
  for (auto [position, loop] : llvm::enumerate(plan.order)) {
    if (info.isReduction[loop])
      return 0;
    int64_t registerTile = std::max<int64_t>(1, plan.registerTiles[loop]);
    extents[loop] = 1;
    int64_t stepBytes =
        saturatingMul(getBlock(info, outMap, extents).first, elementBytes);
    if (stepBytes <= 0)
      return 0;
    int64_t tile = maxBlockBytes / stepBytes / registerTile * registerTile;
    if (tile == 0) {
      extents[loop] = registerTile;
      continue;
    }
    extents[loop] = std::min(tile, info.ranges[loop]);
    auto [blockElements, contiguous] = getBlock(info, outMap, extents);
    if (!contiguous ||
        saturatingMul(blockElements, elementBytes) >= outBytes)
      return 0;
    for (int64_t staged : ArrayRef(plan.order).take_front(position + 1))
      plan.cache[staged] = extents[staged];
    return position + 1;
  }
  return 0;
}

/// `reduce`: a reduction loop along which every input is contiguous.
static std::optional<Plan> planReduce(const LoopInfo &info, unsigned lanes) {
  unsigned numInputs = info.contiguousLoop.size() - 1;
  std::optional<unsigned> loop = info.contiguousLoop[0];
  if (!loop || !info.isReduction[*loop])
    return std::nullopt;
  for (unsigned input = 1; input < numInputs; ++input)
    if (info.contiguousLoop[input] != loop)
      return std::nullopt;
  Plan plan(StrategyKind::Reduce, info.numLoops, /*cacheTile=*/0);
  for (unsigned l = 0; l < info.numLoops; ++l)
    if (!info.isReduction[l])
      plan.order.push_back(l);
  for (unsigned l = 0; l < info.numLoops; ++l)
    if (info.isReduction[l] && l != *loop)
      plan.order.push_back(l);
  plan.order.push_back(*loop);
  // Partial sums: lanes x (up to) 4 x 4 of the output's innermost parallel
  // loops, 16 vector registers.
  SmallVector<unsigned> parallel;
  for (unsigned l = 0; l < info.numLoops; ++l)
    if (!info.isReduction[l])
      parallel.push_back(l);
  unsigned tiled = 0;
  for (unsigned l : llvm::reverse(parallel)) {
    if (tiled == 2)
      break;
    int64_t extent = info.ranges[l];
    plan.registerTiles[l] =
        ShapedType::isDynamic(extent) ? 4 : std::min<int64_t>(4, extent);
    ++tiled;
  }
  plan.registerTiles[*loop] = tiled == 2 ? lanes : tiled == 1 ? 2 * lanes
                                                               : 4 * lanes;
  return plan;
}

/// `tile`, or the extent of `loop` where that is smaller.
static int64_t clampToExtent(const LoopInfo &info, unsigned loop,
                             int64_t tile) {
  int64_t extent = info.ranges[loop];
  return ShapedType::isDynamic(extent) ? tile
                                       : std::min<int64_t>(tile, extent);
}

/// A transpose (the largest input contiguous along `tLoop`, the output
/// along `nLoop`), blocked as HPTT does: lanes x lanes register tiles, read
/// along tLoop and written along nLoop, in cache blocks whose reads and
/// writes are runs of at least four vector registers (256 bytes with
/// AVX-512). A run along tLoop or nLoop alone is that loop's block; where
/// the loop is shorter (ijk->kji with i = 8: rows of 32 bytes), the next
/// loop of the same operand (`tNext`, the output's next loop) is blocked
/// too, so that its consecutive rows continue the run (out[k, j:j+8, :] is
/// 256 contiguous bytes). The other loops iterate outside the blocks, one
/// at a time. A block's stores then complete the lines they start, and its
/// reads and writes stay within a few dozen pages: unblocked, ij->ji over
/// 4096 x 2048 wrote 16 rows 16 KiB apart per tile across the whole output
/// (1.38x blocked). On the 26 transposes of bench/transposes.py, A/B in one
/// process: 1.04x on the geomean, ijklm->ljkmi 1.59x, ijk->kij with rows of
/// 6 1.15x; 5-D ones of about 20 per dim lose (ijklm->mljik 0.73x).
static void planTranspose(const LoopInfo &info, Plan &plan, unsigned tLoop,
                          unsigned nLoop, std::optional<unsigned> tNext,
                          unsigned lanes) {
  int64_t run = 4 * static_cast<int64_t>(lanes);
  auto next = [&](std::optional<unsigned> loop) -> std::optional<unsigned> {
    if (!loop || *loop == tLoop || *loop == nLoop)
      return std::nullopt;
    return loop;
  };
  std::optional<unsigned> tOuter = next(tNext);
  std::optional<unsigned> nOuter = next(info.nextLoop.back());
  // The block of `loop` for runs of `want` elements: none (the whole loop)
  // where the loop is at most twice that.
  auto block = [&](unsigned loop, int64_t want) -> int64_t {
    int64_t extent = info.ranges[loop];
    return ShapedType::isDynamic(extent) || extent <= 2 * want ? 0 : want;
  };
  // The block of the next loop that continues the runs of `loop` where
  // they are short (0: the whole loop); none where they are not, and that
  // loop is one of the others.
  auto continuation = [&](std::optional<unsigned> outer,
                          unsigned loop) -> std::optional<int64_t> {
    int64_t extent = info.ranges[loop];
    if (!outer || ShapedType::isDynamic(extent) || extent >= run)
      return std::nullopt;
    return block(*outer, llvm::divideCeil(run, extent));
  };
  std::optional<int64_t> tOuterBlock = continuation(tOuter, tLoop);
  std::optional<int64_t> nOuterBlock = continuation(nOuter, nLoop);
  if (!tOuterBlock)
    tOuter = std::nullopt;
  if (!nOuterBlock)
    nOuter = std::nullopt;
  for (unsigned loop = 0; loop < info.numLoops; ++loop) {
    if (loop == tLoop || loop == nLoop || loop == tOuter || loop == nOuter)
      continue;
    plan.order.push_back(loop);
    plan.cache[loop] = 1;
  }
  if (nOuter) {
    plan.order.push_back(*nOuter);
    plan.cache[*nOuter] = *nOuterBlock;
  }
  if (tOuter && tOuter != nOuter) {
    plan.order.push_back(*tOuter);
    plan.cache[*tOuter] = *tOuterBlock;
  } else if (tOuter) {
    plan.cache[*tOuter] = std::max(*nOuterBlock, *tOuterBlock);
  }
  plan.order.push_back(tLoop);
  plan.cache[tLoop] = block(tLoop, run);
  plan.cache[nLoop] = block(nLoop, run);
  plan.registerTiles[tLoop] = clampToExtent(info, tLoop, lanes);
  plan.registerTiles[nLoop] = clampToExtent(info, nLoop, lanes);
}

/// `elementwise`: no reduction; the output's contiguous loop is vectorized,
/// with a square tile when the largest input is contiguous elsewhere.
static std::optional<Plan> planElementwise(const LoopInfo &info,
                                           unsigned lanes) {
  if (llvm::any_of(info.isReduction, [](bool r) { return r; }))
    return std::nullopt;
  std::optional<unsigned> nLoop = info.contiguousLoop.back();
  if (!nLoop)
    return std::nullopt;
  unsigned numInputs = info.contiguousLoop.size() - 1;
  // Inputs that are not contiguous along any loop (diagonals) would be
  // gathered element by element: their loop nest is as good.
  std::optional<unsigned> largest;
  for (unsigned input = 0; input < numInputs; ++input) {
    if (info.numElements[input] <= 1)
      continue;
    if (!info.contiguousLoop[input])
      return std::nullopt;
    if (!largest || info.numElements[input] > info.numElements[*largest])
      largest = input;
  }
  Plan plan(StrategyKind::Elementwise, info.numLoops, /*cacheTile=*/0);
  std::optional<unsigned> tLoop;
  // (An input that does not use N at all is broadcast along it, as in an
  // outer product: rows are written whole.)
  if (largest && info.contiguousLoop[*largest] != nLoop &&
      info.usedLoops[*largest].test(*nLoop))
    tLoop = info.contiguousLoop[*largest];
  if (tLoop) {
    planTranspose(info, plan, *tLoop, *nLoop, info.nextLoop[*largest], lanes);
  } else {
    for (unsigned l = 0; l < info.numLoops; ++l)
      if (l != *nLoop)
        plan.order.push_back(l);
    plan.registerTiles[*nLoop] = clampToExtent(info, *nLoop, 4 * lanes);
  }
  plan.order.push_back(*nLoop);
  return plan;
}

/// `elementwise` with reductions over loops that no input is contiguous
/// along (ijk->jk, ij->j): a row of the output, up to 16 vectors (8 with
/// AVX2's 16 registers), is accumulated in registers through all the
/// reductions, then stored. Loops: the other parallel loops, the
/// reductions, then the output's contiguous loop, which is cache-tiled by
/// the row so that the row's loop stays outside the reductions.
static std::optional<Plan> planAccumulate(const LoopInfo &info, unsigned lanes,
                                          const VectorTarget &target) {
  if (llvm::none_of(info.isReduction, [](bool r) { return r; }))
    return std::nullopt;
  std::optional<unsigned> nLoop = info.contiguousLoop.back();
  if (!nLoop || info.isReduction[*nLoop])
    return std::nullopt;
  // Inputs read along a diagonal (iij->j) are gathered: their loop nest is
  // as good.
  unsigned numInputs = info.contiguousLoop.size() - 1;
  for (unsigned input = 0; input < numInputs; ++input) {
    if (info.numElements[input] <= 1)
      continue;
    if (!info.isProjectedPermutation[input] ||
        (info.usedLoops[input].test(*nLoop) &&
         info.contiguousLoop[input] != nLoop))
      return std::nullopt;
  }
  Plan plan(StrategyKind::Elementwise, info.numLoops, /*cacheTile=*/0);
  for (unsigned loop = 0; loop < info.numLoops; ++loop)
    if (!info.isReduction[loop] && loop != *nLoop)
      plan.order.push_back(loop);
  for (unsigned loop = 0; loop < info.numLoops; ++loop)
    if (info.isReduction[loop])
      plan.order.push_back(loop);
  plan.order.push_back(*nLoop);
  int64_t row = (target.registers >= 32 ? 16 : 8) * lanes;
  int64_t extent = info.ranges[*nLoop];
  if (!ShapedType::isDynamic(extent) && extent <= row) {
    plan.registerTiles[*nLoop] = extent;
  } else {
    plan.registerTiles[*nLoop] = row;
    plan.cache[*nLoop] = row;
  }
  return plan;
}

/// The ways of the L1 data cache that the schedule assumes (Zen 4's 32 KiB
/// L1 has 8, as most x86 cores before 48 KiB L1s): more lines than this in
/// one set evict each other.
static constexpr int64_t kL1Ways = 8;
/// Columns (points of N) from which A's panels pay where its reduction steps
/// crowd one L1 set: kbhd,bhkv->bhdv with 64 columns ran 1.32x, and
/// vhd,dohy->ohyv with 242 1.39x (the copy is one pass over A, fused into
/// the cache tiles where it is large).
static constexpr int64_t kMinCrowdedPanelColumns = 64;

/// The reduction steps of `op` (analyzed in `info`; a packable contraction:
/// static, maps of plain loops) whose elements of input `input`, of
/// `elementBytes` per element, all fall into one set of the L1 data cache:
/// the product of the reduction loops along which the input's stride is a
/// multiple of kSetSpanBytes.
static int64_t getCrowdedSteps(linalg::GenericOp op, const LoopInfo &info,
                               unsigned input, int64_t elementBytes) {
  SmallVector<int64_t> strides = computeStrides(
      cast<ShapedType>(op.getDpsInputs()[input].getType()).getShape());
  int64_t steps = 1;
  for (auto [position, expr] :
       llvm::enumerate(op.getIndexingMapsArray()[input].getResults())) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (info.isReduction[loop] &&
        saturatingMul(strides[position], elementBytes) % kSetSpanBytes == 0)
      steps = saturatingMul(steps, info.ranges[loop]);
  }
  return steps;
}

/// Reduction steps from which A's panels pay wherever its steps lie apart
/// (isDeepSpreadPanel), and the least distance of those steps.
static constexpr int64_t kMinSpreadPanelDepth = 40;
static constexpr int64_t kMinSpreadStepBytes = 128;
/// The least A for such panels: the contractions measured had operands of
/// 0.5 to 8 MB (bench/contractions.py); a smaller A stays in L2 and the
/// copy would be one more op for nothing measured.
static constexpr int64_t kMinSpreadPanelBytes = 512 << 10;

/// Whether input `input` of `op` (A, contiguous along M; `elementBytes` per
/// element) is split into panels of the register tile's rows although its
/// steps do not crowd one cache set: over kMinSpreadPanelDepth or more
/// reduction steps, each kMinSpreadStepBytes or more apart along every
/// reduction loop. Unpacked, a register tile's broadcasts read a line of a
/// different page at every step (a 32-byte run of M), and on an Intel Xeon
/// with 48 KiB of L1 (stop 43) the product ran at 0.7x of the same one
/// reading A along K (atju,ajty->yatu, steps 16.5 KB apart, 98 -> 123
/// GFLOP/s split). Interleaved A/B, medians of 3, one thread: 17 such
/// contractions of 48 and 64 steps whose M is a whole number of tiles (3 of
/// the suite, yerp,yexq->eqxrp 1.23x, 14 generated) 1.08x on the geomean
/// (0.92-1.30x), 5 held-out ones 1.14x; 15 generated over 40 steps 1.10x
/// (0.81-1.30x), 1.04x on two threads; over 32 steps 1.02x (15 cases,
/// 0.81-1.37x) and over 24 or fewer the copy did not pay (6 cases,
/// 0.73-0.98x), nor where consecutive steps share a
/// line (M rows of 16 f32 next to each other: 3 cases, 0.93-1.01x). Where
/// M is not a whole number of tiles, A is split first
/// (packRowsForContraction): 30 such contractions (atju,ajty->yatu 1.26x,
/// fqyo,fyqh->yofh 1.27x, urc,xru->crx 1.13x, 27 generated) 1.09x on one
/// thread (0.89-1.45x), 16 of them 1.12x on two.
static bool isDeepSpreadPanel(linalg::GenericOp op, const LoopInfo &info,
                              unsigned input, int64_t elementBytes) {
  auto type = cast<ShapedType>(op.getDpsInputs()[input].getType());
  if (getReductionPoints(op) < kMinSpreadPanelDepth ||
      saturatingMul(type.getNumElements(), elementBytes) <
          kMinSpreadPanelBytes)
    return false;
  SmallVector<int64_t> strides = computeStrides(type.getShape());
  for (auto [position, expr] :
       llvm::enumerate(op.getIndexingMapsArray()[input].getResults())) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (info.isReduction[loop] && info.ranges[loop] > 1 &&
        saturatingMul(strides[position], elementBytes) < kMinSpreadStepBytes)
      return false;
  }
  return true;
}

/// Splits the other input of a contraction (A, contiguous along M) into
/// panels of the register tile's rows, [.., M / rows, reductions, rows],
/// where more of its reduction steps than an L1 set holds lie a multiple of
/// 4 KiB apart: a register tile's broadcasts then read one contiguous panel
/// through the reductions, instead of one line per reduction step, all of
/// them in the same cache set. That is a transposed A with rows 4 KiB apart
/// (ji,jk->ik), and tensor contractions whose reduction is A's outer
/// dimension, over any number of steps (A/B on a Zen 4, one thread: 8
/// contractions of power-of-two extents, rai,arj->aij, kbhd,bhkv->bhdv,
/// tnc,tnd->ncd, ..., 1.11-1.43x, 1.15-1.45x on two threads; generated
/// roe,jor->eoj 1.66x, vhd,dohy->ohyv 1.39x). Steps spread over more sets
/// gain nothing: 56 other generated contractions split so all the same ran
/// 0.88-1.16x, 1.0x on the geomean, and those whose steps fall into 2 to 4
/// sets (ci,cj->ij with steps 2 KiB apart, bngx,gnr->nrbx) 0.93-1.13x.
/// Where N is large enough to repay the copy.
static void packRowsForContraction(OpBuilder &builder, linalg::GenericOp op,
                                   const VectorTarget &target) {
  if (!isPackableContraction(op))
    return;
  Type elementType = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  if (!elementType.isIntOrFloat() ||
      elementType != getElementTypeOrSelf(op.getDpsInputs()[1].getType()))
    return;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  unsigned lanes = std::max<unsigned>(1, target.bits / bits);
  LoopInfo info = analyze(op);
  std::optional<Plan> plan = planContract(info, lanes, target);
  if (!plan || !plan->nInput)
    return;
  unsigned aInput = 1 - *plan->nInput;
  std::optional<unsigned> mLoop = info.contiguousLoop[aInput];
  if (!mLoop || info.isReduction[*mLoop] ||
      info.usedLoops[*plan->nInput].test(*mLoop) ||
      !info.usedLoops.back().test(*mLoop))
    return;
  int64_t rows = plan->registerTiles[*mLoop];
  int64_t elementBytes = llvm::divideCeil(bits, 8);
  int64_t nPoints = 1;
  for (unsigned loop = 0; loop < info.numLoops; ++loop)
    if (!info.isReduction[loop] && info.usedLoops[*plan->nInput].test(loop) &&
        !info.usedLoops[aInput].test(loop))
      nPoints = saturatingMul(nPoints, info.ranges[loop]);
  int64_t extent = info.ranges[*mLoop];
  if (rows <= 1 || extent <= rows || nPoints < kMinCrowdedPanelColumns)
    return;
  bool spread = isDeepSpreadPanel(op, info, aInput, elementBytes);
  if (!spread && getCrowdedSteps(op, info, aInput, elementBytes) <= kL1Ways)
    return;
  // Where M is not a whole number of register tiles, the panels take its
  // whole tiles, and the rest of its rows is a contraction of its own that
  // reads A in place. Only for spread steps, where it was measured (30
  // contractions, isDeepSpreadPanel); crowded ones keep whole tiles only.
  if (extent % rows != 0) {
    if (!spread)
      return;
    op = splitAlongLoop(builder, op, *mLoop, llvm::alignDown(extent, rows))
             .first;
  }
  packOperand(builder, op, aInput, *mLoop, rows);
}

/// Where `input` of a collapsed contraction is a collapse_shape of a packing
/// copy (isPackingCopy) read only there, collapses the copy's loops the same
/// way, so that the contraction reads the copy itself: einsum-vectorize fuses
/// such a copy into the cache tiles only where it is the contraction's
/// operand (a pack of B in `aewf,ewdf->aewd`, whose batch loops e, w are
/// collapsed, was a separate pass over all of B before). Measured on a Zen
/// 4, interleaved A/B, on the 102 generated, power-of-two and realistic
/// contractions whose kernels this (with kMinFusedPackBytes of
/// einsum-vectorize) changes: 1.03x on one thread (suite aewf,ewdf->aewd
/// 1.10-1.18x, fwbn,nfwh->hfwb 1.09-1.10x), 1.0x on two.
static void collapsePack(RewriterBase &rewriter, OpOperand &input) {
  auto reshape = input.get().getDefiningOp<tensor::CollapseShapeOp>();
  auto copy = reshape ? reshape.getSrc().getDefiningOp<linalg::GenericOp>()
                      : linalg::GenericOp();
  if (!copy || !reshape->hasOneUse() || !copy->hasOneUse() ||
      !reshape.getResultType().hasStaticShape() || !isPackingCopy(copy))
    return;
  // The copy's loops are its output's dims: the reshape's groups.
  SmallVector<ReassociationIndices> groups;
  for (const ReassociationIndices &group : reshape.getReassociationIndices())
    if (group.size() > 1)
      groups.push_back(group);
  if (groups.empty() ||
      !linalg::areDimSequencesPreserved(copy.getIndexingMapsArray(), groups))
    return;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(copy);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(copy, groups, rewriter);
  if (failed(collapsed))
    return;
  auto packedCopy = cast<linalg::GenericOp>(collapsed->collapsedOp);
  Value packed = packedCopy.getResult(0);
  assert(packed.getType() == reshape.getResultType() &&
         "the copy's loops collapse as its output's dims");
  // A new tensor.empty, not a view of the old one: the copy stays a pack.
  OpOperand &init = packedCopy.getDpsInitsMutable()[0];
  rewriter.setInsertionPoint(packedCopy);
  Value empty = tensor::EmptyOp::create(
      rewriter, copy.getLoc(), reshape.getResultType().getShape(),
      reshape.getResultType().getElementType());
  Operation *view = init.get().getDefiningOp();
  rewriter.modifyOpInPlace(packedCopy, [&] { init.set(empty); });
  rewriter.modifyOpInPlace(input.getOwner(), [&] { input.set(packed); });
  rewriter.eraseOp(reshape);
  rewriter.eraseOp(copy);
  // What nothing reads now: the copy's result expanded back, the view of the
  // old tensor.empty and that tensor.empty.
  for (Value result : collapsed->results)
    if (Operation *expand = result.getDefiningOp();
        expand && expand != packedCopy && expand->use_empty())
      rewriter.eraseOp(expand);
  while (view && view->use_empty() &&
         isa<tensor::CollapseShapeOp, tensor::EmptyOp>(view)) {
    Operation *source = view->getNumOperands() == 1
                            ? view->getOperand(0).getDefiningOp()
                            : nullptr;
    rewriter.eraseOp(view);
    view = source;
  }
}

/// The loops of `op` whose output dimension starts a part of a larger
/// buffer's dimension: the init is (through a fill and an expand_shape) a
/// tensor.extract_slice that takes fewer than all of a dimension's elements
/// (splitAlongLoop's parts), and the loop is that dimension or the
/// outermost of the dimensions expanded from it. Collapsed after another
/// loop, such a loop would not make one strided dimension with it, and
/// bufferization would compute the part into a buffer of its own and copy
/// it out (a split of A's M rows, [x, w / 8] of w's 24 of 26: 0.45x).
static llvm::SmallBitVector getPartialOutputLoops(linalg::GenericOp op) {
  llvm::SmallBitVector partial(op.getNumLoops());
  Value init = op.getDpsInits()[0];
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    init = fill.getDpsInits()[0];
  auto expand = init.getDefiningOp<tensor::ExpandShapeOp>();
  auto slice = (expand ? expand.getSrc() : init)
                   .getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSourceType().getRank() !=
                    slice.getResultType().getRank())
    return partial;
  SmallVector<ReassociationIndices> groups;
  if (expand)
    groups = expand.getReassociationIndices();
  else
    for (int64_t dim : llvm::seq<int64_t>(0, slice.getResultType().getRank()))
      groups.push_back({dim});
  AffineMap outMap = op.getIndexingMapsArray().back();
  for (auto [dim, group] : llvm::enumerate(groups)) {
    int64_t size = slice.getResultType().getDimSize(dim);
    if (!ShapedType::isDynamic(size) &&
        size == slice.getSourceType().getDimSize(dim))
      continue;
    if (group.front() < static_cast<int64_t>(outMap.getNumResults()))
      partial.set(outMap.getDimPosition(group.front()));
  }
  return partial;
}

/// Collapses chains of loops of one kind (reductions, or parallel loops) that
/// are adjacent, in the same order, in every operand that uses them, after
/// an interchange that makes each chain contiguous among the loops
/// (upstream interchangeGenericOp and collapseOpIterationDims): in ijk->i,
/// (j, k) is one contiguous stretch of each input row, reduced as one long
/// vector loop, not as 256 short rows each closed by a horizontal
/// reduction; in a packed
/// contraction, the output's trailing loops of one operand (e, s of 11 and
/// 9) become one vector loop of 99. The operands are collapse_shape views;
/// a fill of the output is moved onto the collapsed view, so that it stays
/// fusable with the tiles.
static void collapseLoops(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      llvm::any_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return !map.isProjectedPermutation();
      }))
    return;
  // Chains of loops that follow each other in every operand that uses
  // them (and that every such operand uses together), of one kind: l's
  // successor is the loop right after it in those operands.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = op.getNumLoops();
  constexpr int kNone = -1, kConflict = -2;
  SmallVector<int> next(numLoops, kNone);
  for (AffineMap map : maps) {
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      unsigned loop = map.getDimPosition(i);
      int after = i + 1 < map.getNumResults()
                      ? static_cast<int>(map.getDimPosition(i + 1))
                      : kConflict;
      if (after >= 0 && iterators[after] != iterators[loop])
        after = kConflict;
      if (next[loop] == kNone)
        next[loop] = after;
      else if (next[loop] != after)
        next[loop] = kConflict;
    }
  }
  // Parallel loops are collapsed in GEMM-like contractions only, where they
  // make a packed operand's trailing loops one longer vector loop;
  // elementwise ops and reductions of one operand keep
  // theirs (collapsed, the memory-bound kernels ran up to a quarter slower
  // here: hadamard, outer products).
  bool contraction = false;
  if (op.getNumDpsInputs() == 2 &&
      llvm::is_contained(iterators, utils::IteratorType::reduction) &&
      maps.back().getNumResults() > 0) {
    // GEMM-like: exactly one input holds the output's contiguous loop (not
    // a batched dot product, ...d,...d->..., whose rows the reduce schedule
    // tiles 4 x 4).
    AffineExpr last = maps.back().getResults().back();
    contraction = maps[0].getResultPosition(last).has_value() !=
                  maps[1].getResultPosition(last).has_value();
  }
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (!contraction && iterators[loop] == utils::IteratorType::parallel)
      next[loop] = kConflict;
  // Both loops of a pair must appear in the same operands.
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (next[loop] < 0)
      continue;
    for (AffineMap map : maps)
      if (map.getResultPosition(rewriter.getAffineDimExpr(loop)).has_value() !=
          map.getResultPosition(rewriter.getAffineDimExpr(next[loop]))
              .has_value())
        next[loop] = kConflict;
  }
  llvm::SmallBitVector partial = getPartialOutputLoops(op);
  SmallVector<bool> hasPredecessor(numLoops, false);
  for (int after : next)
    if (after >= 0)
      hasPredecessor[after] = true;
  // The loops, each chain contiguous from its first loop on, the rest in
  // their order.
  SmallVector<int64_t> order;
  SmallVector<ReassociationIndices> groups;
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (hasPredecessor[loop])
      continue;
    ReassociationIndices chain;
    for (int l = loop; l >= 0 && chain.size() <= numLoops; l = next[l]) {
      chain.push_back(order.size());
      order.push_back(l);
    }
    // A chain breaks before a loop that starts a part of a dimension.
    for (size_t first = 0, i = 1; i <= chain.size(); ++i)
      if (i == chain.size() || partial.test(order[chain[i]])) {
        if (i - first > 1)
          groups.emplace_back(chain.begin() + first, chain.begin() + i);
        first = i;
      }
  }
  // A chain of output loops comes back as an expand_shape of the result;
  // MLIR 22's expand-strided-metadata crashes on a memref.expand_shape
  // with two dynamic sizes in one group (found by einsum-dialect-fuzzer:
  // `ij,hk->ij` on tensor<?x?xf32>), so such chains stay loops.
  auto resultType = cast<ShapedType>(op.getDpsInits()[0].getType());
  llvm::erase_if(groups, [&](const ReassociationIndices &chain) {
    unsigned dynamic = 0;
    for (int64_t position : chain)
      if (std::optional<unsigned> dim = maps.back().getResultPosition(
              rewriter.getAffineDimExpr(order[position])))
        dynamic += resultType.isDynamicDim(*dim);
    return dynamic > 1;
  });
  if (groups.empty() || order.size() != numLoops)
    return;
  rewriter.setInsertionPoint(op);
  if (!llvm::equal(order, llvm::seq<int64_t>(0, numLoops))) {
    SmallVector<unsigned> permutation(order.begin(), order.end());
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, op, permutation);
    if (failed(interchanged))
      return;
    op = *interchanged;
  }
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, groups, rewriter);
  if (failed(collapsed))
    return;
  rewriter.replaceOp(op, collapsed->results);
  auto newOp = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
  for (OpOperand *input : newOp.getDpsInputOperands())
    collapsePack(rewriter, *input);
  // collapse_shape(fill(x)) -> fill(collapse_shape(x)).
  auto reshape =
      newOp.getDpsInits()[0].getDefiningOp<tensor::CollapseShapeOp>();
  auto fill = reshape ? reshape.getSrc().getDefiningOp<linalg::FillOp>()
                      : linalg::FillOp();
  if (!fill || !reshape->hasOneUse())
    return;
  rewriter.setInsertionPoint(newOp);
  Value view = tensor::CollapseShapeOp::create(
      rewriter, reshape.getLoc(), reshape.getResultType(),
      fill.getDpsInits()[0], reshape.getReassociationIndices());
  Value newFill =
      linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs(), view)
          .getResult(0);
  rewriter.modifyOpInPlace(newOp, [&] {
    newOp.getDpsInitsMutable()[0].set(newFill);
  });
  if (reshape->use_empty())
    rewriter.eraseOp(reshape);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
}

namespace {
struct EinsumSelectStrategyPass
    : einsum::impl::EinsumSelectStrategyPassBase<EinsumSelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    VectorTarget target = resolveVectorTarget(vectorBits, vectorRegisters);
    unsigned bits = target.bits;
    MLIRContext *context = &getContext();
    // Operands first: the layouts the contraction schedules want.
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(StrategyAttr::getAttrName()))
        generics.push_back(op);
    });
    OpBuilder builder(context);
    for (linalg::GenericOp op : generics) {
      Type elementType = getElementTypeOrSelf(op->getResultTypes().front());
      int64_t panelWidth =
          elementType.isIntOrFloat()
              ? 2 * std::max<int64_t>(
                        1, bits / elementType.getIntOrFloatBitWidth())
              : 0;
      packForContraction(builder, op, panelWidth);
    }
    generics.clear();
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(StrategyAttr::getAttrName()))
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics)
      packRowsForContraction(builder, op, target);
    generics.clear();
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(StrategyAttr::getAttrName()))
        generics.push_back(op);
    });
    IRRewriter rewriter(context);
    for (linalg::GenericOp op : generics)
      collapseLoops(rewriter, op);

    generics.clear();
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(StrategyAttr::getAttrName()))
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics) {
      // Run-time broadcasts are rare: a loop nest is enough for them and
      // costs no compile time.
      if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
          op.getNumLoops() == 0 || op->hasAttr(kRuntimeBroadcastAttrName))
        continue;
      Type elementType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
      if (!elementType.isIntOrFloat())
        continue;
      LoopInfo info = analyze(op);
      // Dynamic sizes are assumed large.
      int64_t points = 1;
      bool isDynamic = false;
      bool isEmpty = false;
      for (int64_t range : info.ranges) {
        if (range == 0)
          isEmpty = true;
        if (ShapedType::isDynamic(range))
          isDynamic = true;
        else
          points = saturatingMul(points, range);
      }
      if (isEmpty || (!isDynamic && points < minIterations))
        continue;
      unsigned lanes =
          std::max<unsigned>(1, bits / elementType.getIntOrFloatBitWidth());
      std::optional<Plan> plan = planContract(info, lanes, target);
      if (!plan)
        plan = planReduce(info, lanes);
      if (!plan)
        plan = planElementwise(info, lanes);
      if (!plan)
        plan = planAccumulate(info, lanes, target);
      if (!plan)
        continue;
      if (plan->nInput)
        orderFactors(op, *plan->nInput);
      int64_t stage = chooseStage(op, info, *plan);
      op->setAttr(StrategyAttr::getAttrName(),
                  StrategyAttr::get(context, plan->kind, plan->order,
                                    plan->cache, plan->registerTiles, stage));
    }
  }
};
} // namespace
