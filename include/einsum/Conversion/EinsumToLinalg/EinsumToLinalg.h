//===- EinsumToLinalg.h - einsum to linalg conversion -----------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_CONVERSION_EINSUMTOLINALG_EINSUMTOLINALG_H
#define EINSUM_CONVERSION_EINSUMTOLINALG_EINSUMTOLINALG_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace einsum {

#define GEN_PASS_DECL_CONVERTEINSUMTOLINALGPASS
#include "einsum/Conversion/Passes.h.inc"

/// Adds the patterns that lower `einsum.contract` to `linalg.generic`.
void populateEinsumToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_CONVERSION_EINSUMTOLINALG_EINSUMTOLINALG_H
