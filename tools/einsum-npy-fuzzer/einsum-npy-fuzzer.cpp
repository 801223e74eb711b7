//===- einsum-npy-fuzzer.cpp - fuzz the .npy reader -----------------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for parseNpy (lib/Engine/Npy.cpp): any bytes are read or
// refused with a message; what is read writes back to bytes that read to
// the same tensor.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir::einsum;

#define FUZZ_CHECK(condition)                                                  \
  do {                                                                         \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "einsum-npy-fuzzer: invariant failed: %s\n",        \
                   #condition);                                                \
      std::abort();                                                            \
    }                                                                          \
  } while (false)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<HostTensor> tensor = parseNpy(bytes, "fuzz.npy");
  if (!tensor) {
    std::string message = llvm::toString(tensor.takeError());
    FUZZ_CHECK(llvm::StringRef(message).starts_with("fuzz.npy: "));
    return 0;
  }
  // What was read is no larger than the bytes it came from.
  FUZZ_CHECK(tensor->getNumBytes() <= size);
  std::string written = serializeNpy(*tensor);
  llvm::Expected<HostTensor> again = parseNpy(written, "again.npy");
  FUZZ_CHECK(!!again);
  FUZZ_CHECK(again->getShape() == tensor->getShape());
  FUZZ_CHECK(again->getElementType() == tensor->getElementType());
  FUZZ_CHECK(std::memcmp(again->data(), tensor->data(),
                         tensor->getNumBytes()) == 0);
  return 0;
}
