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
  /// Terms are known to be free of NaNs (the operands were checked at run
  /// time): a float max or min is then one instruction (`vmaxps`) instead of
  /// the NaN-propagating sequence.
  bool noNaNs;

  SemiringBuilder(Semiring semiring, Type type, bool noNaNs = false)
      : semiring(semiring), type(type), isFloat(isa<FloatType>(type)),
        noNaNs(noNaNs) {}

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
    // NaN propagates, as torch.max does, unless there is none.
    auto extremum = arith::FastMathFlagsAttr::get(
        b.getContext(), noNaNs ? arith::FastMathFlags::nnan |
                                     arith::FastMathFlags::nsz
                               : arith::FastMathFlags::none);
    switch (semiring) {
    case Semiring::PlusTimes:
      return isFloat ? arith::AddFOp::create(b, loc, acc, term, contract)
                           .getResult()
                     : arith::AddIOp::create(b, loc, acc, term).getResult();
    case Semiring::Max:
    case Semiring::MaxTimes:
    case Semiring::Log:
      return isFloat
                 ? arith::MaximumFOp::create(b, loc, acc, term, extremum)
                       .getResult()
                 : arith::MaxSIOp::create(b, loc, acc, term).getResult();
    case Semiring::Min:
      return isFloat
                 ? arith::MinimumFOp::create(b, loc, acc, term, extremum)
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

/// The linalg ops of one einsum over a semiring: one generic of ⊕ over ⊗
/// (three for `log`), and the faster forms that are exact where they apply.
struct SemiringLowering {
  Location loc;
  const EinsumResolution &res;
  ArrayRef<Value> inputs;
  /// The inputs' indexing maps (over all loops), then the output's.
  ArrayRef<AffineMap> maps;
  AffineMap outputMap;
  ArrayRef<utils::IteratorType> iterators;
  Type accType;
  ArrayRef<Value> dynamicSizes;

  Value build(OpBuilder &b, Semiring semiring) const {
    bool isFloat = isa<FloatType>(accType);
    if (semiring == Semiring::Log && canScaleLog() && isComputeBound())
      return buildScaledLog(b);
    if (isFloat && isComputeBound() &&
        (semiring == Semiring::Max || semiring == Semiring::Min ||
         semiring == Semiring::MaxTimes))
      return buildCheckedExtremum(b, semiring);
    return buildExact(b, semiring);
  }

private:
  Value emptyOutput(OpBuilder &b, Type type) const {
    return tensor::EmptyOp::create(b, loc, res.outputShape, type,
                                   dynamicSizes);
  }

  static Value fill(OpBuilder &b, Location loc, TypedAttr value,
                    Value empty) {
    Value constant = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, constant, empty).getResult(0);
  }

  /// Products where a faster form pays for its extra passes over the
  /// operands: two or more inputs, a sum, and (where sizes are static) at
  /// least 8 terms per input element.
  bool isComputeBound() const {
    if (inputs.size() < 2 || res.numReductionDims() == 0)
      return false;
    std::optional<uint64_t> points = res.iterationCount();
    if (!points)
      return true;
    uint64_t elements = 0;
    for (Value input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      if (!type.hasStaticShape())
        return true;
      elements += type.getNumElements();
    }
    return *points / 8 >= elements;
  }

  /// One generic of ⊕ over ⊗ into `init`; without reductions (`init` is
  /// then not read), of ⊗ alone.
  Value buildGeneric(OpBuilder &b, const SemiringBuilder &ops,
                     ValueRange genericInputs, Value init) const {
    bool sums = res.numReductionDims() != 0;
    return linalg::GenericOp::create(
               b, loc, init.getType(), genericInputs, init, maps, iterators,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value term = ops.product(nb, nl, args.drop_back());
                 linalg::YieldOp::create(
                     nb, nl,
                     sums ? ops.sum(nb, nl, args.back(), term) : term);
               })
        .getResult(0);
  }

  /// The definition: one generic; for `log`, the maximum M of the terms
  /// (max-plus), the sum of exp(term - M), then M + log(sum). Without
  /// reductions every element is one term (a transpose, a product of
  /// elements), written as it is: no fill of the output to read back and
  /// add to (a transpose wrote the output twice and read it once), and no
  /// 0 + -0 turning a negative zero positive.
  Value buildExact(OpBuilder &b, Semiring semiring) const {
    Value empty = emptyOutput(b, accType);
    if (res.numReductionDims() == 0)
      return buildGeneric(b, SemiringBuilder(semiring, accType), inputs,
                          empty);
    Semiring first = semiring == Semiring::Log ? Semiring::Max : semiring;
    SemiringBuilder firstOps(first, accType);
    Value result = buildGeneric(b, firstOps, inputs,
                                fill(b, loc, firstOps.getSumIdentity(b), empty));
    if (semiring != Semiring::Log)
      return result;

    SemiringBuilder ops(semiring, accType);
    SmallVector<Value> withMax(inputs);
    withMax.push_back(result);
    SmallVector<AffineMap> mapsWithMax(maps.begin(), maps.end() - 1);
    mapsWithMax.push_back(outputMap);
    mapsWithMax.push_back(outputMap);
    auto sums = linalg::GenericOp::create(
        b, loc, empty.getType(), withMax,
        fill(b, loc, b.getZeroAttr(accType), empty), mapsWithMax, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value term = ops.product(nb, nl, args.drop_back(2));
          Value max = args[args.size() - 2];
          // exp(term - M): 0 where the term is M (infinities too, where
          // the difference is NaN), never the exponential of a large value.
          Value same = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OEQ, term, max);
          Value shifted = arith::SelectOp::create(
              nb, nl, same,
              arith::ConstantOp::create(nb, nl, nb.getZeroAttr(accType)),
              arith::SubFOp::create(nb, nl, term, max));
          Value e = math::ExpOp::create(nb, nl, shifted);
          linalg::YieldOp::create(
              nb, nl, arith::AddFOp::create(nb, nl, args.back(), e).getResult());
        });
    return mapOutput(b, {result, sums.getResult(0)}, {},
                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                       Value log = math::LogOp::create(nb, nl, args[1]);
                       return arith::AddFOp::create(nb, nl, args[0], log)
                           .getResult();
                     });
  }

  /// An elementwise generic over the output's loops: `outputs` indexed like
  /// the output, `projected` by the given maps.
  Value mapOutput(OpBuilder &b, ArrayRef<Value> outputs,
                  ArrayRef<std::pair<Value, AffineMap>> projected,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body)
      const {
    unsigned rank = res.numOutputDims();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    SmallVector<Value> operands(outputs);
    SmallVector<AffineMap> genericMaps(outputs.size(), id);
    for (auto [value, map] : projected) {
      operands.push_back(value);
      genericMaps.push_back(map);
    }
    genericMaps.push_back(id);
    Value init = emptyOutput(b, accType);
    return linalg::GenericOp::create(
               b, loc, init.getType(), operands, init, genericMaps,
               SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(nb, nl, body(nb, nl, args));
               })
        .getResult(0);
  }

  /// The OR over all elements of `value` of `bitsOf(element)` (an i32).
  Value reduceBits(OpBuilder &b, Value value,
                   function_ref<Value(OpBuilder &, Location, Value)> bitsOf)
      const {
    unsigned rank = cast<RankedTensorType>(value.getType()).getRank();
    Type i32 = b.getI32Type();
    Value init = fill(b, loc, b.getI32IntegerAttr(0),
                      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i32));
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, {}, b.getContext());
    Value bits =
        linalg::GenericOp::create(
            b, loc, init.getType(), value, init,
            ArrayRef<AffineMap>{id, scalar},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::reduction),
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nl,
                  arith::OrIOp::create(nb, nl, args[1],
                                       bitsOf(nb, nl, args[0]))
                      .getResult());
            })
            .getResult(0);
    return tensor::ExtractOp::create(b, loc, bits, ValueRange{});
  }

  /// `condition ? bit : 0` as an i32.
  static Value bitIf(OpBuilder &b, Location loc, Value condition,
                     int32_t bit) {
    return arith::SelectOp::create(
        b, loc, condition,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(bit)),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
  }

  Value floatConstant(OpBuilder &b, Location l, double value) const {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(accType, value));
  }

  Value infinity(OpBuilder &b, Location l, bool negative) const {
    return arith::ConstantOp::create(
        b, l,
        b.getFloatAttr(accType,
                       APFloat::getInf(
                           cast<FloatType>(accType).getFloatSemantics(),
                           negative)));
  }

  /// max, min and max_times: with a float max or min that propagates NaNs
  /// the loop body is six instructions instead of two. The operands are
  /// scanned first (a pass over each, cheap next to the product): where no
  /// term can be NaN (no NaN operand; for sums not both +inf and -inf, for
  /// products no infinity), the product runs with NaN-free max/min;
  /// otherwise with the definition.
  Value buildCheckedExtremum(OpBuilder &b, Semiring semiring) const {
    Value bits;
    for (Value input : inputs) {
      Value inputBits =
          reduceBits(b, input, [&](OpBuilder &nb, Location nl, Value x) {
            if (x.getType() != accType)
              x = arith::ExtFOp::create(nb, nl, accType, x);
            Value isNaN = arith::CmpFOp::create(
                nb, nl, arith::CmpFPredicate::UNO, x, x);
            Value isPos = arith::CmpFOp::create(
                nb, nl, arith::CmpFPredicate::OEQ, x,
                infinity(nb, nl, /*negative=*/false));
            Value isNeg = arith::CmpFOp::create(
                nb, nl, arith::CmpFPredicate::OEQ, x,
                infinity(nb, nl, /*negative=*/true));
            Value result = arith::OrIOp::create(nb, nl, bitIf(nb, nl, isNaN, 1),
                                                bitIf(nb, nl, isPos, 2));
            return arith::OrIOp::create(nb, nl, result,
                                        bitIf(nb, nl, isNeg, 4))
                .getResult();
          });
      bits = bits ? arith::OrIOp::create(b, loc, bits, inputBits).getResult()
                  : inputBits;
    }
    auto i32 = [&](int32_t v) {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    auto masked = [&](int32_t mask) {
      return arith::AndIOp::create(b, loc, bits, i32(mask)).getResult();
    };
    Value safe;
    if (semiring == Semiring::MaxTimes) {
      safe = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                   i32(0));
    } else {
      Value noNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          masked(1), i32(0));
      Value notBoth = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            masked(6), i32(6));
      safe = arith::AndIOp::create(b, loc, noNaN, notBoth);
    }
    auto ifOp = scf::IfOp::create(
        b, loc, safe,
        [&](OpBuilder &nb, Location nl) {
          SemiringBuilder ops(semiring, accType, /*noNaNs=*/true);
          Value init = fill(nb, nl, ops.getSumIdentity(nb),
                            emptyOutput(nb, accType));
          scf::YieldOp::create(nb, nl, buildGeneric(nb, ops, inputs, init));
        },
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, buildExact(nb, semiring));
        });
    return ifOp.getResult(0);
  }

  /// The scaled form of `log` applies to two float operands without
  /// repeated labels or broadcast axes.
  bool canScaleLog() const {
    if (inputs.size() != 2 || !(accType.isF32() || accType.isF64()))
      return false;
    return llvm::all_of(res.operands, [](const EinsumOperandMap &map) {
      return !map.dims.empty() && map.diagonalGroups().empty() &&
             llvm::none_of(map.broadcast, [](bool b) { return b; });
    });
  }

  /// `m` where it is finite, else 0.
  Value finiteOrZero(OpBuilder &b, Location l, Value m) const {
    Value isFinite = arith::CmpFOp::create(
        b, l, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, l, m),
        infinity(b, l, /*negative=*/false));
    return arith::SelectOp::create(b, l, isFinite, m,
                                   floatConstant(b, l, 0.0));
  }

  /// The log semiring as a GEMM: with mA the maximum of A over its summed
  /// axes and mB that of B,
  ///   log sum_k exp(a + b) = mA + mB + log sum_k exp(a - mA) exp(b - mB),
  /// a plus-times product of operands in [0, 1] that runs at GEMM speed,
  /// with exponentials of the operands only (no exp per term) and never of
  /// a positive value. The terms that underflow are each below 2^-126; where
  /// the product S is at least `threshold` their sum is below K * 2^-126 /
  /// threshold of it (1e-14 relative for K = 1000), so the result is
  /// exact to rounding. Where S is below it (a sum whose largest terms
  /// underflowed: operands spread over more than ~55 in log space), and
  /// for infinities and NaNs, the whole result is computed by the
  /// definition instead (a branch at run time).
  Value buildScaledLog(OpBuilder &b) const {
    MLIRContext *ctx = b.getContext();
    unsigned numOut = res.numOutputDims();
    SmallVector<Value> scaled, maxima;
    SmallVector<AffineMap> maximumMaps;
    for (auto [input, map] : llvm::zip(inputs, res.operands)) {
      auto type = cast<RankedTensorType>(input.getType());
      unsigned rank = type.getRank();
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(b, loc, input);
      SmallVector<OpFoldResult> keptSizes;
      SmallVector<AffineExpr> kept, keptInOutput;
      SmallVector<utils::IteratorType> types;
      for (auto [axis, dim] : llvm::enumerate(map.dims)) {
        bool summed = dim >= numOut;
        types.push_back(summed ? utils::IteratorType::reduction
                               : utils::IteratorType::parallel);
        if (summed)
          continue;
        keptSizes.push_back(sizes[axis]);
        kept.push_back(getAffineDimExpr(axis, ctx));
        keptInOutput.push_back(getAffineDimExpr(dim, ctx));
      }
      AffineMap id = b.getMultiDimIdentityMap(rank);
      AffineMap keptMap = AffineMap::get(rank, 0, kept, ctx);
      // The maximum over the summed axes.
      Value maxInit =
          fill(b, loc, SemiringBuilder(Semiring::Max, accType).getSumIdentity(b),
               tensor::EmptyOp::create(b, loc, keptSizes, accType));
      Value maximum =
          linalg::GenericOp::create(
              b, loc, maxInit.getType(), input, maxInit,
              ArrayRef<AffineMap>{id, keptMap}, types,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value x = args[0];
                if (x.getType() != accType)
                  x = arith::ExtFOp::create(nb, nl, accType, x);
                linalg::YieldOp::create(
                    nb, nl,
                    arith::MaximumFOp::create(nb, nl, args[1], x).getResult());
              })
              .getResult(0);
      // exp(x - max), in [0, 1].
      Value scaledInit = tensor::EmptyOp::create(b, loc, sizes, accType);
      scaled.push_back(
          linalg::GenericOp::create(
              b, loc, scaledInit.getType(), ValueRange{input, maximum},
              scaledInit, ArrayRef<AffineMap>{id, keptMap, id},
              SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value x = args[0];
                if (x.getType() != accType)
                  x = arith::ExtFOp::create(nb, nl, accType, x);
                Value shifted = arith::SubFOp::create(
                    nb, nl, x, finiteOrZero(nb, nl, args[1]));
                linalg::YieldOp::create(
                    nb, nl, math::ExpOp::create(nb, nl, shifted).getResult());
              })
              .getResult(0));
      maxima.push_back(maximum);
      maximumMaps.push_back(AffineMap::get(numOut, 0, keptInOutput, ctx));
    }

    SemiringBuilder plusTimes(Semiring::PlusTimes, accType);
    Value sums = buildGeneric(
        b, plusTimes, scaled,
        fill(b, loc, b.getZeroAttr(accType), emptyOutput(b, accType)));
    Value fast = mapOutput(
        b, {sums}, {{maxima[0], maximumMaps[0]}, {maxima[1], maximumMaps[1]}},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value log = math::LogOp::create(nb, nl, args[0]);
          Value shift =
              arith::AddFOp::create(nb, nl, finiteOrZero(nb, nl, args[1]),
                                    finiteOrZero(nb, nl, args[2]));
          return arith::AddFOp::create(nb, nl, log, shift).getResult();
        });
    double threshold = accType.isF32() ? 1e-24 : 1e-280;
    Value inexact =
        reduceBits(b, sums, [&](OpBuilder &nb, Location nl, Value s) {
          Value large = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OGE, s,
              floatConstant(nb, nl, threshold));
          Value finite = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OLT, s,
              infinity(nb, nl, /*negative=*/false));
          Value ok = arith::AndIOp::create(nb, nl, large, finite);
          Value bad = arith::XOrIOp::create(
              nb, nl, ok,
              arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true)));
          return bitIf(nb, nl, bad, 1);
        });
    Value anyInexact = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, inexact,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    auto ifOp = scf::IfOp::create(
        b, loc, anyInexact,
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, buildExact(nb, Semiring::Log));
        },
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, fast);
        });
    return ifOp.getResult(0);
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

    SemiringLowering lowering{loc,  res,        inputs,       maps,
                              outputMap, iterators, accType, dynamicSizes};
    Value result = lowering.build(rewriter, semiring);

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
