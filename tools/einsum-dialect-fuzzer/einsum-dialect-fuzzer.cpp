//===- einsum-dialect-fuzzer.cpp - fuzz the dialect and the CPU pipeline --===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for einsum dialect modules: parse (the einsum, func,
// arith and tensor dialects), verify, and, for modules of small tensors,
// run the CPU pipeline (einsum-to-llvm-pipeline) to the LLVM dialect. Any
// input may be refused with diagnostics; none may crash, and what the
// pipeline produces must verify.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/InitAll.h"
#include "einsum/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

/// Tensors up to this many elements (and this rank) go through the
/// pipeline: larger static shapes only cost time (full unrolls of huge
/// register tiles are the vectorizer's business, not this target's).
static constexpr int64_t kMaxElements = 1 << 16;
static constexpr int64_t kMaxRank = 6;

static bool smallEnough(ModuleOp module) {
  bool small = true;
  unsigned ops = 0;
  module.walk([&](Operation *op) {
    if (++ops > 64)
      small = false;
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                        op->getResultTypes())) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (!shaped || !shaped.hasRank())
        continue;
      if (shaped.getRank() > kMaxRank)
        small = false;
      int64_t elements = 1;
      for (int64_t size : shaped.getShape()) {
        if (ShapedType::isDynamic(size))
          continue;
        if (size > kMaxElements || (elements *= size) > kMaxElements)
          small = false;
      }
    }
  });
  return small;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  einsum::registerAllPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 8192)
    return 0;
  DialectRegistry registry;
  einsum::registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadDialect<einsum::EinsumDialect, func::FuncDialect,
                      arith::ArithDialect, tensor::TensorDialect>();
  // Diagnostics are the expected outcome of most inputs: dropped.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {
    return success();
  });
  // The MLIR lexer, like every reader of a MemoryBuffer from a file, reads
  // the NUL past the end of its buffer: libFuzzer's data has none.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || !smallEnough(*module))
    return 0;
  // Only modules of the dialects above: others are their owners' to fuzz.
  bool ours = true;
  module->walk([&](Operation *op) {
    llvm::StringRef dialect = op->getName().getDialectNamespace();
    ours &= llvm::is_contained(
        {"builtin", "einsum", "func", "arith", "tensor"}, dialect);
  });
  if (!ours)
    return 0;
  PassManager pm(&context);
  einsum::EinsumToLLVMPipelineOptions options;
  options.numThreads = (size % 2) + 1;
  options.returnOnError = true;
  einsum::buildEinsumToLLVMPipeline(pm, options);
  if (succeeded(pm.run(*module)) && failed(verify(*module))) {
    std::fprintf(stderr, "einsum-dialect-fuzzer: the pipeline produced IR "
                         "that does not verify\n");
    std::abort();
  }
  return 0;
}
