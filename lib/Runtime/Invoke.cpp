//===- Invoke.cpp - calling a compiled kernel on caller buffers -----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// A kernel's memref arguments are descriptors (allocated and aligned
// pointers, offset, sizes, strides) of row-major buffers. einsumRuntimeInvoke
// builds them from the plain pointers, sizes and strides of the C interface,
// checks the sizes against the kernel's signature, copies operands that are
// not row-major (or, for compute-bound kernels, not 64-byte aligned) and
// takes the kernel's run-time error.
//
//===----------------------------------------------------------------------===//

#include "einsum-c/Runtime.h"
#include "einsum/Runtime/Copy.h"
#include "einsum/Runtime/Cuda.h"
#include "einsum/Runtime/Errors.h"
#include "einsum/Runtime/Workspace.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace mlir::einsum;

namespace {
thread_local std::string lastError;

/// One operand of the signature.
struct OperandSpec {
  std::vector<int64_t> sizes; // -1: dynamic.
};

struct Signature {
  int64_t flags = 0;
  int64_t elementBytes = 0;
  std::vector<OperandSpec> operands;
};

bool parseSignature(const int64_t *words, Signature &signature) {
  if (!words || words[0] != EINSUM_SIGNATURE_KIND || words[2] <= 0 ||
      words[3] <= 0)
    return false;
  signature.flags = words[1];
  signature.elementBytes = words[2];
  signature.operands.resize(words[3]);
  const int64_t *cursor = words + 4;
  for (OperandSpec &operand : signature.operands) {
    int64_t rank = *cursor++;
    if (rank < 0)
      return false;
    operand.sizes.assign(cursor, cursor + rank);
    cursor += rank;
  }
  return true;
}

/// What one call works with, kept per thread so that a call in the steady
/// state allocates nothing (the dispatch of a small kernel from Python is
/// a few microseconds).
struct CallState {
  Signature signature;
  std::vector<std::vector<int64_t>> sizes, strides, descriptors;
  std::vector<char *> data, dense;
  std::vector<void *> pointers;
};

void rowMajorStrides(const std::vector<int64_t> &sizes,
                     std::vector<int64_t> &strides) {
  strides.assign(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
}

/// Whether the elements at `strides` are laid out as row-major ones (a size
/// 0 or 1 dimension's stride is irrelevant).
bool isRowMajor(const std::vector<int64_t> &sizes,
                const std::vector<int64_t> &strides) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end())
    return true;
  int64_t dense = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != dense)
      return false;
    dense *= sizes[d];
  }
  return true;
}

/// copyStrided on the call's vectors.
void copyStrided(char *strided, char *dense, const std::vector<int64_t> &sizes,
                 const std::vector<int64_t> &strides, int64_t width,
                 bool toDense) {
  runtime::copyStrided(strided, dense, sizes.data(), strides.data(),
                       sizes.size(), static_cast<size_t>(width), toDense);
}

int fail(int status, std::string message) {
  lastError = std::move(message);
  return status;
}

std::string operandName(size_t i, size_t numOperands) {
  return i + 1 == numOperands ? "the output" : "input " + std::to_string(i);
}

/// A memref descriptor of a row-major buffer: allocated, aligned, offset,
/// sizes, strides.
void makeDescriptor(void *data, const std::vector<int64_t> &sizes,
                    std::vector<int64_t> &fields) {
  size_t rank = sizes.size();
  fields.assign(3 + 2 * rank, 0);
  std::memcpy(&fields[0], &data, sizeof(void *));
  std::memcpy(&fields[1], &data, sizeof(void *));
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    fields[3 + d] = sizes[d];
    fields[3 + rank + d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
}

EINSUM_CALLS_GENERATED_CODE void callPacked(void (*packed)(void **),
                                            void **descriptors) {
  packed(descriptors);
}

struct Released {
  void operator()(void *p) const { workspace::release(p); }
};
} // namespace

const char *einsumRuntimeLastError(void) { return lastError.c_str(); }

const char *einsumRuntimeVersion(void) { return EINSUM_MLIR_VERSION; }

