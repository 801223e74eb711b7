// RUN: einsum-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(einsum-gpu-tile),canonicalize,cse)' | FileCheck %s
// RUN: einsum-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(einsum-gpu-tile{tile-sizes=64,32,16 thread-tile=4,2 workgroup-memory=false}),canonicalize,cse)' | FileCheck %s --check-prefix=OPTS

#gemm_a = affine_map<(m, k, n) -> (m, k)>
#gemm_b = affine_map<(m, k, n) -> (k, n)>
#gemm_c = affine_map<(m, k, n) -> (m, n)>

// A contraction: 128 x 128 block tiles, reduction steps of 8 with both input
// tiles staged in workgroup memory by all threads, and 16 x 16 threads with
// 8 x 8 register tiles, which carry a strategy for einsum-vectorize.
// CHECK-LABEL: func.func @gemm(
// CHECK:         scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (256, 512) step (128, 128)
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK:             %[[A:.*]] = bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<128x8xf32>
// CHECK:             scf.forall (%{{.*}}, %{{.*}}) in (32, 8)
// CHECK:               linalg.copy ins(%{{.*}} : tensor<4x1xf32>)
// CHECK:             } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
// CHECK:             bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<8x128xf32>
// CHECK:             scf.forall (%{{.*}}, %{{.*}}) in (2, 128)
// CHECK:             scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK:               linalg.generic
// CHECK-SAME:            ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK-SAME:            einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2], cache = [0, 0, 0], register = [8, 1, 8]>
// CHECK:             } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}

// Options: 64 x 32 blocks, steps of 16, 4 x 2 register tiles (16 x 16
// threads), staging in plain buffers.
// OPTS-LABEL: func.func @gemm(
// OPTS:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (256, 512) step (64, 32)
// OPTS:           scf.for %{{.*}} = %c0 to %c64 step %c16
// OPTS:             bufferization.alloc_tensor() : tensor<64x16xf32>
// OPTS:             bufferization.alloc_tensor() : tensor<16x32xf32>
// OPTS:             scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// OPTS:               register = [4, 1, 2]
func.func @gemm(%a: tensor<256x64xf32>, %b: tensor<64x512xf32>, %c: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %0 = linalg.generic {indexing_maps = [#gemm_a, #gemm_b, #gemm_c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<256x64xf32>, tensor<64x512xf32>) outs(%c : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// Other ops: blocks of 4 x 64 outputs, one per thread; the batch loop gets
// blocks of 1.
// CHECK-LABEL: func.func @transpose(
// CHECK:         scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (3, 40, 35) step (1, 4, 64)
// CHECK:           scf.forall (%{{.*}}, %{{.*}}) in (4, 64)
// CHECK:             linalg.transpose
// CHECK:           } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
// OPTS-LABEL: func.func @transpose(
// OPTS:         scf.forall (%{{.*}}, %{{.*}}) in (4, 64)
func.func @transpose(%a: tensor<3x35x40xf32>, %init: tensor<3x40x35xf32>) -> tensor<3x40x35xf32> {
  %0 = linalg.transpose ins(%a : tensor<3x35x40xf32>) outs(%init : tensor<3x40x35xf32>) permutation = [0, 2, 1]
  return %0 : tensor<3x40x35xf32>
}

// -----

// A rank-1 output: blocks of 256; the reduction runs within each thread.
// CHECK-LABEL: func.func @row_sums(
// CHECK:         scf.forall (%{{.*}}) = (0) to (1000) step (256)
// CHECK:           scf.forall (%{{.*}}) in (256)
// CHECK:             linalg.generic
// CHECK-SAME:          iterator_types = ["parallel", "reduction"]
// CHECK-NOT:           einsum.strategy
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
// OPTS-LABEL: func.func @row_sums(
// OPTS:         scf.forall (%{{.*}}) in (256)
func.func @row_sums(%a: tensor<1000x70xf32>, %init: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<1000x70xf32>) outs(%init : tensor<1000xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// A rank-0 output and an empty iteration space are left alone
// (einsum-gpu-map runs them on one thread).
// CHECK-LABEL: func.func @full_sum(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
// OPTS-LABEL: func.func @full_sum(
func.func @full_sum(%a: tensor<40x30xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<40x30xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @empty_reduction(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
// OPTS-LABEL: func.func @empty_reduction(
func.func @empty_reduction(%a: tensor<4x0xf32>, %b: tensor<0x7xf32>, %c: tensor<4x7xf32>) -> tensor<4x7xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<4x0xf32>, tensor<0x7xf32>) outs(%c : tensor<4x7xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// A contraction reading a diagonal (iij,jk->ik): tiled and staged like the
// others, but its register tile stays a loop nest (no strategy).
// CHECK-LABEL: func.func @diagonal_contraction(
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
// CHECK:           linalg.generic
// CHECK-NOT:         einsum.strategy
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
// OPTS-LABEL: func.func @diagonal_contraction(
func.func @diagonal_contraction(%a: tensor<9x9x5xf32>, %b: tensor<5x7xf32>, %c: tensor<9x7xf32>) -> tensor<9x7xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, i, j)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, k)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<9x9x5xf32>, tensor<5x7xf32>) outs(%c : tensor<9x7xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<9x7xf32>
  return %0 : tensor<9x7xf32>
}
