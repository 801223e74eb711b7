//===- LowerVectors.cpp - vector ops to 1-D FMAs, loads, stores -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "Sizes.h"
#include "VectorPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMLOWERMASKEDTRANSFERSPASS
#define GEN_PASS_DEF_EINSUMLOWERVECTORSPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

/// Whether `value` repeats elements along a dimension of more than one lane:
/// a broadcast to more elements, or a transfer whose permutation map
/// broadcasts into such a dimension (through transposes).
static bool isReplicated(Value value) {
  if (auto transpose = value.getDefiningOp<vector::TransposeOp>())
    return isReplicated(transpose.getVector());
  if (auto broadcast = value.getDefiningOp<vector::BroadcastOp>()) {
    auto source = dyn_cast<VectorType>(broadcast.getSourceType());
    return (source ? source.getNumElements() : 1) <
           broadcast.getResultVectorType().getNumElements();
  }
  if (auto read = value.getDefiningOp<vector::TransferReadOp>())
    for (auto [expr, size] :
         llvm::zip_equal(read.getPermutationMap().getResults(),
                         read.getVectorType().getShape()))
      if (isa<AffineConstantExpr>(expr) && size > 1)
        return true;
  return false;
}

namespace {
/// `ij,ij->j` accumulated one row at a time contracts [1 x 128] with
/// [1 x 128] into [128]: the generic lowering made a separate one-element
/// dot product for each of the 128 lanes (ij,ij->j at 4096^2: 0.17x
/// numpy.einsum).
struct UnitReductionContractToFma
    : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (!accType || op.getKind() != vector::CombiningKind::ADD ||
        isa<vector::MaskOp>(op->getParentOp()) ||
        op.getLhsType().getElementType() != accType.getElementType() ||
        op.getRhsType().getElementType() != accType.getElementType())
      return rewriter.notifyMatchFailure(op, "not a plain multiply-add");
    // An operand that broadcasts its values along a lane dimension (also by
    // a transfer's permutation map) makes an outer product, which the
    // contraction patterns fold into the maps and lower as one: a GEMM's
    // [8 x 1] column read as [8 x 32 x 1]. Broadcasts of unit dimensions
    // only (b[k] read as [1 x 128] in `ijk,k->jk`) are no outer product.
    if (llvm::any_of(ValueRange{op.getLhs(), op.getRhs()}, isReplicated))
      return rewriter.notifyMatchFailure(op, "an operand to fold first");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<vector::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> resultDims;
    for (AffineExpr expr : maps[2].getResults())
      resultDims.push_back(cast<AffineDimExpr>(expr).getPosition());
    for (auto [map, type] : {std::pair(maps[0], op.getLhsType()),
                             std::pair(maps[1], op.getRhsType())}) {
      SmallVector<unsigned> parallelDims;
      for (auto [index, expr] : llvm::enumerate(map.getResults())) {
        unsigned dim = cast<AffineDimExpr>(expr).getPosition();
        if (iterators[dim] == vector::IteratorType::parallel)
          parallelDims.push_back(dim);
        else if (type.getDimSize(index) != 1 || type.getScalableDims()[index])
          return rewriter.notifyMatchFailure(op, "a reduction of extent > 1");
      }
      if (parallelDims != resultDims)
        return rewriter.notifyMatchFailure(op, "an operand lacks a result "
                                               "dimension, or permutes them");
    }
    Location loc = op.getLoc();
    Value lhs = vector::ShapeCastOp::create(rewriter, loc, accType, op.getLhs());
    Value rhs = vector::ShapeCastOp::create(rewriter, loc, accType, op.getRhs());
    if (isa<FloatType>(accType.getElementType())) {
      rewriter.replaceOpWithNewOp<vector::FMAOp>(op, lhs, rhs, op.getAcc());
      return success();
    }
    Value product = arith::MulIOp::create(rewriter, loc, lhs, rhs);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, product, op.getAcc());
    return success();
  }
};
} // namespace

