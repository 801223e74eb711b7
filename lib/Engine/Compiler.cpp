//===- Compiler.cpp - equations and modules to object code ----------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The compiler side of the engine: option checks, the kernel modules of
// equations and of users' .mlir files, the pipelines down to the LLVM
// dialect (or PTX), printing a stage, and object code.
//
//===----------------------------------------------------------------------===//

#include "EngineImpl.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"
#include "einsum/Dialect/Einsum/Transforms/Passes.h"
#include "einsum/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <condition_variable>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <thread>

using namespace mlir;
using namespace mlir::einsum;
using namespace mlir::einsum::engine_impl;

namespace {
/// What checkThreads() knows: the most threads started at once so far.
struct ThreadProbe {
  std::mutex mutex;
  unsigned started = 1;
};
} // namespace

/// Whether `count` threads of the OpenMP runtime can run at once, tried in
/// a forked child (libomp cannot report a thread it fails to create: it
/// prints an error and aborts the process, or crashes): one parallel region
/// of `count` threads, then exit. Exact, but a fork of a process that maps
/// libLLVM costs 8-10 ms.
static llvm::Error probeInChild(void (*parallel)(void (*)(void *), void *,
                                                 unsigned, unsigned),
                                unsigned count) {
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
  return llvm::Error::success();
}

/// Whether `count - 1` threads with the stacks libomp gives its workers
/// (OMP_STACKSIZE, default 4 MiB) can be alive at once in this process:
/// started, held at a gate, joined. Well under a millisecond; what stops
/// them (thread or memory limits) would stop libomp's, though libomp needs
/// somewhat more per thread than this.
static llvm::Error probeInProcess(unsigned count) {
  size_t stack = size_t(4) << 20;
  if (const char *text = getenv("OMP_STACKSIZE"))
    if (std::optional<uint64_t> bytes = parseByteSize(text))
      stack = std::max<size_t>(*bytes, stack);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack);
  struct Gate {
    std::mutex mutex;
    std::condition_variable opened;
    bool open = false;
  } gate;
  auto wait = [](void *argument) -> void * {
    auto *g = static_cast<Gate *>(argument);
    std::unique_lock<std::mutex> lock(g->mutex);
    g->opened.wait(lock, [&] { return g->open; });
    return nullptr;
  };
  std::vector<pthread_t> threads;
  int failure = 0;
  for (unsigned i = 1; i < count && !failure; ++i) {
    pthread_t thread;
    failure = pthread_create(&thread, &attributes, wait, &gate);
    if (!failure)
      threads.push_back(thread);
  }
  pthread_attr_destroy(&attributes);
  {
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.open = true;
  }
  gate.opened.notify_all();
  for (pthread_t thread : threads)
    pthread_join(thread, nullptr);
  if (failure)
    return makeError("the OpenMP runtime cannot start " + llvm::Twine(count) +
                     " threads here (" + std::strerror(failure) +
                     "; memory or thread limits); use fewer threads");
  return llvm::Error::success();
}

/// Checks that the OpenMP runtime the kernels call can run `count` threads
/// at once, once per process and thread count: up to the machine's hardware
/// threads in this process (a cached kernel's first call takes 3 ms; the
/// child's fork would triple it), beyond them (oversubscription, where
/// limits bite) exactly, in a child.
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
  llvm::Error err = count <= std::thread::hardware_concurrency()
                        ? probeInProcess(count)
                        : probeInChild(parallel, count);
  if (err)
    return err;
  probe.started = count;
  return llvm::Error::success();
}

