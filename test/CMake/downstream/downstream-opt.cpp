// A downstream opt tool: upstream MLIR plus einsum-mlir's dialect, passes and
// pipelines, through the installed CMake package.
#include "einsum/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::einsum::registerAllDialects(registry);
  mlir::einsum::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "downstream optimizer\n", registry));
}