/// `value` (vector<... x g x n>) with its last two dims folded into one of
/// `width` >= g * n lanes, the lanes past g * n zero.
static Value widenRows(OpBuilder &builder, Location loc, Value value,
                       int64_t width) {
  auto type = cast<VectorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  int64_t folded = type.getShape()[type.getRank() - 2] * type.getShape().back();
  shape.push_back(folded);
  Value folded1 = vector::ShapeCastOp::create(
      builder, loc, VectorType::get(shape, type.getElementType()), value);
  if (width == folded)
    return folded1;
  shape.back() = width;
  auto wideType = VectorType::get(shape, type.getElementType());
  Value zeros = arith::ConstantOp::create(builder, loc, wideType,
                                          builder.getZeroAttr(wideType));
  SmallVector<int64_t> offsets(shape.size(), 0), strides(shape.size(), 1);
  return vector::InsertStridedSliceOp::create(builder, loc, folded1, zeros,
                                              offsets, strides);
}

/// The inverse of widenRows: `value`'s first g * n lanes as `type`.
static Value narrowRows(OpBuilder &builder, Location loc, Value value,
                        VectorType type) {
  auto wideType = cast<VectorType>(value.getType());
  int64_t folded = type.getShape()[type.getRank() - 2] * type.getShape().back();
  if (wideType.getShape().back() != folded) {
    SmallVector<int64_t> sizes(wideType.getShape());
    sizes.back() = folded;
    SmallVector<int64_t> offsets(sizes.size(), 0), strides(sizes.size(), 1);
    value = vector::ExtractStridedSliceOp::create(builder, loc, value, offsets,
                                                  sizes, strides);
  }
  return vector::ShapeCastOp::create(builder, loc, type, value);
}

namespace {
/// A pattern that knows the lanes of the target's vector registers.
template <typename OpTy> struct LanePattern : OpRewritePattern<OpTy> {
  LanePattern(MLIRContext *context, unsigned vectorBits, PatternBenefit benefit)
      : OpRewritePattern<OpTy>(context, benefit), vectorBits(vectorBits) {}

  int64_t getLanes(Type elementType) const {
    return std::max<int64_t>(1,
                             vectorBits / elementType.getIntOrFloatBitWidth());
  }

private:
  unsigned vectorBits;
};

/// Folds the last two dims of a vector.contract's accumulator into one where
/// they are parallel, one operand lacks both and the other holds them last,
/// in that order, read whole from a tensor (einsum-select-strategy's folded
/// rows, packed next to each other): `[m] x [k, g, n] -> [m, g, n]` becomes
/// `[m] x [k, w] -> [m, w]`, with w the g * n lanes rounded up to whole
/// registers (the rest zeros, read past the tensor's rows). g rows of 20
/// then take 60 lanes in 4 registers, where each row alone took a register
/// and a remainder.
struct FoldContractRows : LanePattern<vector::ContractionOp> {
  using LanePattern::LanePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (!accType || accType.getRank() < 2 || accType.isScalable() ||
        !accType.getElementType().isIntOrFloat() ||
        op.getKind() != vector::CombiningKind::ADD ||
        isa<vector::MaskOp>(op->getParentOp()))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!llvm::all_of(maps, [](AffineMap map) {
          return llvm::all_of(map.getResults(), [](AffineExpr expr) {
            return isa<AffineDimExpr>(expr);
          });
        }))
      return failure();
    SmallVector<vector::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned rank = maps[2].getNumResults();
    AffineExpr first = maps[2].getResult(rank - 2);
    AffineExpr second = maps[2].getResult(rank - 1);
    unsigned dropped = cast<AffineDimExpr>(second).getPosition();
    if (iterators[cast<AffineDimExpr>(first).getPosition()] !=
            vector::IteratorType::parallel ||
        iterators[dropped] != vector::IteratorType::parallel)
      return failure();
    // The operand that holds the pair, last.
    std::optional<unsigned> holder;
    for (unsigned input = 0; input < 2; ++input) {
      AffineMap map = maps[input];
      bool hasFirst = map.getResultPosition(first).has_value();
      bool hasSecond = map.getResultPosition(second).has_value();
      if (!hasFirst && !hasSecond)
        continue;
      unsigned n = map.getNumResults();
      if (holder || n < 2 || map.getResult(n - 2) != first ||
          map.getResult(n - 1) != second)
        return failure();
      holder = input;
    }
    if (!holder)
      return failure();
    // Read whole rows, from the origin of its last two dims.
    Value held = *holder == 0 ? op.getLhs() : op.getRhs();
    auto read = held.getDefiningOp<vector::TransferReadOp>();
    auto heldType = cast<VectorType>(held.getType());
    auto source = read ? dyn_cast<RankedTensorType>(read.getBase().getType())
                       : RankedTensorType();
    int64_t heldRank = heldType.getRank();
    if (!read || !source || !source.hasStaticShape() || read.getMask() ||
        !read.getPermutationMap().isMinorIdentity() ||
        read.getPermutationMap().getNumResults() != heldRank ||
        source.getRank() < 2 ||
        source.getShape().take_back(2) != heldType.getShape().take_back(2) ||
        !getConstantIntValue(read.getIndices().back()) ||
        *getConstantIntValue(read.getIndices().back()) != 0 ||
        !getConstantIntValue(read.getIndices()[read.getIndices().size() - 2]) ||
        *getConstantIntValue(read.getIndices()[read.getIndices().size() - 2]) !=
            0)
      return failure();
    int64_t folded =
        heldType.getShape()[heldRank - 2] * heldType.getShape().back();
    int64_t lanes = getLanes(accType.getElementType());
    int64_t width = lanes * einsum::getFoldedRegisters(folded, lanes);

