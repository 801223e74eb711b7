//===- CudaRuntimeTest.cpp - unit tests of the CUDA runtime shim ----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/CudaRuntime.h"
#include "einsum/Engine/Engine.h"
#include "einsum/Engine/Reference.h"

#include "llvm/ADT/StringSet.h"

#include "gtest/gtest.h"

using namespace mlir::einsum;

namespace {

bool hasDevice() {
  llvm::Error err = cuda::initialize();
  bool ok = !err;
  llvm::consumeError(std::move(err));
  return ok;
}

TEST(CudaRuntime, ProvidesTheHostLoweringsFunctions) {
  // What the GPU-to-LLVM lowering and gpu.binary's module loading call.
  llvm::StringSet<> provided;
  for (auto [name, address] : cuda::getRuntimeSymbols()) {
    EXPECT_NE(address, nullptr) << name.str();
    provided.insert(name);
  }
  for (const char *name :
       {"mgpuStreamCreate", "mgpuStreamDestroy", "mgpuStreamSynchronize",
        "mgpuStreamWaitEvent", "mgpuEventCreate", "mgpuEventDestroy",
        "mgpuEventSynchronize", "mgpuEventRecord", "mgpuMemAlloc",
        "mgpuMemFree", "mgpuMemcpy", "mgpuMemset32", "mgpuMemset16",
        "mgpuModuleLoad", "mgpuModuleLoadJIT", "mgpuModuleUnload",
        "mgpuModuleGetFunction", "mgpuLaunchKernel", "mgpuSetDefaultDevice"})
    EXPECT_TRUE(provided.contains(name)) << name;
}

TEST(CudaRuntime, ReportsAMissingDriver) {
  if (hasDevice())
    GTEST_SKIP() << "a CUDA device is present";
  llvm::Error err = cuda::initialize();
  ASSERT_TRUE(!!err);
  EXPECT_TRUE(cuda::isNoDeviceError(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_EQ(message.rfind(cuda::kNoDeviceMessage.str(), 0), 0u) << message;
  // The same answer every time, and the helpers fail the same way.
  llvm::Expected<void *> buffer = cuda::allocate(16);
  ASSERT_FALSE(!!buffer);
  EXPECT_TRUE(cuda::isNoDeviceError(buffer.takeError()));
  EXPECT_FALSE(!!cuda::takeError());
}

TEST(CudaRuntime, OtherErrorsAreNotNoDevice) {
  llvm::Error err = llvm::createStringError(llvm::inconvertibleErrorCode(),
                                            "CUDA: cuLaunchKernel failed");
  EXPECT_FALSE(cuda::isNoDeviceError(err));
  llvm::consumeError(std::move(err));
}

TEST(CudaRuntime, KernelsLinkAgainstTheShim) {
  // JIT compilation resolves every mgpu* call of the host code; running
  // needs a device.
  Engine engine;
  CompileOptions options;
  options.target = "cuda";
  llvm::SmallVector<llvm::SmallVector<int64_t>> shapes = {{33, 20}, {20, 41}};
  auto kernel = engine.compile("ij,jk->ik", shapes, ElementType::F32, options);
  ASSERT_TRUE(!!kernel) << llvm::toString(kernel.takeError());

  HostTensor a(ElementType::F32, {33, 20}), b(ElementType::F32, {20, 41});
  fillIota(a);
  fillIota(b);
  HostTensor c;
  llvm::Error err = (*kernel)->run({&a, &b}, c);
  if (!hasDevice()) {
    ASSERT_TRUE(!!err);
    EXPECT_TRUE(cuda::isNoDeviceError(err));
    llvm::consumeError(std::move(err));
    return;
  }
  ASSERT_FALSE(!!err) << llvm::toString(std::move(err));
  // The reference: row i, column k of iota(33x20) x iota(20x41).
  for (int64_t i : {0, 17, 32})
    for (int64_t k : {0, 40}) {
      double expected = 0;
      for (int64_t j = 0; j < 20; ++j)
        expected += double(i * 20 + j) * double(j * 41 + k);
      EXPECT_EQ(c.getAsDouble(i * 41 + k), expected);
    }
}

} // namespace
