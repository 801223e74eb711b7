//===- Engine.cpp - kernels linked into the process, cached, and run ------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "EngineImpl.h"

#include "einsum/Engine/CudaRuntime.h"
#include "einsum/Engine/ObjectCode.h"
#include "einsum/Runtime/Copy.h"
#include "einsum/Runtime/Errors.h"
#include "einsum/Runtime/Workspace.h"
#include "einsum-c/Runtime.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <list>
#include <unordered_map>
#include <cstring>
#include <dlfcn.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::einsum;
using namespace mlir::einsum::engine_impl;

llvm::Error engine_impl::makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error mlir::einsum::makeInternalError(const llvm::Twine &message) {
  return llvm::createStringError(
      std::make_error_code(std::errc::state_not_recoverable),
      "internal error: " + message);
}

bool mlir::einsum::isInternalError(const llvm::Error &err) {
  bool result = false;
  // Inspect without consuming: the engine's errors are StringErrors.
  llvm::visitErrors(err, [&](const llvm::ErrorInfoBase &info) {
    result = result ||
             info.convertToErrorCode() ==
                 std::make_error_code(std::errc::state_not_recoverable);
  });
  return result;
}

/// An equation kernel that resolved but does not compile is the compiler's
/// fault: `err` as an internal error.
llvm::Error engine_impl::asInternal(llvm::Error err) {
  if (!err || isInternalError(err))
    return err;
  return makeInternalError(llvm::toString(std::move(err)));
}

unsigned mlir::einsum::getMaxThreads() {
  return std::max(256u, std::thread::hardware_concurrency());
}

double engine_impl::secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

std::string CompileOptions::getCacheKey() const {
  std::string device =
      target == "cpu" ? "" : "/" + chip + "/" + features + "/" + gpuFormat;
  return target + device + (expandBF16 ? "/bf16x" : "/bf16n") + "/t" +
         std::to_string(threads) + "/" + pathStrategy + "/" +
         std::to_string(memoryLimit) + "/" + minimize +
         (vectorize ? "/v" + std::to_string(vectorBits) + "r" +
                          std::to_string(vectorRegisters)
                    : "/novec") +
         (semiring == "plus_times" ? "" : "/" + semiring) +
         (gradOperand >= 0 ? "/grad" + std::to_string(gradOperand) : "") +
         (grid.empty() ? "" : "/grid" + formatGrid(grid) + "/" +
                                  mpiImplementation);
}

//===----------------------------------------------------------------------===//
// Memref descriptors
//===----------------------------------------------------------------------===//

namespace {
/// A ranked memref descriptor as the C interface lays it out: allocated and
/// aligned pointers, offset, sizes, strides; all 8-byte fields.
struct Descriptor {
  std::vector<int64_t> fields;

  Descriptor(unsigned rank) : fields(3 + 2 * rank, 0) {}
  Descriptor(void *data, llvm::ArrayRef<int64_t> shape,
             llvm::ArrayRef<int64_t> strides)
      : Descriptor(shape.size()) {
    std::memcpy(&fields[0], &data, sizeof(void *));
    std::memcpy(&fields[1], &data, sizeof(void *));
    for (auto [i, size] : llvm::enumerate(shape)) {
      fields[3 + i] = size;
      fields[3 + shape.size() + i] = strides[i];
    }
  }
  unsigned rank() const { return (fields.size() - 3) / 2; }
  void *allocated() const {
    void *p;
    std::memcpy(&p, &fields[0], sizeof(void *));
    return p;
  }
  char *aligned() const {
    char *p;
    std::memcpy(&p, &fields[1], sizeof(void *));
    return p;
  }
  int64_t offset() const { return fields[2]; }
  int64_t size(unsigned i) const { return fields[3 + i]; }
  int64_t stride(unsigned i) const { return fields[3 + rank() + i]; }
};
} // namespace

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

/// Calls a packed C-interface function with one memref descriptor pointer
/// per argument. Fails with the message of a run-time check the kernel
/// failed (its results are then poison and must not be read).
EINSUM_CALLS_GENERATED_CODE static void callGenerated(void (*function)()) {
  function();
}

