//===- EngineImpl.h - the engine's state, shared by its parts ---*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The engine in three parts: Compiler.cpp (equations and modules to the LLVM
// dialect and to object code: the compiler side), Engine.cpp (kernels linked
// into the process, their caches in memory and on disk, and running them
// through libEinsumRuntime) and Aot.cpp (libraries of kernels compiled ahead
// of time). Private to lib/Engine.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_LIB_ENGINE_ENGINEIMPL_H
#define EINSUM_LIB_ENGINE_ENGINEIMPL_H

#include "einsum/Dialect/Einsum/IR/EinsumAttrs.h"
#include "einsum/Engine/DiskCache.h"
#include "einsum/Engine/Engine.h"
#include "einsum/Engine/ObjectCode.h"
#include "einsum/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <chrono>
#include <list>
#include <mutex>
#include <unordered_map>

namespace mlir {
namespace einsum {
namespace engine_impl {

/// The function of an equation kernel the engine compiles.
inline constexpr llvm::StringLiteral kKernelName = "einsum_kernel";

llvm::Error makeError(const llvm::Twine &message);
/// An equation kernel that resolved but does not compile is the compiler's
/// fault: `err` as an internal error.
llvm::Error asInternal(llvm::Error err);
double secondsSince(std::chrono::steady_clock::time_point start);

/// The path search's options for kernels of `elementType`, as the
/// einsum-optimize-path pass sets them up.
PathOptions makePathOptions(const CompileOptions &options,
                            ElementType elementType);
/// Options that no kernel can be compiled or run with, and stages a target
/// cannot print.
llvm::Error checkOptions(const CompileOptions &options,
                         std::optional<Stage> stage = std::nullopt);
/// FLOPs of an equation kernel on the path the pipeline takes (the whole
/// einsum below three operands); fails where no path meets the options.
llvm::Expected<double> getEquationFlops(const EinsumResolution &resolution,
                                        unsigned numOperands,
                                        const CompileOptions &options,
                                        ElementType elementType);
/// The semiring named `name` (plus_times, log, ...), or none.
std::optional<Semiring> parseSemiring(llvm::StringRef name);
/// Fails unless `name` is a semiring that takes `elementType` operands.
llvm::Error checkSemiring(llvm::StringRef name, ElementType elementType);
/// Gradient kernels (CompileOptions::gradOperand) need an operand that
/// exists, a float element type, the CPU target and a searched path.
llvm::Error checkGradient(const CompileOptions &options, size_t numOperands,
                          ElementType elementType);
/// The resolution of an equation kernel: static sizes only.
llvm::Expected<EinsumResolution>
resolveEquationKernel(llvm::StringRef equation,
                      llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes);

} // namespace engine_impl

struct Engine::Impl {
  /// Made on first use: a kernel from the disk cache needs none (making
  /// one, with every dialect loaded, costs 25 ms).
  std::unique_ptr<MLIRContext> contextStorage;
  MLIRContext &getContext() {
    if (!contextStorage) {
      contextStorage = std::make_unique<MLIRContext>(
          makeRegistry(), MLIRContext::Threading::DISABLED);
      contextStorage->loadAllAvailableDialects();
    }
    return *contextStorage;
  }
  DiskCache disk = DiskCache::fromEnvironment();
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
  /// Compiles `module` (lowered to the LLVM dialect) to object code, keeps
  /// it in the disk cache under `diskKey` (unless empty) and links it.
  llvm::Error jit(ModuleOp module, Kernel &kernel, llvm::StringRef name,
                  const CompileOptions &options, llvm::StringRef diskKey);
  void storeSharedObject(llvm::MemoryBufferRef object, const Kernel &kernel,
                         llvm::StringRef name, const CompileOptions &options);
  /// Links `object` into the process as `kernel`'s code.
  llvm::Error link(std::unique_ptr<llvm::MemoryBuffer> object, Kernel &kernel,
                   llvm::StringRef name, const CompileOptions &options);
  /// Links `kernel` from the disk cache entry of `diskKey`; false where
  /// there is none (or it does not link: then it is compiled again).
  bool linkCached(llvm::StringRef diskKey, Kernel &kernel,
                  llvm::StringRef name, const CompileOptions &options);
  /// The disk cache key of a kernel of in-memory key `key` (empty: not
  /// cached on disk).
  std::string getDiskKey(llvm::StringRef key, const CompileOptions &options);
  /// The object code of kernel `name` of `module` (lowered to the LLVM
  /// dialect) for `cpu`, with its entry points (ObjectCode.h); the C
  /// function is `cName` (default: NAME_call). `hoistConstructors`: the
  /// module's constructors and destructors become functions NAME_init and
  /// NAME_fini (ORC does not run an object's own).
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  emitKernelObject(ModuleOp module, llvm::StringRef name,
                   const KernelSignature &signature, llvm::StringRef cpu,
                   llvm::StringRef cName = "", bool hoistConstructors = false);
  /// The LLVM IR of kernel `name` with its entry points (the C function
  /// `cName`), in `llvmContext`; `exported` gets the NAME_init/_fini that
  /// `hoistConstructors` adds.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  translateKernel(ModuleOp module, llvm::StringRef name,
                  const KernelSignature &signature, llvm::StringRef cName,
                  llvm::LLVMContext &llvmContext, bool hoistConstructors,
                  std::vector<std::string> &exported);

  llvm::Expected<OwningOpRef<ModuleOp>>
  buildEquationModule(llvm::StringRef equation,
                      llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                      ElementType elementType,
                      const EinsumResolution &resolution,
                      llvm::StringRef functionName = engine_impl::kKernelName,
                      bool returnResult = false,
                      Semiring semiring = Semiring::PlusTimes);
  /// The module of an equation kernel `kKernelName` compiled with
  /// `options`: its semiring, or the gradient kernel of
  /// `options.gradOperand`.
  llvm::Expected<OwningOpRef<ModuleOp>>
  buildKernelModule(llvm::StringRef equation,
                    llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                    ElementType elementType,
                    const EinsumResolution &resolution,
                    const CompileOptions &options);
  /// The gradient of the einsum with respect to operand `gradOperand`,
  /// destination-passing like an equation kernel: einsum-grad of the
  /// forward function (after its contraction path), called from, and
  /// inlined into, `functionName`(operands..., grad_output, result).
  llvm::Expected<OwningOpRef<ModuleOp>>
  buildGradientModule(llvm::StringRef equation,
                      llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                      ElementType elementType,
                      const EinsumResolution &resolution,
                      llvm::StringRef functionName, Semiring semiring,
                      unsigned gradOperand, const CompileOptions &options);
  /// How einsum-shard splits the operands and the result of an equation
  /// kernel over `options.grid` (the path and einsum-shard on the kernel's
  /// module), with its report.
  llvm::Expected<Kernel::Distribution>
  planDistribution(llvm::StringRef equation,
                   llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                   ElementType elementType, const EinsumResolution &resolution,
                   const CompileOptions &options);
  llvm::Expected<OwningOpRef<ModuleOp>>
  parseModule(llvm::StringRef source, llvm::StringRef name,
              llvm::StringRef entry, func::FuncOp &function);
};

} // namespace einsum
} // namespace mlir

#endif // EINSUM_LIB_ENGINE_ENGINEIMPL_H
