//===- Engine.h - compile einsums to JIT kernels and run them ---*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The engine turns (equation, operand shapes, element type, options) into a
// kernel through the einsum-to-llvm pipeline, object code for the host CPU
// (ObjectCode.h: O3, the host's features) linked into the process with ORC,
// caches kernels by everything that changes their code, and runs them on
// caller buffers through libEinsumRuntime, as ahead-of-time kernels run.
//
// Equation kernels use the in-place calling convention: the generated function
// takes every operand and the output as memrefs, wraps them with
// `bufferization.to_tensor restrict` and writes the result with
// `bufferization.materialize_in_destination`, so one-shot bufferization
// computes straight into the caller's output buffer.
//
// Module kernels run a function of a user's .mlir file that takes and returns
// ranked tensors; the result is returned in a buffer that the kernel
// allocates and the engine copies out.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_ENGINE_H
#define EINSUM_ENGINE_ENGINE_H

#include "einsum/Dialect/Einsum/Transforms/ContractionPath.h"
#include "einsum/Dialect/Einsum/Transforms/ShardingModel.h"
#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"
#include "einsum/Engine/DiskCache.h"
#include "einsum/Engine/ObjectCode.h"
#include "einsum/Engine/Tensor.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace llvm {
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir {
class MLIRContext;
class ModuleOp;
namespace einsum {

/// The most threads a kernel may run on: 256, or the machine's hardware
/// threads where it has more. More threads than cores only cost memory
/// (each OpenMP thread has a stack of its own).
unsigned getMaxThreads();

/// What changes a kernel's code.
struct CompileOptions {
  /// "cpu"; "cuda" (einsum-to-nvvm-pipeline, run through the CUDA driver on
  /// device buffers); or "gpu-schedule-on-cpu": the CUDA target's tiling
  /// (blocks, threads, staged tiles, register tiles) run serially on the CPU,
  /// which checks that schedule on machines without a GPU.
  std::string target = "cpu";
  /// The CUDA target: the GPU, the PTX features, what the kernels are
  /// serialized to (isa: PTX, compiled by the driver; bin; fatbin).
  std::string chip = "sm_90";
  std::string features = "+ptx80";
  std::string gpuFormat = "isa";
  /// Lower bf16 conversions to integer arithmetic.
  bool expandBF16 = true;
  /// Threads each kernel runs on (OpenMP when more than 1).
  unsigned threads = 1;
  /// Contraction path search for three or more operands.
  std::string pathStrategy = "auto";
  uint64_t memoryLimit = 0;
  std::string minimize = "flops";
  /// Tile and vectorize (einsum-select-strategy + einsum-vectorize).
  bool vectorize = true;
  /// Vector register width the schedules are chosen for (0: the host's).
  unsigned vectorBits = 0;
  /// Vector registers the schedules may fill, 16 or 32 (0: the host's, or
  /// those of vectorBits' ISA).
  unsigned vectorRegisters = 0;
  /// The semiring of equation kernels (#einsum.semiring): plus_times, log,
  /// max, min, max_times or bool.
  std::string semiring = "plus_times";
  /// Where >= 0, an equation kernel computes the gradient of the einsum
  /// with respect to this operand instead (einsum-grad, after the
  /// contraction path): it takes the operands and then the output gradient
  /// (of the einsum's result shape), and writes the gradient (of the
  /// operand's shape). Float element types, the CPU target.
  int gradOperand = -1;
  /// Where non-empty, an equation kernel is the program of one rank of a
  /// grid of MPI ranks of this shape (einsum-shard, shard-partition and the
  /// MPI lowering; the cpu target): it takes the rank's blocks of the
  /// operands and returns its block of the result (Kernel::getDistribution).
  /// The process must have initialized MPI and have as many ranks as the
  /// grid.
  llvm::SmallVector<int64_t> grid;
  /// The MPI ABI the kernel calls: OpenMPI or MPICH.
  std::string mpiImplementation = "OpenMPI";
  /// Look kernels up in, and add them to, the on-disk cache (DiskCache.h;
  /// also off where EINSUM_MLIR_CACHE=0).
  bool diskCache = true;
  /// Where non-empty, an equation kernel compiled for the CPU is also kept
  /// in the disk cache as a shared library under this key
  /// (DiskCache::storeSharedObject; the C API's arguments as given).
  std::string sharedObjectKey;

  /// A string that differs whenever the options that change the code differ.
  std::string getCacheKey() const;
};

/// An error that is the compiler's fault rather than the input's: an equation
/// that resolved against its shapes but failed to compile or to be JIT
/// compiled. Tools report it with an exit status of its own.
llvm::Error makeInternalError(const llvm::Twine &message);
bool isInternalError(const llvm::Error &err);

/// The stages whose IR can be printed; PTX: the kernels' PTX (cuda target).
enum class Stage { Einsum, Linalg, LLVMDialect, LLVMIR, PTX };
std::optional<Stage> parseStage(llvm::StringRef name);

/// A compiled kernel.
class Kernel {
public:
  ~Kernel();

  /// Runs the kernel. Equation kernels write into `output`, which is
  /// (re)allocated when its type does not fit; module kernels replace
  /// `output` with the returned tensor. Input shapes must be the ones the
  /// kernel was compiled for (dynamic dims of a module function: any size).
  llvm::Error run(llvm::ArrayRef<const HostTensor *> inputs,
                  HostTensor &output) const;

  /// Runs the kernel `runs` times on the same inputs and returns the seconds
  /// of each run: measured with CUDA events around the kernel call, on
  /// device buffers set up once, for the cuda target; around run() on the
  /// CPU.
  llvm::Expected<std::vector<double>>
  benchmark(llvm::ArrayRef<const HostTensor *> inputs, HostTensor &output,
            unsigned runs) const;

  /// Runs an equation kernel on raw, row-major contiguous buffers of the
  /// shapes it was compiled for; the result is written to `output`.
  llvm::Error runOnBuffers(llvm::ArrayRef<const void *> inputs,
                           void *output) const;

  /// The output shape and element type (equation kernels only).
  llvm::ArrayRef<int64_t> getOutputShape() const { return outputShape; }
  /// The shapes of the operands it takes (a gradient kernel's last one is
  /// the output gradient).
  llvm::ArrayRef<llvm::SmallVector<int64_t>> getInputShapes() const {
    return inputShapes;
  }
  ElementType getElementType() const { return elementType; }
  /// Floating-point operations of one run: per point of the iteration space,
  /// one multiply per operand after the first and one add (0 when unknown).
  double getFlops() const { return flops; }
  /// Seconds spent in the pass pipeline and in JIT code generation (or in
  /// loading the kernel from the on-disk cache).
  double getCompileSeconds() const { return compileSeconds; }
  /// Whether the kernel's code came from the on-disk cache.
  bool isFromDiskCache() const { return fromDiskCache; }

  /// For a module function that returns one `einsum.contract` of its
  /// arguments: the equation and which argument is each operand, so that
  /// the result can be checked against the reference evaluator.
  struct SingleEinsum {
    std::string equation;
    /// Its #einsum.semiring's name.
    std::string semiring;
    llvm::SmallVector<unsigned> arguments;
  };
  const std::optional<SingleEinsum> &getSingleEinsum() const {
    return singleEinsum;
  }

  /// What einsumRuntimeInvoke needs to call the kernel.
  KernelSignature getSignature() const;

  /// How a kernel compiled for a grid (CompileOptions::grid) splits its
  /// operands and result; the shapes above are then one rank's blocks.
  struct Distribution {
    llvm::SmallVector<int64_t> grid;
    llvm::SmallVector<SplitAxes> inputSplits;
    SplitAxes outputSplit;
    /// The whole operands' and result's shapes.
    llvm::SmallVector<llvm::SmallVector<int64_t>> inputShapes;
    llvm::SmallVector<int64_t> outputShape;
    /// einsum-shard's decision for each einsum of the path, a line each.
    std::string report;
  };
  const std::optional<Distribution> &getDistribution() const {
    return distribution;
  }

private:
  friend class Engine;
  Kernel() = default;
  /// Checks the inputs against the compiled types.
  llvm::Error checkInputs(llvm::ArrayRef<const HostTensor *> inputs) const;
  /// The cuda target: copies the inputs to the device, calls the kernel
  /// `runs` times (each timed with events when `times` is given) and copies
  /// the result back.
  llvm::Error runOnDevice(llvm::ArrayRef<const HostTensor *> inputs,
                          HostTensor &output, unsigned runs,
                          std::vector<double> *times) const;

  std::unique_ptr<llvm::orc::LLJIT> engine;
  void (*function)(void **) = nullptr;
  /// The module's constructors and destructors (CUDA kernels load their
  /// GPU modules in them), or null.
  void (*initialize)() = nullptr;
  void (*finalize)() = nullptr;
  /// getSignature(), encoded (einsum-c/Runtime.h).
  std::vector<int64_t> signature;
  /// The kernel runs on a CUDA device (its buffers are device memory).
  bool onDevice = false;
  /// Device kernels load their GPU modules in global constructors, run
  /// before the first call.
  mutable std::once_flag initialized;
  mutable std::atomic<bool> initializeRan{false};
  bool returnsResult = false;
  /// Expected input shapes (kDynamicSize: any) and element types.
  llvm::SmallVector<llvm::SmallVector<int64_t>> inputShapes;
  llvm::SmallVector<ElementType> inputTypes;
  llvm::SmallVector<int64_t> outputShape;
  ElementType elementType = ElementType::F32;
  unsigned resultRank = 0;
  double flops = 0;
  double compileSeconds = 0;
  bool fromDiskCache = false;
  std::optional<SingleEinsum> singleEinsum;
  std::optional<Distribution> distribution;
};

/// Owns an MLIR context and a kernel cache. Thread-safe.
/// A kernel of a library compiled ahead of time (einsum-compile): an
/// equation kernel (`equation`, `shapes` with kDynamicSize where dynamic,
/// `elementType`), or a module kernel (function `entry` of the .mlir text
/// `source`, named `sourceName` in diagnostics) where `source` is set.
struct AotKernelSpec {
  /// The C function's name.
  std::string name;
  std::string equation;
  llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
  ElementType elementType = ElementType::F32;
  std::string source, sourceName, entry;
};

/// What a compiled kernel's C function takes, for its header.
struct AotKernelInfo {
  std::string name;
  /// "einsum 'bij,bjk->bik'" or "function @f of k.mlir".
  std::string description;
  /// Element types of the inputs, then of the output.
  llvm::SmallVector<ElementType> types;
  KernelSignature signature;
  /// FLOPs of one call (0 where sizes are dynamic).
  double flops = 0;
};

class Engine {
public:
  Engine();
  ~Engine();

  /// Compiles an equation for the given operand shapes and element type, or
  /// returns the cached kernel. Errors are the equation layer's diagnostics.
  llvm::Expected<std::shared_ptr<Kernel>>
  compile(llvm::StringRef equation,
          llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
          ElementType elementType, const CompileOptions &options = {});

  /// The contraction path the pipeline takes for an equation kernel.
  llvm::Expected<ContractionPath>
  explain(llvm::StringRef equation,
          llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
          ElementType elementType, const CompileOptions &options = {});

  /// Prints the IR of an equation kernel after `stage`.
  llvm::Expected<std::string>
  emit(llvm::StringRef equation,
       llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
       ElementType elementType, Stage stage,
       const CompileOptions &options = {});

  /// Compiles function `entry` of the .mlir source `source` (`name` names it
  /// in diagnostics).
  llvm::Expected<std::shared_ptr<Kernel>>
  compileModule(llvm::StringRef source, llvm::StringRef name,
                llvm::StringRef entry, const CompileOptions &options = {});
  /// Prints the IR of function `entry`'s module after `stage`.
  llvm::Expected<std::string> emitModule(llvm::StringRef source,
                                         llvm::StringRef name,
                                         llvm::StringRef entry, Stage stage,
                                         const CompileOptions &options = {});

  /// Number of kernels in the cache, how many compiles it answered, and how
  /// many kernels it dropped, least recently used first, to stay within its
  /// capacity (kernels still held by a caller live on).
  size_t getCacheSize() const;
  /// Compiles `kernels` into one relocatable object for `cpu` ("native",
  /// "x86-64-v4", ...) whose only global symbols are the kernels' C
  /// functions (einsum-c/Runtime.h's ABI); `infos` describes them.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  compileLibrary(llvm::ArrayRef<AotKernelSpec> kernels,
                 const CompileOptions &options, llvm::StringRef cpu,
                 std::vector<AotKernelInfo> &infos);

  /// The on-disk cache of compiled kernels.
  const DiskCache &getDiskCache() const;
  size_t getCacheHits() const;
  size_t getCacheEvictions() const;
  /// The most kernels the cache keeps (default kDefaultCacheCapacity; 0:
  /// none are kept).
  size_t getCacheCapacity() const;
  void setCacheCapacity(size_t capacity);
  static constexpr size_t kDefaultCacheCapacity = 128;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_ENGINE_H
