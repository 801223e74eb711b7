//===- LowerVectors.cpp - vector ops to 1-D FMAs, loads, stores -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "VectorPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
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

void mlir::einsum::populateUnitReductionContractPatterns(
    RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<UnitReductionContractToFma>(patterns.getContext(), benefit);
}

namespace {
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
