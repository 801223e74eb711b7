//===- Copy.h - copies between strided and row-major buffers ----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The copies around a kernel call: operands that are not row-major into
// row-major staging buffers, and a kernel's result (a returned memref of any
// strides) into the caller's tensor.
//
// Part of libEinsumRuntime: no MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_RUNTIME_COPY_H
#define EINSUM_RUNTIME_COPY_H

#include <cstddef>
#include <cstdint>

namespace mlir {
namespace einsum {
namespace runtime {

/// Copies the `rank`-D tensor of `sizes` whose elements (`width` bytes each)
/// are at `strides` (in elements, any sign) from `strided` to the row-major
/// buffer `dense`, or from `dense` to `strided` when `toDense` is false. The
/// innermost dims that `strided` holds row-major move as one memcpy: a
/// row-major tensor is one, a column block one per row.
void copyStrided(char *strided, char *dense, const int64_t *sizes,
                 const int64_t *strides, size_t rank, size_t width,
                 bool toDense);

} // namespace runtime
} // namespace einsum
} // namespace mlir

#endif // EINSUM_RUNTIME_COPY_H
