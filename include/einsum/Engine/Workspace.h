//===- Workspace.h - reused buffers of CPU kernels --------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The heap allocations of CPU kernels (memref.alloc: intermediates of a
// contraction path, packed operands, returned results) go through these
// functions: finalize-memref-to-llvm runs with use-generic-functions, and
// the engine binds _mlir_memref_to_llvm_alloc/_free to them. Large buffers
// that a kernel frees are kept and handed out again on the next call, so a
// kernel called in a loop does not map, fault in and unmap fresh pages for
// its temporaries every time (on this VM that cost 200 ms of a 41 ms
// bilinear form). Thread-safe; the cache holds at most 1 GiB.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_WORKSPACE_H
#define EINSUM_ENGINE_WORKSPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <utility>

namespace mlir {
namespace einsum {
namespace workspace {

/// malloc-like (16-byte aligned); never null for a size of 0.
void *allocate(uint64_t bytes);
/// Frees (or keeps for reuse) a pointer from allocate(); null is ignored.
void release(void *pointer);
/// Frees every kept buffer.
void trim();

struct Statistics {
  /// Bytes kept for reuse now; allocations answered from them so far.
  uint64_t cachedBytes = 0;
  uint64_t reuses = 0;
};
Statistics getStatistics();

/// The allocation functions by the names the LLVM lowering calls.
llvm::ArrayRef<std::pair<llvm::StringRef, void *>> getRuntimeSymbols();

} // namespace workspace
} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_WORKSPACE_H