    MLIRContext *context = rewriter.getContext();
    Location loc = op.getLoc();
    // The held operand: its rows as one dim of `width`, zeros past them.
    SmallVector<ReassociationIndices> groups;
    for (int64_t dim = 0; dim + 2 < source.getRank(); ++dim)
      groups.push_back({dim});
    groups.push_back({source.getRank() - 2, source.getRank() - 1});
    Value rows =
        tensor::CollapseShapeOp::create(rewriter, loc, read.getBase(), groups);
    SmallVector<Value> indices(read.getIndices().drop_back());
    SmallVector<int64_t> wideShape(heldType.getShape().drop_back(2));
    wideShape.push_back(width);
    SmallVector<bool> inBounds(heldRank - 1, true);
    inBounds.back() = width == folded;
    Value wide = vector::TransferReadOp::create(
        rewriter, loc, VectorType::get(wideShape, heldType.getElementType()),
        rows, indices, read.getPadding(), inBounds);

    auto fold = [&](AffineMap map) {
      SmallVector<AffineExpr> results;
      for (AffineExpr expr : map.getResults()) {
        unsigned dim = cast<AffineDimExpr>(expr).getPosition();
        if (dim != dropped)
          results.push_back(
              getAffineDimExpr(dim > dropped ? dim - 1 : dim, context));
      }
      return AffineMap::get(map.getNumDims() - 1, 0, results, context);
    };
    SmallVector<Attribute> newIterators;
    for (auto [dim, type] : llvm::enumerate(iterators))
      if (dim != dropped)
        newIterators.push_back(vector::IteratorTypeAttr::get(context, type));
    Value lhs = *holder == 0 ? wide : op.getLhs();
    Value rhs = *holder == 1 ? wide : op.getRhs();
    Value acc = widenRows(rewriter, loc, op.getAcc(), width);
    auto contract = vector::ContractionOp::create(
        rewriter, loc, lhs, rhs, acc,
        rewriter.getAffineMapArrayAttr(
            {fold(maps[0]), fold(maps[1]), fold(maps[2])}),
        rewriter.getArrayAttr(newIterators), op.getKind());
    rewriter.replaceOp(
        op, narrowRows(rewriter, loc, contract.getResult(), accType));
    return success();
  }
};

/// The folded vector that `value` is narrowRows of (a shape_cast, after a
/// slice of the first lanes where there are lanes past the rows), if any.
static Value getNarrowedSource(Value value) {
  auto shapeCast = value.getDefiningOp<vector::ShapeCastOp>();
  if (!shapeCast)
    return Value();
  Value wide = shapeCast.getSource();
  if (auto extract = wide.getDefiningOp<vector::ExtractStridedSliceOp>()) {
    if (!llvm::all_of(extract.getOffsets(), [](Attribute offset) {
          return cast<IntegerAttr>(offset).getInt() == 0;
        }))
      return Value();
    wide = extract.getSource();
  }
  return wide;
}

