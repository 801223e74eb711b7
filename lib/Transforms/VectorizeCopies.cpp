//===- VectorizeCopies.cpp - static memref.copy to vector transfers -------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMVECTORIZECOPIESPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

namespace {
/// Static copies of at most kMaxElements elements whose innermost dimension
/// has unit stride on both sides: vector loads and stores of whole rows.
struct StaticCopyVectorization : linalg::CopyVectorizationPattern {
  static constexpr int64_t kMaxElements = 1024;

  using CopyVectorizationPattern::CopyVectorizationPattern;

  LogicalResult matchAndRewrite(memref::CopyOp copy,
                                PatternRewriter &rewriter) const override {
    auto isRowContiguous = [](Value value) {
      auto type = cast<MemRefType>(value.getType());
      // Larger copies (whole intermediates) would become vectors too large
      // for LLVM to legalize in reasonable time; they stay copies (memcpy
      // where contiguous).
      if (!type.hasStaticShape() || type.getRank() == 0 ||
          type.getNumElements() > kMaxElements)
        return false;
      SmallVector<int64_t> strides;
      int64_t offset;
      return succeeded(type.getStridesAndOffset(strides, offset)) &&
             strides.back() == 1;
    };
    if (!isRowContiguous(copy.getSource()) ||
        !isRowContiguous(copy.getTarget()))
      return rewriter.notifyMatchFailure(copy, "not a static row copy");
    return CopyVectorizationPattern::matchAndRewrite(copy, rewriter);
  }
};

/// The copies that are left and that the memref lowering would turn into a
/// call of the runtime's generic `memrefCopy` (one side not contiguous: a
/// column of a packed tile, 8 elements 99 apart) become `linalg.copy`, which
/// `convert-linalg-to-loops` makes a loop nest of loads and stores that LLVM
/// compiles for the static strides. Contiguous copies stay: they lower to
/// `llvm.memcpy`.
struct StridedCopyToLoops : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp copy,
                                PatternRewriter &rewriter) const override {
    auto source = dyn_cast<MemRefType>(copy.getSource().getType());
    auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!source || !target)
      return rewriter.notifyMatchFailure(copy, "unranked copy");
    // The condition under which the memref lowering emits llvm.memcpy.
    auto isContiguous = [](MemRefType type) {
      return type.getLayout().isIdentity() ||
             (type.hasStaticShape() && type.getNumElements() > 0 &&
              memref::isStaticShapeAndContiguousRowMajor(type));
    };
    if (isContiguous(source) && isContiguous(target))
      return rewriter.notifyMatchFailure(copy, "lowers to llvm.memcpy");
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                copy.getTarget());
    return success();
  }
};

struct EinsumVectorizeCopiesPass
    : einsum::impl::EinsumVectorizeCopiesPassBase<EinsumVectorizeCopiesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StaticCopyVectorization>(&getContext(), /*benefit=*/2);
    patterns.add<StridedCopyToLoops>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
