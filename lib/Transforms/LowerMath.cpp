//===- LowerMath.cpp - exp, log and bf16 arithmetic that vectorizes -------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMLOWERMATHPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

namespace {
struct EinsumLowerMathPass
    : einsum::impl::EinsumLowerMathPassBase<EinsumLowerMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    // Only the functions the semiring lowerings emit: the approximations of
    // others (tanh, erf, ...) have other accuracy trade-offs.
    populateMathPolynomialApproximationPatterns(
        set, [](StringRef name) {
          return name == math::ExpOp::getOperationName() ||
                 name == math::LogOp::getOperationName();
        });
    arith::populateCeilFloorDivExpandOpsPatterns(set);
    if (expandBF16)
      arith::populateExpandBFloat16Patterns(set);
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
