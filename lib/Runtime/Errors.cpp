//===- Errors.cpp - errors that kernels report at run time ----------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Runtime/Errors.h"
#include "einsum-c/Runtime.h"

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

void einsum_runtime_error(const char *message) {
  runtime::reportError(message);
}
