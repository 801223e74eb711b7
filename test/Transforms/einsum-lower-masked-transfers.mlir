// RUN: einsum-opt %s -einsum-lower-masked-transfers -split-input-file | FileCheck %s

// A padded register tile's row: 13 columns in a 16-lane vector. The read and
// the write are out of bounds past the row's end: a masked load (zeros in
// the padding lanes) and a masked store of the 13 lanes in bounds.
// CHECK-LABEL: func.func @padded_row
// CHECK-DAG:   %[[MASK:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false]> : vector<16xi1>
// CHECK-DAG:   %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:       %[[ROW:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %{{.*}}], %[[MASK]], %[[ZEROS]] : memref<8x13xf32, strided<[64, 1]>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK:       vector.maskedstore %{{.*}}[%{{.*}}, %{{.*}}], %[[MASK]], %[[ROW]] : memref<8x13xf32, strided<[64, 1]>>, vector<16xi1>, vector<16xf32>
// CHECK-NOT:   vector.transfer_
func.func @padded_row(%m: memref<8x13xf32, strided<[64, 1]>>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %row = vector.transfer_read %m[%c3, %c0], %zero {in_bounds = [false]} : memref<8x13xf32, strided<[64, 1]>>, vector<16xf32>
  vector.transfer_write %row, %m[%c3, %c0] {in_bounds = [false]} : vector<16xf32>, memref<8x13xf32, strided<[64, 1]>>
  return
}

// -----

// Transfers in bounds become plain loads and stores, unmasked (what
// convert-vector-to-llvm would make of them too).
// CHECK-LABEL: func.func @in_bounds
// CHECK:       %[[ROW:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x16xf32>, vector<16xf32>
// CHECK:       vector.store %[[ROW]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x16xf32>, vector<16xf32>
// CHECK-NOT:   mask
func.func @in_bounds(%m: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %row = vector.transfer_read %m[%c3, %c0], %zero {in_bounds = [true]} : memref<8x16xf32>, vector<16xf32>
  vector.transfer_write %row, %m[%c3, %c0] {in_bounds = [true]} : vector<16xf32>, memref<8x16xf32>
  return
}

// -----

// A dynamic row length: the mask is computed at run time from the lanes
// left in the row (32-bit lane indices).
// CHECK-LABEL: func.func @dynamic_row
// CHECK:       %[[LEFT:.*]] = arith.subi
// CHECK:       %[[MASK:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK:       vector.maskedload %{{.*}}[%{{.*}}], %[[MASK]]
func.func @dynamic_row(%m: memref<?xf32>, %i: index) -> vector<16xf32> {
  %zero = arith.constant 0.0 : f32
  %row = vector.transfer_read %m[%i], %zero {in_bounds = [false]} : memref<?xf32>, vector<16xf32>
  return %row : vector<16xf32>
}
