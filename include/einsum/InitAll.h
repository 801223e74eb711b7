//===- InitAll.h - register everything einsum-mlir provides -----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_INITALL_H
#define EINSUM_INITALL_H

namespace mlir {
class DialectRegistry;
namespace einsum {

/// Registers the einsum dialect and every upstream dialect and extension that
/// the pipelines use (all of upstream's, so every mlir-opt input parses).
void registerAllDialects(DialectRegistry &registry);

/// Registers the einsum passes and pipelines and all upstream passes.
void registerAllPasses();

} // namespace einsum
} // namespace mlir

#endif // EINSUM_INITALL_H
