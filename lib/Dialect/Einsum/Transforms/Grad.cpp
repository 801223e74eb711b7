//===- Grad.cpp - vector-Jacobian products of einsum functions -----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Reverse-mode differentiation of functions of einsum ops. The gradient of
// y = einsum(x_0, ..., x_n) with respect to x_i, given dL/dy = g, is
//
//   plus_times:  einsum(g, x_j (j != i), ones, identities -> labels of x_i)
//   other rings: sum over the iteration space of g * weight(term, y) * dterm
//
// (see the pass description in Passes.td for the weights).
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/Passes.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMGRADPASS
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

namespace {
/// The letter of the d-th name of a gradient equation.
static char letter(unsigned d) { return labelToChar(static_cast<int>(d)); }

/// A tensor of `sizes` filled with `value`.
static Value filled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                    Type elementType, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value constant =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, constant, empty).getResult(0);
}

/// The n x n identity matrix.
static Value identity(OpBuilder &b, Location loc, OpFoldResult n,
                      Type elementType) {
  Value empty = tensor::EmptyOp::create(b, loc, {n, n}, elementType);
  AffineMap id = b.getMultiDimIdentityMap(2);
  return linalg::GenericOp::create(
             b, loc, empty.getType(), ValueRange{}, empty,
             ArrayRef<AffineMap>{id},
             SmallVector<utils::IteratorType>(2,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Value i = linalg::IndexOp::create(nb, nl, 0);
               Value j = linalg::IndexOp::create(nb, nl, 1);
               Value same = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::eq, i, j);
               Value one = arith::ConstantOp::create(
                   nb, nl, nb.getFloatAttr(elementType, 1.0));
               Value zero = arith::ConstantOp::create(
                   nb, nl, nb.getFloatAttr(elementType, 0.0));
               linalg::YieldOp::create(
                   nb, nl, arith::SelectOp::create(nb, nl, same, one, zero)
                               .getResult());
             })
      .getResult(0);
}

/// Builds the gradient of one einsum op with respect to its operand `wrt`.
class ContractGradient {
public:
  ContractGradient(ContractOp op, Value gradOutput)
      : op(op), res(op.getResolution()), gradOutput(gradOutput),
        loc(op.getLoc()) {}

  FailureOr<Value> build(OpBuilder &b, unsigned wrt) {
    // Gradient equations name every loop dim with a letter.
    if (res.numDims() > static_cast<unsigned>(kNumLabels))
      return op.emitOpError("einsum-grad: the gradient needs more than ")
             << kNumLabels << " labels (" << res.numDims()
             << " dims, ellipsis dims included)";
    Value operand = op.getInputs()[wrt];
    auto type = cast<RankedTensorType>(operand.getType());
    sizes = tensor::getMixedSizes(b, loc, operand);
    const EinsumOperandMap &map = res.operands[wrt];
    // The operand's distinct dims, in order of first appearance, without
    // its broadcast axes.
    unique.clear();
    for (auto [axis, dim] : llvm::enumerate(map.dims))
      if (!map.broadcast[axis] && !llvm::is_contained(unique, dim))
        unique.push_back(dim);

    Semiring semiring = op.getSemiringOrDefault();
    if (semiring == Semiring::Bool)
      return op.emitOpError("einsum-grad: the bool semiring has no gradient");
    // The plain gradient is one einsum, in the operand's layout already.
    if (semiring == Semiring::PlusTimes)
      return buildPlusTimes(b, wrt, type.getElementType());
    if (!type.getElementType().isF32() && !type.getElementType().isF64())
      return op.emitOpError("einsum-grad: gradients of the ")
             << stringifySemiring(semiring)
             << " semiring need f32 or f64 operands, not "
             << type.getElementType();
    Value gradUnique =
        buildMarginals(b, wrt, semiring, type.getElementType());
    return embed(b, wrt, gradUnique, type.getElementType());
  }

private:
  /// Where loop dim `d` has its size on operand `wrt`'s axes.
  OpFoldResult sizeOf(unsigned wrt, unsigned d) const {
    const EinsumOperandMap &map = res.operands[wrt];
    for (auto [axis, dim] : llvm::enumerate(map.dims))
      if (dim == d && !map.broadcast[axis])
        return sizes[axis];
    llvm_unreachable("a dim of the operand");
  }

  /// Output letters of operand `wrt`'s axes in an equation that names loop
  /// dim d `letter(d)`: a repeated dim's later axes and broadcast axes take
  /// new letters from `next`, with the identity matrices and the ones axes
  /// they need.
  struct Layout {
    std::string output;
    /// (first letter, new letter, size) per repeated axis.
    SmallVector<std::tuple<char, char, OpFoldResult>> diagonals;
    /// Letters and sizes of the ones operand.
    std::string onesTerm;
    SmallVector<OpFoldResult> onesSizes;
  };

