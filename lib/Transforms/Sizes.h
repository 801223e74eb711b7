//===- Sizes.h - size arithmetic of the schedule passes ---------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Products of static sizes that the schedule passes compare with thresholds.
// Types may hold sizes whose product exceeds 63 bits (2^40 x 2^40 x 0), so
// the products saturate instead of overflowing.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_LIB_TRANSFORMS_SIZES_H
#define EINSUM_LIB_TRANSFORMS_SIZES_H

#include "einsum/Transforms/VectorTarget.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace mlir {
namespace einsum {

/// a * b for non-negative sizes, INT64_MAX where that overflows.
inline int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t product;
  if (llvm::MulOverflow(a, b, product))
    return std::numeric_limits<int64_t>::max();
  return product;
}

/// `extent` elements rounded up to whole vectors: the next power of two
/// within a register of `lanes`, a multiple of `lanes` above it.
inline int64_t getPaddedExtent(int64_t extent, int64_t lanes) {
  return extent < lanes ? static_cast<int64_t>(
                              llvm::PowerOf2Ceil(static_cast<uint64_t>(extent)))
                        : static_cast<int64_t>(llvm::alignTo(extent, lanes));
}

/// The registers of `lanes` that a register tile's folded rows of
/// `columns` elements take: a power of two of them (LLVM moves a
/// loop-carried vector of 3 registers in pieces every iteration).
inline int64_t getFoldedRegisters(int64_t columns, int64_t lanes) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(
      static_cast<uint64_t>(llvm::divideCeil(columns, lanes))));
}

/// The extent a contraction's output rows of `extent` elements are padded to
/// as one masked vector (next power of two, or multiple of `lanes` above a
/// register), where the power-of-two pieces would end in one of 1 or 2
/// elements and take more vector operations (13 floats: one masked 16-lane
/// vector instead of 8 + 4 + 1); 0 otherwise, or without `lanes`. Pieces of
/// 4 or more elements stay: 12 = 8 + 4 ran 0.8x as fast masked. (Dynamic
/// extents are negative: 0.)
inline int64_t getMaskedExtent(int64_t extent, int64_t lanes) {
  if (lanes <= 1 || extent <= 2 || extent % 4 == 0)
    return 0;
  int64_t pieces = 0;
  for (int64_t bit = 1; bit <= extent; bit <<= 1)
    if (extent & bit)
      pieces += std::max<int64_t>(1, bit / lanes);
  int64_t padded = getPaddedExtent(extent, lanes);
  return llvm::divideCeil(padded, lanes) < static_cast<uint64_t>(pieces)
             ? padded
             : 0;
}

/// The vector register width of the host's schedules (VectorTarget.h).
inline unsigned getHostVectorBits() { return getHostVectorTarget().bits; }

} // namespace einsum
} // namespace mlir

#endif // EINSUM_LIB_TRANSFORMS_SIZES_H
