//===- EinsumDialect.cpp - einsum dialect -----------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

using namespace mlir;
using namespace mlir::einsum;

#include "einsum/Dialect/Einsum/IR/EinsumOpsDialect.cpp.inc"

void EinsumDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "einsum/Dialect/Einsum/IR/EinsumOps.cpp.inc"
      >();
}