  FailureOr<Layout> layout(OpBuilder &b, unsigned wrt, unsigned &next) {
    const EinsumOperandMap &map = res.operands[wrt];
    Layout result;
    SmallVector<unsigned> seen;
    for (auto [axis, dim] : llvm::enumerate(map.dims)) {
      if (next >= static_cast<unsigned>(kNumLabels))
        return op.emitOpError("einsum-grad: the gradient needs more than ")
               << kNumLabels << " labels";
      if (map.broadcast[axis]) {
        char c = letter(next++);
        result.output += c;
        result.onesTerm += c;
        result.onesSizes.push_back(b.getIndexAttr(1));
        continue;
      }
      if (llvm::is_contained(seen, dim)) {
        char c = letter(next++);
        result.output += c;
        result.diagonals.emplace_back(letter(dim), c, sizeOf(wrt, dim));
        continue;
      }
      seen.push_back(dim);
      result.output += letter(dim);
    }
    return result;
  }

  /// One einsum: the output gradient, the other operands, ones for the
  /// dims only operand `wrt` has and for its broadcast axes, identities for
  /// its repeated axes.
  FailureOr<Value> buildPlusTimes(OpBuilder &b, unsigned wrt,
                                  Type elementType) {
    unsigned next = res.numDims();
    FailureOr<Layout> out = layout(b, wrt, next);
    if (failed(out))
      return failure();
    SmallVector<std::string> terms;
    SmallVector<Value> operands;
    // Dims some other term has at full size.
    llvm::SmallDenseSet<unsigned> covered;
    std::string gradTerm;
    for (unsigned d = 0; d < res.numOutputDims(); ++d) {
      gradTerm += letter(d);
      covered.insert(d);
    }
    terms.push_back(gradTerm);
    operands.push_back(gradOutput);
    for (auto [j, map] : llvm::enumerate(res.operands)) {
      if (j == wrt)
        continue;
      std::string term;
      for (auto [axis, dim] : llvm::enumerate(map.dims)) {
        term += letter(dim);
        if (!map.broadcast[axis])
          covered.insert(dim);
      }
      terms.push_back(term);
      operands.push_back(op.getInputs()[j]);
    }
    for (unsigned d : unique)
      if (!covered.contains(d)) {
        out->onesTerm += letter(d);
        out->onesSizes.push_back(sizeOf(wrt, d));
      }
    return contractInto(b, *out, terms, operands, elementType);
  }

  /// The plus-times einsum of `terms`/`operands`, the ones and identity
  /// operands `out` needs, into `out`'s layout.
  Value contractInto(OpBuilder &b, const Layout &out,
                     SmallVector<std::string> &terms,
                     SmallVector<Value> &operands, Type elementType) const {
    if (!out.onesTerm.empty()) {
      terms.push_back(out.onesTerm);
      operands.push_back(filled(b, loc, out.onesSizes, elementType, 1.0));
    }
    for (auto [first, repeated, size] : out.diagonals) {
      terms.push_back(std::string{first, repeated});
      operands.push_back(identity(b, loc, size, elementType));
    }
    std::string equation = llvm::join(terms, ",") + "->" + out.output;
    return ContractOp::create(b, loc, b.getStringAttr(equation), operands,
                              /*semiring=*/nullptr)
        .getResult();
  }

