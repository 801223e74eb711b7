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

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"

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

/// The vector register width of the host, from its CPU features.
inline unsigned getHostVectorBits() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 512;
  if (features.lookup("avx2") || features.lookup("avx"))
    return 256;
  return 128;
}

} // namespace einsum
} // namespace mlir

#endif // EINSUM_LIB_TRANSFORMS_SIZES_H
