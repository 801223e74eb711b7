//===- Cuda.cpp - mgpu* functions over the CUDA driver --------------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The driver API is declared here by hand (opaque handles, int results), so
// the shim builds without the CUDA toolkit; the entry points are looked up
// in libcuda.so.1 by their versioned names, as cuda.h maps them.
//
//===----------------------------------------------------------------------===//

#include "einsum/Runtime/Cuda.h"

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <dlfcn.h>
#include <mutex>
#include <system_error>

using namespace mlir::einsum;

const char *const cudart::kNoDeviceMessage = "no CUDA driver or device found";

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUdeviceptr = uintptr_t;
// CUjit_option values (cuda.h).
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSize = 6;
constexpr int kJitOptimizationLevel = 7;

/// The driver entry points the shim uses.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpy)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);

  CUcontext context = nullptr;
  CUdevice device = 0;
};

struct State {
  std::once_flag once;
  std::string initError;
  Driver driver;
  std::mutex errorMutex;
  std::string firstError;
};

State &getState() {
  static State state;
  return state;
}

template <typename F>
bool lookup(void *library, const char *name, F &function) {
  function = reinterpret_cast<F>(dlsym(library, name));
  return function != nullptr;
}

std::string loadDriver(Driver &d) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return std::string(cudart::kNoDeviceMessage) + " (cannot load libcuda.so.1" +
           (why ? std::string(": ") + why : std::string()) + ")";
  }
  bool ok = lookup(library, "cuInit", d.cuInit) &&
            lookup(library, "cuDeviceGetCount", d.cuDeviceGetCount) &&
            lookup(library, "cuDeviceGet", d.cuDeviceGet) &&
            lookup(library, "cuDeviceGetName", d.cuDeviceGetName) &&
            lookup(library, "cuDevicePrimaryCtxRetain",
                   d.cuDevicePrimaryCtxRetain) &&
            lookup(library, "cuCtxSetCurrent", d.cuCtxSetCurrent) &&
            lookup(library, "cuGetErrorString", d.cuGetErrorString) &&
            lookup(library, "cuModuleLoadData", d.cuModuleLoadData) &&
            lookup(library, "cuModuleLoadDataEx", d.cuModuleLoadDataEx) &&
            lookup(library, "cuModuleUnload", d.cuModuleUnload) &&
            lookup(library, "cuModuleGetFunction", d.cuModuleGetFunction) &&
            lookup(library, "cuLaunchKernel", d.cuLaunchKernel) &&
            lookup(library, "cuStreamCreate", d.cuStreamCreate) &&
            lookup(library, "cuStreamDestroy_v2", d.cuStreamDestroy) &&
            lookup(library, "cuStreamSynchronize", d.cuStreamSynchronize) &&
            lookup(library, "cuStreamWaitEvent", d.cuStreamWaitEvent) &&
            lookup(library, "cuEventCreate", d.cuEventCreate) &&
            lookup(library, "cuEventDestroy_v2", d.cuEventDestroy) &&
            lookup(library, "cuEventRecord", d.cuEventRecord) &&
            lookup(library, "cuEventSynchronize", d.cuEventSynchronize) &&
            lookup(library, "cuEventElapsedTime", d.cuEventElapsedTime) &&
            lookup(library, "cuMemAlloc_v2", d.cuMemAlloc) &&
            lookup(library, "cuMemAllocManaged", d.cuMemAllocManaged) &&
            lookup(library, "cuMemFree_v2", d.cuMemFree) &&
            lookup(library, "cuMemcpy", d.cuMemcpy) &&
            lookup(library, "cuMemcpyAsync", d.cuMemcpyAsync) &&
            lookup(library, "cuMemsetD32Async", d.cuMemsetD32Async) &&
            lookup(library, "cuMemsetD16Async", d.cuMemsetD16Async);
  if (!ok)
    return std::string(cudart::kNoDeviceMessage) +
           " (libcuda.so.1 lacks a driver API entry point)";
  int count = 0;
  if (d.cuInit(0) != 0 || d.cuDeviceGetCount(&count) != 0 || count == 0)
    return std::string(cudart::kNoDeviceMessage) +
           " (the driver reports no device)";
  if (d.cuDeviceGet(&d.device, 0) != 0 ||
      d.cuDevicePrimaryCtxRetain(&d.context, d.device) != 0)
    return std::string(cudart::kNoDeviceMessage) +
           " (cannot create a context on device 0)";
  return "";
}

/// The driver with device 0's context current on this thread, or null (the
/// error is recorded) when there is none.
Driver *getDriver() {
  State &state = getState();
  std::call_once(state.once,
                 [&] { state.initError = loadDriver(state.driver); });
  if (!state.initError.empty())
    return nullptr;
  state.driver.cuCtxSetCurrent(state.driver.context);
  return &state.driver;
}

void recordError(const std::string &message) {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.errorMutex);
  if (state.firstError.empty())
    state.firstError = message;
}

/// Checks a driver call; records and returns false on failure.
bool check(CUresult result, const char *call) {
  if (result == 0)
    return true;
  const char *text = nullptr;
  State &state = getState();
  if (state.initError.empty())
    state.driver.cuGetErrorString(result, &text);
  recordError(std::string(call) + " failed: " +
              (text ? text : "CUDA error " + std::to_string(result)));
  return false;
}

