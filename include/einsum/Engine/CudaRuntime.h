//===- CudaRuntime.h - the CUDA driver, loaded on first use -----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The runtime functions that MLIR's GPU host lowering calls (mgpuStreamCreate,
// mgpuMemAlloc, mgpuModuleLoadJIT, mgpuLaunchKernel, ...; Debian ships no
// libmlir_cuda_runtime.so), implemented over the CUDA driver API. The driver
// (libcuda.so.1) is opened with dlopen on first use, so the project builds
// and runs its CPU paths on machines without one. The engine registers the
// mgpu* functions with each JIT-compiled GPU kernel and uses the helpers
// below to move data and time kernels.
//
// The mgpu* functions cannot return errors; the first failure is recorded
// and reported by takeError().
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_CUDARUNTIME_H
#define EINSUM_ENGINE_CUDARUNTIME_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace mlir {
namespace einsum {
namespace cuda {

/// The message of the error returned where no driver or no device is found.
constexpr llvm::StringLiteral kNoDeviceMessage =
    "no CUDA driver or device found";

/// Loads the driver and makes device 0's primary context current (once;
/// later calls return the first result). Fails with an error whose code is
/// std::errc::no_such_device and whose message starts with kNoDeviceMessage
/// when libcuda.so.1 cannot be loaded or no device is found.
llvm::Error initialize();

/// Whether `err` says that no driver or device was found.
bool isNoDeviceError(const llvm::Error &err);

/// The name of device 0 (after initialize()).
std::string getDeviceName();

/// The first error recorded by an mgpu* function since the last call, and
/// clears it.
llvm::Error takeError();

/// Device memory; sizes in bytes.
llvm::Expected<void *> allocate(size_t bytes);
void release(void *pointer);
llvm::Error copyToDevice(void *device, const void *host, size_t bytes);
llvm::Error copyToHost(void *host, const void *device, size_t bytes);

/// Times `body` on the device with CUDA events on the default stream (which
/// the kernels' streams synchronize with); returns milliseconds.
llvm::Expected<double> timeWithEvents(llvm::function_ref<void()> body);

/// The mgpu* functions, by name, for the JIT.
llvm::ArrayRef<std::pair<llvm::StringRef, void *>> getRuntimeSymbols();

} // namespace cuda
} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_CUDARUNTIME_H
