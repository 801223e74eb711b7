//===- EinsumDialect.cpp - einsum dialect -----------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;
using namespace mlir::einsum;

#include "einsum/Dialect/Einsum/IR/EinsumOpsDialect.cpp.inc"

void EinsumDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "einsum/Dialect/Einsum/IR/EinsumOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult EinsumDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kRuntimeBroadcastAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<linalg::LinalgOp>(op))
      return op->emitError() << "'" << name
                             << "' must be a unit attribute of a linalg op";
    return success();
  }
  if (name == kStreamCopyAttrName) {
    // (By name: the dialect does not depend on the linalg ops.)
    if (!isa<UnitAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "linalg.copy")
      return op->emitError() << "'" << name
                             << "' must be a unit attribute of a linalg.copy";
    return success();
  }
  if (name != StrategyAttr::getAttrName())
    return op->emitError() << "unknown einsum attribute '" << name << "'";
  auto strategy = dyn_cast<StrategyAttr>(attr.getValue());
  if (!strategy)
    return op->emitError() << "'" << name
                           << "' must be an #einsum.strategy attribute";
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return op->emitError() << "'" << name
                           << "' can only be attached to a linalg op";
  if (strategy.getOrder().size() != linalgOp.getNumLoops())
    return op->emitError() << "'" << name << "' describes "
                           << strategy.getOrder().size()
                           << " loops but the op has "
                           << linalgOp.getNumLoops();
  return success();
}