/// The path search's options for kernels of `elementType`, as the
/// einsum-optimize-path pass sets them up.
PathOptions engine_impl::makePathOptions(const CompileOptions &options,
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
  if (std::optional<Semiring> semiring = parseSemiring(options.semiring))
    setSemiringCosts(path, *semiring);
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

llvm::Error
Engine::Impl::runPipeline(ModuleOp module,
                          llvm::function_ref<void(OpPassManager &)> build) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  OneLineDiagnostics handler(&getContext());
  PassManager pm(&getContext(), ModuleOp::getOperationName());
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

/// The CPU pipeline's options for kernels compiled with `options`.
static void setPipelineOptions(const CompileOptions &options,
                               EinsumToLLVMPipelineOptions &pipelineOptions) {
  pipelineOptions.expandBF16 = options.expandBF16;
  pipelineOptions.numThreads = options.threads;
  pipelineOptions.pathStrategy = options.pathStrategy;
  pipelineOptions.memoryLimit =
      options.memoryLimit ? options.memoryLimit : physicalMemoryBytes();
  pipelineOptions.minimize = options.minimize;
  pipelineOptions.vectorize = options.vectorize;
  pipelineOptions.vectorBits = options.vectorBits;
  pipelineOptions.vectorRegisters = options.vectorRegisters;
  pipelineOptions.grid = options.grid;
  pipelineOptions.mpiImplementation = options.mpiImplementation;
  // Parsed modules were imported by parseModule, and equation modules are
  // einsum ops already: no second walk for other stacks' ops.
  pipelineOptions.importFrontends = false;
  // Failed run-time checks come back as the kernel call's error.
  pipelineOptions.returnOnError = true;
}

llvm::Error Engine::Impl::lower(ModuleOp module, Stage stage,
                                const CompileOptions &options) {
  bool gpu = options.target == "cuda";
  bool gpuScheduleOnCPU = options.target == "gpu-schedule-on-cpu";
  if (stage == Stage::Einsum)
    return llvm::Error::success();
  EinsumToLLVMPipelineOptions pipelineOptions;
  setPipelineOptions(options, pipelineOptions);
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

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
Engine::Impl::emitKernelObject(ModuleOp module, llvm::StringRef name,
                               const KernelSignature &signature,
                               llvm::StringRef cpu, llvm::StringRef cName,
                               bool hoistConstructors) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createCPUTargetMachine(cpu);
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext llvmContext;
  std::string entry = cName.empty() ? getCallName(name) : cName.str();
  std::vector<std::string> exported = {entry, getPackedName(name),
                                       getSignatureName(name)};
  auto llvmModule = translateKernel(module, name, signature, entry,
                                    llvmContext, hoistConstructors, exported);
  if (!llvmModule)
    return llvmModule.takeError();
  internalizeExcept(**llvmModule, exported);
  return emitObject(**llvmModule, **machine);
}

llvm::Expected<std::unique_ptr<llvm::Module>> Engine::Impl::translateKernel(
    ModuleOp module, llvm::StringRef name, const KernelSignature &signature,
    llvm::StringRef cName, llvm::LLVMContext &llvmContext,
    bool hoistConstructors, std::vector<std::string> &exported) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, name);
  if (!llvmModule)
    return makeError("translation to LLVM IR failed");
  if (llvm::Error err =
          addKernelEntryPoints(*llvmModule, name, cName, signature))
    return std::move(err);
  if (hoistConstructors)
    for (auto [list, suffix] : {std::make_pair("llvm.global_ctors", "_init"),
                                std::make_pair("llvm.global_dtors", "_fini")})
      if (hoistStructors(*llvmModule, list, (name + suffix).str()))
        exported.push_back((name + suffix).str());
  return std::move(llvmModule);
}

llvm::Expected<double>
engine_impl::getEquationFlops(const EinsumResolution &resolution,
                              unsigned numOperands,
                              const CompileOptions &options,
                              ElementType elementType) {
  // The path of three or more operands (an explicit path whatever the
  // operand count) is searched as the pipeline will search it; a memory
  // limit that no path meets is an error of the equation.
  PathOptions pathOptions = makePathOptions(options, elementType);
  if ((numOperands >= 3 || pathOptions.strategy == PathStrategy::Explicit) &&
      resolution.numDims() <= static_cast<unsigned>(kNumLabels)) {
    llvm::Expected<ContractionPath> found =
        findContractionPath(resolution, pathOptions);
    if (!found)
      return found.takeError();
    return found->optimizedFlops;
  }
  return static_cast<double>(resolution.iterationCount().value_or(0)) *
         numOperands;
}

std::optional<Semiring> engine_impl::parseSemiring(llvm::StringRef name) {
  return symbolizeSemiring(name);
}

