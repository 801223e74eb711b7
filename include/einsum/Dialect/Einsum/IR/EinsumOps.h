//===- EinsumOps.h - einsum dialect operations ------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMOPS_H
#define EINSUM_DIALECT_EINSUM_IR_EINSUMOPS_H

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace einsum {

/// Returns the name of a supported element type ("f32", ...), or std::nullopt
/// for a type einsum does not support (E13).
std::optional<StringRef> getElementTypeName(Type type);

/// Checks operand types against `equation` (E1-E13) and returns the result
/// type. Diagnostics go to `emitError` when it is given.
FailureOr<RankedTensorType>
inferContractResultType(StringRef equation, TypeRange inputTypes,
                        function_ref<InFlightDiagnostic()> emitError);

} // namespace einsum
} // namespace mlir

#define GET_OP_CLASSES
#include "einsum/Dialect/Einsum/IR/EinsumOps.h.inc"

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMOPS_H
