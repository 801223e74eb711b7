//===- einsum-opt.cpp - einsum optimizer driver -----------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the einsum dialect, its passes and pipelines, and the upstream
// dialects, passes and extensions that the pipelines use.
//
//===----------------------------------------------------------------------===//

#include "einsum/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // --version: the project's version, then LLVM's.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "einsum-mlir version " EINSUM_MLIR_VERSION "\n";
  });
  mlir::DialectRegistry registry;
  mlir::einsum::registerAllDialects(registry);
  mlir::einsum::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "einsum optimizer driver\n", registry));
}
