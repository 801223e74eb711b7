//===- Reference.h - the reference einsum evaluator -------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// A plain loop-nest evaluator, independent of the compiled path: it walks the
// whole iteration space of the resolved equation, multiplies in double (or in
// wrapping 64-bit integers) and sums. `--check` and the tests compare the
// compiled kernels with it.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_REFERENCE_H
#define EINSUM_ENGINE_REFERENCE_H

#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"
#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Engine/Tensor.h"

#include <vector>

namespace mlir {
namespace einsum {

/// The exact-as-possible result of an einsum.
struct ReferenceResult {
  llvm::SmallVector<int64_t> shape;
  /// Sums in double (floats) or wrapping int64 (integers), row-major.
  std::vector<double> values;
  std::vector<int64_t> intValues;
  /// Per output element, the sum of the absolute values of the products: the
  /// scale of the rounding error a float kernel may make.
  std::vector<double> absSums;
  /// Terms summed per output element and number of operands, which bound the
  /// rounding error of any summation order.
  uint64_t termsPerElement = 1;
  unsigned numOperands = 1;
};

/// Evaluates `resolution` on `inputs` (which must have the resolved shapes)
/// in `semiring` (#einsum.semiring; log-sum-exp in double, accumulated with
/// a running maximum).
ReferenceResult evaluateReference(const EinsumResolution &resolution,
                                  llvm::ArrayRef<const HostTensor *> inputs,
                                  Semiring semiring = Semiring::PlusTimes);

/// The outcome of comparing a result with the reference.
struct Comparison {
  bool ok = true;
  double maxAbsError = 0;
  /// The largest error as a fraction of its tolerance (<= 1 passes).
  double maxErrorRatio = 0;
  int64_t worstIndex = -1;
  std::string message;
};

/// Compares `actual` with `reference`: integers must match exactly (modulo
/// the element width); floats within a tolerance scaled by the element
/// type's precision and the magnitude of the summed products.
Comparison compareWithReference(const HostTensor &actual,
                                const ReferenceResult &reference);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_REFERENCE_H