EINSUM_CALLS_GENERATED_CODE
static llvm::Error callPacked(void (*function)(void **),
                              std::vector<Descriptor> &descriptors) {
  std::vector<void *> pointers;
  for (Descriptor &d : descriptors)
    pointers.push_back(d.fields.data());
  runtime::takeError(); // Nothing stale from an earlier call.
  function(pointers.data());
  if (std::optional<std::string> error = runtime::takeError())
    return makeError(*error);
  return llvm::Error::success();
}

/// "2x3xf32 and 4x5xf32": the inputs of a failed call, for its message.
static std::string describeInputs(llvm::ArrayRef<const HostTensor *> inputs) {
  std::string text;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    if (i)
      text += i + 1 == inputs.size() ? " and " : ", ";
    text += input->getTypeString();
  }
  return text;
}

static llvm::Error checkArity(size_t expected, size_t given) {
  if (given == expected)
    return llvm::Error::success();
  return makeError("the kernel takes " + llvm::Twine(expected) + " input" +
                   (expected == 1 ? "" : "s") + ", but " + llvm::Twine(given) +
                   (given == 1 ? " was" : " were") + " given");
}

Kernel::~Kernel() {
  if (finalize && initializeRan.load())
    callGenerated(finalize);
}

KernelSignature Kernel::getSignature() const {
  KernelSignature result;
  // A compute-bound kernel reads its operands many times, with vector loads
  // that cross cache lines where a row does not start on one: an operand
  // that is not 64-byte aligned (numpy aligns to 16) is copied to an aligned
  // buffer first (gemm1024 with B 16 bytes off: 125 GFLOP/s, aligned 152).
  // Only from 128 flops per operand byte on: below, the copy costs more
  // than the misalignment (attn_qk, whose B is packed anyway, has 64).
  constexpr double kMinFlopsPerByte = 128;
  size_t inputBytes = 0;
  for (auto [shape, type] : llvm::zip(inputShapes, inputTypes))
    inputBytes += getDenseByteSize(type, shape).value_or(0);
  if (onDevice)
    result.flags |= EINSUM_SIGNATURE_DEVICE;
  else if (inputBytes > 0 &&
           flops / static_cast<double>(inputBytes) >= kMinFlopsPerByte)
    result.flags |= EINSUM_SIGNATURE_ALIGN_INPUTS;
  if (returnsResult)
    result.flags |= EINSUM_SIGNATURE_RETURNS_RESULT;
  result.elementBytes = getByteWidth(elementType);
  for (const llvm::SmallVector<int64_t> &shape : inputShapes)
    result.shapes.emplace_back(shape.begin(), shape.end());
  result.shapes.emplace_back(outputShape.begin(), outputShape.end());
  return result;
}

llvm::Error
Kernel::checkInputs(llvm::ArrayRef<const HostTensor *> inputs) const {
  if (llvm::Error err = checkArity(inputShapes.size(), inputs.size()))
    return err;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    llvm::ArrayRef<int64_t> expected = inputShapes[i];
    llvm::ArrayRef<int64_t> shape = input->getShape();
    bool fits = input->getElementType() == inputTypes[i] &&
                shape.size() == expected.size();
    for (unsigned d = 0; fits && d < shape.size(); ++d)
      fits = expected[d] == kDynamicSize || expected[d] == shape[d];
    if (!fits)
      return makeError("input " + llvm::Twine(i) + " has type " +
                       input->getTypeString() + ", but the kernel expects " +
                       formatTensorType(expected, inputTypes[i]));
  }
  return llvm::Error::success();
}

/// Copies a strided result (`descriptor`, elements at `base`) into `output`,
/// row-major: the tensor `output` holds when it has the result's type and
/// shape (the runs of a benchmark allocate nothing), else a fresh one.
static llvm::Error gatherResult(const Descriptor &result, const char *base,
                                ElementType elementType, unsigned rank,
                                HostTensor &output) {
  llvm::SmallVector<int64_t> shape, strides;
  for (unsigned d = 0; d < rank; ++d) {
    shape.push_back(result.size(d));
    strides.push_back(result.stride(d));
  }
  if (output.getElementType() != elementType ||
      output.getShape() != llvm::ArrayRef<int64_t>(shape) || !output.data()) {
    llvm::Expected<HostTensor> created =
        HostTensor::create(elementType, shape);
    if (!created)
      return makeError("the result: " + llvm::toString(created.takeError()));
    output = std::move(*created);
  }
  size_t width = getByteWidth(elementType);
  runtime::copyStrided(const_cast<char *>(base) + result.offset() * width,
                       static_cast<char *>(output.data()), shape.data(),
                       strides.data(), rank, width, /*toDense=*/true);
  return llvm::Error::success();
}

