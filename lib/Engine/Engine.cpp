//===- Engine.cpp - compile einsums to JIT kernels and run them -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Engine.h"

#include "einsum/Engine/CudaRuntime.h"
#include "einsum/Engine/RuntimeErrors.h"
#include "einsum/Engine/Workspace.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"
#include "einsum/InitAll.h"
#include "einsum/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <list>
#include <unordered_map>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::einsum;

static constexpr llvm::StringLiteral kKernelName = "einsum_kernel";

static llvm::Error makeError(const llvm::Twine &message) {
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
static llvm::Error asInternal(llvm::Error err) {
  if (!err || isInternalError(err))
    return err;
  return makeInternalError(llvm::toString(std::move(err)));
}

unsigned mlir::einsum::getMaxThreads() {
  return std::max(256u, std::thread::hardware_concurrency());
}

namespace {
/// What checkThreads() knows: the most threads started at once so far.
struct ThreadProbe {
  std::mutex mutex;
  unsigned started = 1;
};
} // namespace

/// Checks that the OpenMP runtime the kernels call can run `count` threads
/// at once. libomp cannot report a thread it fails to create (it prints an
/// error and aborts the process, or crashes), so a child process tries
/// first: it runs one parallel region of `count` threads and exits. Once
/// per process and thread count.
static llvm::Error checkThreads(unsigned count) {
  static ThreadProbe probe;
  std::lock_guard<std::mutex> lock(probe.mutex);
  if (count <= probe.started)
    return llvm::Error::success();
  void *library = dlopen(EINSUM_MLIR_LIB_DIR "/libomp.so", RTLD_NOW);
  auto parallel = library ? reinterpret_cast<void (*)(void (*)(void *),
                                                      void *, unsigned,
                                                      unsigned)>(
                                dlsym(library, "GOMP_parallel"))
                          : nullptr;
  if (!parallel)
    return makeError("cannot load the OpenMP runtime " EINSUM_MLIR_LIB_DIR
                     "/libomp.so");
  pid_t child = fork();
  if (child < 0)
    return makeError("cannot check that " + llvm::Twine(count) +
                     " threads can run: fork failed (" +
                     std::strerror(errno) + ")");
  if (child == 0) {
    // The child: libomp's complaint is not the parent's message.
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
      dup2(null, STDERR_FILENO);
    parallel([](void *) {}, nullptr, count, 0);
    _exit(0);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return makeError("the OpenMP runtime cannot start " + llvm::Twine(count) +
                     " threads here (memory or thread limits); use fewer "
                     "threads");
  probe.started = count;
  return llvm::Error::success();
}

static double secondsSince(std::chrono::steady_clock::time_point start) {
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
         (vectorize ? "/v" + std::to_string(vectorBits) : "/novec");
}

/// The path search's options for kernels of `elementType`, as the
/// einsum-optimize-path pass sets them up.
static PathOptions makePathOptions(const CompileOptions &options,
                                   ElementType elementType) {
  PathOptions path;
  // Validated where the options were made (the tools, the C API).
  if (llvm::Error err = parsePathOption(options.pathStrategy, path))
    llvm::consumeError(std::move(err));
  path.objective =
      parsePathObjective(options.minimize).value_or(PathObjective::Flops);
  // No limit given: the machine's memory (an intermediate larger than it
  // cannot be allocated anyway).
  path.memoryLimit =
      options.memoryLimit ? options.memoryLimit : physicalMemoryBytes();
  path.elementBytes = getByteWidth(elementType);
  return path;
}

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
}

/// Fails unless the NVPTX backend knows `chip` (sm_90, sm_80, ...): an
/// unknown one would compile with a warning per kernel and fail to load.
static llvm::Error checkChip(llvm::StringRef chip) {
  static const bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("the NVPTX backend is not available: " + error);
  // The generic subtarget (an unknown CPU name would be warned about on
  // stderr); its processor table holds every chip.
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (info && info->isCPUStringValid(chip))
    return llvm::Error::success();
  return makeError("unknown --chip '" + chip +
                   "' (expected an NVIDIA GPU the NVPTX backend knows, "
                   "such as sm_80, sm_90 or sm_100)");
}

std::optional<Stage> mlir::einsum::parseStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Stage>>(name)
      .Case("einsum", Stage::Einsum)
      .Case("linalg", Stage::Linalg)
      .Case("llvm-dialect", Stage::LLVMDialect)
      .Case("llvm-ir", Stage::LLVMIR)
      .Case("ptx", Stage::PTX)
      .Default(std::nullopt);
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
static llvm::Error callPacked(void (*function)(void **),
                              std::vector<Descriptor> &descriptors) {
  std::vector<void *> pointers;
  for (Descriptor &d : descriptors)
    pointers.push_back(d.fields.data());
  std::vector<void *> args;
  for (void *&p : pointers)
    args.push_back(&p);
  runtime::takeError(); // Nothing stale from an earlier call.
  function(args.data());
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

Kernel::~Kernel() = default;

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

/// Copies a strided result (`descriptor`, elements at `base`) into a fresh
/// row-major tensor.
static llvm::Expected<HostTensor> gatherResult(const Descriptor &result,
                                               const char *base,
                                               ElementType elementType,
                                               unsigned rank) {
  llvm::SmallVector<int64_t> shape;
  for (unsigned d = 0; d < rank; ++d)
    shape.push_back(result.size(d));
  llvm::Expected<HostTensor> created = HostTensor::create(elementType, shape);
  if (!created)
    return makeError("the result: " + llvm::toString(created.takeError()));
  HostTensor tensor = std::move(*created);
  size_t width = getByteWidth(elementType);
  char *out = static_cast<char *>(tensor.data());
  // Row-major results are copied in one piece.
  if (llvm::equal(llvm::map_range(llvm::seq<unsigned>(0, rank),
                                  [&](unsigned d) { return result.stride(d); }),
                  getRowMajorStrides(shape))) {
    if (tensor.getNumBytes())
      std::memcpy(out, base + result.offset() * width, tensor.getNumBytes());
    return tensor;
  }
  llvm::SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0, n = tensor.getNumElements(); linear < n;
       ++linear) {
    int64_t source = result.offset();
    for (unsigned d = 0; d < rank; ++d)
      source += index[d] * result.stride(d);
    std::memcpy(out + linear * width, base + source * width, width);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return tensor;
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

  // Copy the returned memref (any strides) into a fresh tensor, then free it:
  // the deallocation pipeline makes returned buffers owned by the caller.
  const Descriptor &result = descriptors.front();
  llvm::Expected<HostTensor> gathered =
      gatherResult(result, result.aligned(), elementType, resultRank);
  workspace::release(result.allocated());
  if (!gathered)
    return gathered.takeError();
  output = std::move(*gathered);
  return llvm::Error::success();
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
  std::call_once(initialized, [&] { engine->initialize(); });
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
  llvm::Expected<HostTensor> gathered =
      gatherResult(result, staging.data(), elementType, resultRank);
  if (!gathered)
    return gathered.takeError();
  output = std::move(*gathered);
  return llvm::Error::success();
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
  // A compute-bound kernel reads its operands many times, with vector loads
  // that cross cache lines where a row does not start on one: an operand
  // that is not 64-byte aligned (numpy aligns to 16) is copied to an aligned
  // buffer first (gemm1024 with B 16 bytes off: 125 GFLOP/s, aligned 152).
  // Only from 128 flops per operand byte on: below, the copy costs more
  // than the misalignment (attn_qk, whose B is packed anyway, has 64).
  constexpr uintptr_t kAlignment = 64;
  constexpr double kMinFlopsPerByte = 128;
  size_t inputBytes = 0;
  for (const llvm::SmallVector<int64_t> &shape : inputShapes)
    inputBytes += getDenseByteSize(elementType, shape).value_or(0);
  bool computeBound =
      inputBytes > 0 && flops / static_cast<double>(inputBytes) >=
                            kMinFlopsPerByte;
  // The copies come from the workspace: a fresh mapping of a large buffer
  // on every call costs more than the copy (bilinear: 80 -> 15 GFLOP/s).
  std::vector<std::unique_ptr<void, void (*)(void *)>> copies;
  std::vector<Descriptor> descriptors;
  descriptors.reserve(inputs.size() + 1);
  for (auto [i, data] : llvm::enumerate(inputs)) {
    void *pointer = const_cast<void *>(data);
    size_t bytes =
        getDenseByteSize(inputTypes[i], inputShapes[i]).value_or(0);
    if (computeBound && bytes >= kAlignment &&
        reinterpret_cast<uintptr_t>(pointer) % kAlignment != 0) {
      void *block = workspace::allocate(bytes + kAlignment);
      if (!block)
        return makeError("cannot allocate " + llvm::Twine(bytes) +
                         " bytes to align input " + llvm::Twine(i));
      copies.emplace_back(block, workspace::release);
      uintptr_t address = reinterpret_cast<uintptr_t>(block);
      void *aligned = reinterpret_cast<void *>(
          (address + kAlignment - 1) / kAlignment * kAlignment);
      std::memcpy(aligned, pointer, bytes);
      pointer = aligned;
    }
    descriptors.emplace_back(pointer, inputShapes[i],
                             getRowMajorStrides(inputShapes[i]));
  }
  descriptors.emplace_back(output, outputShape, getRowMajorStrides(outputShape));
  return callPacked(function, descriptors);
}

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

namespace {
/// Collects error diagnostics as one line, "FILE:LINE:COL: message"
/// joined with "; " (the synthetic location of an equation kernel is not
/// printed).
struct OneLineDiagnostics : ScopedDiagnosticHandler {
  std::string text;
  OneLineDiagnostics(MLIRContext *context)
      : ScopedDiagnosticHandler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return success();
          if (!text.empty())
            text += "; ";
          if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation()))
            text += file.getFilename().str() + ":" +
                    std::to_string(file.getLine()) + ":" +
                    std::to_string(file.getColumn()) + ": ";
          text += diag.str();
          return success();
        }) {}
};
} // namespace

