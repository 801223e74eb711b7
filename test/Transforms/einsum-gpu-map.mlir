// RUN: einsum-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(einsum-gpu-map),canonicalize)' | FileCheck %s

// The bufferized GPU schedule of a 64x32 by 32x64 product (einsum-gpu-tile
// with tile-sizes=32,32,8 thread-tile=4,4): a fill and the contraction.
// CHECK-LABEL: func.func @gemm(
// CHECK:         %[[C:.*]] = gpu.alloc () : memref<64x64xf32>
// The fill: 16 x 1 blocks of 256 threads.
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:           arith.muli %[[BX]], %c4
// CHECK:           gpu.thread_id  x
// CHECK:           linalg.fill
// CHECK:           gpu.barrier
// CHECK:           gpu.terminator
// The contraction: 2 x 2 blocks of 64 threads, the staged tiles as
// workgroup attributions.
// CHECK:         gpu.launch blocks(%[[BX2:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[SA:.*]] : memref<32x8xf32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<8x32xf32, #gpu.address_space<workgroup>>)
// CHECK:           affine.delinearize_index %[[BX2]] into (2, 2)
// The accumulator tile is read once before the reduction steps and written
// once after them.
// CHECK:           %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<4x4xf32, strided<[64, 1], offset: ?>>, vector<4x4xf32>
// CHECK:           %[[SUM:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x4xf32>)
// CHECK:             linalg.copy ins(%{{.*}}) outs(%{{.*}} : memref<4x1xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>>)
// CHECK:             gpu.barrier
// CHECK:             linalg.copy ins(%{{.*}}) outs(%{{.*}} : memref<4x1xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>)
// CHECK:             gpu.barrier
// CHECK:             scf.for
// CHECK:               vector.contract
// CHECK:             gpu.barrier
// CHECK:             scf.yield
// CHECK:           vector.transfer_write %[[SUM]]
// CHECK:           gpu.terminator
// CHECK-NOT:     memref.alloc
// CHECK:         return %[[C]]
module {
  func.func @gemm(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>) -> memref<64x64xf32> {
    %0 = ub.poison : f32
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
    scf.forall (%arg2, %arg3) = (0, 0) to (64, 64) step (4, 64) {
      %subview = memref.subview %alloc[%arg2, 0] [4, 64] [1, 1] : memref<64x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
      scf.forall (%arg4, %arg5) in (4, 64) {
        %subview_0 = memref.subview %subview[%arg4, %arg5] [1, 1] [1, 1] : memref<4x64xf32, strided<[64, 1], offset: ?>> to memref<1x1xf32, strided<[64, 1], offset: ?>>
        linalg.fill ins(%cst : f32) outs(%subview_0 : memref<1x1xf32, strided<[64, 1], offset: ?>>)
      } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
    } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
    scf.forall (%arg2, %arg3) = (0, 0) to (64, 64) step (32, 32) {
      %subview = memref.subview %arg0[%arg2, 0] [32, 32] [1, 1] : memref<64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %arg3] [32, 32] [1, 1] : memref<32x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      %subview_1 = memref.subview %alloc[%arg2, %arg3] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      scf.for %arg4 = %c0 to %c32 step %c8 {
        %subview_2 = memref.subview %subview[0, %arg4] [32, 8] [1, 1] : memref<32x32xf32, strided<[32, 1], offset: ?>> to memref<32x8xf32, strided<[32, 1], offset: ?>>
        %subview_3 = memref.subview %subview_0[%arg4, 0] [8, 32] [1, 1] : memref<32x32xf32, strided<[64, 1], offset: ?>> to memref<8x32xf32, strided<[64, 1], offset: ?>>
        %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32, #gpu.address_space<workgroup>>
        scf.forall (%arg5, %arg6) in (8, 8) {
          %1 = affine.apply affine_map<(d0) -> (d0 * 4)>(%arg5)
          %subview_6 = memref.subview %subview_2[%1, %arg6] [4, 1] [1, 1] : memref<32x8xf32, strided<[32, 1], offset: ?>> to memref<4x1xf32, strided<[32, 1], offset: ?>>
          %subview_7 = memref.subview %alloc_4[%1, %arg6] [4, 1] [1, 1] : memref<32x8xf32, #gpu.address_space<workgroup>> to memref<4x1xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>>
          linalg.copy ins(%subview_6 : memref<4x1xf32, strided<[32, 1], offset: ?>>) outs(%subview_7 : memref<4x1xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>>)
        } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
        %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<8x32xf32, #gpu.address_space<workgroup>>
        scf.forall (%arg5, %arg6) in (2, 32) {
          %1 = affine.apply affine_map<(d0) -> (d0 * 4)>(%arg5)
          %subview_6 = memref.subview %subview_3[%1, %arg6] [4, 1] [1, 1] : memref<8x32xf32, strided<[64, 1], offset: ?>> to memref<4x1xf32, strided<[64, 1], offset: ?>>
          %subview_7 = memref.subview %alloc_5[%1, %arg6] [4, 1] [1, 1] : memref<8x32xf32, #gpu.address_space<workgroup>> to memref<4x1xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
          linalg.copy ins(%subview_6 : memref<4x1xf32, strided<[64, 1], offset: ?>>) outs(%subview_7 : memref<4x1xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>)
        } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
        scf.forall (%arg5, %arg6) in (8, 8) {
          %1 = affine.apply affine_map<(d0) -> (d0 * 4)>(%arg5)
          %2 = affine.apply affine_map<(d0) -> (d0 * 4)>(%arg6)
          %subview_6 = memref.subview %alloc_4[%1, 0] [4, 8] [1, 1] : memref<32x8xf32, #gpu.address_space<workgroup>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>>
          %subview_7 = memref.subview %alloc_5[0, %2] [8, 4] [1, 1] : memref<8x32xf32, #gpu.address_space<workgroup>> to memref<8x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
          %subview_8 = memref.subview %subview_1[%1, %2] [4, 4] [1, 1] : memref<32x32xf32, strided<[64, 1], offset: ?>> to memref<4x4xf32, strided<[64, 1], offset: ?>>
          %3 = vector.transfer_read %subview_8[%c0, %c0], %0 {in_bounds = [true, true]} : memref<4x4xf32, strided<[64, 1], offset: ?>>, vector<4x4xf32>
          %4 = scf.for %arg7 = %c0 to %c8 step %c1 iter_args(%arg8 = %3) -> (vector<4x4xf32>) {
            %subview_9 = memref.subview %subview_6[0, %arg7] [4, 1] [1, 1] : memref<4x8xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>> to memref<4x1xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>>
            %subview_10 = memref.subview %subview_7[%arg7, 0] [1, 4] [1, 1] : memref<8x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>> to memref<1x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
            %5 = vector.transfer_read %subview_9[%c0, %c0], %0 {in_bounds = [true, true]} : memref<4x1xf32, strided<[8, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<4x1xf32>
            %6 = vector.transfer_read %subview_10[%c0, %c0], %0 {in_bounds = [true, true]} : memref<1x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<1x4xf32>
            %7 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"], kind = #vector.kind<add>} %5, %6, %arg8 : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
            scf.yield %7 : vector<4x4xf32>
          }
          vector.transfer_write %4, %subview_8[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32, strided<[64, 1], offset: ?>>
        } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
      }
    } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
    return %alloc : memref<64x64xf32>
  }
}

// -----

// Host buffers: an intermediate is allocated and freed in device memory, a
// copy becomes gpu.memcpy, and an op with a rank-0 output runs on one
// thread.
// CHECK-LABEL: func.func @host_buffers(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<f32>
// CHECK:         %[[TMP:.*]] = gpu.alloc () : memref<8xf32>
// CHECK:         gpu.memcpy %[[TMP]], %[[A]] : memref<8xf32>, memref<8xf32>
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %[[ONE:.*]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads({{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
// CHECK:           linalg.generic
// CHECK:           gpu.terminator
// CHECK:         gpu.dealloc %[[TMP]] : memref<8xf32>
// CHECK-NEXT:    return
func.func @host_buffers(%a: memref<8xf32>, %out: memref<f32>) {
  %tmp = memref.alloc() : memref<8xf32>
  memref.copy %a, %tmp : memref<8xf32> to memref<8xf32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%tmp : memref<8xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}