int einsumRuntimeInvoke(const int64_t *words, void *const *arguments,
                        void (*packed)(void **)) {
  lastError.clear();
  thread_local CallState state;
  Signature &signature = state.signature;
  if (!parseSignature(words, signature) || !packed)
    return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                "the kernel's signature is malformed");
  size_t numOperands = signature.operands.size();
  bool device = signature.flags & EINSUM_SIGNATURE_DEVICE;
  if (device) {
    std::string error = cudart::initialize();
    if (!error.empty())
      return fail(EINSUM_STATUS_NO_DEVICE, error);
  }
  int64_t width = signature.elementBytes;
  bool returnsResult = signature.flags & EINSUM_SIGNATURE_RETURNS_RESULT;

  // Sizes and strides of each operand, checked against the signature.
  std::vector<std::vector<int64_t>> &sizes = state.sizes;
  std::vector<std::vector<int64_t>> &strides = state.strides;
  std::vector<char *> &data = state.data;
  sizes.resize(numOperands);
  strides.resize(numOperands);
  data.resize(numOperands);
  for (size_t i = 0; i < numOperands; ++i) {
    sizes[i].clear();
    const std::vector<int64_t> &expected = signature.operands[i].sizes;
    std::string name = operandName(i, numOperands);
    data[i] = static_cast<char *>(arguments[3 * i]);
    auto *givenSizes = static_cast<const int64_t *>(arguments[3 * i + 1]);
    auto *givenStrides = static_cast<const int64_t *>(arguments[3 * i + 2]);
    for (size_t d = 0; d < expected.size(); ++d) {
      if (!givenSizes && expected[d] < 0)
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    name + " has dynamic sizes: its sizes must be given");
      int64_t size = givenSizes ? givenSizes[d] : expected[d];
      if (size < 0)
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    name + ": dimension " + std::to_string(d) +
                        " has negative size " + std::to_string(size));
      if (expected[d] >= 0 && size != expected[d])
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    name + ": dimension " + std::to_string(d) + " has size " +
                        std::to_string(size) +
                        ", but the kernel was compiled for " +
                        std::to_string(expected[d]));
      sizes[i].push_back(size);
    }
    if (givenStrides)
      strides[i].assign(givenStrides, givenStrides + expected.size());
    else
      rowMajorStrides(sizes[i], strides[i]);
    for (size_t d = 0; d < expected.size(); ++d)
      if (strides[i][d] < 0)
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    name + ": dimension " + std::to_string(d) +
                        " has negative stride " +
                        std::to_string(strides[i][d]));
    int64_t count = 1;
    for (int64_t size : sizes[i])
      count *= size;
    if (!data[i] && count > 0)
      return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                  name + " is a null pointer");
  }

  // A GPU kernel's operands are device memory: row-major, as they are.
  if (device) {
    for (size_t i = 0; i < numOperands; ++i)
      if (!isRowMajor(sizes[i], strides[i]))
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    operandName(i, numOperands) +
                        " is not row-major: a GPU kernel takes row-major "
                        "device buffers");
  }

  // Row-major (and, for compute-bound kernels, aligned) copies of operands
  // that are neither.
  std::vector<std::unique_ptr<void, Released>> copies;
  std::vector<char *> &dense = state.dense;
  dense = data;
  constexpr uintptr_t kAlignment = 64;
  for (size_t i = 0; i < numOperands; ++i) {
    bool output = i + 1 == numOperands;
    bool rowMajor = isRowMajor(sizes[i], strides[i]);
    bool misaligned = !output && !device &&
                      (signature.flags & EINSUM_SIGNATURE_ALIGN_INPUTS) &&
                      reinterpret_cast<uintptr_t>(data[i]) % kAlignment != 0;
    if (rowMajor && !misaligned)
      continue;
    if (output && returnsResult)
      continue; // Written from the returned buffer below.
    int64_t count = 1;
    for (int64_t size : sizes[i])
      count *= size;
    uint64_t bytes = static_cast<uint64_t>(count) * width;
    if (bytes == 0)
      continue;
    void *block = workspace::allocate(bytes + kAlignment);
    if (!block)
      return fail(EINSUM_STATUS_OUT_OF_MEMORY,
                  "cannot allocate " + std::to_string(bytes) +
                      " bytes for a row-major copy of " +
                      operandName(i, numOperands));
    copies.emplace_back(block);
    uintptr_t address = reinterpret_cast<uintptr_t>(block);
    dense[i] = reinterpret_cast<char *>((address + kAlignment - 1) /
                                        kAlignment * kAlignment);
    if (output)
      continue;
    if (rowMajor)
      std::memcpy(dense[i], data[i], bytes);
    else
      copyStrided(data[i], dense[i], sizes[i], strides[i], width,
                  /*toDense=*/true);
  }

  std::vector<std::vector<int64_t>> &descriptors = state.descriptors;
  descriptors.resize(numOperands);
  std::vector<void *> &pointers = state.pointers;
  pointers.clear();
  if (returnsResult)
    makeDescriptor(nullptr, sizes.back(), descriptors.back());
  for (size_t i = 0; i + (returnsResult ? 1 : 0) < numOperands; ++i)
    makeDescriptor(dense[i], sizes[i], descriptors[i]);
  if (returnsResult)
    pointers.push_back(descriptors.back().data());
  for (size_t i = 0; i + (returnsResult ? 1 : 0) < numOperands; ++i)
    pointers.push_back(descriptors[i].data());

  runtime::takeError(); // Nothing stale from an earlier call.
  callPacked(packed, pointers.data());
  if (std::optional<std::string> error = runtime::takeError())
    return fail(EINSUM_STATUS_KERNEL_ERROR, *error);
  if (device) {
    std::string error = cudart::takeError();
    if (!error.empty())
      return fail(EINSUM_STATUS_KERNEL_ERROR, error);
  }

  size_t out = numOperands - 1;
  if (returnsResult) {
    // The returned buffer (any strides) is the caller's to free.
    const std::vector<int64_t> &result = descriptors.back();
    size_t rank = sizes[out].size();
    char *allocated, *aligned;
    std::memcpy(&allocated, &result[0], sizeof(void *));
    std::memcpy(&aligned, &result[1], sizeof(void *));
    if (device) {
      // A device buffer, row-major as the GPU pipeline allocates it.
      size_t rankOut = sizes[out].size();
      int64_t count = 1;
      for (size_t d = 0; d < rankOut; ++d)
        count *= result[3 + d];
      bool same = true;
      for (size_t d = 0; d < rankOut; ++d)
        same = same && result[3 + d] == sizes[out][d];
      if (same && count > 0)
        cudart::copy(data[out], aligned + result[2] * width,
                     static_cast<size_t>(count) * width);
      cudart::release(allocated);
      std::string error = cudart::takeError();
      if (!same)
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    "the kernel's result does not have the output's sizes");
      if (!error.empty())
        return fail(EINSUM_STATUS_KERNEL_ERROR, error);
      return EINSUM_STATUS_OK;
    }
    std::unique_ptr<void, Released> owned(allocated);
    std::vector<int64_t> resultStrides(result.begin() + 3 + rank,
                                       result.end());
    for (size_t d = 0; d < rank; ++d)
      if (result[3 + d] != sizes[out][d])
        return fail(EINSUM_STATUS_INVALID_ARGUMENT,
                    "the kernel returned a result whose dimension " +
                        std::to_string(d) + " has size " +
                        std::to_string(result[3 + d]) + ", but the output's is " +
                        std::to_string(sizes[out][d]));
    char *base = aligned + result[2] * width;
    int64_t count = 1;
    for (int64_t size : sizes[out])
      count *= size;
    if (count == 0)
      return EINSUM_STATUS_OK;
    // Through a row-major staging buffer unless one side is row-major.
    if (isRowMajor(sizes[out], resultStrides)) {
      copyStrided(data[out], base, sizes[out], strides[out], width,
                  /*toDense=*/false);
    } else if (isRowMajor(sizes[out], strides[out])) {
      copyStrided(base, data[out], sizes[out], resultStrides, width,
                  /*toDense=*/true);
    } else {
      std::unique_ptr<void, Released> staging(
          workspace::allocate(static_cast<uint64_t>(count) * width));
      if (!staging)
        return fail(EINSUM_STATUS_OUT_OF_MEMORY,
                    "cannot allocate a buffer for the result");
      char *stage = static_cast<char *>(staging.get());
      copyStrided(base, stage, sizes[out], resultStrides, width, true);
      copyStrided(data[out], stage, sizes[out], strides[out], width, false);
    }
    return EINSUM_STATUS_OK;
  }
  if (dense[out] != data[out])
    copyStrided(data[out], dense[out], sizes[out], strides[out], width,
                /*toDense=*/false);
  return EINSUM_STATUS_OK;
}