/// Whether `value` is widenRows(x); sets `from` to x.
static bool isWidened(Value value, Value &from) {
  Value narrow = value;
  if (auto insert = value.getDefiningOp<vector::InsertStridedSliceOp>()) {
    Attribute zero;
    if (!matchPattern(insert.getDest(), m_Constant(&zero)) ||
        !llvm::all_of(insert.getOffsets(), [](Attribute offset) {
          return cast<IntegerAttr>(offset).getInt() == 0;
        }))
      return false;
    narrow = insert.getValueToStore();
  }
  auto shapeCast = narrow.getDefiningOp<vector::ShapeCastOp>();
  if (!shapeCast)
    return false;
  from = shapeCast.getSource();
  return true;
}

/// Carries a reduction loop's accumulator in the folded shape its
/// contraction uses: an iter_arg only widened (widenRows) in the body and
/// yielded narrowed from the folded shape becomes the folded vector; the
/// casts run once, before and after the loop. (Its lanes past the rows are
/// then whatever the products put there; they are never stored.)
struct CarryFoldedAccumulator : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(scf::ForOp loop,
                                PatternRewriter &rewriter) const override {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [position, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      unsigned index = position;
      auto argType = dyn_cast<VectorType>(arg.getType());
      if (!argType || !arg.hasOneUse())
        continue;
      // arg -> shape_cast [-> insert_strided_slice] = widened.
      Operation *user = *arg.getUsers().begin();
      if (user->getNumResults() != 1 || !user->hasOneUse())
        continue;
      Value widened = user->getResult(0);
      if (auto insert =
              dyn_cast<vector::InsertStridedSliceOp>(*user->getUsers().begin()))
        widened = insert.getResult();
      Value from;
      if (!isWidened(widened, from) || from != arg)
        continue;
      // The yielded value narrowed from the result of the folded shape.
      Value result = getNarrowedSource(yield.getOperand(index));
      if (!result || result.getType() != widened.getType())
        continue;
      int64_t width = cast<VectorType>(widened.getType()).getShape().back();
      rewriter.setInsertionPoint(loop);
      Value newInit =
          widenRows(rewriter, loop.getLoc(), loop.getInitArgs()[index], width);
      BlockArgument iterArg = arg;
      rewriter.modifyOpInPlace(loop, [&] {
        loop.getInitArgsMutable()[index].set(newInit);
        iterArg.setType(widened.getType());
        loop->getResult(index).setType(widened.getType());
      });
      rewriter.replaceAllUsesWith(widened, arg);
      rewriter.modifyOpInPlace(yield,
                               [&] { yield->setOperand(index, result); });
      rewriter.setInsertionPointAfter(loop);
      Value loopResult = loop->getResult(index);
      Value narrowed = narrowRows(rewriter, loop.getLoc(), loopResult, argType);
      // The first cast of the chain reads the loop's result.
      Operation *firstCast = narrowed.getDefiningOp();
      if (auto shapeCast = dyn_cast<vector::ShapeCastOp>(firstCast);
          shapeCast && shapeCast.getSource() != loopResult)
        firstCast = shapeCast.getSource().getDefiningOp();
      rewriter.replaceAllUsesExcept(loopResult, narrowed, firstCast);
      return success();
    }
    return failure();
  }
};
/// Writes the rows of a folded accumulator (narrowRows of a [.., w] vector,
/// through a transpose of its leading dims) one at a time, each the lanes
/// of its row in the folded vector read past its end up to a power of two
/// (or whole registers) and written masked: a row of 13 is one masked store
/// of 16 lanes taken from the folded vector with one shuffle, where the
/// row-by-row shape_cast wrote 8 + 4 + 1 lanes apiece.
struct WriteFoldedRows : LanePattern<vector::TransferWriteOp> {
  using LanePattern::LanePattern;

