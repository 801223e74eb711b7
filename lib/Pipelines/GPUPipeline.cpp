//===- GPUPipeline.cpp - einsum to NVVM pipeline ----------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// einsum.contract -> linalg on tensors -> tiled for GPU blocks, threads and
// registers -> bufferized -> gpu.launch -> outlined kernels -> NVVM -> PTX
// (or cubin/fatbin) embedded in a gpu.binary; the host code calls the mgpu*
// runtime functions (lib/Engine/CudaRuntime.cpp provides them).
//
// The lowering after the outlining follows upstream's
// gpu-lower-to-nvvm-pipeline (GPUToNVVMPipeline.cpp), whose stages are not
// exported, with two additions: vector contractions lower to outer products
// (FMAs) inside the GPU module, and the host's synchronous gpu.alloc,
// gpu.memcpy and gpu.dealloc get async tokens first (gpu-async-region), as
// the GPU-to-LLVM lowering requires.
//
//===----------------------------------------------------------------------===//

#include "einsum/Pipelines/Pipelines.h"

#include "einsum/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::einsum;

void mlir::einsum::buildEinsumGpuSchedulePipeline(
    OpPassManager &pm, const EinsumToNVVMPipelineOptions &options,
    bool workgroupMemory) {
  EinsumGpuTilePassOptions tileOptions;
  tileOptions.workgroupMemory = workgroupMemory;
  tileOptions.tileSizes = llvm::to_vector(options.tileSizes);
  tileOptions.threadTile = llvm::to_vector(options.threadTile);
  pm.addNestedPass<func::FuncOp>(createEinsumGpuTilePass(tileOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createEinsumVectorizePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::einsum::buildEinsumGpuBufferizePipeline(OpPassManager &pm) {
  // The workgroup tiles become launch attributions and the host buffers
  // gpu.alloc/gpu.dealloc in einsum-gpu-map, not deallocated memrefs.
  buildEinsumBufferizePipeline(pm, /*deallocate=*/false);
  // Canonicalized again after CSE: copies of a buffer onto itself fold only
  // once their subviews are merged.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createEinsumGpuMapPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::einsum::buildEinsumLowerToNVVMPipeline(
    OpPassManager &pm, const EinsumToNVVMPipelineOptions &options) {
  // Inside the launches: what is left of the linalg ops (copies, per-thread
  // tiles without a vector schedule) to loops; reductions along vectors to
  // vector.reduction.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass(
      vector::VectorMultiReductionLowering::InnerReduction));
  pm.addPass(createGpuKernelOutliningPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll(true)));
  pm.addNestedPass<gpu::GPUModuleOp>(createEinsumLowerVectorsPass());
  pm.addPass(createSCFToControlFlowPass());
  if (options.returnOnError)
    pm.addPass(createEinsumLowerRuntimeChecksPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());

  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = options.chip;
  targetOptions.features = options.features;
  targetOptions.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(targetOptions));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // The kernels.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  // What the NVVM conversion leaves of the vector ops (broadcasts of
  // scalars, reductions), now that the memory ops are converted.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertVectorToLLVMPass());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  // The host, and the kernels serialized.
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::einsum::buildEinsumGpuScheduleOnCPUPipeline(
    OpPassManager &pm, const EinsumToNVVMPipelineOptions &options) {
  EinsumToLLVMPipelineOptions cpuOptions;
  cpuOptions.copyPathOptions(options);
  cpuOptions.returnOnError = options.returnOnError;
  buildEinsumToLinalgPipeline(pm, cpuOptions);
  buildEinsumGpuSchedulePipeline(pm, options, /*workgroupMemory=*/false);
  buildEinsumBufferizePipeline(pm);
  pm.addPass(createForallToForLoopPass());
  buildEinsumLowerToLLVMPipeline(pm, cpuOptions);
}

void mlir::einsum::buildEinsumToNVVMPipeline(
    OpPassManager &pm, const EinsumToNVVMPipelineOptions &options) {
  EinsumToLLVMPipelineOptions linalgOptions;
  linalgOptions.copyPathOptions(options);
  // The host code maps its buffers to device memory only at its top level.
  buildEinsumToLinalgPipeline(pm, linalgOptions,
                              /*expandDynamicBroadcasts=*/false);
  buildEinsumGpuSchedulePipeline(pm, options);
  buildEinsumGpuBufferizePipeline(pm);
  buildEinsumLowerToNVVMPipeline(pm, options);
}

void mlir::einsum::registerEinsumGpuPipelines() {
  PassPipelineRegistration<EinsumToNVVMPipelineOptions>(
      "einsum-gpu-schedule-pipeline",
      "Tile linalg on tensors for GPU blocks, threads and registers",
      [](OpPassManager &pm, const EinsumToNVVMPipelineOptions &options) {
        buildEinsumGpuSchedulePipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "einsum-gpu-bufferize-pipeline",
      "Bufferize and map the GPU loops to gpu.launch",
      [](OpPassManager &pm) { buildEinsumGpuBufferizePipeline(pm); });
  PassPipelineRegistration<EinsumToNVVMPipelineOptions>(
      "einsum-gpu-schedule-on-cpu-pipeline",
      "Run the GPU schedule serially on the CPU (to check it without a GPU)",
      buildEinsumGpuScheduleOnCPUPipeline);
  PassPipelineRegistration<EinsumToNVVMPipelineOptions>(
      "einsum-lower-to-nvvm-pipeline",
      "Outline the gpu.launch kernels, lower them to NVVM and serialize them; "
      "lower the host code to the LLVM dialect",
      buildEinsumLowerToNVVMPipeline);
  PassPipelineRegistration<EinsumToNVVMPipelineOptions>(
      "einsum-to-nvvm-pipeline",
      "Compile einsum.contract on tensors for NVIDIA GPUs (NVVM, PTX)",
      buildEinsumToNVVMPipeline);
}
