//===- Pipelines.h - einsum compilation pipelines ---------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The named pipelines, built by plain functions so that einsum-opt,
// einsum-run, the C API and the tests all run the same code. Each stage is
// registered on its own as well, so that tests can start in the middle:
//
//   einsum-to-linalg-pipeline      einsum-optimize-path, einsum.contract ->
//                                  linalg on tensors
//   (einsum-parallelize)           linalg -> scf.forall over threads
//   einsum-bufferize-pipeline      tensors -> memrefs, in place, deallocated
//   einsum-lower-to-llvm-pipeline  linalg on memrefs -> loops -> LLVM dialect
//   einsum-to-llvm-pipeline        all three
//   einsum-to-nvvm-pipeline        linalg, GPU tiling and mapping, NVVM,
//                                  PTX/cubin (GPUPipeline.cpp)
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_PIPELINES_PIPELINES_H
#define EINSUM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace einsum {

/// The options that the CPU and GPU pipelines share: the import of other
/// stacks' IR and the contraction path (which the linalg stage runs), and
/// how failed run-time checks end.
template <typename Derived>
struct EinsumPathPipelineOptions : public PassPipelineOptions<Derived> {
  mlir::detail::PassOptions::Option<bool> importFrontends{
      *this, "import-frontends",
      llvm::cl::desc("Import torch-mlir's and StableHLO's einsum ops, and "
                     "raise linalg contractions to einsum ops in a module "
                     "that has none (einsum-import-frontends, "
                     "einsum-raise-linalg)"),
      llvm::cl::init(true)};
  mlir::detail::PassOptions::Option<std::string> pathStrategy{
      *this, "path-strategy",
      llvm::cl::desc("Contraction path search for einsums of three or more "
                     "operands: auto, optimal, dp, greedy or left-to-right"),
      llvm::cl::init("auto")};
  mlir::detail::PassOptions::Option<uint64_t> memoryLimit{
      *this, "memory-limit",
      llvm::cl::desc("Largest intermediate of a contraction path in bytes "
                     "(0: no limit)"),
      llvm::cl::init(0)};
  mlir::detail::PassOptions::Option<std::string> minimize{
      *this, "minimize",
      llvm::cl::desc("What the path search minimizes first: flops or memory"),
      llvm::cl::init("flops")};

  mlir::detail::PassOptions::Option<bool> returnOnError{
      *this, "return-on-error",
      llvm::cl::desc("Lower failed run-time checks (sizes that do not fit "
                     "the equation, failed allocations) to a call of "
                     "einsum_runtime_error and a return from the kernel, as "
                     "the engine expects (false: print and abort, as "
                     "upstream convert-cf-to-llvm does)"),
      llvm::cl::init(false)};

  /// Takes the import and path options of `other` (not returnOnError: each
  /// caller says how its kernels end).
  template <typename Other>
  void copyPathOptions(const EinsumPathPipelineOptions<Other> &other) {
    importFrontends = other.importFrontends;
    pathStrategy = other.pathStrategy;
    memoryLimit = other.memoryLimit;
    minimize = other.minimize;
  }
};

/// Options of the CPU pipeline.
struct EinsumToLLVMPipelineOptions
    : public EinsumPathPipelineOptions<EinsumToLLVMPipelineOptions> {
  PassOptions::Option<bool> expandBF16{
      *this, "expand-bf16",
      llvm::cl::desc("Lower bf16 extensions and truncations to integer "
                     "arithmetic (needed where the target has no bf16 "
                     "conversion instructions or runtime)"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads to run each einsum on (1: no threading; more: "
                     "scf.forall lowered to OpenMP)"),
      llvm::cl::init(1)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize as einsum-select-strategy chooses "
                     "(false: the plain loop nests)"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width the schedules are chosen for "
                     "(0: the host's)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Vector registers the schedules may fill: 16 or 32 (0: "
                     "the host's, or those of vector-bits' ISA)"),
      llvm::cl::init(0)};
  PassOptions::ListOption<int64_t> grid{
      *this, "grid",
      llvm::cl::desc("Distribute the einsums over a grid of MPI ranks of "
                     "this shape (e.g. 2,2): einsum-shard, shard-partition "
                     "and the MPI lowering; each function becomes the "
                     "program of one rank")};
  PassOptions::Option<std::string> mpiImplementation{
      *this, "mpi-implementation",
      llvm::cl::desc("The MPI ABI of the distributed code: OpenMPI or MPICH"),
      llvm::cl::init("OpenMPI")};
};

