//===- Passes.h - einsum dialect transforms ---------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES_H
#define EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES_H

#include "einsum/Dialect/Einsum/Transforms/ContractionPath.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class Operation;
namespace einsum {
class ContractOp;
enum class Semiring : uint32_t;

#define GEN_PASS_DECL
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"

/// Path options for `op`: its element type's width, its semiring's extra
/// work (setSemiringCosts) and `options` otherwise.
PathOptions getPathOptions(ContractOp op, const PathOptions &options);

/// The work per step that `semiring` adds to the multiply-adds, in flops
/// per element read and written (`PathOptions::operandElementFlops`,
/// `resultElementFlops`), as the lowering computes it: log ~24 per operand
/// element (max, exp) and per result element (log, the check); max, min and
/// max_times 4 per operand element (the NaN and infinity scan); none for
/// plus_times and bool.
void setSemiringCosts(PathOptions &options, Semiring semiring);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES_H
