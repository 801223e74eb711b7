// RUN: einsum-opt %s -einsum-vectorize-copies -split-input-file | FileCheck %s

// A static copy between row-contiguous views: vector transfers, not a call
// of the runner utils' element-by-element memrefCopy.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[SRC:.*]]: memref<8x18xf32, strided<[82, 1], offset: ?>>, %[[DST:.*]]: memref<8x18xf32, strided<[5248, 1], offset: ?>>)
// CHECK-NOT: memref.copy
// CHECK: %[[V:.*]] = vector.transfer_read %[[SRC]]{{.*}} : memref<8x18xf32, strided<[82, 1], offset: ?>>, vector<8x18xf32>
// CHECK: vector.transfer_write %[[V]], %[[DST]]
func.func @rows(%src: memref<8x18xf32, strided<[82, 1], offset: ?>>,
                %dst: memref<8x18xf32, strided<[5248, 1], offset: ?>>) {
  memref.copy %src, %dst : memref<8x18xf32, strided<[82, 1], offset: ?>> to memref<8x18xf32, strided<[5248, 1], offset: ?>>
  return
}

// -----

// Copies between contiguous buffers stay copies (they lower to llvm.memcpy):
// dynamic shapes, and whole intermediates of more than 1024 elements.
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy {{.*}} : memref<?x4xf32> to memref<?x4xf32>
// CHECK: memref.copy {{.*}} : memref<512x512xf32> to memref<512x512xf32>
// CHECK: memref.copy {{.*}} : memref<64x32xf32, strided<[32, 1], offset: 16>> to memref<64x32xf32>
func.func @contiguous(%a: memref<?x4xf32>, %b: memref<?x4xf32>,
                      %e: memref<512x512xf32>, %f: memref<512x512xf32>,
                      %g: memref<64x32xf32, strided<[32, 1], offset: 16>>,
                      %h: memref<64x32xf32>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  memref.copy %e, %f : memref<512x512xf32> to memref<512x512xf32>
  memref.copy %g, %h : memref<64x32xf32, strided<[32, 1], offset: 16>> to memref<64x32xf32>
  return
}

// -----

// A side that is not contiguous (a packing tile's remainder column, a
// transposed view, dynamic strided views): linalg.copy, which
// convert-linalg-to-loops makes loads and stores, not a call of the generic
// memrefCopy.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins({{.*}} : memref<8xf32, strided<[1], offset: ?>>) outs({{.*}} : memref<8xf32, strided<[99], offset: ?>>)
// CHECK: linalg.copy ins({{.*}} : memref<4x4xf32, strided<[1, 4]>>) outs({{.*}} : memref<4x4xf32>)
// CHECK: linalg.copy ins({{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>) outs({{.*}} : memref<?x?xf32>)
// CHECK: linalg.copy ins({{.*}} : memref<64x64xf32, strided<[128, 1]>>) outs({{.*}} : memref<64x64xf32>)
// CHECK-NOT: memref.copy
func.func @strided(%a: memref<8xf32, strided<[1], offset: ?>>,
                   %b: memref<8xf32, strided<[99], offset: ?>>,
                   %c: memref<4x4xf32, strided<[1, 4]>>, %d: memref<4x4xf32>,
                   %e: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                   %f: memref<?x?xf32>,
                   %g: memref<64x64xf32, strided<[128, 1]>>,
                   %h: memref<64x64xf32>) {
  memref.copy %a, %b : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32, strided<[99], offset: ?>>
  memref.copy %c, %d : memref<4x4xf32, strided<[1, 4]>> to memref<4x4xf32>
  memref.copy %e, %f : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x?xf32>
  memref.copy %g, %h : memref<64x64xf32, strided<[128, 1]>> to memref<64x64xf32>
  return
}