/// Other stacks' contractions into einsum ops: einsum-import-frontends
/// (torch-mlir's, StableHLO's and TOSA's ops in generic form), then
/// einsum-raise-linalg in a module without einsum ops. The linalg stage runs
/// it with `import-frontends`; the engine runs it on parsed modules.
void buildEinsumImportPipeline(OpPassManager &pm);
/// einsum-optimize-path with the options' strategy, memory limit and
/// objective: einsums of three or more operands split along a contraction
/// path (the first step of the linalg stage; the engine's gradient kernels
/// run it before einsum-grad).
void buildEinsumPathPipeline(OpPassManager &pm,
                             const EinsumToLLVMPipelineOptions &options);
/// einsum.contract -> linalg.generic on tensors, canonicalized; einsums of
/// three or more operands are split along a contraction path first. Without
/// `expandDynamicBroadcasts` (the CUDA host code), a dynamic size-1
/// broadcast fails a run-time check instead of being expanded.
void buildEinsumToLinalgPipeline(OpPassManager &pm,
                                 const EinsumToLLVMPipelineOptions &options,
                                 bool expandDynamicBroadcasts = true);
/// One-shot bufferization (function boundaries included, identity layouts),
/// empty-tensor elimination for in-place results, and (with `deallocate`)
/// deallocation.
void buildEinsumBufferizePipeline(OpPassManager &pm, bool deallocate = true);
/// Schedules the linalg ops on tensors: chooses a strategy per op, distributes
/// them over `numThreads` threads (scf.forall) and tiles and vectorizes them.
void buildEinsumSchedulePipeline(OpPassManager &pm,
                                 const EinsumToLLVMPipelineOptions &options);
/// linalg on memrefs -> loops -> LLVM dialect; scf.forall loops become OpenMP
/// parallel loops.
void buildEinsumLowerToLLVMPipeline(OpPassManager &pm,
                                    const EinsumToLLVMPipelineOptions &options);
/// The whole CPU pipeline.
void buildEinsumToLLVMPipeline(OpPassManager &pm,
                               const EinsumToLLVMPipelineOptions &options);

/// Options of the GPU pipeline.
struct EinsumToNVVMPipelineOptions
    : public EinsumPathPipelineOptions<EinsumToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The NVIDIA GPU to compile for"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (sm_90 needs PTX ISA 8.0: +ptx80)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the kernels are serialized to: isa (PTX text, "
                     "compiled by the driver when loaded), bin (cubin, needs "
                     "ptxas) or fatbin (needs ptxas and fatbinary)"),
      llvm::cl::init("isa")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the NVPTX code generation"),
      llvm::cl::init(3)};
  PassOptions::ListOption<int64_t> tileSizes{
      *this, "tile-sizes",
      llvm::cl::desc("Block tile of a contraction: M, N and the reduction "
                     "step K (default 128,128,8)")};
  PassOptions::ListOption<int64_t> threadTile{
      *this, "thread-tile",
      llvm::cl::desc("Register tile of a thread in a contraction: M, N "
                     "(default 8,8)")};
};

/// Tiles the linalg ops on tensors for GPU blocks, threads and registers
/// (einsum-gpu-tile, einsum-vectorize). Without `workgroupMemory` the
/// staged tiles are plain allocations.
void buildEinsumGpuSchedulePipeline(OpPassManager &pm,
                                    const EinsumToNVVMPipelineOptions &options,
                                    bool workgroupMemory = true);
/// Bufferizes (as the CPU pipeline does, without deallocation of the
/// workgroup tiles) and maps the block and thread loops to gpu.launch
/// (einsum-gpu-map); host buffers move to device memory.
void buildEinsumGpuBufferizePipeline(OpPassManager &pm);
/// gpu.launch -> outlined kernels -> NVVM -> serialized with
/// gpu-module-to-binary; host code -> LLVM dialect calling the mgpu*
/// runtime functions.
void buildEinsumLowerToNVVMPipeline(OpPassManager &pm,
                                    const EinsumToNVVMPipelineOptions &options);
/// The GPU schedule run serially on the CPU (each GPU loop an scf.for, the
/// staged tiles plain buffers), lowered by the CPU pipeline: what the GPU
/// kernels compute, checkable without a GPU.
void buildEinsumGpuScheduleOnCPUPipeline(
    OpPassManager &pm, const EinsumToNVVMPipelineOptions &options);
/// The whole GPU pipeline.
void buildEinsumToNVVMPipeline(OpPassManager &pm,
                               const EinsumToNVVMPipelineOptions &options);

/// Registers the pipelines above.
void registerEinsumPipelines();
/// Registers the GPU pipelines (called by registerEinsumPipelines).
void registerEinsumGpuPipelines();

} // namespace einsum
} // namespace mlir

#endif // EINSUM_PIPELINES_PIPELINES_H
