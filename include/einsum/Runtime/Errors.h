//===- Errors.h - errors that kernels report at run time --------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Kernels compiled with the pipelines' `return-on-error` option check at run
// time what only run time knows (dynamic sizes against the equation, heap
// allocations), and on a failed check call einsum_runtime_error(message) and
// return. This records the message for the calling thread; the caller
// (the engine, or einsumRuntimeInvoke for compiled kernels) takes it after
// each kernel call and turns it into the call's error.
//
// Part of libEinsumRuntime: no MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_RUNTIME_ERRORS_H
#define EINSUM_RUNTIME_ERRORS_H

#include <optional>
#include <string>

/// On functions that call generated code through a pointer: UBSan's
/// function-type check (-fsanitize=function, in the sanitizer build) reads
/// a signature the compiler puts before each C++ function, which generated
/// code does not have (and whose entry may start a page: reading before it
/// faults).
#if defined(__clang__)
#define EINSUM_CALLS_GENERATED_CODE __attribute__((no_sanitize("function")))
#else
#define EINSUM_CALLS_GENERATED_CODE
#endif

namespace mlir {
namespace einsum {
namespace runtime {

/// Records `message` for the calling thread unless a message is pending
/// already (the first failed check is the one reported).
void reportError(const char *message);
/// The calling thread's pending message, which is then cleared.
std::optional<std::string> takeError();

} // namespace runtime
} // namespace einsum
} // namespace mlir

#endif // EINSUM_RUNTIME_ERRORS_H
