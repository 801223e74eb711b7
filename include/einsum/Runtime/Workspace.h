//===- Workspace.h - reused buffers of CPU kernels --------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The heap of CPU kernels: their memref.alloc/dealloc (packed operands,
// intermediates of the contraction path) call _mlir_memref_to_llvm_alloc and
// _mlir_memref_to_llvm_free (upstream's names for generic allocation
// functions), which keep buffers of 1 MiB and more for the next call
// (up to 1 GiB in all) instead of mapping fresh pages each time.
//
// Part of libEinsumRuntime: no MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_RUNTIME_WORKSPACE_H
#define EINSUM_RUNTIME_WORKSPACE_H

#include <cstdint>

namespace mlir {
namespace einsum {
namespace workspace {

/// A block of at least `bytes` bytes, 16-byte aligned; null when the memory
/// is exhausted.
void *allocate(uint64_t bytes);
/// Returns a block of allocate() (null: nothing).
void release(void *pointer);
/// Frees the kept blocks.
void trim();

struct Statistics {
  /// Bytes kept for reuse now; allocations answered from them so far.
  uint64_t cachedBytes = 0;
  uint64_t reuses = 0;
};
Statistics getStatistics();

} // namespace workspace
} // namespace einsum
} // namespace mlir

#endif // EINSUM_RUNTIME_WORKSPACE_H
