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

#define GEN_PASS_DECL
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"

/// Path options for `op`: its element type's width and `options` otherwise.
PathOptions getPathOptions(ContractOp op, const PathOptions &options);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES_H
