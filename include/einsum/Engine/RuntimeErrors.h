//===- RuntimeErrors.h - errors that kernels report at run time -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Kernels compiled with the pipelines' `return-on-error` option check at run
// time what only run time knows (dynamic sizes against the equation, heap
// allocations), and on a failed check call einsum_runtime_error(message) and
// return. This records the message for the calling thread; the engine takes
// it after each kernel call and turns it into the call's error.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_RUNTIMEERRORS_H
#define EINSUM_ENGINE_RUNTIMEERRORS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir {
namespace einsum {
namespace runtime {

/// Records `message` as the calling thread's kernel error (the first one
/// since the last takeError() wins).
void reportError(const char *message);
/// The calling thread's kernel error, if any; clears it.
std::optional<std::string> takeError();

/// einsum_runtime_error, by the name the LLVM lowering calls.
llvm::ArrayRef<std::pair<llvm::StringRef, void *>> getRuntimeSymbols();

} // namespace runtime
} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_RUNTIMEERRORS_H
