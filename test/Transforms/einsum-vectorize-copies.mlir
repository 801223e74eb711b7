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

// Dynamic shapes, an innermost dimension that is not contiguous, and
// copies of more than 1024 elements (whole intermediates) stay copies.
// CHECK-LABEL: func.func @left_alone
// CHECK: memref.copy {{.*}} : memref<?x4xf32> to memref<?x4xf32>
// CHECK: memref.copy {{.*}} : memref<4x4xf32, strided<[1, 4]>> to memref<4x4xf32>
// CHECK: memref.copy {{.*}} : memref<512x512xf32> to memref<512x512xf32>
func.func @left_alone(%a: memref<?x4xf32>, %b: memref<?x4xf32>,
                      %c: memref<4x4xf32, strided<[1, 4]>>, %d: memref<4x4xf32>,
                      %e: memref<512x512xf32>, %f: memref<512x512xf32>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  memref.copy %c, %d : memref<4x4xf32, strided<[1, 4]>> to memref<4x4xf32>
  memref.copy %e, %f : memref<512x512xf32> to memref<512x512xf32>
  return
}