llvm::Error Kernel::run(llvm::ArrayRef<const HostTensor *> inputs,
                        HostTensor &output) const {
  if (llvm::Error err = checkInputs(inputs))
    return err;
  if (onDevice)
    return runOnDevice(inputs, output, /*runs=*/1, /*times=*/nullptr);
  std::vector<Descriptor> descriptors;
  descriptors.reserve(inputs.size() + 1);
  for (const HostTensor *input : inputs)
    descriptors.emplace_back(const_cast<void *>(input->data()),
                             input->getShape(), input->getStrides());

  if (!returnsResult) {
    if (output.getElementType() != elementType ||
        output.getShape() != llvm::ArrayRef<int64_t>(outputShape) ||
        !output.data()) {
      llvm::Expected<HostTensor> created =
          HostTensor::create(elementType, outputShape);
      if (!created)
        return makeError("the result: " + llvm::toString(created.takeError()));
      output = std::move(*created);
    }
    descriptors.emplace_back(output.data(), output.getShape(),
                             output.getStrides());
  } else {
    descriptors.emplace(descriptors.begin(), resultRank);
  }
  if (llvm::Error err = callPacked(function, descriptors))
    return makeError(llvm::toString(std::move(err)) + "; the inputs were " +
                     describeInputs(inputs));
  if (!returnsResult)
    return llvm::Error::success();

  // Copy the returned memref (any strides) into `output`, then free it: the
  // deallocation pipeline makes returned buffers owned by the caller.
  const Descriptor &result = descriptors.front();
  llvm::Error err =
      gatherResult(result, result.aligned(), elementType, resultRank, output);
  workspace::release(result.allocated());
  return err;
}

namespace {
/// Device buffers for one set of inputs (and the output of an equation
/// kernel), freed on destruction.
struct DeviceBuffers {
  std::vector<void *> pointers;
  ~DeviceBuffers() {
    for (void *p : pointers)
      cuda::release(p);
  }
  llvm::Expected<void *> allocate(size_t bytes) {
    llvm::Expected<void *> p = cuda::allocate(bytes);
    if (p)
      pointers.push_back(*p);
    return p;
  }
};
} // namespace

llvm::Error Kernel::runOnDevice(llvm::ArrayRef<const HostTensor *> inputs,
                                HostTensor &output, unsigned runs,
                                std::vector<double> *times) const {
  if (llvm::Error err = cuda::initialize())
    return err;
  // The GPU modules are loaded by the kernel's global constructors.
  std::call_once(initialized, [&] {
    if (initialize)
      callGenerated(initialize);
    initializeRan = true;
  });
  if (llvm::Error err = cuda::takeError())
    return err;

  DeviceBuffers buffers;
  std::vector<Descriptor> inputDescriptors;
  for (const HostTensor *input : inputs) {
    llvm::Expected<void *> device = buffers.allocate(input->getNumBytes());
    if (!device)
      return device.takeError();
    if (llvm::Error err =
            cuda::copyToDevice(*device, input->data(), input->getNumBytes()))
      return err;
    inputDescriptors.emplace_back(*device, input->getShape(),
                                  input->getStrides());
  }
  void *deviceOutput = nullptr;
  if (!returnsResult) {
    llvm::Expected<HostTensor> created =
        HostTensor::create(elementType, outputShape);
    if (!created)
      return makeError("the result: " + llvm::toString(created.takeError()));
    output = std::move(*created);
    llvm::Expected<void *> device = buffers.allocate(output.getNumBytes());
    if (!device)
      return device.takeError();
    deviceOutput = *device;
  }

  Descriptor result(resultRank);
  for (unsigned i = 0; i < runs; ++i) {
    std::vector<Descriptor> descriptors = inputDescriptors;
    if (returnsResult)
      descriptors.insert(descriptors.begin(), Descriptor(resultRank));
    else
      descriptors.emplace_back(deviceOutput, output.getShape(),
                               output.getStrides());
    std::optional<std::string> callError;
    auto call = [&] {
      if (llvm::Error err = callPacked(function, descriptors))
        callError = llvm::toString(std::move(err));
    };
    if (times) {
      llvm::Expected<double> ms = cuda::timeWithEvents(call);
      if (!ms)
        return ms.takeError();
      times->push_back(*ms * 1e-3);
    } else {
      call();
    }
    if (callError)
      return makeError(*callError);
    if (llvm::Error err = cuda::takeError())
      return err;
    if (returnsResult) {
      if (i + 1 < runs)
        cuda::release(descriptors.front().allocated());
      else
        result = descriptors.front();
    }
  }

  if (!returnsResult)
    return cuda::copyToHost(output.data(), deviceOutput, output.getNumBytes());
  // A returned device buffer: copy its extent to the host, gather it, free
  // it.
  int64_t extent = result.offset() + 1;
  for (unsigned d = 0; d < resultRank; ++d) {
    if (result.size(d) == 0) {
      extent = 0;
      break;
    }
    extent += (result.size(d) - 1) * result.stride(d);
  }
  std::vector<char> staging(extent * getByteWidth(elementType));
  llvm::Error err =
      cuda::copyToHost(staging.data(), result.aligned(), staging.size());
  cuda::release(result.allocated());
  if (err)
    return err;
  return gatherResult(result, staging.data(), elementType, resultRank, output);
}