llvm::Error engine_impl::checkSemiring(llvm::StringRef name,
                                       ElementType elementType) {
  std::optional<Semiring> semiring = parseSemiring(name);
  if (!semiring)
    return makeError("unknown semiring '" + name +
                     "' (expected plus_times, log, max, min, max_times or "
                     "bool)");
  if (*semiring == Semiring::Log && !isFloat(elementType))
    return makeError("the log semiring needs floating-point operands, not " +
                     getName(elementType));
  if (*semiring == Semiring::Bool && isFloat(elementType))
    return makeError("the bool semiring needs integer operands, not " +
                     getName(elementType));
  return llvm::Error::success();
}

/// The resolution of an equation kernel: static sizes only.
llvm::Expected<EinsumResolution>
engine_impl::resolveEquationKernel(llvm::StringRef equation,
                      llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes) {
  llvm::Expected<EinsumResolution> resolved = resolveEinsum(equation, shapes);
  if (!resolved)
    return resolved.takeError();
  for (const EinsumLoopDim &dim : resolved->dims)
    if (dim.isDynamic())
      return makeError("dynamic dimension sizes cannot be compiled into an "
                       "equation kernel; give static shapes");
  return resolved;
}

llvm::Expected<OwningOpRef<ModuleOp>> Engine::Impl::buildEquationModule(
    llvm::StringRef equation, llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    ElementType elementType, const EinsumResolution &resolution,
    llvm::StringRef functionName, bool returnResult, Semiring semiring) {
  SemiringAttr semiringAttr =
      semiring == Semiring::PlusTimes
          ? SemiringAttr()
          : SemiringAttr::get(&getContext(), semiring);
  OpBuilder b(&getContext());
  Location loc = NameLoc::get(b.getStringAttr("einsum: " + equation));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Type type = getMLIRType(elementType, &getContext());
  if (returnResult) {
    // tensors in, the result returned (sizes may be dynamic).
    SmallVector<Type> argTypes;
    for (const llvm::SmallVector<int64_t> &shape : shapes)
      argTypes.push_back(RankedTensorType::get(shape, type));
    Type resultType = RankedTensorType::get(resolution.outputShape, type);
    b.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(
        b, loc, functionName, b.getFunctionType(argTypes, {resultType}));
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
    Block *body = func.addEntryBlock();
    b.setInsertionPointToStart(body);
    auto contract = ContractOp::create(b, loc, b.getStringAttr(equation),
                                       body->getArguments(), semiringAttr);
    func::ReturnOp::create(b, loc, contract.getResult());
    if (failed(verify(*module)))
      return makeInternalError("the kernel module does not verify");
    return std::move(module);
  }
  SmallVector<Type> argTypes;
  for (const llvm::SmallVector<int64_t> &shape : shapes)
    argTypes.push_back(MemRefType::get(shape, type));
  argTypes.push_back(MemRefType::get(resolution.outputShape, type));

  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, functionName,
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
                                     tensors, semiringAttr);
  auto materialize = bufferization::MaterializeInDestinationOp::create(
      b, loc, contract.getResult(), body->getArguments().back());
  materialize.setRestrict(true);
  materialize.setWritable(true);
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return makeInternalError("the kernel module does not verify");
  return std::move(module);
}

