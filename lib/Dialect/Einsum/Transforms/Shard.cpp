//===- Shard.cpp - distribute einsums over a grid of ranks ------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/Passes.h"
#include "einsum/Dialect/Einsum/Transforms/ShardingModel.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMSHARDPASS
#include "einsum/Dialect/Einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

namespace {

/// The einsums of one function in order, as the model sees them.
struct FunctionSteps {
  SmallVector<ContractOp> ops;
  std::vector<ShardingStep> steps;
  SmallVector<SmallVector<std::string>> dimNames;
  unsigned elementBytes = 4;
};

/// Whether MPI_Allreduce can sum this element type (the MPI lowering's
/// types) for this semiring.
bool hasAllReduce(ContractOp op) {
  if (op.getSemiringOrDefault() != Semiring::PlusTimes)
    return false;
  Type type = cast<RankedTensorType>(op.getResult().getType()).getElementType();
  return type.isF32() || type.isF64() || type.isInteger(32) ||
         type.isInteger(64);
}

FailureOr<FunctionSteps> collectSteps(func::FuncOp func) {
  FunctionSteps result;
  DenseMap<Operation *, int> stepOf;
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    if (!arg.hasOneUse())
      return func.emitError() << "einsum-shard: argument " << arg.getArgNumber()
                              << " has " << std::distance(arg.use_begin(),
                                                          arg.use_end())
                              << " uses; a distributed argument is the "
                                 "operand of one einsum";
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    auto contract = dyn_cast<ContractOp>(op);
    if (!contract)
      return op.emitError()
             << "einsum-shard: only einsums of the function's arguments and "
                "of each other can be distributed, not '"
             << op.getName() << "'";
    if (!contract.getResult().hasOneUse())
      return op.emitError() << "einsum-shard: the result of a distributed "
                               "einsum has one use";
    EinsumResolution resolution = contract.getResolution();
    ShardingStep step;
    step.equation = contract.getEquation().str();
    SmallVector<std::string> names;
    for (const EinsumLoopDim &dim : resolution.dims) {
      if (dim.isDynamic())
        return op.emitError() << "einsum-shard: dim '" << dim.name()
                              << "' has a dynamic size; distributed einsums "
                                 "need static shapes";
      step.dimSizes.push_back(dim.size);
      step.dimIsReduction.push_back(dim.isReduction());
      names.push_back(dim.name());
    }
    for (auto [index, operand] : llvm::enumerate(resolution.operands)) {
      // shard-partition's linalg model takes projected permutations only.
      if (!operand.diagonalGroups().empty())
        return op.emitError()
               << "einsum-shard: operand " << index
               << " has a repeated label (a diagonal); distributed einsums "
                  "take operands without repeated labels";
      if (llvm::is_contained(operand.broadcast, true))
        return op.emitError()
               << "einsum-shard: operand " << index
               << " has a size-1 axis broadcast against a larger one; "
                  "distributed einsums take operands without broadcasting";
      step.operandDims.emplace_back(operand.dims.begin(), operand.dims.end());
      Value value = contract.getInputs()[index];
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        step.producers.push_back(-1);
        continue;
      }
      auto it = stepOf.find(value.getDefiningOp());
      if (it == stepOf.end())
        return op.emitError() << "einsum-shard: operand " << index
                              << " is neither an argument nor an einsum";
      step.producers.push_back(it->second);
    }
    for (unsigned dim = 0; dim < resolution.numOutputDims(); ++dim)
      step.resultDims.push_back(dim);
    // The MPI lowering's all-reduce takes buffers of rank 1 or more: a
    // scalar result is not summed across ranks.
    step.reductionsSplittable =
        hasAllReduce(contract) && !step.resultDims.empty();
    Type type =
        cast<RankedTensorType>(contract.getResult().getType()).getElementType();
    result.elementBytes = (type.getIntOrFloatBitWidth() + 7) / 8;
    stepOf[&op] = result.steps.size();
    result.steps.push_back(std::move(step));
    result.ops.push_back(contract);
    result.dimNames.push_back(std::move(names));
  }
  return result;
}