llvm::Expected<std::vector<double>>
Kernel::benchmark(llvm::ArrayRef<const HostTensor *> inputs,
                  HostTensor &output, unsigned runs) const {
  std::vector<double> times;
  if (onDevice) {
    if (llvm::Error err = checkInputs(inputs))
      return std::move(err);
    if (llvm::Error err = runOnDevice(inputs, output, runs, &times))
      return std::move(err);
    return times;
  }
  for (unsigned i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error err = run(inputs, output))
      return std::move(err);
    times.push_back(secondsSince(start));
  }
  return times;
}

llvm::Error Kernel::runOnBuffers(llvm::ArrayRef<const void *> inputs,
                                 void *output) const {
  if (returnsResult)
    return makeError("a module kernel returns its result; use run()");
  if (onDevice)
    return makeError("a CUDA kernel runs on host tensors; use run()");
  if (llvm::Error err = checkArity(inputShapes.size(), inputs.size()))
    return err;
  // The runtime's entry, as compiled kernels' C functions call it: row-major
  // operands (null strides) of the compiled sizes (null sizes).
  std::vector<void *> arguments;
  for (const void *input : inputs)
    llvm::append_range(arguments, std::initializer_list<void *>{
                                      const_cast<void *>(input), nullptr,
                                      nullptr});
  llvm::append_range(arguments,
                     std::initializer_list<void *>{output, nullptr, nullptr});
  if (einsumRuntimeInvoke(signature.data(), arguments.data(), function))
    return makeError(einsumRuntimeLastError());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

Engine::Engine() : impl(std::make_unique<Impl>()) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
}

Engine::~Engine() = default;

/// The runtime's functions kernels call, and the shared libraries of what
/// it does not have: threaded kernels call LLVM 22's OpenMP runtime (the
/// libomp in the multiarch folder belongs to another LLVM).
static void getKernelLinkage(
    const CompileOptions &options,
    llvm::SmallVectorImpl<std::pair<llvm::StringRef, void *>> &symbols,
    std::vector<std::string> &libraries) {
  llvm::append_range(symbols, getCPURuntimeSymbols());
  if (options.target == "cuda")
    llvm::append_range(symbols, cuda::getRuntimeSymbols());
  if (options.threads > 1 && options.target == "cpu")
    libraries.push_back(EINSUM_MLIR_LIB_DIR "/libomp.so");
}

llvm::Error Engine::Impl::jit(ModuleOp module, Kernel &kernel,
                              llvm::StringRef name,
                              const CompileOptions &options,
                              llvm::StringRef diskKey) {
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> symbols;
  std::vector<std::string> libraries;
  getKernelLinkage(options, symbols, libraries);
  // A function declared but defined nowhere would fail in the JIT with a
  // message of its own on stderr: refused here, by name.
  for (LLVM::LLVMFuncOp func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!func.isExternal())
      continue;
    llvm::StringRef symbol = func.getSymName();
    if (llvm::any_of(symbols,
                     [&](auto &entry) { return entry.first == symbol; }))
      continue;
    std::string cSymbol = symbol.str();
    bool found = dlsym(RTLD_DEFAULT, cSymbol.c_str());
    for (const std::string &path : libraries) {
      if (found)
        break;
      if (void *library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL))
        found = dlsym(library, cSymbol.c_str());
    }
    if (!found)
      return makeError("the module calls @" + symbol +
                       ", which is declared but defined nowhere (not in the "
                       "module, the runtime or its libraries)");
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
      emitKernelObject(module, name, kernel.getSignature(), "native",
                       /*cName=*/"", /*hoistConstructors=*/true);
  if (!object)
    return object.takeError();
  if (!diskKey.empty()) {
    disk.store(diskKey, name, (*object)->getMemBufferRef());
    storeSharedObject((*object)->getMemBufferRef(), kernel, name, options);
  }
  return link(std::move(*object), kernel, name, options);
}