struct Engine::Impl {
  MLIRContext context;
  mutable std::mutex mutex;
  /// Kernels by key, and the keys from the most to the least recently used.
  struct CacheEntry {
    std::shared_ptr<Kernel> kernel;
    std::list<std::string>::iterator use;
  };
  std::unordered_map<std::string, CacheEntry> cache;
  std::list<std::string> uses;
  size_t capacity = Engine::kDefaultCacheCapacity;
  size_t hits = 0;
  size_t evictions = 0;

  /// The cached kernel of `key` (now the most recently used), or null.
  std::shared_ptr<Kernel> lookup(const std::string &key) {
    auto it = cache.find(key);
    if (it == cache.end())
      return nullptr;
    uses.splice(uses.begin(), uses, it->second.use);
    return it->second.kernel;
  }
  /// Caches `kernel`, then drops the least recently used beyond capacity.
  void insert(const std::string &key, std::shared_ptr<Kernel> kernel) {
    uses.push_front(key);
    cache[key] = CacheEntry{std::move(kernel), uses.begin()};
    trim();
  }
  void trim() {
    while (cache.size() > capacity) {
      cache.erase(uses.back());
      uses.pop_back();
      ++evictions;
    }
  }

  Impl() : context(makeRegistry(), MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllToLLVMIRTranslations(registry);
    return registry;
  }

