//===- Copy.cpp - copies between strided and row-major buffers ------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Runtime/Copy.h"

#include <cstring>
#include <vector>

void mlir::einsum::runtime::copyStrided(char *strided, char *dense,
                                        const int64_t *sizes,
                                        const int64_t *strides, size_t rank,
                                        size_t width, bool toDense) {
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d)
    count *= sizes[d];
  if (count == 0)
    return;
  // The innermost dims that are row-major on the strided side: one run.
  size_t outer = rank;
  int64_t run = 1;
  while (outer > 0 && (sizes[outer - 1] == 1 || strides[outer - 1] == run)) {
    run *= sizes[outer - 1];
    --outer;
  }
  size_t runBytes = static_cast<size_t>(run) * width;
  std::vector<int64_t> index(outer, 0);
  for (int64_t linear = 0; linear < count; linear += run) {
    int64_t offset = 0;
    for (size_t d = 0; d < outer; ++d)
      offset += index[d] * strides[d];
    char *s = strided + offset * static_cast<int64_t>(width);
    char *t = dense + linear * static_cast<int64_t>(width);
    std::memcpy(toDense ? t : s, toDense ? s : t, runBytes);
    for (size_t d = outer; d-- > 0;) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}
