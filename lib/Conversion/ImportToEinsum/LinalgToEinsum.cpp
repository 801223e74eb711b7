//===- LinalgToEinsum.cpp - raise linalg contractions to einsum -----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// einsum-raise-linalg: a linalg op on tensors whose structure is a binary
// contraction (projected-permutation maps, a multiply-add body) becomes an
// einsum.contract, so the path search and the schedule apply to it. The match
// is structural: named ops and linalg.generic alike.
//
//===----------------------------------------------------------------------===//

#include "einsum/Conversion/ImportToEinsum/ImportToEinsum.h"

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMRAISELINALGPASS
#include "einsum/Conversion/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

/// Is `block` exactly `yield(add(init, mul(in0, in1)))`, operands of the add
/// and of the mul in either order, with the float or the integer pair?
static bool isMultiplyAddBody(Block &block) {
  if (block.getNumArguments() != 3 || block.getOperations().size() != 3)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(block.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  Operation *add = yield.getOperand(0).getDefiningOp();
  Operation *mul = &block.front();
  if (!add || add->getBlock() != &block || add == mul)
    return false;
  bool isFloat = isa<arith::AddFOp>(add) && isa<arith::MulFOp>(mul);
  bool isInt = isa<arith::AddIOp>(add) && isa<arith::MulIOp>(mul);
  if (!isFloat && !isInt)
    return false;
  // Fast-math flags other than the defaults would change the results'
  // rounding the einsum promises; leave such ops alone.
  if (isFloat && (cast<arith::AddFOp>(add).getFastmath() !=
                      arith::FastMathFlags::none ||
                  cast<arith::MulFOp>(mul).getFastmath() !=
                      arith::FastMathFlags::none))
    return false;
  auto isPair = [](Operation *op, Value x, Value y) {
    return (op->getOperand(0) == x && op->getOperand(1) == y) ||
           (op->getOperand(0) == y && op->getOperand(1) == x);
  };
  return isPair(mul, block.getArgument(0), block.getArgument(1)) &&
         isPair(add, block.getArgument(2), mul->getResult(0));
}

std::optional<std::string>
mlir::einsum::getContractionEquation(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.hasIndexSemantics() || op.getNumLoops() > 52 ||
      op->getNumRegions() != 1 || op->getRegion(0).getBlocks().size() != 1)
    return std::nullopt;
  // One element type, one the einsum dialect supports.
  Type elementType;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      return std::nullopt;
    if (!elementType)
      elementType = type.getElementType();
    if (type.getElementType() != elementType)
      return std::nullopt;
  }
  if (!getElementTypeName(elementType) || !isMultiplyAddBody(*op.getBlock()))
    return std::nullopt;

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned numLoops = op.getNumLoops();
  llvm::SmallBitVector inInput(numLoops), inOutput(numLoops);
  for (auto [i, map] : llvm::enumerate(maps)) {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
    for (AffineExpr expr : map.getResults()) {
      unsigned dim = cast<AffineDimExpr>(expr).getPosition();
      (i < 2 ? inInput : inOutput).set(dim);
    }
  }
  // Loops in the output are parallel, the others reductions; every loop is
  // in some input (a reduction over no operand multiplies by its extent,
  // which no equation says).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < numLoops; ++d) {
    if (!inInput.test(d))
      return std::nullopt;
    bool parallel = iterators[d] == utils::IteratorType::parallel;
    if (parallel != inOutput.test(d))
      return std::nullopt;
  }
  // Loop d<i> is the i-th letter: a..z, then A..Z.
  static constexpr llvm::StringLiteral kLetters =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string equation;
  for (auto [i, map] : llvm::enumerate(maps)) {
    if (i == 1)
      equation += ',';
    if (i == 2)
      equation += "->";
    for (AffineExpr expr : map.getResults())
      equation += kLetters[cast<AffineDimExpr>(expr).getPosition()];
  }
  return equation;
}

/// Is `value` zero everywhere: a linalg.fill of zero or a zero splat?
static bool isZeroTensor(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.value(), m_AnyZeroFloat()) ||
           matchPattern(fill.value(), m_Zero());
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

namespace {
struct RaiseContraction
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<std::string> equation = getContractionEquation(op);
    if (!equation)
      return rewriter.notifyMatchFailure(op, "not a binary contraction");
    Location loc = op.getLoc();
    Value init = op.getDpsInitOperand(0)->get();
    SmallVector<Value, 2> inputs = {op.getDpsInputOperand(0)->get(),
                                    op.getDpsInputOperand(1)->get()};
    // Sizes linalg leaves to run time may still contradict at compile time
    // for the einsum (a static 1 against a static 3 of one label).
    Type type = op->getResult(0).getType();
    FailureOr<RankedTensorType> inferred = inferContractResultType(
        *equation, ValueRange(inputs).getTypes(), nullptr);
    if (failed(inferred) ||
        !tensor::CastOp::areCastCompatible(*inferred, type))
      return rewriter.notifyMatchFailure(op, "sizes the einsum refuses");
    Value result = ContractOp::create(rewriter, loc, *inferred,
                                      rewriter.getStringAttr(*equation),
                                      inputs, /*semiring=*/nullptr)
                       .getResult();
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    // linalg accumulates into its init: keep a nonzero one.
    if (!isZeroTensor(init))
      result = linalg::AddOp::create(rewriter, loc, ValueRange{result, init},
                                     ValueRange{init})
                   ->getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EinsumRaiseLinalgPass
    : einsum::impl::EinsumRaiseLinalgPassBase<EinsumRaiseLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    if (onlyWithoutEinsumOps) {
      bool hasEinsum = getOperation()
                           ->walk([](Operation *op) {
                             // (Unregistered ops have no dialect object.)
                             return op->getName().getDialectNamespace() ==
                                            EinsumDialect::getDialectNamespace()
                                        ? WalkResult::interrupt()
                                        : WalkResult::advance();
                           })
                           .wasInterrupted();
      if (hasEinsum)
        return;
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseContraction>(&getContext());
    // One rewrite per op, no folding of the rest of the module: the
    // pipeline's canonicalization removes the dead fills.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};
} // namespace
