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
/// Without `expandDynamicBroadcasts`, a dynamic size 1 that broadcasts at
/// run time fails a run-time check instead of being expanded.
void populateEinsumToLinalgConversionPatterns(
    RewritePatternSet &patterns, bool expandDynamicBroadcasts = true);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_CONVERSION_EINSUMTOLINALG_EINSUMTOLINALG_H
