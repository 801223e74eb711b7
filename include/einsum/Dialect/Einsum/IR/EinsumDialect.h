//===- EinsumDialect.h - einsum dialect -------------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMDIALECT_H
#define EINSUM_DIALECT_EINSUM_IR_EINSUMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "einsum/Dialect/Einsum/IR/EinsumOpsDialect.h.inc"

namespace mlir {
namespace einsum {
/// A unit attribute on the linalg.generic that convert-einsum-to-linalg
/// emits to expand a dynamic size-1 broadcast at run time: a rare path,
/// which einsum-select-strategy leaves a loop nest.
constexpr llvm::StringLiteral kRuntimeBroadcastAttrName =
    "einsum.runtime_broadcast";
/// A unit attribute on the linalg.copy of a staged output block (a
/// `contract` strategy's `stage`) to the output, which einsum-stream-copies
/// lowers to non-temporal stores of whole cache lines.
constexpr llvm::StringLiteral kStreamCopyAttrName = "einsum.stream";
} // namespace einsum
} // namespace mlir

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMDIALECT_H
