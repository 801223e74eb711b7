//===- FixOpenMPIABI.cpp - OpenMPI ABI corrections --------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMFIXOPENMPIABIPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

namespace {
struct EinsumFixOpenMPIABIPass
    : einsum::impl::EinsumFixOpenMPIABIPassBase<EinsumFixOpenMPIABIPass> {
  void runOnOperation() override {
    if (failed(renameOpGlobals()))
      return signalPassFailure();
    widenSplitCommunicators();
  }

  /// ompi_mpi_sum -> ompi_mpi_op_sum, ...
  LogicalResult renameOpGlobals() {
    // MPI's predefined reduction operations (MPI 4.0, section 6.9.2).
    static constexpr llvm::StringLiteral kOps[] = {
        "max", "min",  "sum",  "prod",   "land",   "band",    "lor",
        "bor", "lxor", "bxor", "maxloc", "minloc", "replace", "no_op"};
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (llvm::StringRef op : kOps) {
      auto global = symbols.lookup<LLVM::GlobalOp>(("ompi_mpi_" + op).str());
      if (!global || !global.getRegion().empty() || global.getValue())
        continue;
      std::string right = ("ompi_mpi_op_" + op).str();
      if (symbols.lookup(right)) {
        // Both declared: the uses go to the right one.
        if (failed(SymbolTable::replaceAllSymbolUses(
                global, StringAttr::get(&getContext(), right), module)))
          return failure();
        symbols.erase(global);
        continue;
      }
      if (failed(symbols.rename(global, right)))
        return failure();
    }
    return success();
  }

  /// load i32 + sext of MPI_Comm_split's result -> load i64.
  void widenSplitCommunicators() {
    SmallVector<LLVM::LoadOp> narrowLoads;
    getOperation().walk([&](LLVM::CallOp call) {
      if (call.getCallee() != "MPI_Comm_split" || call.getNumOperands() != 4)
        return;
      Value slot = call.getOperand(3);
      for (Operation *user : slot.getUsers()) {
        auto load = dyn_cast<LLVM::LoadOp>(user);
        if (load && load.getType().isInteger(32) &&
            llvm::all_of(load->getUsers(), [](Operation *use) {
              auto sext = dyn_cast<LLVM::SExtOp>(use);
              return sext && sext.getType().isInteger(64);
            }))
          narrowLoads.push_back(load);
      }
    });
    for (LLVM::LoadOp load : narrowLoads) {
      OpBuilder b(load);
      auto wide = LLVM::LoadOp::create(b, load.getLoc(), b.getI64Type(),
                                       load.getAddr());
      for (Operation *sext : llvm::make_early_inc_range(load->getUsers())) {
        sext->getResult(0).replaceAllUsesWith(wide);
        sext->erase();
      }
      load.erase();
    }
  }
};
} // namespace
