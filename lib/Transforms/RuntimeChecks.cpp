//===- RuntimeChecks.cpp - checks kernels make at run time ------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// einsum-check-allocations asserts that heap allocations succeeded;
// einsum-lower-runtime-checks turns failed assertions at a function's own
// level into an error the kernel returns to its caller (through
// einsum_runtime_error), instead of an abort of the whole process.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMCHECKALLOCATIONSPASS
#define GEN_PASS_DEF_EINSUMLOWERRUNTIMECHECKSPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

/// The function a failed check calls with its message.
static constexpr StringLiteral kRuntimeErrorFunction = "einsum_runtime_error";

//===----------------------------------------------------------------------===//
// einsum-check-allocations
//===----------------------------------------------------------------------===//

namespace {
struct EinsumCheckAllocationsPass
    : einsum::impl::EinsumCheckAllocationsPassBase<
          EinsumCheckAllocationsPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation()->walk([&](memref::AllocOp op) { allocs.push_back(op); });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (type.hasStaticShape() && type.getNumElements() == 0)
        continue;
      std::string what;
      llvm::raw_string_ostream os(what);
      os << "einsum: cannot allocate ";
      Type elementType = type.getElementType();
      if (type.hasStaticShape() && elementType.isIntOrFloat()) {
        // Static shapes verify, so this product does not overflow int64.
        unsigned bits = elementType.getIntOrFloatBitWidth();
        os << type.getNumElements() * ((bits + 7) / 8) << " bytes";
      } else {
        os << "a buffer";
      }
      os << " (" << type << ")";
      OpBuilder builder(alloc->getContext());
      builder.setInsertionPointAfter(alloc);
      Location loc = alloc.getLoc();
      Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(
          builder, loc, alloc.getResult());
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                       pointer, zero);
      cf::AssertOp::create(builder, loc, ok, what);
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// einsum-lower-runtime-checks
//===----------------------------------------------------------------------===//

namespace {
struct EinsumLowerRuntimeChecksPass
    : einsum::impl::EinsumLowerRuntimeChecksPassBase<
          EinsumLowerRuntimeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) {
      if (isa<func::FuncOp>(op->getParentOp()))
        asserts.push_back(op);
    });
    if (asserts.empty())
      return;

    OpBuilder builder(context);
    auto pointerType = LLVM::LLVMPointerType::get(context);
    if (!module.lookupSymbol(kRuntimeErrorFunction)) {
      builder.setInsertionPointToStart(module.getBody());
      LLVM::LLVMFuncOp::create(
          builder, module.getLoc(), kRuntimeErrorFunction,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                      {pointerType}));
    }
    // One global per distinct message, named apart from the module's own.
    llvm::StringMap<std::string> globalOf;
    unsigned counter = 0;
    auto globalName = [&](StringRef message) {
      auto [it, inserted] = globalOf.try_emplace(message);
      if (inserted) {
        std::string name;
        do {
          name = "__einsum_check_message_" + std::to_string(counter++);
        } while (module.lookupSymbol(name));
        it->second = name;
      }
      return std::make_pair(it->second, inserted);
    };

    for (cf::AssertOp op : asserts) {
      auto func = cast<func::FuncOp>(op->getParentOp());
      Location loc = op.getLoc();
      Block *before = op->getBlock();
      Block *after = before->splitBlock(std::next(op->getIterator()));
      Block *failure = builder.createBlock(after);
      builder.setInsertionPointToEnd(failure);
      std::string message = op.getMsg().str();
      auto [name, isNew] = globalName(message);
      Value text;
      if (isNew) {
        text = LLVM::createGlobalString(loc, builder, name, message + '\0',
                                        LLVM::Linkage::Internal);
      } else {
        auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
        text = LLVM::AddressOfOp::create(builder, loc, global);
      }
      LLVM::CallOp::create(builder, loc, TypeRange{},
                           FlatSymbolRefAttr::get(context,
                                                  kRuntimeErrorFunction),
                           ValueRange{text});
      SmallVector<Value> results;
      for (Type type : func.getResultTypes())
        results.push_back(ub::PoisonOp::create(builder, loc, type));
      func::ReturnOp::create(builder, loc, results);
      builder.setInsertionPoint(op);
      cf::CondBranchOp::create(builder, loc, op.getArg(), after, failure);
      op.erase();
    }
  }
};
} // namespace
