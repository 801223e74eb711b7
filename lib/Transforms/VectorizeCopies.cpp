//===- VectorizeCopies.cpp - static memref.copy to vector transfers -------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

struct EinsumVectorizeCopiesPass
    : einsum::impl::EinsumVectorizeCopiesPassBase<EinsumVectorizeCopiesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StaticCopyVectorization>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
