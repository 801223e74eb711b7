//===- Passes.h - einsum conversion passes ----------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_CONVERSION_PASSES_H
#define EINSUM_CONVERSION_PASSES_H

#include "einsum/Conversion/EinsumToLinalg/EinsumToLinalg.h"
#include "einsum/Conversion/ImportToEinsum/ImportToEinsum.h"

namespace mlir {
namespace einsum {

#define GEN_PASS_REGISTRATION
#include "einsum/Conversion/Passes.h.inc"

} // namespace einsum
} // namespace mlir

#endif // EINSUM_CONVERSION_PASSES_H
