//===- Tiling.cpp - shared tiling step of the codegen passes ----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Tiling.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

FailureOr<scf::SCFTilingResult>
einsum::tileAndReplace(RewriterBase &rewriter, linalg::LinalgOp op,
                       const scf::SCFTilingOptions &options) {
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result) || result->tiledOps.size() != 1 ||
      !isa<linalg::LinalgOp>(result->tiledOps.front()))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return result;
}