//===----------------------------------------------------------------------===//
// memrefCopy
//===----------------------------------------------------------------------===//

void memrefCopy(int64_t elementBytes, void *source, void *target) {
  // Unranked descriptors: {rank, pointer to the ranked descriptor}.
  struct Unranked {
    int64_t rank;
    int64_t *descriptor;
  };
  auto *s = static_cast<Unranked *>(source);
  auto *t = static_cast<Unranked *>(target);
  int64_t rank = s->rank;
  char *sBase, *tBase;
  std::memcpy(&sBase, &s->descriptor[1], sizeof(void *));
  std::memcpy(&tBase, &t->descriptor[1], sizeof(void *));
  sBase += s->descriptor[2] * elementBytes;
  tBase += t->descriptor[2] * elementBytes;
  std::vector<int64_t> sizes(s->descriptor + 3, s->descriptor + 3 + rank);
  int64_t *sStrides = s->descriptor + 3 + rank;
  int64_t *tStrides = t->descriptor + 3 + rank;
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t sOffset = 0, tOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      sOffset += index[d] * sStrides[d];
      tOffset += index[d] * tStrides[d];
    }
    std::memcpy(tBase + tOffset * elementBytes, sBase + sOffset * elementBytes,
                elementBytes);
    for (int64_t d = rank; d-- > 0;) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}
