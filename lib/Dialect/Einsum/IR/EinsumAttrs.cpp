//===- EinsumAttrs.cpp - einsum dialect attributes --------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::einsum;

#include "einsum/Dialect/Einsum/IR/EinsumEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "einsum/Dialect/Einsum/IR/EinsumAttrs.cpp.inc"

void EinsumDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "einsum/Dialect/Einsum/IR/EinsumAttrs.cpp.inc"
      >();
}

LogicalResult
StrategyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     StrategyKind kind, ArrayRef<int64_t> order,
                     ArrayRef<int64_t> cache, ArrayRef<int64_t> registerTiles,
                     int64_t stage) {
  size_t numLoops = order.size();
  if (cache.size() != numLoops || registerTiles.size() != numLoops)
    return emitError() << "strategy lists 'order', 'cache' and 'register' "
                          "must have one entry per loop, got "
                       << order.size() << ", " << cache.size() << " and "
                       << registerTiles.size();
  llvm::SmallBitVector seen(numLoops);
  for (int64_t loop : order) {
    if (loop < 0 || loop >= static_cast<int64_t>(numLoops) || seen.test(loop))
      return emitError() << "strategy 'order' must be a permutation of 0.."
                         << static_cast<int64_t>(numLoops) - 1;
    seen.set(loop);
  }
  for (auto [i, size] : llvm::enumerate(cache))
    if (size < 0)
      return emitError() << "strategy 'cache' tile of loop " << i
                         << " is negative (" << size << ")";
  for (auto [i, size] : llvm::enumerate(registerTiles)) {
    if (size < 0)
      return emitError() << "strategy 'register' tile of loop " << i
                         << " is negative (" << size << ")";
    if (kind != StrategyKind::Loops && cache[i] != 0 && size != 0 &&
        cache[i] % size != 0)
      return emitError() << "strategy 'register' tile of loop " << i << " ("
                         << size << ") must divide its 'cache' tile ("
                         << cache[i] << ")";
  }
  if (stage < 0 || stage > static_cast<int64_t>(numLoops))
    return emitError() << "strategy 'stage' must be between 0 and the number "
                          "of loops ("
                       << numLoops << "), got " << stage;
  if (stage != 0 && kind != StrategyKind::Contract &&
      kind != StrategyKind::Elementwise)
    return emitError()
           << "strategy 'stage' applies only to 'contract' and 'elementwise'";
  return success();
}
