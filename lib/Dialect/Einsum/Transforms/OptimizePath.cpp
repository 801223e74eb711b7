//===- OptimizePath.cpp - split N-ary einsums along a path ------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/Passes.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMOPTIMIZEPATHPASS
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

PathOptions mlir::einsum::getPathOptions(ContractOp op,
                                         const PathOptions &options) {
  PathOptions result = options;
  Type elementType =
      cast<RankedTensorType>(op.getResult().getType()).getElementType();
  result.elementBytes = (elementType.getIntOrFloatBitWidth() + 7) / 8;
  setSemiringCosts(result, op.getSemiringOrDefault());
  return result;
}

void mlir::einsum::setSemiringCosts(PathOptions &options, Semiring semiring) {
  options.operandElementFlops = 0;
  options.resultElementFlops = 0;
  switch (semiring) {
  case Semiring::Log:
    options.operandElementFlops = 24;
    options.resultElementFlops = 24;
    break;
  case Semiring::Max:
  case Semiring::Min:
  case Semiring::MaxTimes:
    options.operandElementFlops = 4;
    break;
  case Semiring::PlusTimes:
  case Semiring::Bool:
    break;
  }
}

namespace {
struct EinsumOptimizePathPass
    : einsum::impl::EinsumOptimizePathPassBase<EinsumOptimizePathPass> {
  using Base::Base;

  void runOnOperation() override {
    PathOptions options;
    if (llvm::Error err = parsePathOption(strategy, options)) {
      getOperation()->emitError()
          << "einsum-optimize-path: " << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    std::optional<PathObjective> objective = parsePathObjective(minimize);
    if (!objective) {
      getOperation()->emitError()
          << "einsum-optimize-path: unknown minimize='" << minimize << "'";
      return signalPassFailure();
    }
    options.objective = *objective;
    options.memoryLimit = memoryLimit;
    for (const std::string &hint : sizeHints) {
      if (llvm::Error err = parseSizeHint(hint, options)) {
        getOperation()->emitError()
            << "einsum-optimize-path: " << llvm::toString(std::move(err));
        return signalPassFailure();
      }
    }

    SmallVector<ContractOp> ops;
    getOperation()->walk([&](ContractOp op) {
      if (op.getInputs().size() >= 3)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (ContractOp op : ops)
      if (failed(rewrite(op, rewriter, options)))
        return signalPassFailure();
  }

  LogicalResult rewrite(ContractOp op, RewriterBase &rewriter,
                        const PathOptions &options) {
    EinsumResolution resolution = op.getResolution();
    // max of products distributes over products of nonnegative numbers
    // only: over all of them, steps would compute other maxima.
    if (op.getSemiringOrDefault() == Semiring::MaxTimes) {
      if (explain)
        op.emitRemark() << "einsum path: the max_times semiring is computed "
                           "as one loop nest (steps would need nonnegative "
                           "operands)";
      return success();
    }
    // Steps name every dim with a letter; an einsum with more dims (52
    // labels plus ellipsis dims) stays one loop nest.
    if (resolution.numDims() > static_cast<unsigned>(kNumLabels)) {
      if (explain)
        op.emitRemark() << "einsum path: " << resolution.numDims()
                        << " dims cannot be named in step equations; the "
                           "einsum stays one loop nest";
      return success();
    }
    llvm::Expected<ContractionPath> path =
        findContractionPath(resolution, getPathOptions(op, options));
    if (!path)
      return op.emitOpError() << llvm::toString(path.takeError());
    if (explain)
      op.emitRemark() << path->getReport(op.getEquation());

    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    SmallVector<Value> tensors(op.getInputs());
    // f16 and bf16 einsums accumulate in f32 (E13): the steps run in f32, so
    // intermediates are not rounded to the narrow type between steps.
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    Type elementType = resultType.getElementType();
    bool widen = elementType.isF16() || elementType.isBF16();
    if (widen) {
      for (Value &t : tensors) {
        auto type = cast<RankedTensorType>(t.getType());
        t = arith::ExtFOp::create(rewriter, loc,
                                  type.clone(rewriter.getF32Type()), t);
      }
    }
    for (const PathStep &step : path->steps) {
      SmallVector<Value> inputs;
      for (unsigned t : step.inputs)
        inputs.push_back(tensors[t]);
      // Each step in the einsum's semiring (⊕ distributes over ⊗ in every
      // semiring: the steps compute the same sums).
      tensors.push_back(ContractOp::create(
          rewriter, loc, rewriter.getStringAttr(step.equation), inputs,
          op.getSemiringAttr()));
    }
    Value result = tensors.back();
    if (widen)
      result = arith::TruncFOp::create(
          rewriter, loc,
          cast<RankedTensorType>(result.getType()).clone(elementType), result);
    if (result.getType() != op.getResult().getType())
      return op.emitOpError() << "einsum-optimize-path: the path computes "
                            << result.getType() << ", not "
                            << op.getResult().getType();
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace
