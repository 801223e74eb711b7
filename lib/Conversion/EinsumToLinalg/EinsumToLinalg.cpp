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
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallBitVector.h"

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


/// A description of `dim` for diagnostics: "label 'j'" or "ellipsis
/// dimension 0".
static std::string describe(const EinsumLoopDim &dim) {
  if (dim.isEllipsis())
    return "ellipsis dimension " + std::to_string(dim.ellipsisIndex);
  return std::string("label '") + labelToChar(dim.label) + "'";
}

/// " (EQUATION at FILE:LINE:COL)" for run-time check messages.
static std::string describeOp(ContractOp op) {
  std::string where = " ('" + op.getEquation().str() + "'";
  if (auto file = dyn_cast<FileLineColLoc>(op.getLoc()))
    where += " at " + file.getFilename().str() + ":" +
             std::to_string(file.getLine()) + ":" +
             std::to_string(file.getColumn());
  return where + ")";
}

/// Where the run-time checks of `op` go: the start of the function when every
/// operand is an argument of it (the checks then run before anything else,
/// so that no memory is touched with sizes that do not fit), else the op.
static void setCheckInsertionPoint(OpBuilder &builder, ContractOp op,
                                   ValueRange inputs) {
  Block *entry = nullptr;
  if (auto func = op->getParentOfType<FunctionOpInterface>())
    if (!func.getFunctionBody().empty())
      entry = &func.getFunctionBody().front();
  bool allArguments = entry && llvm::all_of(inputs, [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == entry;
  });
  if (allArguments)
    builder.setInsertionPointToStart(entry);
  else
    builder.setInsertionPoint(op);
}

/// The size of every loop dimension as a value (null where it is static),
/// after `cf.assert`s that the dynamic operand sizes fit the equation at run
/// time as the verifier checks static ones: the axes of a repeated label
/// within an operand are equal (E5), and the sizes of a label in different
/// operands are equal or 1 (E6, E7). A loop's size is the size that is not
/// 1, or 1.
static SmallVector<Value> checkDynamicSizes(OpBuilder &builder, ContractOp op,
                                            const EinsumResolution &res,
                                            ValueRange inputs) {
  SmallVector<Value> loopSizes(res.numDims());
  bool anyDynamic = llvm::any_of(inputs, [](Value v) {
    return !cast<RankedTensorType>(v.getType()).hasStaticShape();
  });
  if (!anyDynamic)
    return loopSizes;
  OpBuilder::InsertionGuard guard(builder);
  setCheckInsertionPoint(builder, op, inputs);
  Location loc = op.getLoc();
  std::string where = describeOp(op);
  auto sizeOf = [&](unsigned i, unsigned axis) -> Value {
    auto type = cast<RankedTensorType>(inputs[i].getType());
    if (!type.isDynamicDim(axis))
      return arith::ConstantIndexOp::create(builder, loc, type.getDimSize(axis));
    return tensor::DimOp::create(builder, loc, inputs[i], axis);
  };
  auto isDynamic = [&](unsigned i, unsigned axis) {
    return cast<RankedTensorType>(inputs[i].getType()).isDynamicDim(axis);
  };
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto equal = [&](Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, b)
        .getResult();
  };

  for (auto [d, dim] : llvm::enumerate(res.dims)) {
    // One size per operand that carries the dimension (broadcast axes are
    // static 1 and carry nothing), after its diagonal check.
    SmallVector<std::pair<unsigned, Value>> carriers;
    bool dynamic = false;
    for (auto [i, map] : llvm::enumerate(res.operands)) {
      std::optional<unsigned> first;
      for (auto [axis, axisDim] : llvm::enumerate(map.dims)) {
        if (axisDim != d || map.broadcast[axis])
          continue;
        if (!first) {
          first = axis;
          continue;
        }
        if (!isDynamic(i, *first) && !isDynamic(i, axis))
          continue;
        cf::AssertOp::create(
            builder, loc, equal(sizeOf(i, *first), sizeOf(i, axis)),
            "einsum: operand " + std::to_string(i) + ": " + describe(dim) +
                " is repeated for a diagonal, but its dimensions have "
                "different sizes at run time" +
                where);
      }
      if (!first)
        continue;
      dynamic |= isDynamic(i, *first);
      carriers.push_back({static_cast<unsigned>(i), sizeOf(i, *first)});
    }
    if (!dynamic)
      continue;
    // Pairwise: equal, or one of them 1.
    for (unsigned x = 1; x < carriers.size(); ++x) {
      for (unsigned y = 0; y < x; ++y) {
        Value ok = arith::OrIOp::create(
            builder, loc,
            arith::OrIOp::create(builder, loc,
                                 equal(carriers[x].second, one),
                                 equal(carriers[y].second, one)),
            equal(carriers[x].second, carriers[y].second));
        cf::AssertOp::create(
            builder, loc, ok,
            "einsum: operand " + std::to_string(carriers[x].first) + ": " +
                describe(dim) + " has a size at run time that differs from "
                "its size in operand " + std::to_string(carriers[y].first) +
                ", and neither is 1" + where);
      }
    }
    if (!dim.isDynamic())
      continue;
    // One carrier sets the size; several: the one that is not 1, or 1.
    Value size = carriers.size() == 1 ? carriers.front().second : one;
    for (unsigned x = 0; carriers.size() > 1 && x < carriers.size(); ++x)
      size = arith::SelectOp::create(builder, loc,
                                     equal(carriers[x].second, one), size,
                                     carriers[x].second);
    loopSizes[d] = size;
  }
  return loopSizes;
}

/// Expands, at run time, each operand axis of dynamic size that is 1 where
/// its loop is not (a dynamic size-1 broadcast, which no indexing map can
/// express): the operand is copied into a tensor of the loop's size along
/// that axis (a linalg.generic marked `einsum.runtime_broadcast`: the case
/// is rare, and the CPU schedule leaves it a loop nest). Operands whose sizes
/// fit are used as they are.
static void broadcastDynamicOnes(OpBuilder &builder, ContractOp op,
                                 const EinsumResolution &res,
                                 ArrayRef<Value> loopSizes,
                                 SmallVector<Value> &inputs, bool expand) {
  Location loc = op.getLoc();
  // Operands that carry each loop dimension (not as a static broadcast).
  SmallVector<unsigned> carriers(res.numDims(), 0);
  for (const EinsumOperandMap &map : res.operands) {
    llvm::SmallBitVector seen(res.numDims());
    for (auto [axis, d] : llvm::enumerate(map.dims))
      if (!map.broadcast[axis] && !seen.test(d)) {
        seen.set(d);
        ++carriers[d];
      }
  }
  for (auto [i, map] : llvm::enumerate(res.operands)) {
    for (unsigned axis = 0; axis < map.dims.size(); ++axis) {
      unsigned d = map.dims[axis];
      auto type = cast<RankedTensorType>(inputs[i].getType());
      // An operand that alone carries a dynamic loop sets its size.
      if (map.broadcast[axis] || !type.isDynamicDim(axis) ||
          res.dims[d].size == 1 || (res.dims[d].isDynamic() && carriers[d] < 2))
        continue;
      Value loopSize =
          loopSizes[d] ? loopSizes[d]
                       : arith::ConstantIndexOp::create(builder, loc,
                                                        res.dims[d].size)
                             .getResult();
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value size = tensor::DimOp::create(builder, loc, inputs[i], axis);
      Value needed = arith::AndIOp::create(
          builder, loc,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, size,
                                one),
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                loopSize, one));
      if (!expand) {
        Value ok = arith::XOrIOp::create(
            builder, loc, needed,
            arith::ConstantIntOp::create(builder, loc, 1, 1));
        cf::AssertOp::create(
            builder, loc, ok,
            "einsum: operand " + std::to_string(i) + ": " +
                describe(res.dims[d]) +
                " has size 1 at run time where its loop does not; this "
                "target does not expand a broadcast decided at run time "
                "(give the operand a static size 1)" +
                describeOp(op));
        continue;
      }
      Value source = inputs[i];
      auto ifOp = scf::IfOp::create(
          builder, loc, needed,
          [&](OpBuilder &b, Location nested) {
            SmallVector<Value> sizes;
            for (int64_t a = 0; a < type.getRank(); ++a)
              if (type.isDynamicDim(a))
                sizes.push_back(static_cast<unsigned>(a) == axis
                                    ? loopSize
                                    : tensor::DimOp::create(b, nested, source,
                                                            a)
                                          .getResult());
            Value empty = tensor::EmptyOp::create(b, nested, type.getShape(),
                                                  type.getElementType(), sizes);
            unsigned rank = type.getRank();
            SmallVector<AffineExpr> exprs;
            for (unsigned a = 0; a < rank; ++a)
              exprs.push_back(a == axis ? b.getAffineConstantExpr(0)
                                        : b.getAffineDimExpr(a));
            auto copy = linalg::GenericOp::create(
                b, nested, type, source, empty,
                ArrayRef<AffineMap>{
                    AffineMap::get(rank, 0, exprs, b.getContext()),
                    b.getMultiDimIdentityMap(rank)},
                SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
                [](OpBuilder &bb, Location l, ValueRange args) {
                  linalg::YieldOp::create(bb, l, args[0]);
                });
            // Rare: schedulers may leave it a loop nest.
            copy->setAttr(kRuntimeBroadcastAttrName, b.getUnitAttr());
            Value expanded = copy.getResult(0);
            scf::YieldOp::create(b, nested, expanded);
          },
          [&](OpBuilder &b, Location nested) {
            scf::YieldOp::create(b, nested, source);
          });
      inputs[i] = ifOp.getResult(0);
    }
  }
}

namespace {
/// The scalar operations of a semiring on values of `type` (the
/// accumulator's), in a linalg.generic body.
struct SemiringBuilder {
  Semiring semiring;
  Type type;
  bool isFloat;

  SemiringBuilder(Semiring semiring, Type type)
      : semiring(semiring), type(type), isFloat(isa<FloatType>(type)) {}

  /// The identity of ⊕, the value of an empty sum.
  TypedAttr getSumIdentity(Builder &b) const {
    auto floatOr = [&](bool negative) -> TypedAttr {
      if (isFloat)
        return b.getFloatAttr(
            type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics(),
                                  negative));
      unsigned width = type.getIntOrFloatBitWidth();
      return b.getIntegerAttr(type, negative
                                        ? APInt::getSignedMinValue(width)
                                        : APInt::getSignedMaxValue(width));
    };
    switch (semiring) {
    case Semiring::Log:
    case Semiring::Max:
    case Semiring::MaxTimes:
      return floatOr(/*negative=*/true);
    case Semiring::Min:
      return floatOr(/*negative=*/false);
    case Semiring::PlusTimes:
    case Semiring::Bool:
      break;
    }
    return cast<TypedAttr>(b.getZeroAttr(type));
  }

  /// ⊗ of the operands' elements (converted to the accumulator's type).
  Value product(OpBuilder &b, Location loc, ValueRange args) const {
    // Multiply-adds may be fused (one rounding instead of two), as BLAS
    // kernels and torch do.
    auto contract = arith::FastMathFlagsAttr::get(
        b.getContext(), arith::FastMathFlags::contract);
    Value result;
    for (Value arg : args) {
      if (arg.getType() != type)
        arg = arith::ExtFOp::create(b, loc, type, arg);
      if (semiring == Semiring::Bool)
        arg = isTrue(b, loc, arg);
      if (!result) {
        result = arg;
        continue;
      }
      switch (semiring) {
      case Semiring::PlusTimes:
      case Semiring::MaxTimes:
        result = isFloat ? arith::MulFOp::create(b, loc, result, arg, contract)
                               .getResult()
                         : arith::MulIOp::create(b, loc, result, arg)
                               .getResult();
        break;
      case Semiring::Log:
      case Semiring::Max:
      case Semiring::Min:
        result = isFloat ? arith::AddFOp::create(b, loc, result, arg)
                               .getResult()
                         : arith::AddIOp::create(b, loc, result, arg)
                               .getResult();
        break;
      case Semiring::Bool:
        result = arith::AndIOp::create(b, loc, result, arg);
        break;
      }
    }
    if (semiring == Semiring::Bool)
      result = arith::ExtUIOp::create(b, loc, type, result);
    return result;
  }

  /// ⊕ of the accumulator and a term (not for log, whose sum is built in
  /// steps).
  Value sum(OpBuilder &b, Location loc, Value acc, Value term) const {
    auto contract = arith::FastMathFlagsAttr::get(
        b.getContext(), arith::FastMathFlags::contract);
    switch (semiring) {
    case Semiring::PlusTimes:
      return isFloat ? arith::AddFOp::create(b, loc, acc, term, contract)
                           .getResult()
                     : arith::AddIOp::create(b, loc, acc, term).getResult();
    case Semiring::Max:
    case Semiring::MaxTimes:
    case Semiring::Log:
      // NaN propagates, as torch.max does.
      return isFloat ? arith::MaximumFOp::create(b, loc, acc, term)
                           .getResult()
                     : arith::MaxSIOp::create(b, loc, acc, term).getResult();
    case Semiring::Min:
      return isFloat ? arith::MinimumFOp::create(b, loc, acc, term)
                           .getResult()
                     : arith::MinSIOp::create(b, loc, acc, term).getResult();
    case Semiring::Bool:
      break;
    }
    // bool: the accumulator holds 0 or 1; the term 0 or 1.
    return arith::OrIOp::create(b, loc, acc, term);
  }

  /// `value` != 0, as i1 (an i1 as it is).
  Value isTrue(OpBuilder &b, Location loc, Value value) const {
    if (value.getType().isInteger(1))
      return value;
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 zero);
  }
};

/// Lowers any `einsum.contract` to one `linalg.generic`.
struct ContractOpToGenericPattern : OpConversionPattern<ContractOp> {
  ContractOpToGenericPattern(MLIRContext *context,
                             bool expandDynamicBroadcasts)
      : OpConversionPattern(context),
        expandDynamicBroadcasts(expandDynamicBroadcasts) {}

