//===- RuntimeErrors.cpp - errors that kernels report at run time ---------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/RuntimeErrors.h"

using namespace mlir::einsum;

namespace {
thread_local std::optional<std::string> pendingError;
} // namespace

void runtime::reportError(const char *message) {
  if (!pendingError)
    pendingError = message ? message : "a kernel failed a run-time check";
}

std::optional<std::string> runtime::takeError() {
  std::optional<std::string> error = std::move(pendingError);
  pendingError.reset();
  return error;
}

extern "C" {
static void einsumRuntimeError(const char *message) {
  runtime::reportError(message);
}
}

llvm::ArrayRef<std::pair<llvm::StringRef, void *>>
runtime::getRuntimeSymbols() {
  static const std::pair<llvm::StringRef, void *> symbols[] = {
      {"einsum_runtime_error", reinterpret_cast<void *>(&einsumRuntimeError)},
  };
  return symbols;
}