Driver *getDriverOrRecord() {
  Driver *d = getDriver();
  if (!d)
    recordError(getState().initError);
  return d;
}
} // namespace

//===----------------------------------------------------------------------===//
// The functions MLIR's GPU host lowering calls
//===----------------------------------------------------------------------===//

extern "C" {
void *mgpuModuleLoad(void *data, size_t /*size*/) {
  Driver *d = getDriverOrRecord();
  CUmodule module = nullptr;
  if (d)
    check(d->cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  Driver *d = getDriverOrRecord();
  CUmodule module = nullptr;
  if (!d)
    return nullptr;
  // The driver's PTX compiler reports its errors into `log`.
  char log[4096] = {0};
  int options[] = {kJitOptimizationLevel, kJitErrorLogBuffer,
                   kJitErrorLogBufferSize};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result = d->cuModuleLoadDataEx(&module, data, 3, options, values);
  std::string call = "cuModuleLoadDataEx (PTX JIT";
  call += log[0] ? std::string(": ") + log + ")" : ")";
  check(result, call.c_str());
  return module;
}

void mgpuModuleUnload(void *module) {
  if (Driver *d = getDriver(); d && module)
    check(d->cuModuleUnload(module), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Driver *d = getDriverOrRecord();
  CUfunction function = nullptr;
  if (d && module)
    check(d->cuModuleGetFunction(&function, module, name),
          "cuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                             intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                             intptr_t blockZ, int32_t smem, void *stream,
                             void **params, void **extra,
                             size_t /*paramsCount*/) {
  Driver *d = getDriverOrRecord();
  if (!d || !function)
    return;
  check(d->cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                          blockZ, smem, stream, params, extra),
        "cuLaunchKernel");
}

void *mgpuStreamCreate() {
  Driver *d = getDriverOrRecord();
  CUstream stream = nullptr;
  if (d)
    check(d->cuStreamCreate(&stream, /*CU_STREAM_DEFAULT=*/0),
          "cuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (Driver *d = getDriver(); d && stream)
    check(d->cuStreamDestroy(stream), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  Driver *d = getDriverOrRecord();
  CUevent event = nullptr;
  if (d)
    check(d->cuEventCreate(&event, /*CU_EVENT_DISABLE_TIMING=*/2),
          "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (Driver *d = getDriver(); d && event)
    check(d->cuEventDestroy(event), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuEventSynchronize(event), "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuEventRecord(event, stream), "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/,
                          bool isHostShared) {
  Driver *d = getDriverOrRecord();
  CUdeviceptr pointer = 0;
  if (!d || bytes == 0)
    return nullptr;
  if (isHostShared)
    check(d->cuMemAllocManaged(&pointer, bytes, /*CU_MEM_ATTACH_GLOBAL=*/1),
          "cuMemAllocManaged");
  else
    check(d->cuMemAlloc(&pointer, bytes), "cuMemAlloc");
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, void * /*stream*/) {
  if (Driver *d = getDriver(); d && pointer)
    check(d->cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), bytes, stream),
          "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned value, size_t count,
                         void *stream) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                         void *stream) {
  if (Driver *d = getDriverOrRecord())
    check(d->cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream),
          "cuMemsetD16Async");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    recordError("only device 0 is supported (mgpuSetDefaultDevice(" +
                std::to_string(device) + "))");
}
} // extern "C"

//===----------------------------------------------------------------------===//
// The callers' side (the engine, einsumRuntimeInvoke)
//===----------------------------------------------------------------------===//

std::string cudart::initialize() {
  if (getDriver())
    return "";
  return getState().initError;
}

std::string cudart::getDeviceName() {
  Driver *d = getDriver();
  if (!d)
    return "";
  char name[256] = {0};
  if (d->cuDeviceGetName(name, sizeof(name) - 1, d->device) != 0)
    return "";
  return name;
}

std::string cudart::takeError() {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.errorMutex);
  if (state.firstError.empty())
    return "";
  std::string message = "CUDA: " + state.firstError;
  state.firstError.clear();
  return message;
}

void *cudart::allocate(size_t bytes) {
  if (!getDriverOrRecord())
    return nullptr;
  return mgpuMemAlloc(std::max<size_t>(bytes, 1), nullptr, false);
}

void cudart::release(void *pointer) { mgpuMemFree(pointer, nullptr); }

void cudart::copy(void *dst, const void *src, size_t bytes) {
  Driver *d = getDriverOrRecord();
  if (!d || bytes == 0)
    return;
  check(d->cuMemcpy(reinterpret_cast<CUdeviceptr>(dst),
                    reinterpret_cast<CUdeviceptr>(src), bytes),
        "cuMemcpy");
}

double cudart::timeWithEvents(void (*body)(void *), void *context) {
  Driver *d = getDriverOrRecord();
  if (!d)
    return 0;
  CUevent start = nullptr, stop = nullptr;
  check(d->cuEventCreate(&start, 0), "cuEventCreate");
  check(d->cuEventCreate(&stop, 0), "cuEventCreate");
  float ms = 0;
  if (start && stop) {
    check(d->cuEventRecord(start, nullptr), "cuEventRecord");
    body(context);
    check(d->cuEventRecord(stop, nullptr), "cuEventRecord");
    check(d->cuEventSynchronize(stop), "cuEventSynchronize");
    check(d->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  }
  if (start)
    d->cuEventDestroy(start);
  if (stop)
    d->cuEventDestroy(stop);
  return ms;
}
