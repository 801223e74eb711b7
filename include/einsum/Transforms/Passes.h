//===- Passes.h - einsum codegen passes -------------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TRANSFORMS_PASSES_H
#define EINSUM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace einsum {

#define GEN_PASS_DECL
#include "einsum/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "einsum/Transforms/Passes.h.inc"

} // namespace einsum
} // namespace mlir

#endif // EINSUM_TRANSFORMS_PASSES_H
