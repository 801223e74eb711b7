//===- Cuda.h - the CUDA driver shim of compiled GPU kernels ----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The mgpu* functions that MLIR's GPU host lowering calls (module loading,
// launches, streams, events, device memory), over the CUDA driver API,
// which is looked up in libcuda.so.1 at run time: nothing of CUDA is needed
// to build or link, and without a driver or device every call records the
// error "no CUDA driver or device found" instead of failing to load. Driver
// errors are recorded (the first one wins) and taken by the caller after a
// kernel call.
//
// Part of libEinsumRuntime: no MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_RUNTIME_CUDA_H
#define EINSUM_RUNTIME_CUDA_H

#include "einsum-c/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" {
EINSUM_RUNTIME_EXPORTED void *mgpuModuleLoad(void *data, size_t size);
EINSUM_RUNTIME_EXPORTED void *mgpuModuleLoadJIT(void *data, int optLevel);
EINSUM_RUNTIME_EXPORTED void mgpuModuleUnload(void *module);
EINSUM_RUNTIME_EXPORTED void *mgpuModuleGetFunction(void *module, const char *name);
EINSUM_RUNTIME_EXPORTED void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
EINSUM_RUNTIME_EXPORTED void *mgpuStreamCreate();
EINSUM_RUNTIME_EXPORTED void mgpuStreamDestroy(void *stream);
EINSUM_RUNTIME_EXPORTED void mgpuStreamSynchronize(void *stream);
EINSUM_RUNTIME_EXPORTED void mgpuStreamWaitEvent(void *stream, void *event);
EINSUM_RUNTIME_EXPORTED void *mgpuEventCreate();
EINSUM_RUNTIME_EXPORTED void mgpuEventDestroy(void *event);
EINSUM_RUNTIME_EXPORTED void mgpuEventSynchronize(void *event);
EINSUM_RUNTIME_EXPORTED void mgpuEventRecord(void *event, void *stream);
EINSUM_RUNTIME_EXPORTED void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
EINSUM_RUNTIME_EXPORTED void mgpuMemFree(void *pointer, void *stream);
EINSUM_RUNTIME_EXPORTED void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
EINSUM_RUNTIME_EXPORTED void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
EINSUM_RUNTIME_EXPORTED void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream);
EINSUM_RUNTIME_EXPORTED void mgpuSetDefaultDevice(int32_t device);
}

namespace mlir {
namespace einsum {
namespace cudart {

extern const char *const kNoDeviceMessage;

/// "" when the driver loads and device 0 has a context, else why not.
std::string initialize();
std::string getDeviceName();
/// The first error recorded since the last call ("CUDA: ..."; "" if none),
/// which is then cleared.
std::string takeError();
/// Device memory (at least one byte); null with an error recorded.
void *allocate(size_t bytes);
void release(void *pointer);
/// A copy between any two of host and device memory; errors recorded.
void copy(void *dst, const void *src, size_t bytes);
/// Milliseconds of `body(context)` between two events on the default
/// stream; errors recorded.
double timeWithEvents(void (*body)(void *), void *context);

} // namespace cudart
} // namespace einsum
} // namespace mlir

#endif // EINSUM_RUNTIME_CUDA_H