/// Keeps `object`, kernel `name`'s code, as a shared library too where the
/// options ask for one (CompileOptions::sharedObjectKey) and none is there.
void Engine::Impl::storeSharedObject(llvm::MemoryBufferRef object,
                                     const Kernel &kernel,
                                     llvm::StringRef name,
                                     const CompileOptions &options) {
  if (options.sharedObjectKey.empty() || options.target != "cpu" ||
      kernel.returnsResult || disk.hasSharedObject(options.sharedObjectKey))
    return;
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> symbols;
  std::vector<std::string> libraries;
  getKernelLinkage(options, symbols, libraries);
  llvm::json::Array shape;
  for (int64_t size : kernel.outputShape)
    shape.push_back(size);
  llvm::json::Object members{{"entry", getCallName(name)},
                             {"output_shape", std::move(shape)},
                             {"flops", kernel.flops}};
  std::string fields;
  llvm::raw_string_ostream(fields) << llvm::json::Value(std::move(members));
  // Members only: the descriptor's own braces hold them.
  fields = fields.substr(1, fields.size() - 2);
  disk.storeSharedObject(options.sharedObjectKey, object, fields, libraries);
}

llvm::Error Engine::Impl::link(std::unique_ptr<llvm::MemoryBuffer> object,
                               Kernel &kernel, llvm::StringRef name,
                               const CompileOptions &options) {
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> symbols;
  std::vector<std::string> libraries;
  getKernelLinkage(options, symbols, libraries);
  auto jit = loadObject(std::move(object), symbols, libraries);
  if (!jit)
    return jit.takeError();
  auto function = (*jit)->lookup(getPackedName(name));
  if (!function)
    return function.takeError();
  kernel.function = function->toPtr<void (*)(void **)>();
  // The constructors and destructors that load and unload GPU modules.
  for (auto [suffix, slot] :
       {std::make_pair("_init", &kernel.initialize),
        std::make_pair("_fini", &kernel.finalize)}) {
    auto address = (*jit)->lookup((name + suffix).str());
    if (address)
      *slot = address->toPtr<void (*)()>();
    else
      llvm::consumeError(address.takeError());
  }
  kernel.engine = std::move(*jit);
  return llvm::Error::success();
}

bool Engine::Impl::linkCached(llvm::StringRef diskKey, Kernel &kernel,
                              llvm::StringRef name,
                              const CompileOptions &options) {
  if (diskKey.empty())
    return false;
  std::optional<DiskCache::Entry> entry = disk.load(diskKey);
  if (!entry || entry->metadata != name)
    return false;
  storeSharedObject(entry->object->getMemBufferRef(), kernel, name, options);
  if (llvm::Error err = link(std::move(entry->object), kernel, name, options)) {
    llvm::consumeError(std::move(err));
    kernel.function = nullptr;
    return false;
  }
  kernel.fromDiskCache = true;
  return true;
}

static const std::string &getHostKey();

std::string Engine::Impl::getDiskKey(llvm::StringRef key,
                                     const CompileOptions &options) {
  if (!options.diskCache || !disk.isEnabled())
    return "";
  // The in-memory key leaves out what one process cannot change: the host,
  // and the memory limit where none is given (the machine's memory).
  return (key + "|" + getHostKey() + "|mem" +
          llvm::Twine(options.memoryLimit ? options.memoryLimit
                                          : physicalMemoryBytes()))
      .str();
}

/// The part of a disk cache key that the host adds: the CPU the kernels are
/// compiled for, with its features.
static const std::string &getHostKey() {
  static const std::string key = [] {
    std::string text = llvm::sys::getHostCPUName().str();
    std::vector<std::string> features;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.second ? "+" : "-") + feature.first().str());
    llvm::sort(features);
    for (const std::string &feature : features)
      text += "," + feature;
    return text;
  }();
  return key;
}