llvm::Error engine_impl::checkGradient(const CompileOptions &options,
                                       size_t numOperands,
                                       ElementType elementType) {
  if (options.gradOperand < 0)
    return llvm::Error::success();
  if (static_cast<size_t>(options.gradOperand) >= numOperands)
    return makeError("the gradient of operand " +
                     llvm::Twine(options.gradOperand) +
                     ": the einsum has " + llvm::Twine(numOperands) +
                     " operands");
  if (!isFloat(elementType))
    return makeError("gradients need floating-point operands, not " +
                     getName(elementType));
  if (options.target != "cpu")
    return makeError("gradients are compiled for the cpu target, not " +
                     options.target);
  if (llvm::StringRef(options.pathStrategy).starts_with("explicit"))
    return makeError("an explicit path names the steps of one einsum; a "
                     "gradient's einsums take a searched path (auto, "
                     "optimal, dp, greedy or left-to-right)");
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> Engine::Impl::buildKernelModule(
    llvm::StringRef equation, llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    ElementType elementType, const EinsumResolution &resolution,
    const CompileOptions &options) {
  Semiring semiring = *parseSemiring(options.semiring);
  if (options.gradOperand >= 0)
    return buildGradientModule(equation, shapes, elementType, resolution,
                               kKernelName, semiring, options.gradOperand,
                               options);
  // A rank's program returns its block of the result (shard-partition
  // changes the function's types; the in-place form's memref arguments
  // would keep the whole shapes).
  return buildEquationModule(equation, shapes, elementType, resolution,
                             kKernelName,
                             /*returnResult=*/!options.grid.empty(), semiring);
}

llvm::Expected<Kernel::Distribution> Engine::Impl::planDistribution(
    llvm::StringRef equation, llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    ElementType elementType, const EinsumResolution &resolution,
    const CompileOptions &options) {
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      buildKernelModule(equation, shapes, elementType, resolution, options);
  if (!module)
    return module.takeError();
  Kernel::Distribution result;
  result.grid = options.grid;
  result.inputShapes.assign(shapes.begin(), shapes.end());
  result.outputShape.assign(resolution.outputShape.begin(),
                            resolution.outputShape.end());
  std::string errors;
  ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Remark)
      result.report += diag.str() + "\n";
    else if (diag.getSeverity() == DiagnosticSeverity::Error)
      errors += (errors.empty() ? "" : "; ") + diag.str();
    return success();
  });
  EinsumToLLVMPipelineOptions pipelineOptions;
  setPipelineOptions(options, pipelineOptions);
  PassManager pm(&getContext(), ModuleOp::getOperationName());
  buildEinsumPathPipeline(pm, pipelineOptions);
  EinsumShardPassOptions shardOptions;
  shardOptions.grid.assign(options.grid.begin(), options.grid.end());
  shardOptions.mpiImplementation = options.mpiImplementation;
  shardOptions.explain = true;
  pm.addPass(createEinsumShardPass(shardOptions));
  if (failed(pm.run(**module)))
    return makeError(errors.empty() ? "the einsum cannot be distributed"
                                    : errors);
  auto func = (**module).lookupSymbol<func::FuncOp>(kKernelName);
  auto splitOf = [](Value annotated) -> std::optional<SplitAxes> {
    auto shardOp = annotated.getDefiningOp<shard::ShardOp>();
    if (!shardOp)
      return std::nullopt;
    auto sharding = shardOp.getSharding().getDefiningOp<shard::ShardingOp>();
    if (!sharding)
      return std::nullopt;
    SplitAxes split;
    for (shard::GridAxesAttr axes : sharding.getSplitAxes().getAxes())
      split.emplace_back(axes.asArrayRef().begin(), axes.asArrayRef().end());
    return split;
  };
  for (BlockArgument arg : func.getArguments()) {
    if (!arg.hasOneUse())
      return makeInternalError("einsum-shard left an argument unannotated");
    std::optional<SplitAxes> split =
        splitOf(arg.getUses().begin()->getOwner()->getResult(0));
    if (!split)
      return makeInternalError("einsum-shard left an argument unannotated");
    split->resize(cast<RankedTensorType>(arg.getType()).getRank());
    result.inputSplits.push_back(std::move(*split));
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  std::optional<SplitAxes> split = splitOf(ret.getOperand(0));
  if (!split)
    return makeInternalError("einsum-shard left the result unannotated");
  split->resize(result.outputShape.size());
  result.outputSplit = std::move(*split);
  return result;
}

