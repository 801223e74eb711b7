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
//   einsum-to-linalg-pipeline      einsum.contract -> linalg on tensors
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
  PassOptions::Option<unsigned> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads to run each einsum on (1: no threading; more: "
                     "scf.forall lowered to OpenMP)"),
      llvm::cl::init(1)};
};

/// einsum.contract -> linalg.generic on tensors, canonicalized.
void buildEinsumToLinalgPipeline(OpPassManager &pm);
/// One-shot bufferization (function boundaries included, identity layouts),
/// empty-tensor elimination for in-place results, and deallocation.
void buildEinsumBufferizePipeline(OpPassManager &pm);
/// Distributes the linalg ops over `numThreads` threads (scf.forall on
/// tensors); nothing when numThreads <= 1.
void buildEinsumParallelizePipeline(OpPassManager &pm, unsigned numThreads);
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
