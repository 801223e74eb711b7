//===- ToolSupport.h - what einsum-run and einsum-compile share -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// libLLVM registers a global command-line option named "threads", so the
// tools' --threads cannot be a cl::opt: it is taken out of the arguments
// before they are parsed, and LLVM's option of that name stands in for it
// in --help.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TOOLS_TOOLSUPPORT_H
#define EINSUM_TOOLS_TOOLSUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace mlir {
namespace einsum {

/// Takes --threads=N (or -threads=N, --threads N) out of the arguments.
/// Returns N, or 0 when absent; an N out of 1..getMaxThreads() sets `error`.
unsigned takeThreadsFlag(int &argc, char **argv, std::string &error);

/// Registers what every tool takes: einsum-opt's pass manager options
/// (-mlir-timing, -mlir-print-ir-after-all, ...), which apply to the
/// pipelines the tool runs, and the project's version in --version.
void registerToolOptions();

/// Shows LLVM's "threads" option in `category` with `description`.
void describeThreadsFlag(llvm::cl::OptionCategory &category,
                         llvm::StringRef description);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_TOOLS_TOOLSUPPORT_H