  /// Runs `build` on `module`, returning the diagnostics as an error.
  llvm::Error runPipeline(ModuleOp module,
                          llvm::function_ref<void(OpPassManager &)> build);
  /// Lowers `module` to `stage` (Einsum: nothing to do).
  llvm::Error lower(ModuleOp module, Stage stage,
                    const CompileOptions &options);
  llvm::Expected<std::string> print(ModuleOp module, Stage stage);
  llvm::Error jit(ModuleOp module, Kernel &kernel, llvm::StringRef name,
                  const CompileOptions &options);

  llvm::Expected<OwningOpRef<ModuleOp>>
  buildEquationModule(llvm::StringRef equation,
                      llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                      ElementType elementType, EinsumResolution &resolution);
  llvm::Expected<OwningOpRef<ModuleOp>>
  parseModule(llvm::StringRef source, llvm::StringRef name,
              llvm::StringRef entry, func::FuncOp &function);
};

Engine::Engine() : impl(std::make_unique<Impl>()) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
}

Engine::~Engine() = default;

llvm::Error
Engine::Impl::runPipeline(ModuleOp module,
                          llvm::function_ref<void(OpPassManager &)> build) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  OneLineDiagnostics handler(&context);
  PassManager pm(&context, ModuleOp::getOperationName());
  // The tools' -mlir-timing, -mlir-print-ir-after-all, ... (a no-op where
  // they are not registered: the C API and Python).
  (void)applyPassManagerCLOptions(pm); // Fails where not registered.
  applyDefaultTimingPassManagerCLOptions(pm);
  build(pm);
  if (failed(pm.run(module)))
    return makeError("compilation failed" +
                     (handler.text.empty() ? std::string()
                                           : ": " + handler.text));
  return llvm::Error::success();
}