  /// One generic over the iteration space: the output gradient times each
  /// term's weight (and the derivative of the term), summed onto operand
  /// `wrt`'s distinct dims.
  Value buildMarginals(OpBuilder &b, unsigned wrt, Semiring semiring,
                       Type elementType) {
    MLIRContext *ctx = b.getContext();
    unsigned numLoops = res.numDims();
    SmallVector<AffineMap> maps;
    for (const EinsumOperandMap &map : res.operands) {
      SmallVector<AffineExpr> exprs;
      for (auto [axis, dim] : llvm::enumerate(map.dims))
        exprs.push_back(map.broadcast[axis] ? getAffineConstantExpr(0, ctx)
                                            : getAffineDimExpr(dim, ctx));
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outputExprs;
    for (unsigned d = 0; d < res.numOutputDims(); ++d)
      outputExprs.push_back(getAffineDimExpr(d, ctx));
    AffineMap outputMap = AffineMap::get(numLoops, 0, outputExprs, ctx);
    maps.push_back(outputMap); // the result
    maps.push_back(outputMap); // its gradient
    SmallVector<AffineExpr> uniqueExprs;
    SmallVector<OpFoldResult> uniqueSizes;
    for (unsigned d : unique) {
      uniqueExprs.push_back(getAffineDimExpr(d, ctx));
      uniqueSizes.push_back(sizeOf(wrt, d));
    }
    maps.push_back(AffineMap::get(numLoops, 0, uniqueExprs, ctx));
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::reduction);
    for (unsigned d : unique)
      iterators[d] = utils::IteratorType::parallel;

    SmallVector<Value> inputs(op.getInputs());
    inputs.push_back(op.getResult());
    inputs.push_back(gradOutput);
    Value init = filled(b, loc, uniqueSizes, elementType, 0.0);
    unsigned numInputs = op.getInputs().size();
    return linalg::GenericOp::create(
               b, loc, init.getType(), inputs, init, maps, iterators,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 ValueRange values = args.take_front(numInputs);
                 Value result = args[numInputs];
                 Value grad = args[numInputs + 1];
                 Value acc = args.back();
                 bool product = semiring == Semiring::MaxTimes;
                 auto combine = [&](Value x, Value y) -> Value {
                   if (product)
                     return arith::MulFOp::create(nb, nl, x, y);
                   return arith::AddFOp::create(nb, nl, x, y);
                 };
                 Value term = values[0];
                 for (Value v : values.drop_front())
                   term = combine(term, v);
                 Value zero = arith::ConstantOp::create(
                     nb, nl, nb.getFloatAttr(elementType, 0.0));
                 Value weight;
                 if (semiring == Semiring::Log) {
                   // exp(term - result): 0 where the result is -inf (no
                   // term contributes).
                   Value negInf = arith::ConstantOp::create(
                       nb, nl,
                       nb.getFloatAttr(
                           elementType,
                           APFloat::getInf(
                               cast<FloatType>(elementType).getFloatSemantics(),
                               /*Negative=*/true)));
                   Value empty = arith::CmpFOp::create(
                       nb, nl, arith::CmpFPredicate::OEQ, result, negInf);
                   Value e = math::ExpOp::create(
                       nb, nl, arith::SubFOp::create(nb, nl, term, result));
                   weight = arith::SelectOp::create(nb, nl, empty, zero, e);
                 } else {
                   Value one = arith::ConstantOp::create(
                       nb, nl, nb.getFloatAttr(elementType, 1.0));
                   Value chosen = arith::CmpFOp::create(
                       nb, nl, arith::CmpFPredicate::OEQ, term, result);
                   Value derivative = one;
                   if (product) {
                     // d(term)/d(operand wrt): the product of the other
                     // operands' values (a tensor passed as two operands
                     // gets both gradients, added by the caller).
                     for (auto [j, v] : llvm::enumerate(values))
                       if (j != wrt)
                         derivative = arith::MulFOp::create(nb, nl,
                                                            derivative, v);
                   }
                   weight = arith::SelectOp::create(nb, nl, chosen,
                                                    derivative, zero);
                 }
                 Value contribution =
                     arith::MulFOp::create(nb, nl, grad, weight);
                 linalg::YieldOp::create(
                     nb, nl,
                     arith::AddFOp::create(nb, nl, acc, contribution)
                         .getResult());
               })
        .getResult(0);
  }

  /// The gradient over operand `wrt`'s distinct dims placed in its layout:
  /// onto the diagonal of repeated labels, size-1 broadcast axes added.
  FailureOr<Value> embed(OpBuilder &b, unsigned wrt, Value gradUnique,
                         Type elementType) {
    unsigned next = res.numDims();
    FailureOr<Layout> out = layout(b, wrt, next);
    if (failed(out))
      return failure();
    std::string uniqueTerm;
    for (unsigned d : unique)
      uniqueTerm += letter(d);
    if (out->output == uniqueTerm)
      return gradUnique;
    SmallVector<std::string> terms{uniqueTerm};
    SmallVector<Value> operands{gradUnique};
    return contractInto(b, *out, terms, operands, elementType);
  }

  ContractOp op;
  EinsumResolution res;
  Value gradOutput;
  Location loc;
  SmallVector<OpFoldResult> sizes;
  SmallVector<unsigned> unique;
};

struct EinsumGradPass : einsum::impl::EinsumGradPassBase<EinsumGradPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (!function.empty() ? func.getSymName() == function
                            : hasContract(func))
        functions.push_back(func);
    }
    if (!function.empty() && functions.empty()) {
      module.emitError("einsum-grad: no function named '") << function << "'";
      return signalPassFailure();
    }
    for (func::FuncOp func : functions)
      if (failed(differentiate(func)))
        return signalPassFailure();
  }