  LogicalResult matchAndRewrite(vector::TransferWriteOp write,
                                PatternRewriter &rewriter) const override {
    VectorType type = write.getVectorType();
    if (type.getRank() < 2 || type.isScalable() || write.getMask() ||
        !type.getElementType().isIntOrFloat() ||
        !write.getPermutationMap().isMinorIdentity() ||
        !isa<RankedTensorType>(write.getBase().getType()) ||
        llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
      return failure();
    // value = [transpose](shape_cast([extract_strided_slice](wide))).
    Value value = write.getVector();
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    if (auto transpose = value.getDefiningOp<vector::TransposeOp>()) {
      permutation = llvm::to_vector(transpose.getPermutation());
      if (permutation.back() != type.getRank() - 1)
        return failure();
      value = transpose.getVector();
    }
    Value wide = getNarrowedSource(value);
    if (!wide)
      return failure();
    auto rowsType = cast<VectorType>(value.getType());
    auto wideType = cast<VectorType>(wide.getType());
    int64_t rank = rowsType.getRank();
    if (wideType.getRank() != rank - 1 ||
        wideType.getShape().drop_back() != rowsType.getShape().drop_back(2))
      return failure();
    int64_t rows = rowsType.getShape()[rank - 2];
    int64_t n = rowsType.getShape().back();
    int64_t width = wideType.getShape().back();
    int64_t lanes = getLanes(type.getElementType());
    int64_t padded = einsum::getPaddedExtent(n, lanes);
    if (rows < 2)
      return failure();

    Location loc = write.getLoc();
    Value dest = write.getBase();
    SmallVector<Value> base(write.getIndices());
    unsigned offset = base.size() - type.getRank();
    // Every index of the written vector's leading dims.
    SmallVector<int64_t> leading(type.getShape().drop_back());
    int64_t count = 1;
    for (int64_t size : leading)
      count *= size;
    for (int64_t linear = 0; linear < count; ++linear) {
      SmallVector<int64_t> index(leading.size());
      for (int64_t dim = leading.size() - 1, rest = linear; dim >= 0; --dim) {
        index[dim] = rest % leading[dim];
        rest /= leading[dim];
      }
      // The same element of the rows vector (before the transpose).
      SmallVector<int64_t> rowsIndex(rank - 1);
      for (auto [dim, source] :
           llvm::enumerate(ArrayRef(permutation).drop_back()))
        rowsIndex[source] = index[dim];
      int64_t row = rowsIndex.back();
      Value line = wide;
      if (rank > 2)
        line = vector::ExtractOp::create(rewriter, loc, wide,
                                         ArrayRef(rowsIndex).drop_back());
      int64_t take = std::min(padded, width - row * n);
      Value piece = vector::ExtractStridedSliceOp::create(
          rewriter, loc, line, ArrayRef<int64_t>{row * n},
          ArrayRef<int64_t>{take}, ArrayRef<int64_t>{1});
      SmallVector<Value> indices(base);
      for (auto [dim, at] : llvm::enumerate(index))
        indices[offset + dim] = arith::AddIOp::create(
            rewriter, loc, base[offset + dim],
            arith::ConstantIndexOp::create(rewriter, loc, at));
      auto rowWrite = vector::TransferWriteOp::create(
          rewriter, loc, piece, dest, indices, ArrayRef<bool>{take <= n});
      dest = rowWrite.getResult();
    }
    rewriter.replaceOp(write, dest);
    return success();
  }
};
} // namespace

void mlir::einsum::populateFoldContractRowsPatterns(RewritePatternSet &patterns,
                                                    unsigned vectorBits,
                                                    PatternBenefit benefit) {
  patterns.add<FoldContractRows>(patterns.getContext(), vectorBits, benefit);
  patterns.add<CarryFoldedAccumulator>(patterns.getContext(), benefit);
  patterns.add<WriteFoldedRows>(patterns.getContext(), vectorBits, benefit);
}

void mlir::einsum::populateUnitReductionContractPatterns(
    RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<UnitReductionContractToFma>(patterns.getContext(), benefit);
}