llvm::Error Engine::Impl::lower(ModuleOp module, Stage stage,
                                const CompileOptions &options) {
  bool gpu = options.target == "cuda";
  bool gpuScheduleOnCPU = options.target == "gpu-schedule-on-cpu";
  if (stage == Stage::Einsum)
    return llvm::Error::success();
  EinsumToLLVMPipelineOptions pipelineOptions;
  pipelineOptions.expandBF16 = options.expandBF16;
  pipelineOptions.numThreads = options.threads;
  pipelineOptions.pathStrategy = options.pathStrategy;
  pipelineOptions.memoryLimit =
      options.memoryLimit ? options.memoryLimit : physicalMemoryBytes();
  pipelineOptions.minimize = options.minimize;
  pipelineOptions.vectorize = options.vectorize;
  pipelineOptions.vectorBits = options.vectorBits;
  // Parsed modules were imported by parseModule, and equation modules are
  // einsum ops already: no second walk for other stacks' ops.
  pipelineOptions.importFrontends = false;
  // Failed run-time checks come back as the kernel call's error.
  pipelineOptions.returnOnError = true;
  if (stage == Stage::Linalg)
    return runPipeline(module, [&](OpPassManager &pm) {
      buildEinsumToLinalgPipeline(pm, pipelineOptions);
    });
  if (gpu || gpuScheduleOnCPU) {
    EinsumToNVVMPipelineOptions gpuOptions;
    gpuOptions.copyPathOptions(pipelineOptions);
    gpuOptions.returnOnError = true;
    gpuOptions.chip = options.chip;
    gpuOptions.features = options.features;
    gpuOptions.format = stage == Stage::PTX ? "isa" : options.gpuFormat;
    if (gpuScheduleOnCPU)
      return runPipeline(module, [&](OpPassManager &pm) {
        buildEinsumGpuScheduleOnCPUPipeline(pm, gpuOptions);
      });
    return runPipeline(module, [&](OpPassManager &pm) {
      buildEinsumToNVVMPipeline(pm, gpuOptions);
    });
  }
  return runPipeline(module, [&](OpPassManager &pm) {
    buildEinsumToLLVMPipeline(pm, pipelineOptions);
  });
}

llvm::Expected<std::string> Engine::Impl::print(ModuleOp module, Stage stage) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (stage == Stage::PTX) {
    // Each gpu.binary holds one kernel module's PTX; they are printed as one
    // module (one .version/.target/.address_size header; the kernels have
    // distinct names), which ptxas assembles as it is.
    bool first = true;
    module.walk([&](gpu::BinaryOp binary) {
      for (Attribute attr : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        llvm::StringRef ptx = object.getObject().getValue();
        if (!first) {
          size_t header = ptx.find(".address_size");
          if (header != llvm::StringRef::npos)
            ptx = ptx.drop_front(header).drop_until(
                [](char c) { return c == '\n'; });
        }
        os << (first ? "" : "\n") << "// gpu.binary @" << binary.getSymName()
           << "\n"
           << ptx;
        first = false;
      }
    });
    return text;
  }
  if (stage != Stage::LLVMIR) {
    module.print(os);
    return text;
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  llvmModule->print(os, nullptr);
  return text;
}

