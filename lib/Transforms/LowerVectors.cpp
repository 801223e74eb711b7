//===- LowerVectors.cpp - vector ops to 1-D FMAs, loads, stores -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

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

namespace {
struct EinsumLowerVectorsPass
    : einsum::impl::EinsumLowerVectorsPassBase<EinsumLowerVectorsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
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
