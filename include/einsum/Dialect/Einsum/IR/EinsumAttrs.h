//===- EinsumAttrs.h - einsum dialect attributes ----------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS_H
#define EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "einsum/Dialect/Einsum/IR/EinsumEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h.inc"

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS_H
