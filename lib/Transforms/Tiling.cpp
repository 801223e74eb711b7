//===- Tiling.cpp - shared tiling step of the codegen passes ----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Tiling.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

bool einsum::isPackingCopy(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         linalg::isaTransposeOpInterface(op).has_value() &&
         op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
}

FailureOr<std::pair<linalg::LinalgOp, SmallVector<LoopLikeOpInterface>>>
einsum::tileAndFuseFill(RewriterBase &rewriter, linalg::LinalgOp op,
                        const scf::SCFTilingOptions &options,
                        std::function<bool(Operation *)> fuseProducer,
                        const FrozenRewritePatternSet *cleanupPatterns) {
  scf::SCFTileAndFuseOptions fuseOptions;
  fuseOptions.setTilingOptions(options);
  if (cleanupPatterns)
    fuseOptions.cleanupPatterns = *cleanupPatterns;
  fuseOptions.setFusionControlFn(
      [fuseProducer](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (isa<linalg::FillOp>(owner) || (fuseProducer && fuseProducer(owner)))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), fuseOptions);
  if (failed(result))
    return failure();
  linalg::LinalgOp tiled;
  // The fused producers' clones keep what `fuseProducer` matched them by.
  for (Operation *candidate : result->tiledAndFusedOps)
    if (!isa<linalg::FillOp>(candidate) &&
        !(fuseProducer && fuseProducer(candidate)))
      tiled = dyn_cast<linalg::LinalgOp>(candidate);
  if (!tiled)
    return failure();
  for (OpResult value : op->getResults())
    rewriter.replaceAllUsesWith(value, result->replacements.lookup(value));
  rewriter.eraseOp(op);
  return std::make_pair(tiled, result->loops);
}