llvm::Expected<std::shared_ptr<Kernel>>
Engine::compile(llvm::StringRef equation,
                llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                ElementType elementType, const CompileOptions &options) {
  std::string key = equation.str() + "|" + getName(elementType).str() + "|" +
                    options.getCacheKey();
  for (const llvm::SmallVector<int64_t> &shape : shapes) {
    key += "|";
    for (int64_t d : shape)
      key += std::to_string(d) + "x";
  }
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (std::shared_ptr<Kernel> cached = impl->lookup(key)) {
    ++impl->hits;
    return cached;
  }

  auto start = std::chrono::steady_clock::now();
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  llvm::Expected<EinsumResolution> resolved =
      resolveEquationKernel(equation, shapes);
  if (!resolved)
    return resolved.takeError();
  const EinsumResolution &resolution = *resolved;
  if (llvm::Error err = checkSemiring(options.semiring, elementType))
    return std::move(err);
  // The path first: a memory limit that no path meets is an equation-level
  // error, reported before anything is compiled.
  llvm::Expected<double> flops =
      getEquationFlops(resolution, shapes.size(), options, elementType);
  if (!flops)
    return flops.takeError();
  if (llvm::Error err = checkGradient(options, shapes.size(), elementType))
    return std::move(err);
  std::shared_ptr<Kernel> kernel(new Kernel());
  kernel->onDevice = options.target == "cuda";
  for (const llvm::SmallVector<int64_t> &shape : shapes) {
    kernel->inputShapes.push_back(shape);
    kernel->inputTypes.push_back(elementType);
  }
  kernel->outputShape.assign(resolution.outputShape.begin(),
                             resolution.outputShape.end());
  if (options.gradOperand >= 0) {
    // The output gradient in, the operand's gradient out.
    kernel->inputShapes.push_back(kernel->outputShape);
    kernel->inputTypes.push_back(elementType);
    kernel->outputShape = shapes[options.gradOperand];
  }
  if (!options.grid.empty()) {
    // One rank's program: its blocks in, its block of the result returned.
    llvm::Expected<Kernel::Distribution> distribution =
        impl->planDistribution(equation, shapes, elementType, resolution,
                               options);
    // An einsum that cannot be distributed (a diagonal, a broadcast axis)
    // is the input's matter: einsum-shard's message, not an internal error.
    if (!distribution)
      return distribution.takeError();
    for (auto [shape, split] :
         llvm::zip(kernel->inputShapes, distribution->inputSplits))
      shape = getShardShape(shape, split, options.grid);
    kernel->outputShape = getShardShape(kernel->outputShape,
                                        distribution->outputSplit,
                                        options.grid);
    kernel->returnsResult = true;
    kernel->distribution = std::move(*distribution);
  }
  kernel->elementType = elementType;
  kernel->resultRank = kernel->outputShape.size();
  kernel->flops = *flops;
  kernel->signature = kernel->getSignature().encode();
  std::string diskKey = impl->getDiskKey(key, options);
  if (!impl->linkCached(diskKey, *kernel, kKernelName, options)) {
    auto module = impl->buildKernelModule(equation, shapes, elementType,
                                          resolution, options);
    if (!module)
      return module.takeError();
    // The equation resolved: a failure from here on is the compiler's.
    if (llvm::Error err = impl->lower(**module, Stage::LLVMDialect, options))
      return asInternal(std::move(err));
    if (llvm::Error err =
            impl->jit(**module, *kernel, kKernelName, options, diskKey))
      return asInternal(std::move(err));
  }
  kernel->compileSeconds = secondsSince(start);
  impl->insert(key, kernel);
  return kernel;
}

llvm::Expected<ContractionPath>
Engine::explain(llvm::StringRef equation,
                llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                ElementType elementType, const CompileOptions &options) {
  llvm::Expected<EinsumResolution> resolution = resolveEinsum(equation, shapes);
  if (!resolution)
    return resolution.takeError();
  return findContractionPath(*resolution,
                             makePathOptions(options, elementType));
}