struct EinsumShardPass
    : einsum::impl::EinsumShardPassBase<EinsumShardPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (grid.empty()) {
      module.emitError() << "einsum-shard: give the grid (grid=4 or grid=2,2)";
      return signalPassFailure();
    }
    SmallVector<int64_t> shape(grid.begin(), grid.end());
    if (shape.size() > 3 ||
        llvm::any_of(shape, [](int64_t size) { return size < 1; })) {
      module.emitError() << "einsum-shard: the grid has 1 to 3 axes of at "
                            "least one rank each";
      return signalPassFailure();
    }
    if (mpiImplementation != "OpenMPI" && mpiImplementation != "MPICH") {
      module.emitError() << "einsum-shard: unknown mpi-implementation '"
                         << mpiImplementation
                         << "' (expected OpenMPI or MPICH)";
      return signalPassFailure();
    }

    SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isDeclaration() && !func.getOps<ContractOp>().empty())
        functions.push_back(func);
    if (functions.empty())
      return;

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    SymbolTable symbols(module);
    auto gridOp = shard::GridOp::create(b, module.getLoc(), "einsum_grid",
                                        shape);
    // Private: symbol-dce drops it once the MPI lowering has used it.
    SymbolTable::setSymbolVisibility(gridOp, SymbolTable::Visibility::Private);
    symbols.insert(gridOp);
    StringRef gridName = gridOp.getSymName();
    // The MPI lowering reads the ABI from the module's DLTI map.
    module->setAttr(
        "dlti.map",
        MapAttr::get(&getContext(),
                     {DataLayoutEntryInterface(DataLayoutEntryAttr::get(
                         b.getStringAttr("MPI:Implementation"),
                         b.getStringAttr(mpiImplementation)))}));

    for (func::FuncOp func : functions)
      if (failed(annotate(func, gridName, shape)))
        return signalPassFailure();
  }

  LogicalResult annotate(func::FuncOp func, StringRef gridName,
                         ArrayRef<int64_t> shape) {
    FailureOr<FunctionSteps> collected = collectSteps(func);
    if (failed(collected))
      return failure();
    SmallVector<StepSharding> plans =
        planSharding(collected->steps, shape, collected->elementBytes);
    MLIRContext *ctx = &getContext();
    auto makeSharding = [&](OpBuilder &b, Location loc,
                            const SplitAxes &split) -> Value {
      SmallVector<shard::GridAxesAttr> axes;
      for (const SmallVector<int16_t> &list : split)
        axes.push_back(shard::GridAxesAttr::get(ctx, list));
      return shard::ShardingOp::create(b, loc, gridName, axes).getResult();
    };
    for (auto [index, op] : llvm::enumerate(collected->ops)) {
      const ShardingStep &step = collected->steps[index];
      const StepSharding &plan = plans[index];
      if (explain)
        op.emitRemark() << "einsum-shard: "
                        << describeSharding(step, plan, shape,
                                            collected->dimNames[index]);
      OpBuilder b(op);
      for (auto [operandIndex, dims] : llvm::enumerate(step.operandDims)) {
        OpOperand &operand = op->getOpOperand(operandIndex);
        Value sharding = makeSharding(b, op.getLoc(), getSplitAxes(plan, dims));
        Value annotated = shard::ShardOp::create(b, op.getLoc(), operand.get(),
                                                 sharding,
                                                 /*annotate_for_users=*/true);
        operand.set(annotated);
      }
      b.setInsertionPointAfter(op);
      Value sharding =
          makeSharding(b, op.getLoc(), getSplitAxes(plan, step.resultDims));
      Value result = op.getResult();
      auto annotated = shard::ShardOp::create(b, op.getLoc(), result, sharding,
                                              /*annotate_for_users=*/false);
      result.replaceAllUsesExcept(annotated, annotated);
    }
    return success();
  }
};

} // namespace