private:
  static bool hasContract(func::FuncOp func) {
    return func.walk([](ContractOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  }

  LogicalResult differentiate(func::FuncOp func) {
    FunctionType type = func.getFunctionType();
    if (type.getNumResults() != 1 ||
        !isa<RankedTensorType>(type.getResult(0)) ||
        !func.getBody().hasOneBlock())
      return func.emitOpError("einsum-grad: needs one block and one tensor "
                              "result, not ")
             << type;
    SmallVector<unsigned> arguments(wrt.begin(), wrt.end());
    if (arguments.empty())
      for (unsigned i = 0; i < type.getNumInputs(); ++i)
        arguments.push_back(i);
    for (unsigned i : arguments) {
      if (i >= type.getNumInputs())
        return func.emitOpError("einsum-grad: wrt=")
               << i << " but the function has " << type.getNumInputs()
               << " arguments";
      auto argType = dyn_cast<RankedTensorType>(type.getInput(i));
      if (!argType || !isa<FloatType>(argType.getElementType()))
        return func.emitOpError("einsum-grad: argument ")
               << i << " is not a float tensor (" << type.getInput(i) << ")";
    }

    OpBuilder b(func);
    b.setInsertionPointAfter(func);
    SmallVector<Type> inputs(type.getInputs());
    inputs.push_back(type.getResult(0));
    SmallVector<Type> results;
    for (unsigned i : arguments)
      results.push_back(type.getInput(i));
    auto grad = func::FuncOp::create(
        b, func.getLoc(), (func.getSymName() + "_grad").str(),
        b.getFunctionType(inputs, results));
    grad.setVisibility(func.getVisibility());
    if (func->hasAttr("llvm.emit_c_interface"))
      grad->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    Block *body = grad.addEntryBlock();
    b.setInsertionPointToStart(body);

    // The forward computation.
    IRMapping mapping;
    for (auto [from, to] :
         llvm::zip(func.getArguments(), body->getArguments()))
      mapping.map(from, to);
    SmallVector<Operation *> forward;
    Value result;
    for (Operation &op : func.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        result = mapping.lookup(ret.getOperand(0));
        break;
      }
      forward.push_back(b.clone(op, mapping));
    }

    // Values that depend on a differentiated argument.
    llvm::SetVector<Value> active;
    for (unsigned i : arguments)
      active.insert(body->getArgument(i));
    for (Operation *op : forward) {
      // Operands, and values its regions capture.
      bool usesActive = op->walk([&](Operation *user) {
                              return llvm::any_of(user->getOperands(),
                                                  [&](Value v) {
                                                    return active.contains(v);
                                                  })
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            }).wasInterrupted();
      if (usesActive)
        active.insert(op->getResults().begin(), op->getResults().end());
    }

    DenseMap<Value, Value> adjoint;
    auto accumulate = [&](Value value, Value gradient) {
      auto it = adjoint.find(value);
      if (it == adjoint.end()) {
        adjoint[value] = gradient;
        return;
      }
      it->second = arith::AddFOp::create(b, gradient.getLoc(), it->second,
                                         gradient);
    };
    if (active.contains(result))
      adjoint[result] = body->getArguments().back();

    for (Operation *op : llvm::reverse(forward)) {
      // Ops whose results no gradient reaches are left alone.
      if (llvm::none_of(op->getResults(),
                        [&](Value r) { return adjoint.contains(r); }))
        continue;
      // The ops differentiated below have one result.
      if (op->getNumResults() != 1)
        return op->emitOpError("einsum-grad: cannot differentiate this op");
      Value gradient = adjoint.lookup(op->getResult(0));
      b.setInsertionPointToEnd(body);
      if (auto contract = dyn_cast<ContractOp>(op)) {
        ContractGradient builder(contract, gradient);
        for (auto [i, input] : llvm::enumerate(contract.getInputs())) {
          if (!active.contains(input))
            continue;
          FailureOr<Value> g = builder.build(b, i);
          if (failed(g))
            return failure();
          accumulate(input, *g);
        }
        continue;
      }
      if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
        Value input = op->getOperand(0);
        if (!active.contains(input))
          continue;
        Type inputType = input.getType();
        Value converted =
            isa<arith::ExtFOp>(op)
                ? arith::TruncFOp::create(b, op->getLoc(), inputType, gradient)
                      .getResult()
                : arith::ExtFOp::create(b, op->getLoc(), inputType, gradient)
                      .getResult();
        accumulate(input, converted);
        continue;
      }
      return op->emitOpError("einsum-grad: cannot differentiate this op");
    }

    b.setInsertionPointToEnd(body);
    SmallVector<Value> gradients;
    for (unsigned i : arguments) {
      Value argument = body->getArgument(i);
      auto it = adjoint.find(argument);
      if (it != adjoint.end()) {
        gradients.push_back(it->second);
        continue;
      }
      // Not on the path to the result: zeros.
      auto argType = cast<RankedTensorType>(argument.getType());
      gradients.push_back(filled(b, func.getLoc(),
                                 tensor::getMixedSizes(b, func.getLoc(),
                                                       argument),
                                 argType.getElementType(), 0.0));
    }
    func::ReturnOp::create(b, func.getLoc(), gradients);

    // The forward ops no gradient needs.
    for (Operation *op : llvm::reverse(forward))
      if (op->use_empty() && isPure(op))
        op->erase();
    return success();
  }
};
} // namespace
