//===- Reference.cpp - the reference einsum evaluator -----------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::einsum;

/// The shape and error-bound facts of the result of `res`, with one
/// absSums entry (0) per output element.
static ReferenceResult makeResult(const EinsumResolution &res,
                                  unsigned numOperands) {
  ReferenceResult result;
  result.shape.assign(res.outputShape.begin(), res.outputShape.end());
  result.numOperands = numOperands;
  uint64_t outputSize = 1;
  for (int64_t d : res.outputShape)
    outputSize *= d;
  for (unsigned d = res.numOutputDims(); d < res.numDims(); ++d)
    result.termsPerElement *= res.dims[d].size;
  result.absSums.assign(outputSize, 0.0);
  return result;
}

/// Calls `visit(offsets)` at every point of the iteration space of `res`,
/// innermost loop fastest: `offsets[i]` is operand i's element there
/// (row-major, broadcasts at 0), `offsets.back()` the output's.
static void
forEachPoint(const EinsumResolution &res,
             llvm::ArrayRef<const HostTensor *> inputs,
             llvm::function_ref<void(llvm::ArrayRef<int64_t>)> visit) {
  unsigned numDims = res.numDims();
  for (const EinsumLoopDim &dim : res.dims)
    if (dim.size == 0)
      return;
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
  int64_t stride = 1;
  for (int d = static_cast<int>(res.numOutputDims()) - 1; d >= 0; --d) {
    dimStrides[numOperands][d] = stride;
    stride *= res.outputShape[d];
  }
  // An odometer over the loop dims.
  std::vector<int64_t> index(numDims, 0);
  std::vector<int64_t> offsets(numOperands + 1, 0);
  while (true) {
    visit(offsets);
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
      return;
  }
}

static ReferenceResult
evaluateSemiringReference(const EinsumResolution &res,
                          llvm::ArrayRef<const HostTensor *> inputs,
                          Semiring semiring);

namespace {
/// The sum (⊕) of one output element in a semiring other than plus_times:
/// its identity, and each term (the ⊗ of the operands' values) added.
struct SemiringSum {
  Semiring semiring;
  /// Floats: the maximum so far (log) or the value; with `scaled`, the
  /// log semiring's sum of exp(term - maximum).
  double value = 0;
  double scaled = 0;
  int64_t intValue = 0;
};

double floatIdentity(Semiring semiring) {
  switch (semiring) {
  case Semiring::Min:
    return INFINITY;
  case Semiring::PlusTimes:
  case Semiring::Bool:
    return 0;
  default:
    return -INFINITY;
  }
}

/// The identity in an integer of `width` bits, sign-extended.
int64_t intIdentity(Semiring semiring, unsigned width) {
  switch (semiring) {
  case Semiring::Max:
  case Semiring::MaxTimes:
  case Semiring::Log:
    return width == 32 ? INT32_MIN : INT64_MIN;
  case Semiring::Min:
    return width == 32 ? INT32_MAX : INT64_MAX;
  default:
    return 0;
  }
}

void addFloat(SemiringSum &sum, double term) {
  switch (sum.semiring) {
  case Semiring::Max:
  case Semiring::MaxTimes:
    sum.value = std::isnan(term) || std::isnan(sum.value)
                    ? NAN
                    : std::max(sum.value, term);
    return;
  case Semiring::Min:
    sum.value = std::isnan(term) || std::isnan(sum.value)
                    ? NAN
                    : std::min(sum.value, term);
    return;
  case Semiring::Log:
    // A running maximum, and the sum of exp(term - maximum) rescaled when
    // the maximum grows.
    if (std::isnan(term) || std::isnan(sum.value)) {
      sum.value = NAN;
    } else if (term == -INFINITY) {
      return;
    } else if (term > sum.value) {
      sum.scaled = sum.scaled * std::exp(sum.value - term) + 1;
      sum.value = term;
    } else {
      sum.scaled += std::exp(term - sum.value);
    }
    return;
  default:
    return;
  }
}
} // namespace