llvm::Error Engine::Impl::jit(ModuleOp module, Kernel &kernel,
                              llvm::StringRef name,
                              const CompileOptions &options) {
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return tmBuilder.takeError();
  tmBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto targetMachine = tmBuilder->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  auto transformer = makeOptimizingTransformer(/*optLevel=*/3,
                                               /*sizeLevel=*/0,
                                               targetMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // memref.copy of strided views calls into the C runner utils; threaded
  // kernels call LLVM 22's OpenMP runtime (the libomp in the multiarch
  // folder belongs to another LLVM).
  llvm::SmallVector<llvm::StringRef, 2> runtimeLibs = {
      EINSUM_MLIR_LIB_DIR "/libmlir_c_runner_utils.so"};
  bool gpu = options.target == "cuda";
  if (options.threads > 1 && options.target == "cpu")
    runtimeLibs.push_back(EINSUM_MLIR_LIB_DIR "/libomp.so");
  engineOptions.sharedLibPaths = runtimeLibs;
  // A function declared but defined nowhere would fail in the JIT with a
  // message of its own on stderr: refused here, by name.
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> known;
  for (auto table : {cuda::getRuntimeSymbols(), workspace::getRuntimeSymbols(),
                     runtime::getRuntimeSymbols()})
    llvm::append_range(known, table);
  for (LLVM::LLVMFuncOp func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!func.isExternal())
      continue;
    llvm::StringRef symbol = func.getSymName();
    if (llvm::any_of(known, [&](auto &entry) { return entry.first == symbol; }))
      continue;
    std::string cSymbol = symbol.str();
    bool found = dlsym(RTLD_DEFAULT, cSymbol.c_str());
    for (llvm::StringRef path : runtimeLibs) {
      if (found)
        break;
      if (void *library = dlopen(path.str().c_str(), RTLD_LAZY | RTLD_LOCAL))
        found = dlsym(library, cSymbol.c_str());
    }
    if (!found)
      return makeError("the module calls @" + symbol +
                       ", which is declared but defined nowhere (not in the "
                       "module, the runtime or its libraries)");
  }
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  auto engine = ExecutionEngine::create(module, engineOptions,
                                        std::move(*targetMachine));
  if (!engine)
    return engine.takeError();
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto table : {gpu ? cuda::getRuntimeSymbols()
                           : workspace::getRuntimeSymbols(),
                       runtime::getRuntimeSymbols()})
      for (auto [symbol, address] : table)
        symbols[interner(symbol)] = {
            llvm::orc::ExecutorAddr::fromPtr(address),
            llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  kernel.onDevice = gpu;
  auto function = (*engine)->lookupPacked(("_mlir_ciface_" + name).str());
  if (!function)
    return function.takeError();
  kernel.function = *function;
  kernel.engine = std::move(*engine);
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> Engine::Impl::buildEquationModule(
    llvm::StringRef equation, llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    ElementType elementType, EinsumResolution &resolution) {
  llvm::Expected<EinsumResolution> resolved = resolveEinsum(equation, shapes);
  if (!resolved)
    return resolved.takeError();
  for (const EinsumLoopDim &dim : resolved->dims)
    if (dim.isDynamic())
      return makeError("dynamic dimension sizes cannot be compiled into an "
                       "equation kernel; give static shapes");
  resolution = std::move(*resolved);

  OpBuilder b(&context);
  Location loc = NameLoc::get(b.getStringAttr("einsum: " + equation));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Type type = getMLIRType(elementType, &context);
  SmallVector<Type> argTypes;
  for (const llvm::SmallVector<int64_t> &shape : shapes)
    argTypes.push_back(MemRefType::get(shape, type));
  argTypes.push_back(MemRefType::get(resolution.outputShape, type));

  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, kKernelName,
                                   b.getFunctionType(argTypes, {}));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                b.getUnitAttr());
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  SmallVector<Value> tensors;
  for (unsigned i = 0; i < shapes.size(); ++i)
    tensors.push_back(bufferization::ToTensorOp::create(
        b, loc, RankedTensorType::get(shapes[i], type), body->getArgument(i),
        /*restrict=*/true, /*writable=*/false));
  auto contract = ContractOp::create(b, loc, b.getStringAttr(equation),
                                     tensors);
  auto materialize = bufferization::MaterializeInDestinationOp::create(
      b, loc, contract.getResult(), body->getArguments().back());
  materialize.setRestrict(true);
  materialize.setWritable(true);
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return makeInternalError("the kernel module does not verify");
  return std::move(module);
}

llvm::Expected<OwningOpRef<ModuleOp>>
Engine::Impl::parseModule(llvm::StringRef source, llvm::StringRef name,
                          llvm::StringRef entry, func::FuncOp &function) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
  OneLineDiagnostics handler(&context);
  // Other stacks' einsums (torch-mlir, StableHLO) come in the generic form
  // of dialects not registered here: parsed, imported, and then none may be
  // left.
  context.allowUnregisteredDialects(true);
  llvm::scope_exit disallow(
      [&] { context.allowUnregisteredDialects(false); });
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return makeError(handler.text);
  if (llvm::Error err = runPipeline(module.get(), [](OpPassManager &pm) {
        buildEinsumImportPipeline(pm);
      }))
    return std::move(err);
  Operation *unknown = nullptr;
  module->walk([&](Operation *op) {
    if (!op->isRegistered()) {
      unknown = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unknown) {
    unknown->emitError() << "unknown operation '" << unknown->getName()
                         << "' (of other dialects, einsum-mlir imports "
                            "torch.aten.einsum, stablehlo.einsum and "
                            "tosa.matmul)";
    return makeError(handler.text);
  }

  function = module->lookupSymbol<func::FuncOp>(entry);
  if (!function || function.isExternal()) {
    std::string names;
    for (auto f : module->getOps<func::FuncOp>())
      if (!f.isExternal())
        names += (names.empty() ? "@" : ", @") + f.getSymName().str();
    return makeError(name + ": no function @" + entry + " with a body" +
                     (names.empty() ? std::string()
                                    : " (functions: " + names + ")"));
  }
  FunctionType type = function.getFunctionType();
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    auto tensorType = dyn_cast<RankedTensorType>(argType);
    if (!tensorType || !fromMLIRType(tensorType.getElementType()))
      return makeError(name + ": argument " + llvm::Twine(i) + " of @" +
                       entry +
                       " must be a ranked tensor of f32, f64, f16, bf16, "
                       "i32 or i64");
  }
  if (type.getNumResults() != 1 ||
      !isa<RankedTensorType>(type.getResult(0)) ||
      !fromMLIRType(
          cast<RankedTensorType>(type.getResult(0)).getElementType()))
    return makeError(name + ": @" + entry +
                     " must return exactly one ranked tensor of a supported "
                     "element type");
  function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(&context));
  return std::move(module);
}

