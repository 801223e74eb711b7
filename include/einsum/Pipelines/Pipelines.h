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
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_PIPELINES_PIPELINES_H
#define EINSUM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace einsum {

/// Options of the CPU pipeline.
struct EinsumToLLVMPipelineOptions
    : public PassPipelineOptions<EinsumToLLVMPipelineOptions> {
  PassOptions::Option<bool> expandBF16{
      *this, "expand-bf16",
      llvm::cl::desc("Lower bf16 extensions and truncations to integer "
                     "arithmetic (needed where the target has no bf16 "
                     "conversion instructions or runtime)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> pathStrategy{
      *this, "path-strategy",
      llvm::cl::desc("Contraction path search for einsums of three or more "
                     "operands: auto, optimal, dp, greedy or left-to-right"),
      llvm::cl::init("auto")};
  PassOptions::Option<uint64_t> memoryLimit{
      *this, "memory-limit",
      llvm::cl::desc("Largest intermediate of a contraction path in bytes "
                     "(0: no limit)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> minimize{
      *this, "minimize",
      llvm::cl::desc("What the path search minimizes first: flops or memory"),
      llvm::cl::init("flops")};
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
};

/// einsum.contract -> linalg.generic on tensors, canonicalized; einsums of
/// three or more operands are split along a contraction path first.
void buildEinsumToLinalgPipeline(OpPassManager &pm,
                                 const EinsumToLLVMPipelineOptions &options);
/// One-shot bufferization (function boundaries included, identity layouts),
/// empty-tensor elimination for in-place results, and deallocation.
void buildEinsumBufferizePipeline(OpPassManager &pm);
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

/// Registers the pipelines above.
void registerEinsumPipelines();

} // namespace einsum
} // namespace mlir

#endif // EINSUM_PIPELINES_PIPELINES_H
