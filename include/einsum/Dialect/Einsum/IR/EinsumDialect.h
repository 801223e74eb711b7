//===- EinsumDialect.h - einsum dialect -------------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMDIALECT_H
#define EINSUM_DIALECT_EINSUM_IR_EINSUMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "einsum/Dialect/Einsum/IR/EinsumOpsDialect.h.inc"

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMDIALECT_H