/// Options that no kernel can be compiled or run with, and stages a target
/// cannot print.
static llvm::Error checkOptions(const CompileOptions &options,
                                std::optional<Stage> stage = std::nullopt) {
  bool gpu = options.target == "cuda";
  bool gpuScheduleOnCPU = options.target == "gpu-schedule-on-cpu";
  if (!gpu && !gpuScheduleOnCPU && options.target != "cpu")
    return makeError("unknown target '" + options.target +
                     "' (expected cpu, cuda or gpu-schedule-on-cpu)");
  if (stage == Stage::PTX && !gpu)
    return makeError("--emit=ptx needs the cuda target");
  if (gpu || gpuScheduleOnCPU)
    if (llvm::Error err = checkChip(options.chip))
      return err;
  if (options.threads == 0 || options.threads > getMaxThreads())
    return makeError("a kernel runs on 1 to " + llvm::Twine(getMaxThreads()) +
                     " threads, not " + llvm::Twine(options.threads));
  if (options.threads > 1 && options.target == "cpu")
    return checkThreads(options.threads);
  return llvm::Error::success();
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
  EinsumResolution resolution;
  auto module =
      impl->buildEquationModule(equation, shapes, elementType, resolution);
  if (!module)
    return module.takeError();
  // The path of three or more operands first: a memory limit that no path
  // meets is an equation-level error, reported before anything is compiled.
  // (An explicit path is checked whatever the operand count.)
  std::optional<ContractionPath> path;
  PathOptions pathOptions = makePathOptions(options, elementType);
  if ((shapes.size() >= 3 ||
       pathOptions.strategy == PathStrategy::Explicit) &&
      resolution.numDims() <= static_cast<unsigned>(kNumLabels)) {
    llvm::Expected<ContractionPath> found =
        findContractionPath(resolution, pathOptions);
    if (!found)
      return found.takeError();
    path = std::move(*found);
  }
  // The equation resolved: a failure from here on is the compiler's.
  if (llvm::Error err = impl->lower(**module, Stage::LLVMDialect, options))
    return asInternal(std::move(err));
  std::shared_ptr<Kernel> kernel(new Kernel());
  if (llvm::Error err = impl->jit(**module, *kernel, kKernelName, options))
    return asInternal(std::move(err));
  for (const llvm::SmallVector<int64_t> &shape : shapes) {
    kernel->inputShapes.push_back(shape);
    kernel->inputTypes.push_back(elementType);
  }
  kernel->outputShape.assign(resolution.outputShape.begin(),
                             resolution.outputShape.end());
  kernel->elementType = elementType;
  kernel->resultRank = resolution.numOutputDims();
  // FLOPs of the path the pipeline takes (the whole einsum below three
  // operands).
  kernel->flops =
      static_cast<double>(resolution.iterationCount().value_or(0)) *
      shapes.size();
  if (path)
    kernel->flops = path->optimizedFlops;
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
  EinsumResolution resolution;
  auto module =
      impl->buildEquationModule(equation, shapes, elementType, resolution);
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
      for (Value input : op.getInputs())
        if (auto arg = dyn_cast<BlockArgument>(input))
          single.arguments.push_back(arg.getArgNumber());
      if (single.arguments.size() == op.getInputs().size())
        kernel->singleEinsum = std::move(single);
    }
  }
  if (llvm::Error err = impl->lower(**module, Stage::LLVMDialect, options))
    return std::move(err);
  if (llvm::Error err = impl->jit(**module, *kernel, entry, options))
    return std::move(err);
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
