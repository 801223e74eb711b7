//===- EinsumToLinalg.cpp - einsum to linalg conversion ---------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
//   einsum.contract "ij,jk->ik"
//        |  resolve the equation: loop dims i (out 0), k (out 1), j (summed)
//        v
//   tensor.empty + linalg.fill 0 + linalg.generic (i, j, k) with k innermost
//        |  f16/bf16 only: accumulate in f32, then
//        v
//   linalg.generic arith.truncf
//
//===----------------------------------------------------------------------===//

#include "einsum/Conversion/EinsumToLinalg/EinsumToLinalg.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_CONVERTEINSUMTOLINALGPASS
#include "einsum/Conversion/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The position of each resolved loop dimension in the generic's iteration
/// space: all output dimensions but the last, then the summed dimensions, then
/// the output's last (contiguous) dimension, so that the innermost loop walks
/// the output, and every operand that shares its last label, with unit stride.
static SmallVector<unsigned> computeLoopPositions(const EinsumResolution &res) {
  unsigned numOut = res.numOutputDims();
  SmallVector<unsigned> order;
  for (unsigned d = 0; d + 1 < numOut; ++d)
    order.push_back(d);
  for (unsigned d = numOut; d < res.numDims(); ++d)
    order.push_back(d);
  if (numOut > 0)
    order.push_back(numOut - 1);
  SmallVector<unsigned> position(res.numDims());
  for (auto [pos, dim] : llvm::enumerate(order))
    position[dim] = pos;
  return position;
}

static bool isLowPrecisionFloat(Type type) {
  return type.isF16() || type.isBF16();
}

namespace {
/// Lowers any `einsum.contract` to one `linalg.generic`.
struct ContractOpToGenericPattern : OpConversionPattern<ContractOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ContractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    EinsumResolution res = op.getResolution();
    ValueRange inputs = adaptor.getInputs();
    Type elementType =
        cast<RankedTensorType>(op.getResult().getType()).getElementType();
    Type accType =
        isLowPrecisionFloat(elementType) ? rewriter.getF32Type() : elementType;

    // Dynamic output sizes come from an operand axis that carries the loop
    // dimension without broadcasting.
    SmallVector<Value> dynamicSizes;
    for (int64_t axis = 0, e = res.numOutputDims(); axis < e; ++axis) {
      if (res.outputShape[axis] != kDynamicSize)
        continue;
      Value size;
      for (auto [i, map] : llvm::enumerate(res.operands)) {
        for (auto [opAxis, dim] : llvm::enumerate(map.dims)) {
          if (dim != static_cast<unsigned>(axis) || map.broadcast[opAxis] ||
              !cast<RankedTensorType>(inputs[i].getType())
                   .isDynamicDim(opAxis))
            continue;
          size = tensor::DimOp::create(rewriter, loc, inputs[i], opAxis);
          break;
        }
        if (size)
          break;
      }
      if (!size)
        return rewriter.notifyMatchFailure(op, "no operand carries a dynamic "
                                               "output dimension");
      dynamicSizes.push_back(size);
    }

    Value empty = tensor::EmptyOp::create(rewriter, loc, res.outputShape,
                                          accType, dynamicSizes);
    Value zero = arith::ConstantOp::create(rewriter, loc, accType,
                                           rewriter.getZeroAttr(accType));
    Value init =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);

    // Indexing maps and iterator types.
    SmallVector<unsigned> position = computeLoopPositions(res);
    unsigned numLoops = res.numDims();
    SmallVector<AffineMap> maps;
    for (const EinsumOperandMap &map : res.operands) {
      SmallVector<AffineExpr> exprs;
      for (auto [axis, dim] : llvm::enumerate(map.dims))
        exprs.push_back(map.broadcast[axis]
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(position[dim], ctx));
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outputExprs;
    for (unsigned axis = 0; axis < res.numOutputDims(); ++axis)
      outputExprs.push_back(getAffineDimExpr(position[axis], ctx));
    maps.push_back(AffineMap::get(numLoops, 0, outputExprs, ctx));
    SmallVector<utils::IteratorType> iterators(numLoops);
    for (auto [dim, loopDim] : llvm::enumerate(res.dims))
      iterators[position[dim]] = loopDim.isReduction()
                                     ? utils::IteratorType::reduction
                                     : utils::IteratorType::parallel;

    bool isFloat = isa<FloatType>(accType);
    // Multiply-adds may be fused (one rounding instead of two), as BLAS
    // kernels and torch do.
    auto contract = arith::FastMathFlagsAttr::get(
        rewriter.getContext(), arith::FastMathFlags::contract);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), inputs, init, maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value product;
          for (Value arg : args.drop_back()) {
            if (arg.getType() != accType)
              arg = arith::ExtFOp::create(b, nestedLoc, accType, arg);
            if (!product)
              product = arg;
            else if (isFloat)
              product =
                  arith::MulFOp::create(b, nestedLoc, product, arg, contract);
            else
              product = arith::MulIOp::create(b, nestedLoc, product, arg);
          }
          Value sum =
              isFloat
                  ? arith::AddFOp::create(b, nestedLoc, args.back(), product,
                                          contract)
                        .getResult()
                  : arith::AddIOp::create(b, nestedLoc, args.back(), product)
                        .getResult();
          linalg::YieldOp::create(b, nestedLoc, sum);
        });
    Value result = generic.getResult(0);

    if (accType != elementType) {
      // Truncate the f32 accumulator to the element type.
      Value truncEmpty = tensor::EmptyOp::create(
          rewriter, loc, res.outputShape, elementType, dynamicSizes);
      unsigned rank = res.numOutputDims();
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      result = linalg::GenericOp::create(
                   rewriter, loc, truncEmpty.getType(), result, truncEmpty,
                   ArrayRef<AffineMap>{id, id},
                   SmallVector<utils::IteratorType>(
                       rank, utils::IteratorType::parallel),
                   [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
                     Value t = arith::TruncFOp::create(b, nestedLoc,
                                                       elementType, args[0]);
                     linalg::YieldOp::create(b, nestedLoc, t);
                   })
                   .getResult(0);
    }

    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::einsum::populateEinsumToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ContractOpToGenericPattern>(patterns.getContext());
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertEinsumToLinalgPass
    : einsum::impl::ConvertEinsumToLinalgPassBase<ConvertEinsumToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<EinsumDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateEinsumToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