  LogicalResult
  matchAndRewrite(ContractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    EinsumResolution res = op.getResolution();
    Type elementType =
        cast<RankedTensorType>(op.getResult().getType()).getElementType();
    Type accType =
        isLowPrecisionFloat(elementType) ? rewriter.getF32Type() : elementType;

    // Dynamic sizes are checked at run time like static ones are by the
    // verifier (E5-E7), and a dynamic size 1 that broadcasts is expanded.
    SmallVector<Value> inputs(adaptor.getInputs());
    SmallVector<Value> loopSizes =
        checkDynamicSizes(rewriter, op, res, inputs);
    broadcastDynamicOnes(rewriter, op, res, loopSizes, inputs,
                         expandDynamicBroadcasts);
    SmallVector<Value> dynamicSizes;
    for (int64_t axis = 0, e = res.numOutputDims(); axis < e; ++axis)
      if (res.outputShape[axis] == kDynamicSize)
        dynamicSizes.push_back(loopSizes[axis]);

    Semiring semiring = op.getSemiringOrDefault();
    Value empty = tensor::EmptyOp::create(rewriter, loc, res.outputShape,
                                          accType, dynamicSizes);
    // The output starts at the identity of the semiring's sum.
    auto fill = [&](TypedAttr value) {
      Value constant = arith::ConstantOp::create(rewriter, loc, value);
      return linalg::FillOp::create(rewriter, loc, constant, empty)
          .getResult(0);
    };

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
    AffineMap outputMap = AffineMap::get(numLoops, 0, outputExprs, ctx);
    maps.push_back(outputMap);
    SmallVector<utils::IteratorType> iterators(numLoops);
    for (auto [dim, loopDim] : llvm::enumerate(res.dims))
      iterators[position[dim]] = loopDim.isReduction()
                                     ? utils::IteratorType::reduction
                                     : utils::IteratorType::parallel;

    SemiringBuilder ops(semiring, accType);
    // One generic of ⊕ over ⊗. The log semiring takes three: the maximum
    // M of the terms (max-plus), the sum of exp(term - M), M + log(sum).
    Semiring first = semiring == Semiring::Log ? Semiring::Max : semiring;
    SemiringBuilder firstOps(first, accType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, empty.getType(), inputs,
        fill(firstOps.getSumIdentity(rewriter)), maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value term = firstOps.product(b, nestedLoc, args.drop_back());
          linalg::YieldOp::create(
              b, nestedLoc, firstOps.sum(b, nestedLoc, args.back(), term));
        });
    Value result = generic.getResult(0);
    if (semiring == Semiring::Log) {
      SmallVector<Value> withMax(inputs);
      withMax.push_back(result);
      SmallVector<AffineMap> mapsWithMax(maps.begin(), maps.end() - 1);
      mapsWithMax.push_back(outputMap);
      mapsWithMax.push_back(outputMap);
      auto sums = linalg::GenericOp::create(
          rewriter, loc, empty.getType(), withMax,
          fill(rewriter.getZeroAttr(accType)), mapsWithMax, iterators,
          [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
            Value term = ops.product(b, nestedLoc, args.drop_back(2));
            Value max = args[args.size() - 2];
            // exp(term - M): 0 where the term is M (infinities too, where
            // the difference is NaN), never the exponential of a large value.
            Value same = arith::CmpFOp::create(
                b, nestedLoc, arith::CmpFPredicate::OEQ, term, max);
            Value shifted = arith::SelectOp::create(
                b, nestedLoc, same,
                arith::ConstantOp::create(b, nestedLoc,
                                          b.getZeroAttr(accType)),
                arith::SubFOp::create(b, nestedLoc, term, max));
            Value e = math::ExpOp::create(b, nestedLoc, shifted);
            linalg::YieldOp::create(
                b, nestedLoc,
                arith::AddFOp::create(b, nestedLoc, args.back(), e)
                    .getResult());
          });
      unsigned rank = res.numOutputDims();
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      result = linalg::GenericOp::create(
                   rewriter, loc, empty.getType(),
                   ValueRange{result, sums.getResult(0)}, empty,
                   ArrayRef<AffineMap>{id, id, id},
                   SmallVector<utils::IteratorType>(
                       rank, utils::IteratorType::parallel),
                   [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
                     Value log = math::LogOp::create(b, nestedLoc, args[1]);
                     linalg::YieldOp::create(
                         b, nestedLoc,
                         arith::AddFOp::create(b, nestedLoc, args[0], log)
                             .getResult());
                   })
                   .getResult(0);
    }

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

private:
  bool expandDynamicBroadcasts;
};
} // namespace

void mlir::einsum::populateEinsumToLinalgConversionPatterns(
    RewritePatternSet &patterns, bool expandDynamicBroadcasts) {
  patterns.add<ContractOpToGenericPattern>(patterns.getContext(),
                                           expandDynamicBroadcasts);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertEinsumToLinalgPass
    : einsum::impl::ConvertEinsumToLinalgPassBase<ConvertEinsumToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<EinsumDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateEinsumToLinalgConversionPatterns(patterns,
                                             expandDynamicBroadcasts);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
