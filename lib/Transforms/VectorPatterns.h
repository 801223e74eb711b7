//===- VectorPatterns.h - vector rewrites shared by the passes --*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_LIB_TRANSFORMS_VECTORPATTERNS_H
#define EINSUM_LIB_TRANSFORMS_VECTORPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace einsum {

/// Rewrites a vector.contract whose reductions all have extent 1 and whose
/// operands both hold the result's dimensions, in its order, into an
/// elementwise multiply-add (vector.fma; muli + addi for integers). The
/// outer-product lowering does not apply to it (there is no M or N
/// dimension), and the generic lowering makes one dot product per lane.
void populateUnitReductionContractPatterns(RewritePatternSet &patterns,
                                           PatternBenefit benefit = 1);

/// Folds the last two accumulator dims of a vector.contract that one
/// operand lacks and the other holds last, in that order (`[m] x [k, g, n]
/// -> [m, g, n]` as `[m] x [k, g*n] -> [m, g*n]`), and carries loop
/// accumulators in the folded shape.
void populateFoldContractRowsPatterns(RewritePatternSet &patterns,
                                      unsigned vectorBits,
                                      PatternBenefit benefit = 1);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_LIB_TRANSFORMS_VECTORPATTERNS_H
