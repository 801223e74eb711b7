//===- InitAll.cpp - register everything einsum-mlir provides ---*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/InitAll.h"

#include "einsum/Conversion/Passes.h"
#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/Dialect/Einsum/Transforms/Passes.h"
#include "einsum/Pipelines/Pipelines.h"
#include "einsum/Transforms/MPIMemoryEffects.h"
#include "einsum/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::einsum::registerAllDialects(DialectRegistry &registry) {
  registry.insert<EinsumDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerMPIMemoryEffects(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
}

void mlir::einsum::registerAllPasses() {
  mlir::registerAllPasses();
  registerEinsumPasses();
  registerEinsumConversionPasses();
  registerEinsumTransformsPasses();
  registerEinsumPipelines();
}