llvm::Expected<std::string>
Engine::emit(llvm::StringRef equation,
             llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
             ElementType elementType, Stage stage,
             const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (llvm::Error err = checkOptions(options, stage))
    return std::move(err);
  llvm::Expected<EinsumResolution> resolution =
      resolveEquationKernel(equation, shapes);
  if (!resolution)
    return resolution.takeError();
  if (llvm::Error err = checkSemiring(options.semiring, elementType))
    return std::move(err);
  if (llvm::Error err = checkGradient(options, shapes.size(), elementType))
    return std::move(err);
  auto module = impl->buildKernelModule(equation, shapes, elementType,
                                        *resolution, options);
  if (!module)
    return module.takeError();
  if (llvm::Error err = impl->lower(**module, stage, options))
    return asInternal(std::move(err));
  return impl->print(**module, stage);
}

llvm::Expected<std::shared_ptr<Kernel>>
Engine::compileModule(llvm::StringRef source, llvm::StringRef name,
                      llvm::StringRef entry, const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  func::FuncOp function;
  auto module = impl->parseModule(source, name, entry, function);
  if (!module)
    return module.takeError();
  std::shared_ptr<Kernel> kernel(new Kernel());
  kernel->returnsResult = true;
  kernel->onDevice = options.target == "cuda";
  FunctionType type = function.getFunctionType();
  for (Type argType : type.getInputs()) {
    auto tensorType = cast<RankedTensorType>(argType);
    kernel->inputShapes.emplace_back(tensorType.getShape());
    kernel->inputTypes.push_back(*fromMLIRType(tensorType.getElementType()));
  }
  auto resultType = cast<RankedTensorType>(type.getResult(0));
  kernel->elementType = *fromMLIRType(resultType.getElementType());
  kernel->resultRank = resultType.getRank();
  kernel->outputShape.assign(resultType.getShape().begin(),
                             resultType.getShape().end());
  // FLOPs of the einsums in the entry function whose shapes are static.
  function.walk([&](ContractOp op) {
    EinsumResolution res = op.getResolution();
    if (std::optional<uint64_t> points = res.iterationCount())
      kernel->flops += static_cast<double>(*points) * op.getInputs().size();
  });
  // Is the function `return einsum.contract(arguments...)`?
  Block &body = function.getBody().front();
  if (body.getOperations().size() == 2) {
    auto op = dyn_cast<ContractOp>(body.front());
    auto ret = dyn_cast<func::ReturnOp>(body.back());
    if (op && ret && ret.getNumOperands() == 1 &&
        ret.getOperand(0) == op.getResult()) {
      Kernel::SingleEinsum single;
      single.equation = op.getEquation().str();
      single.semiring = stringifySemiring(op.getSemiringOrDefault()).str();
      for (Value input : op.getInputs())
        if (auto arg = dyn_cast<BlockArgument>(input))
          single.arguments.push_back(arg.getArgNumber());
      if (single.arguments.size() == op.getInputs().size())
        kernel->singleEinsum = std::move(single);
    }
  }
  kernel->signature = kernel->getSignature().encode();
  // Keyed by the whole source: the module, not only the entry, is compiled.
  std::string diskKey = impl->getDiskKey(
      "module|" + entry.str() + "|" + options.getCacheKey() + "|" +
          source.str(),
      options);
  if (!impl->linkCached(diskKey, *kernel, entry, options)) {
    if (llvm::Error err = impl->lower(**module, Stage::LLVMDialect, options))
      return std::move(err);
    if (llvm::Error err = impl->jit(**module, *kernel, entry, options, diskKey))
      return std::move(err);
  }
  kernel->compileSeconds = secondsSince(start);
  return kernel;
}

llvm::Expected<std::string>
Engine::emitModule(llvm::StringRef source, llvm::StringRef name,
                   llvm::StringRef entry, Stage stage,
                   const CompileOptions &options) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (llvm::Error err = checkOptions(options, stage))
    return std::move(err);
  func::FuncOp function;
  auto module = impl->parseModule(source, name, entry, function);
  if (!module)
    return module.takeError();
  if (llvm::Error err = impl->lower(**module, stage, options))
    return std::move(err);
  return impl->print(**module, stage);
}

size_t Engine::getCacheSize() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->cache.size();
}

const DiskCache &Engine::getDiskCache() const { return impl->disk; }

size_t Engine::getCacheHits() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->hits;
}

size_t Engine::getCacheEvictions() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->evictions;
}

size_t Engine::getCacheCapacity() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->capacity;
}

void Engine::setCacheCapacity(size_t capacity) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->capacity = capacity;
  impl->trim();
}