namespace {
/// The lanes that `mask` enables, where they are a constant prefix (the
/// in-bounds lanes of a padded row): -1 otherwise.
static int64_t getConstantPrefixLanes(Value mask) {
  if (auto constantMask = mask.getDefiningOp<vector::ConstantMaskOp>()) {
    ArrayRef<int64_t> sizes = constantMask.getMaskDimSizes();
    return sizes.size() == 1 ? sizes.front() : -1;
  }
  DenseIntElementsAttr bits;
  if (!matchPattern(mask, m_Constant(&bits)) ||
      cast<VectorType>(bits.getType()).getRank() != 1)
    return -1;
  int64_t lanes = 0;
  bool ended = false;
  for (bool bit : bits.getValues<bool>()) {
    if (bit && ended)
      return -1;
    ended |= !bit;
    lanes += bit;
  }
  return lanes;
}

/// A masked store whose mask is a constant prefix of its lanes, as plain
/// stores of power-of-two pieces of the prefix (13 lanes: 8 + 4 + 1). x86
/// cores without AVX-512 have no masked move that is cheap: AVX's
/// vmaskmovps store is microcoded, and on Zen 3 rows of 7 floats written
/// across an output that lives in L2 took 8.9 ns each masked and 2.8 ns as
/// 4 + 2 + 1 (3.1 ns as a full 8-lane store), the whole of
/// hsaw,lhnw->hnasl's time at 8 reduction steps. On the contraction suite
/// (one thread, interleaved A/B on Zen 3) yanl,kny->ankl ran 1.70x,
/// hsaw 1.45x, zrty,btz->brty 1.28x, jkc,kydj->kdcy 1.23x, the geomean of
/// all 40 1.04x.
struct SplitPrefixMaskedStore : OpRewritePattern<vector::MaskedStoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MaskedStoreOp store,
                                PatternRewriter &rewriter) const override {
    VectorType type = store.getVectorType();
    int64_t lanes = getConstantPrefixLanes(store.getMask());
    if (type.getRank() != 1 || type.isScalable() || lanes < 0)
      return failure();
    Location loc = store.getLoc();
    SmallVector<Value> indices(store.getIndices());
    Value &last = indices.back();
    Value start = last;
    for (int64_t offset = 0; offset < lanes;) {
      int64_t piece = llvm::bit_floor(static_cast<uint64_t>(lanes - offset));
      Value value = store.getValueToStore();
      if (piece != type.getNumElements())
        value = vector::ExtractStridedSliceOp::create(
            rewriter, loc, value, ArrayRef<int64_t>{offset},
            ArrayRef<int64_t>{piece}, ArrayRef<int64_t>{1});
      last = offset ? arith::AddIOp::create(
                          rewriter, loc, start,
                          arith::ConstantIndexOp::create(rewriter, loc, offset))
                    : start;
      vector::StoreOp::create(rewriter, loc, value, store.getBase(), indices);
      offset += piece;
    }
    rewriter.eraseOp(store);
    return success();
  }
};

struct EinsumLowerVectorsPass
    : einsum::impl::EinsumLowerVectorsPassBase<EinsumLowerVectorsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    einsum::populateUnitReductionContractPatterns(set, /*benefit=*/2);
    vector::populateVectorContractLoweringPatterns(
        set, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(set);
    vector::populateVectorTransferPermutationMapLoweringPatterns(set);
    vector::populateVectorTransferLoweringPatterns(set, /*maxTransferRank=*/1);
    vector::populateVectorMultiReductionLoweringPatterns(
        set, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorBroadcastLoweringPatterns(set);
    vector::populateVectorShapeCastLoweringPatterns(set);
    vector::populateVectorTransposeLoweringPatterns(
        set, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorMaskOpLoweringPatterns(set);
    vector::populateScalarVectorTransferLoweringPatterns(
        set, /*benefit=*/1, /*allowMultipleUses=*/true);
    vector::populateVectorToVectorCanonicalizationPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (failed(applyPatternsGreedily(getOperation(), patterns)))
      return signalPassFailure();
  }

private:
  FrozenRewritePatternSet patterns;
};

struct EinsumLowerMaskedTransfersPass
    : einsum::impl::EinsumLowerMaskedTransfersPassBase<
          EinsumLowerMaskedTransfersPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    // Out-of-bounds dims get a mask of the lanes in bounds; masked 1-D
    // transfers become masked loads and stores, the others plain loads and
    // stores (as convert-vector-to-llvm would make them).
    vector::populateVectorMaskMaterializationPatterns(
        set, /*force32BitVectorIndices=*/true);
    vector::populateVectorTransferLoweringPatterns(set, /*maxTransferRank=*/1);
    einsum::VectorTarget target =
        einsum::resolveVectorTarget(vectorBits, vectorRegisters);
    if (target.bits < 512 && !target.hasCheapMaskedStores())
      set.add<SplitPrefixMaskedStore>(context);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (failed(applyPatternsGreedily(getOperation(), patterns)))
      return signalPassFailure();
  }

private:
  FrozenRewritePatternSet patterns;
};
} // namespace
