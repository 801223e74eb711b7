//===- CudaRuntime.cpp - the engine's side of the CUDA driver shim --------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The shim itself (the driver, the mgpu* functions) is libEinsumRuntime's
// (lib/Runtime/Cuda.cpp); this gives it llvm::Error and the JIT's symbols.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/CudaRuntime.h"
#include "einsum/Runtime/Cuda.h"

#include <system_error>

using namespace mlir::einsum;

llvm::Error cuda::initialize() {
  std::string error = cudart::initialize();
  if (error.empty())
    return llvm::Error::success();
  return llvm::createStringError(
      std::make_error_code(std::errc::no_such_device), error);
}

bool cuda::isNoDeviceError(const llvm::Error &err) {
  bool result = false;
  // Inspect without consuming: errors are only ever StringErrors here.
  llvm::visitErrors(err, [&](const llvm::ErrorInfoBase &info) {
    result = result || info.convertToErrorCode() ==
                           std::make_error_code(std::errc::no_such_device);
  });
  return result;
}

std::string cuda::getDeviceName() { return cudart::getDeviceName(); }

llvm::Error cuda::takeError() {
  std::string error = cudart::takeError();
  if (error.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
}

llvm::Expected<void *> cuda::allocate(size_t bytes) {
  if (llvm::Error err = initialize())
    return std::move(err);
  void *pointer = cudart::allocate(bytes);
  if (llvm::Error err = takeError())
    return std::move(err);
  return pointer;
}

void cuda::release(void *pointer) { cudart::release(pointer); }

static llvm::Error copy(void *dst, const void *src, size_t bytes) {
  if (llvm::Error err = cuda::initialize())
    return err;
  cudart::copy(dst, src, bytes);
  return cuda::takeError();
}

llvm::Error cuda::copyToDevice(void *device, const void *host, size_t bytes) {
  return copy(device, host, bytes);
}

llvm::Error cuda::copyToHost(void *host, const void *device, size_t bytes) {
  return copy(host, device, bytes);
}

llvm::Expected<double> cuda::timeWithEvents(llvm::function_ref<void()> body) {
  if (llvm::Error err = initialize())
    return std::move(err);
  double ms = cudart::timeWithEvents(
      [](void *context) {
        (*static_cast<llvm::function_ref<void()> *>(context))();
      },
      &body);
  if (llvm::Error err = takeError())
    return std::move(err);
  return ms;
}

llvm::ArrayRef<std::pair<llvm::StringRef, void *>> cuda::getRuntimeSymbols() {
  static const std::pair<llvm::StringRef, void *> symbols[] = {
      {"mgpuModuleLoad", reinterpret_cast<void *>(&mgpuModuleLoad)},
      {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&mgpuModuleLoadJIT)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&mgpuModuleUnload)},
      {"mgpuModuleGetFunction",
       reinterpret_cast<void *>(&mgpuModuleGetFunction)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&mgpuLaunchKernel)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&mgpuStreamCreate)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&mgpuStreamDestroy)},
      {"mgpuStreamSynchronize",
       reinterpret_cast<void *>(&mgpuStreamSynchronize)},
      {"mgpuStreamWaitEvent", reinterpret_cast<void *>(&mgpuStreamWaitEvent)},
      {"mgpuEventCreate", reinterpret_cast<void *>(&mgpuEventCreate)},
      {"mgpuEventDestroy", reinterpret_cast<void *>(&mgpuEventDestroy)},
      {"mgpuEventSynchronize",
       reinterpret_cast<void *>(&mgpuEventSynchronize)},
      {"mgpuEventRecord", reinterpret_cast<void *>(&mgpuEventRecord)},
      {"mgpuMemAlloc", reinterpret_cast<void *>(&mgpuMemAlloc)},
      {"mgpuMemFree", reinterpret_cast<void *>(&mgpuMemFree)},
      {"mgpuMemcpy", reinterpret_cast<void *>(&mgpuMemcpy)},
      {"mgpuMemset32", reinterpret_cast<void *>(&mgpuMemset32)},
      {"mgpuMemset16", reinterpret_cast<void *>(&mgpuMemset16)},
      {"mgpuSetDefaultDevice", reinterpret_cast<void *>(&mgpuSetDefaultDevice)},
  };
  return symbols;
}
