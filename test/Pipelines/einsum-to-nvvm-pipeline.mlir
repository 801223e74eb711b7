// RUN: einsum-opt %s -split-input-file --einsum-to-nvvm-pipeline | FileCheck %s
// RUN: einsum-opt %s -split-input-file --einsum-to-nvvm-pipeline -mlir-print-ir-after=convert-gpu-to-nvvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVM
// RUN: einsum-opt %s -split-input-file --einsum-to-nvvm-pipeline='chip=sm_80 features=+ptx70 tile-sizes=64,64,16 thread-tile=4,4' | FileCheck %s --check-prefix=OPTS

// The host function calls the mgpu* runtime; the kernels are PTX for sm_90.
// CHECK-LABEL: llvm.func @gemm(
// CHECK:         llvm.call @mgpuStreamCreate()
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @gemm_kernel_0::@gemm_kernel_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @gemm_kernel_1::@gemm_kernel_1 blocks in
// CHECK:         llvm.call @mgpuStreamSynchronize
// CHECK:       gpu.binary @gemm_kernel_1 {{.*}}#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">{{.*}}assembly = "{{.*}}.target sm_90{{.*}}st.shared{{.*}}bar.sync{{.*}}ld.shared{{.*}}fma.rn.f32
// NVVM-LABEL: gpu.module @gemm_kernel_1
// NVVM:         llvm.func @gemm_kernel_1({{.*}} attributes {gpu.kernel, {{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// NVVM:           nvvm.read.ptx.sreg.ctaid.x
// NVVM:           nvvm.read.ptx.sreg.tid.x
// The accumulators are loaded once, before the reduction steps.
// NVVM:           llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// NVVM:           llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// NVVM:           nvvm.barrier0
// NVVM:           llvm.load %{{.*}} : !llvm.ptr<3> -> vector<8xf32>
// NVVM:           llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// OPTS-LABEL: llvm.func @gemm(
// OPTS:       gpu.binary @gemm_kernel_1 {{.*}}#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">{{.*}}.target sm_80{{.*}}.maxntid 256, 1, 1{{.*}}fma.rn.f32
func.func @gemm(%a: tensor<256x64xf32>, %b: tensor<64x512xf32>) -> tensor<256x512xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<256x64xf32>, tensor<64x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// Batched: one block per (batch, 128 x 128 tile); the block id is
// delinearized.
// CHECK-LABEL: llvm.func @batched(
// CHECK:       gpu.binary @batched_kernel_1 {{.*}}bar.sync{{.*}}fma.rn.f32
// NVVM-LABEL: gpu.module @batched_kernel_1
// NVVM:         nvvm.read.ptx.sreg.ctaid.x
// NVVM:         llvm.sdiv
// NVVM:         nvvm.barrier0
// NVVM:         llvm.intr.fmuladd
// OPTS-LABEL: llvm.func @batched(
func.func @batched(%a: tensor<4x128x32xf32>, %b: tensor<4x32x64xf32>) -> tensor<4x128x64xf32> {
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<4x128x32xf32>, tensor<4x32x64xf32>
  return %0 : tensor<4x128x64xf32>
}

// -----

// A transposed output: the output's contiguous loop (i) is N, the threads'
// fastest dimension, so stores stay coalesced.
// CHECK-LABEL: llvm.func @transposed_output(
// CHECK:       gpu.binary @transposed_output_kernel_1 {{.*}}ld.shared{{.*}}fma.rn.f32
// NVVM-LABEL: gpu.module @transposed_output_kernel_1
// NVVM:         nvvm.barrier0
// NVVM:         llvm.intr.fmuladd
// OPTS-LABEL: llvm.func @transposed_output(
func.func @transposed_output(%a: tensor<128x32xf32>, %b: tensor<32x256xf32>) -> tensor<256x128xf32> {
  %0 = einsum.contract "ij,jk->ki"(%a, %b) : tensor<128x32xf32>, tensor<32x256xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// A diagonal: blocks of 256 threads, one element each, no staging; one
// kernel, the copy (no fill of the output before it).
// CHECK-LABEL: llvm.func @diagonal(
// CHECK:       gpu.binary @diagonal_kernel_0 {{.*}}ld.global
// CHECK-NOT:   gpu.binary @diagonal_kernel_1
// NVVM-LABEL: gpu.module @diagonal_kernel_0
// NVVM-NOT:     !llvm.ptr<3>
// NVVM:         nvvm.read.ptx.sreg.tid.x
// NVVM:         llvm.load %{{.*}} : !llvm.ptr -> f32
// OPTS-LABEL: llvm.func @diagonal(
func.func @diagonal(%a: tensor<64x64xf32>) -> tensor<64xf32> {
  %0 = einsum.contract "ii->i"(%a) : tensor<64x64xf32>
  return %0 : tensor<64xf32>
}

// -----

// A reduction: each thread sums its row.
// CHECK-LABEL: llvm.func @row_sums(
// CHECK:       gpu.binary @row_sums_kernel_1 {{.*}}add.f32
// NVVM-LABEL: gpu.module @row_sums_kernel_1
// NVVM:         llvm.br
// NVVM:         llvm.fadd
// OPTS-LABEL: llvm.func @row_sums(
func.func @row_sums(%a: tensor<1000x70xf32>) -> tensor<1000xf32> {
  %0 = einsum.contract "ij->i"(%a) : tensor<1000x70xf32>
  return %0 : tensor<1000xf32>
}

// -----

// An ellipsis: the broadcast batch dimensions are blocks of their own.
// CHECK-LABEL: llvm.func @ellipsis(
// CHECK:       gpu.binary @ellipsis_kernel_1 {{.*}}ld.shared{{.*}}fma.rn.f32
// NVVM-LABEL: gpu.module @ellipsis_kernel_1
// NVVM:         nvvm.barrier0
// NVVM:         llvm.intr.fmuladd
// OPTS-LABEL: llvm.func @ellipsis(
func.func @ellipsis(%a: tensor<2x3x32x16xf32>, %b: tensor<2x3x16x32xf32>) -> tensor<2x3x32x32xf32> {
  %0 = einsum.contract "...ij,...jk->...ik"(%a, %b) : tensor<2x3x32x16xf32>, tensor<2x3x16x32xf32>
  return %0 : tensor<2x3x32x32xf32>
}
