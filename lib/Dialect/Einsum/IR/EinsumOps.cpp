//===- EinsumOps.cpp - einsum dialect operations ----------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::einsum;

static_assert(kDynamicSize == ShapedType::kDynamic,
              "the equation layer's dynamic size must match MLIR's");

std::optional<StringRef> mlir::einsum::getElementTypeName(Type type) {
  if (type.isF32())
    return StringRef("f32");
  if (type.isF64())
    return StringRef("f64");
  if (type.isF16())
    return StringRef("f16");
  if (type.isBF16())
    return StringRef("bf16");
  if (type.isSignlessInteger(32))
    return StringRef("i32");
  if (type.isSignlessInteger(64))
    return StringRef("i64");
  return std::nullopt;
}

FailureOr<RankedTensorType> mlir::einsum::inferContractResultType(
    StringRef equation, TypeRange inputTypes,
    function_ref<InFlightDiagnostic()> emitError) {
  auto fail = [&](const Twine &message) -> FailureOr<RankedTensorType> {
    if (emitError)
      emitError() << message;
    return failure();
  };

  llvm::Expected<EinsumEquation> parsed = EinsumEquation::parse(equation);
  if (!parsed)
    return fail(llvm::toString(parsed.takeError()));

  // E13: one supported element type.
  Type elementType;
  SmallVector<SmallVector<int64_t>> shapes;
  for (auto [i, type] : llvm::enumerate(inputTypes)) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType)
      return fail("operand " + Twine(i) + " is not a ranked tensor");
    Type operandElementType = tensorType.getElementType();
    if (!getElementTypeName(operandElementType)) {
      std::string typeStr;
      llvm::raw_string_ostream os(typeStr);
      os << operandElementType;
      return fail("operand " + Twine(i) + ": element type " + typeStr +
                  " is not supported (supported: f32, f64, f16, bf16, i32, "
                  "i64)");
    }
    if (!elementType) {
      elementType = operandElementType;
    } else if (operandElementType != elementType) {
      return fail("operand " + Twine(i) + " has element type " +
                  *getElementTypeName(operandElementType) +
                  ", but operand 0 has " + *getElementTypeName(elementType) +
                  "; all operands must have one element type");
    }
    shapes.emplace_back(tensorType.getShape());
  }

  llvm::Expected<EinsumResolution> resolution = parsed->resolve(shapes);
  if (!resolution)
    return fail(llvm::toString(resolution.takeError()));
  if (!elementType) // No operand at all; resolve() has refused that.
    return failure();
  return RankedTensorType::get(resolution->outputShape, elementType);
}

LogicalResult
ContractOp::inferReturnTypes(MLIRContext *context,
                             std::optional<Location> location,
                             ContractOp::Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  std::function<InFlightDiagnostic()> emitError;
  if (location)
    emitError = [&] {
      return mlir::emitError(*location) << "'einsum.contract' op ";
    };
  FailureOr<RankedTensorType> type = inferContractResultType(
      adaptor.getEquation(), adaptor.getInputs().getTypes(), emitError);
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(*type);
  return success();
}

EinsumResolution ContractOp::getResolution() {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Type type : getInputs().getTypes())
    shapes.emplace_back(cast<RankedTensorType>(type).getShape());
  llvm::Expected<EinsumResolution> resolution =
      resolveEinsum(getEquation(), shapes);
  // The op has been verified, so the equation resolves.
  if (!resolution)
    llvm::report_fatal_error(llvm::toString(resolution.takeError()).c_str());
  return std::move(*resolution);
}

//===----------------------------------------------------------------------===//
// Folding and canonicalization
//===----------------------------------------------------------------------===//

LogicalResult ContractOp::verify() {
  std::optional<Semiring> semiring = getSemiring();
  if (!semiring)
    return success();
  Type elementType =
      cast<RankedTensorType>(getResult().getType()).getElementType();
  if (*semiring == Semiring::Log && !isa<FloatType>(elementType))
    return emitOpError() << "semiring 'log' needs floating-point operands, "
                            "not "
                         << elementType;
  if (*semiring == Semiring::Bool && !isa<IntegerType>(elementType))
    return emitOpError() << "semiring 'bool' needs integer operands, not "
                         << elementType;
  return success();
}

OpFoldResult ContractOp::fold(FoldAdaptor) {
  // The identity ("ij->ij", "...->...", "ij") returns its operand (but in
  // the bool semiring, whose results are 0 or 1).
  if (getInputs().size() != 1 || !getResolution().isIdentity() ||
      getSemiringOrDefault() == Semiring::Bool)
    return {};
  return getInputs().front();
}

namespace {
/// Rewrites the equation into its canonical text: explicit output, no
/// whitespace. Equal einsums then have equal equations, which CSE can use.
struct CanonicalizeEquation : OpRewritePattern<ContractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ContractOp op,
                                PatternRewriter &rewriter) const override {
    llvm::Expected<EinsumEquation> parsed =
        EinsumEquation::parse(op.getEquation());
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return rewriter.notifyMatchFailure(op, "invalid equation");
    }
    std::string canonical = parsed->str();
    if (canonical == op.getEquation())
      return rewriter.notifyMatchFailure(op, "equation already canonical");
    rewriter.modifyOpInPlace(
        op, [&] { op.setEquationAttr(rewriter.getStringAttr(canonical)); });
    return success();
  }
};
} // namespace

void ContractOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<CanonicalizeEquation>(context);
}

#define GET_OP_CLASSES
#include "einsum/Dialect/Einsum/IR/EinsumOps.cpp.inc"