llvm::Expected<OwningOpRef<ModuleOp>> Engine::Impl::buildGradientModule(
    llvm::StringRef equation, llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    ElementType elementType, const EinsumResolution &resolution,
    llvm::StringRef functionName, Semiring semiring, unsigned gradOperand,
    const CompileOptions &options) {
  constexpr llvm::StringLiteral kForward = "einsum_forward";
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      buildEquationModule(equation, shapes, elementType, resolution, kForward,
                          /*returnResult=*/true, semiring);
  if (!module)
    return module.takeError();
  EinsumToLLVMPipelineOptions pipelineOptions;
  setPipelineOptions(options, pipelineOptions);
  if (llvm::Error err = runPipeline(module->get(), [&](OpPassManager &pm) {
        buildEinsumPathPipeline(pm, pipelineOptions);
        EinsumGradPassOptions gradOptions;
        gradOptions.wrt = {gradOperand};
        gradOptions.function = kForward.str();
        pm.addPass(createEinsumGradPass(gradOptions));
      }))
    return std::move(err);
  ModuleOp m = module->get();
  m.lookupSymbol<func::FuncOp>(kForward).erase();
  auto gradient = m.lookupSymbol<func::FuncOp>((kForward + "_grad").str());

  // The destination-passing entry: operands, output gradient, result.
  OpBuilder b(&getContext());
  Location loc = gradient.getLoc();
  Type type = getMLIRType(elementType, &getContext());
  SmallVector<Type> argTypes;
  for (Type t : gradient.getFunctionType().getInputs())
    argTypes.push_back(
        MemRefType::get(cast<RankedTensorType>(t).getShape(), type));
  argTypes.push_back(MemRefType::get(shapes[gradOperand], type));
  b.setInsertionPointToEnd(m.getBody());
  auto func = func::FuncOp::create(b, loc, functionName,
                                   b.getFunctionType(argTypes, {}));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  // The gradient function's body, inlined.
  IRMapping mapping;
  for (auto [arg, t] : llvm::zip(gradient.getArguments(),
                                 gradient.getFunctionType().getInputs()))
    mapping.map(arg, bufferization::ToTensorOp::create(
                         b, loc, t, body->getArgument(arg.getArgNumber()),
                         /*restrict=*/true, /*writable=*/false));
  for (Operation &op : gradient.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      auto materialize = bufferization::MaterializeInDestinationOp::create(
          b, loc, mapping.lookup(ret.getOperand(0)),
          body->getArguments().back());
      materialize.setRestrict(true);
      materialize.setWritable(true);
      break;
    }
    b.clone(op, mapping);
  }
  func::ReturnOp::create(b, loc);
  gradient.erase();
  if (failed(verify(m)))
    return makeInternalError("the gradient module does not verify");
  return std::move(*module);
}

llvm::Expected<OwningOpRef<ModuleOp>>
Engine::Impl::parseModule(llvm::StringRef source, llvm::StringRef name,
                          llvm::StringRef entry, func::FuncOp &function) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
  OneLineDiagnostics handler(&getContext());
  // Other stacks' einsums (torch-mlir, StableHLO) come in the generic form
  // of dialects not registered here: parsed, imported, and then none may be
  // left.
  getContext().allowUnregisteredDialects(true);
  llvm::scope_exit disallow(
      [&] { getContext().allowUnregisteredDialects(false); });
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&getContext()));
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
                    UnitAttr::get(&getContext()));
  return std::move(module);
}

/// Options that no kernel can be compiled or run with, and stages a target
/// cannot print.
llvm::Error engine_impl::checkOptions(const CompileOptions &options,
                                 std::optional<Stage> stage) {
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
  if (!options.grid.empty()) {
    if (options.target != "cpu")
      return makeError("a grid of MPI ranks runs on the cpu target, not " +
                       options.target);
    if (options.grid.size() > 3 ||
        llvm::any_of(options.grid, [](int64_t size) { return size < 1; }))
      return makeError("a grid has 1 to 3 axes of at least one rank each, "
                       "not " + formatGrid(options.grid));
    if (options.mpiImplementation != "OpenMPI" &&
        options.mpiImplementation != "MPICH")
      return makeError("unknown MPI implementation '" +
                       options.mpiImplementation +
                       "' (expected OpenMPI or MPICH)");
    if (options.gradOperand >= 0)
      return makeError("gradient kernels are not distributed over a grid");
  }
  if (options.threads > 1 && options.target == "cpu")
    return checkThreads(options.threads);
  return llvm::Error::success();
}
