//===- CPUPipeline.cpp - einsum to LLVM dialect pipeline --------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Pipelines/Pipelines.h"

#include "einsum/Conversion/Passes.h"
#include "einsum/Dialect/Einsum/Transforms/Passes.h"
#include "einsum/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::einsum;

void mlir::einsum::buildEinsumImportPipeline(OpPassManager &pm) {
  pm.addPass(createEinsumImportFrontendsPass());
  EinsumRaiseLinalgPassOptions raiseOptions;
  raiseOptions.onlyWithoutEinsumOps = true;
  pm.addPass(createEinsumRaiseLinalgPass(raiseOptions));
}

void mlir::einsum::buildEinsumPathPipeline(
    OpPassManager &pm, const EinsumToLLVMPipelineOptions &options) {
  EinsumOptimizePathPassOptions pathOptions;
  pathOptions.strategy = options.pathStrategy;
  pathOptions.memoryLimit = options.memoryLimit;
  pathOptions.minimize = options.minimize;
  pm.addPass(createEinsumOptimizePathPass(pathOptions));
}

void mlir::einsum::buildEinsumToLinalgPipeline(
    OpPassManager &pm, const EinsumToLLVMPipelineOptions &options,
    bool expandDynamicBroadcasts) {
  if (options.importFrontends)
    buildEinsumImportPipeline(pm);
  buildEinsumPathPipeline(pm, options);
  if (!options.grid.empty()) {
    EinsumShardPassOptions shardOptions;
    shardOptions.grid.assign(options.grid.begin(), options.grid.end());
    shardOptions.mpiImplementation = options.mpiImplementation;
    pm.addPass(createEinsumShardPass(shardOptions));
  }
  ConvertEinsumToLinalgPassOptions conversionOptions;
  conversionOptions.expandDynamicBroadcasts = expandDynamicBroadcasts;
  pm.addPass(createConvertEinsumToLinalgPass(conversionOptions));
  // The path's f32 casts of f16/bf16 tensors.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (!options.grid.empty()) {
    // Each function becomes the program of one rank: its blocks of the
    // operands in, its block of the result out, shard.all_reduce where a
    // summed dim is split. The schedule then sees the local shapes.
    pm.addNestedPass<func::FuncOp>(shard::createShardingPropagation());
    pm.addNestedPass<func::FuncOp>(shard::createPartition());
    pm.addPass(createEinsumLowerShardSlicesPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

void mlir::einsum::buildEinsumSchedulePipeline(
    OpPassManager &pm, const EinsumToLLVMPipelineOptions &options) {
  if (options.vectorize) {
    // The result's destination replaces its tensor.empty first: the
    // strategy's reshapes of an init (a contraction over N panels writes an
    // expand_shape of it) would otherwise hide the empty from the
    // elimination in the bufferization pipeline, which then copies.
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
    EinsumSelectStrategyPassOptions strategyOptions;
    strategyOptions.vectorBits = options.vectorBits;
    strategyOptions.vectorRegisters = options.vectorRegisters;
    pm.addPass(createEinsumSelectStrategyPass(strategyOptions));
  }
  if (options.numThreads > 1) {
    EinsumParallelizePassOptions parallelizeOptions;
    parallelizeOptions.numThreads = options.numThreads;
    pm.addPass(createEinsumParallelizePass(parallelizeOptions));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.vectorize) {
    EinsumVectorizePassOptions vectorizeOptions;
    vectorizeOptions.maskedRemainders = true;
    vectorizeOptions.vectorBits = options.vectorBits;
    pm.addPass(createEinsumVectorizePass(vectorizeOptions));
  }
}

void mlir::einsum::buildEinsumBufferizePipeline(OpPassManager &pm,
                                                bool deallocate) {
  // Lets the result be computed straight into the destination buffer of a
  // `bufferization.materialize_in_destination` (the in-place calling
  // convention of the engine's kernels).
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (!deallocate)
    return;
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // A failed allocation stops the kernel with a message rather than letting
  // it write through a null pointer.
  pm.addPass(createEinsumCheckAllocationsPass());
}

void mlir::einsum::buildEinsumLowerToLLVMPipeline(
    OpPassManager &pm, const EinsumToLLVMPipelineOptions &options) {
  // Staged output blocks to the output in whole lines of streaming stores.
  pm.addPass(createEinsumStreamCopiesPass());
  // Static copies that bufferization left (packing tiles, remainders) as
  // vector loads and stores, not calls of the runner utils' memrefCopy.
  pm.addPass(createEinsumVectorizeCopiesPass());
  // Lines of the tiles' stores asked for ahead of them (register tiles
  // before their reductions, transposed tiles a few iterations ahead): a
  // store miss stalls the in-order store buffer.
  pm.addPass(createEinsumPrefetchStoresPass());
  // Reductions along the vectors (contiguous reduced loops) to horizontal
  // vector.reduction.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass(
      vector::VectorMultiReductionLowering::InnerReduction));
  // Vector transfers to loads and stores of 1-D vectors.
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll(true)));
  // The rows of padded register tiles: masked loads and stores.
  EinsumLowerMaskedTransfersPassOptions maskedOptions;
  maskedOptions.vectorBits = options.vectorBits;
  maskedOptions.vectorRegisters = options.vectorRegisters;
  pm.addPass(createEinsumLowerMaskedTransfersPass(maskedOptions));
  // Ops without a vector schedule: convert-einsum-to-linalg ordered their loop
  // dimensions; the loop nest keeps that order.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (options.numThreads > 1) {
    // Threads: scf.forall -> scf.parallel -> omp.parallel + omp.wsloop. The
    // buffers were deallocated before, as the OpenMP conversion requires.
    pm.addPass(createForallToParallelLoopPass());
    ConvertSCFToOpenMPPassOptions ompOptions;
    ompOptions.numThreads = options.numThreads;
    pm.addPass(createConvertSCFToOpenMPPass(ompOptions));
  }
  // Vectorized exp/log (the log semiring), bf16 conversions; maximumf with
  // fastmath<nnan> stays one instruction.
  EinsumLowerMathPassOptions mathOptions;
  mathOptions.expandBF16 = options.expandBF16;
  pm.addPass(createEinsumLowerMathPass(mathOptions));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Heap buffers through _mlir_memref_to_llvm_alloc/_free, which the engine
  // binds to its workspace (large temporaries are reused across calls).
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  if (!options.grid.empty()) {
    // MPI calls for the ABI the module's DLTI map names.
    ConvertToLLVMPassOptions mpiOptions;
    mpiOptions.filterDialects = {"mpi"};
    pm.addPass(createConvertToLLVMPass(mpiOptions));
    if (options.mpiImplementation == "OpenMPI")
      pm.addPass(createEinsumFixOpenMPIABIPass());
  }
  pm.addPass(createSCFToControlFlowPass());
  if (options.returnOnError)
    pm.addPass(createEinsumLowerRuntimeChecksPass());
  // After scf-to-cf: n-D vectors carried by loops (the register tiles) become
  // LLVM arrays of 1-D vectors in block arguments. Contractions lower through
  // outer products to FMAs, transposes through 16x16 shuffles.
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorOptions.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (options.numThreads > 1)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::einsum::buildEinsumToLLVMPipeline(
    OpPassManager &pm, const EinsumToLLVMPipelineOptions &options) {
  buildEinsumToLinalgPipeline(pm, options);
  buildEinsumSchedulePipeline(pm, options);
  if (!options.grid.empty()) {
    // Collectives to MPI calls on buffers, before bufferization (their
    // buffers are then deallocated with the kernel's).
    pm.addPass(createConvertShardToMPIPass());
    pm.addPass(createCanonicalizerPass());
    // The grid, private and now unused.
    pm.addPass(createSymbolDCEPass());
  }
  buildEinsumBufferizePipeline(pm);
  buildEinsumLowerToLLVMPipeline(pm, options);
}

void mlir::einsum::registerEinsumPipelines() {
  PassPipelineRegistration<EinsumToLLVMPipelineOptions>(
      "einsum-to-linalg-pipeline",
      "Split N-ary einsums along a contraction path and lower einsum.contract "
      "to linalg on tensors",
      [](OpPassManager &pm, const EinsumToLLVMPipelineOptions &options) {
        buildEinsumToLinalgPipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "einsum-bufferize-pipeline",
      "Bufferize in place (one-shot, identity layouts) and deallocate",
      [](OpPassManager &pm) { buildEinsumBufferizePipeline(pm); });
  PassPipelineRegistration<EinsumToLLVMPipelineOptions>(
      "einsum-lower-to-llvm-pipeline",
      "Lower bufferized linalg to loops and to the LLVM dialect",
      buildEinsumLowerToLLVMPipeline);
  PassPipelineRegistration<EinsumToLLVMPipelineOptions>(
      "einsum-to-llvm-pipeline",
      "Compile einsum.contract on tensors to the LLVM dialect for the CPU",
      buildEinsumToLLVMPipeline);
  registerEinsumGpuPipelines();
}