ReferenceResult
mlir::einsum::evaluateReference(const EinsumResolution &res,
                                llvm::ArrayRef<const HostTensor *> inputs,
                                Semiring semiring) {
  if (semiring != Semiring::PlusTimes)
    return evaluateSemiringReference(res, inputs, semiring);
  ReferenceResult result = makeResult(res, inputs.size());
  uint64_t outputSize = result.absSums.size();

  bool integer = !isFloat(inputs.front()->getElementType());
  if (integer)
    result.intValues.assign(outputSize, 0);
  else
    result.values.assign(outputSize, 0.0);

  unsigned numOperands = inputs.size();
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

  forEachPoint(res, inputs, [&](llvm::ArrayRef<int64_t> offsets) {
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
  });
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
    // Equal infinities (a semiring's empty sums) and NaNs match.
    double error = got == expected || (std::isnan(got) && std::isnan(expected))
                       ? 0
                       : std::fabs(got - expected);
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

/// evaluateReference in a semiring other than plus_times: the same walk of
/// the iteration space, each output element's terms combined by its
/// SemiringSum.
static ReferenceResult
evaluateSemiringReference(const EinsumResolution &res,
                          llvm::ArrayRef<const HostTensor *> inputs,
                          Semiring semiring) {
  ReferenceResult result = makeResult(res, inputs.size());
  uint64_t outputSize = result.absSums.size();
  ElementType type = inputs.front()->getElementType();
  bool integer = !isFloat(type);
  unsigned width = type == ElementType::I32 ? 32 : 64;
  std::vector<SemiringSum> sums(outputSize, SemiringSum{semiring});
  for (SemiringSum &sum : sums) {
    sum.value = floatIdentity(semiring);
    sum.intValue = intIdentity(semiring, width);
  }

  unsigned numOperands = inputs.size();
  forEachPoint(res, inputs, [&](llvm::ArrayRef<int64_t> offsets) {
    SemiringSum &sum = sums[offsets[numOperands]];
    double &scale = result.absSums[offsets[numOperands]];
    bool multiply = semiring == Semiring::MaxTimes;
    if (integer) {
      // Wrapping in the element's width, as the kernel computes.
      uint64_t term = multiply ? 1 : 0;
      bool all = true;
      for (unsigned i = 0; i < numOperands; ++i) {
        int64_t v = inputs[i]->getAsInt(offsets[i]);
        all = all && v != 0;
        term = multiply ? term * static_cast<uint64_t>(v)
                        : term + static_cast<uint64_t>(v);
      }
      int64_t t = width == 32 ? static_cast<int32_t>(term)
                              : static_cast<int64_t>(term);
      switch (semiring) {
      case Semiring::Max:
      case Semiring::MaxTimes:
        sum.intValue = std::max(sum.intValue, t);
        break;
      case Semiring::Min:
        sum.intValue = std::min(sum.intValue, t);
        break;
      case Semiring::Bool:
        sum.intValue = sum.intValue || all;
        break;
      default:
        break;
      }
    } else {
      double term = multiply ? 1 : 0;
      double magnitude = 0;
      for (unsigned i = 0; i < numOperands; ++i) {
        double v = inputs[i]->getAsDouble(offsets[i]);
        term = multiply ? term * v : term + v;
        magnitude += std::isfinite(v) ? std::fabs(v) : 0;
      }
      addFloat(sum, term);
      // The rounding of a term scales with its operands' magnitudes.
      scale = std::max(scale, multiply ? std::fabs(term) : magnitude);
    }
  });
  for (SemiringSum &sum : sums) {
    if (integer)
      result.intValues.push_back(sum.intValue);
    else if (semiring == Semiring::Log)
      result.values.push_back(sum.value == -INFINITY || std::isnan(sum.value)
                                  ? sum.value
                                  : sum.value + std::log(sum.scaled));
    else
      result.values.push_back(sum.value);
  }
  // log: the kernel's exp and log round too, relative to the result.
  if (semiring == Semiring::Log)
    for (auto [scale, value] : llvm::zip(result.absSums, result.values))
      scale += std::isfinite(value) ? std::fabs(value) + 1 : 0;
  return result;
}
