//===- Reference.cpp - the reference einsum evaluator -----------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Reference.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::einsum;

ReferenceResult
mlir::einsum::evaluateReference(const EinsumResolution &res,
                                llvm::ArrayRef<const HostTensor *> inputs) {
  ReferenceResult result;
  result.shape.assign(res.outputShape.begin(), res.outputShape.end());
  result.numOperands = inputs.size();
  uint64_t outputSize = 1;
  for (int64_t d : res.outputShape)
    outputSize *= d;
  for (unsigned d = res.numOutputDims(); d < res.numDims(); ++d)
    result.termsPerElement *= res.dims[d].size;

  bool integer = !isFloat(inputs.front()->getElementType());
  if (integer)
    result.intValues.assign(outputSize, 0);
  else
    result.values.assign(outputSize, 0.0);
  result.absSums.assign(outputSize, 0.0);

  unsigned numDims = res.numDims();
  for (const EinsumLoopDim &dim : res.dims)
    if (dim.size == 0)
      return result;

  // Offset of each operand (and of the output) per step of each loop dim.
  unsigned numOperands = inputs.size();
  std::vector<std::vector<int64_t>> dimStrides(numOperands + 1,
                                               std::vector<int64_t>(numDims));
  for (unsigned i = 0; i < numOperands; ++i) {
    llvm::SmallVector<int64_t> strides = inputs[i]->getStrides();
    const EinsumOperandMap &map = res.operands[i];
    for (auto [axis, dim] : llvm::enumerate(map.dims))
      if (!map.broadcast[axis])
        dimStrides[i][dim] += strides[axis];
  }
  {
    int64_t stride = 1;
    for (int d = static_cast<int>(res.numOutputDims()) - 1; d >= 0; --d) {
      dimStrides[numOperands][d] = stride;
      stride *= res.outputShape[d];
    }
  }

  // Convert the operands once.
  std::vector<std::vector<double>> values(numOperands);
  std::vector<std::vector<int64_t>> intValues(numOperands);
  for (unsigned i = 0; i < numOperands; ++i) {
    int64_t n = inputs[i]->getNumElements();
    if (integer) {
      intValues[i].resize(n);
      for (int64_t k = 0; k < n; ++k)
        intValues[i][k] = inputs[i]->getAsInt(k);
    } else {
      values[i].resize(n);
      for (int64_t k = 0; k < n; ++k)
        values[i][k] = inputs[i]->getAsDouble(k);
    }
  }

  // Walk the iteration space with an odometer over the loop dims.
  std::vector<int64_t> index(numDims, 0);
  std::vector<int64_t> offsets(numOperands + 1, 0);
  while (true) {
    int64_t out = offsets[numOperands];
    if (integer) {
      uint64_t product = 1;
      double absProduct = 1;
      for (unsigned i = 0; i < numOperands; ++i) {
        int64_t v = intValues[i][offsets[i]];
        product *= static_cast<uint64_t>(v);
        absProduct *= std::fabs(static_cast<double>(v));
      }
      result.intValues[out] = static_cast<int64_t>(
          static_cast<uint64_t>(result.intValues[out]) + product);
      result.absSums[out] += absProduct;
    } else {
      double product = 1;
      for (unsigned i = 0; i < numOperands; ++i)
        product *= values[i][offsets[i]];
      result.values[out] += product;
      result.absSums[out] += std::fabs(product);
    }
    // Advance the innermost dim first.
    int d = static_cast<int>(numDims) - 1;
    for (; d >= 0; --d) {
      for (unsigned i = 0; i <= numOperands; ++i)
        offsets[i] += dimStrides[i][d];
      if (++index[d] < res.dims[d].size)
        break;
      for (unsigned i = 0; i <= numOperands; ++i)
        offsets[i] -= dimStrides[i][d] * index[d];
      index[d] = 0;
    }
    if (d < 0)
      break;
  }
  return result;
}

namespace {
/// How precisely a kernel of one element type computes.
struct Precision {
  /// Unit roundoff of the arithmetic it accumulates in.
  double accumulate;
  /// Unit roundoff of the final rounding to the element type.
  double result;
  /// Half the smallest subnormal of the element type: the absolute error of
  /// a result in the subnormal range.
  double subnormal;
};
} // namespace

static Precision precisionOf(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return {0x1p-53, 0x1p-53, 0x1p-1074};
  case ElementType::F32:
    return {0x1p-24, 0x1p-24, 0x1p-150};
  case ElementType::F16:
    return {0x1p-24, 0x1p-11, 0x1p-25};
  case ElementType::BF16:
    return {0x1p-24, 0x1p-8, 0x1p-134};
  default:
    return {0, 0, 0};
  }
}

Comparison mlir::einsum::compareWithReference(const HostTensor &actual,
                                              const ReferenceResult &ref) {
  Comparison cmp;
  if (llvm::ArrayRef<int64_t>(ref.shape) != actual.getShape()) {
    cmp.ok = false;
    cmp.message = "the result has type " + actual.getTypeString() +
                  ", but the reference has another shape";
    return cmp;
  }
  ElementType type = actual.getElementType();
  int64_t n = actual.getNumElements();
  if (!isFloat(type)) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t expected = ref.intValues[i];
      if (type == ElementType::I32)
        expected = static_cast<int32_t>(static_cast<uint32_t>(expected));
      double error = std::fabs(static_cast<double>(actual.getAsInt(i)) -
                               static_cast<double>(expected));
      if (actual.getAsInt(i) != expected && cmp.worstIndex < 0) {
        cmp.ok = false;
        cmp.worstIndex = i;
        cmp.message = llvm::formatv("element {0} is {1}, expected {2}", i,
                                    actual.getAsInt(i), expected)
                          .str();
      }
      cmp.maxAbsError = std::max(cmp.maxAbsError, error);
    }
    cmp.maxErrorRatio = cmp.ok ? 0 : 1e300;
    return cmp;
  }

  // A rigorous bound for any summation order of `terms` products of
  // `numOperands` factors, plus the final rounding to the element type.
  Precision precision = precisionOf(type);
  double terms = static_cast<double>(ref.termsPerElement);
  double rtol = 2.0 * precision.accumulate * (terms + ref.numOperands + 2) +
                precision.result;
  for (int64_t i = 0; i < n; ++i) {
    double got = actual.getAsDouble(i);
    double expected = ref.values[i];
    double error = std::fabs(got - expected);
    double tolerance = rtol * ref.absSums[i] + precision.subnormal;
    double ratio = error / tolerance;
    if (std::isnan(got) && !std::isnan(expected))
      ratio = INFINITY;
    if (ratio > cmp.maxErrorRatio || (std::isnan(got) && cmp.worstIndex < 0)) {
      cmp.maxErrorRatio = ratio;
      cmp.worstIndex = i;
    }
    if (!(error <= cmp.maxAbsError))
      cmp.maxAbsError = std::isnan(error) ? INFINITY : error;
    if (ratio > 1 && cmp.ok) {
      cmp.ok = false;
      cmp.message = llvm::formatv("element {0} is {1}, expected {2} (error "
                                  "{3:e}, tolerance {4:e})",
                                  i, got, expected, error, tolerance)
                        .str();
    }
  }
  return cmp;
}
