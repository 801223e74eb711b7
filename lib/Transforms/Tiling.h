//===- Tiling.h - shared tiling step of the codegen passes ------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_LIB_TRANSFORMS_TILING_H
#define EINSUM_LIB_TRANSFORMS_TILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

#include <functional>

namespace mlir {
namespace einsum {

/// Tiles `op` with `options` (upstream TilingInterface), replaces it, and
/// returns the tiling result, whose single tiled op is a linalg op; failure
/// (nothing changed) otherwise.
FailureOr<scf::SCFTilingResult>
tileAndReplace(RewriterBase &rewriter, linalg::LinalgOp op,
               const scf::SCFTilingOptions &options);

/// Whether `op` is a packing copy: a transpose on tensors (upstream
/// linalg::isaTransposeOpInterface: one input read through a permutation,
/// written whole in order) into a fresh tensor.empty, which einsum-vectorize
/// may make slice by slice inside the cache tiles of the contraction that
/// reads it.
bool isPackingCopy(linalg::GenericOp op);

/// Tiles `op` with `options` and fuses the linalg.fill that initializes its
/// output into the loops (each tile fills its own slice), and replaces it.
/// Other producers are fused only where `fuseProducer` holds for them (a
/// packing copy whose slice each tile makes for itself, as GETT packs in its
/// cache loops): a fused producer is recomputed in every tile that does not
/// split it. Returns the tiled op and the loops, outermost first.
FailureOr<std::pair<linalg::LinalgOp, SmallVector<LoopLikeOpInterface>>>
tileAndFuseFill(RewriterBase &rewriter, linalg::LinalgOp op,
                const scf::SCFTilingOptions &options,
                std::function<bool(Operation *)> fuseProducer = nullptr,
                const FrozenRewritePatternSet *cleanupPatterns = nullptr);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_LIB_TRANSFORMS_TILING_H
