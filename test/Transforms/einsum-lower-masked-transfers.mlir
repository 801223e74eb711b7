// RUN: einsum-opt %s '-einsum-lower-masked-transfers=vector-bits=512' -split-input-file | FileCheck %s
// RUN: einsum-opt %s '-einsum-lower-masked-transfers=vector-bits=256' -split-input-file | FileCheck %s --check-prefix=SPLIT
// With AVX-512's 32 registers (and mask registers) 256-bit schedules keep
// their masked stores, as 512-bit ones do:
// RUN: einsum-opt %s '-einsum-lower-masked-transfers=vector-bits=256 vector-registers=32' -split-input-file | FileCheck %s

// A padded register tile's row: 13 columns in a 16-lane vector. The read and
// the write are out of bounds past the row's end: a masked load (zeros in
// the padding lanes) and a masked store of the 13 lanes in bounds.
// CHECK-LABEL: func.func @padded_row
// CHECK-DAG:   %[[MASK:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false]> : vector<16xi1>
// CHECK-DAG:   %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:       %[[ROW:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %{{.*}}], %[[MASK]], %[[ZEROS]] : memref<8x13xf32, strided<[64, 1]>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK:       vector.maskedstore %{{.*}}[%{{.*}}, %{{.*}}], %[[MASK]], %[[ROW]] : memref<8x13xf32, strided<[64, 1]>>, vector<16xi1>, vector<16xf32>
// CHECK-NOT:   vector.transfer_
// Below 512-bit vectors (no AVX-512 masked moves) the store is plain stores
// of power-of-two pieces of the 13 lanes: 8 + 4 + 1; the load stays masked.
// SPLIT-LABEL: func.func @padded_row
// SPLIT-DAG:   %[[C3:.*]] = arith.constant 3 : index
// SPLIT-DAG:   %[[C0:.*]] = arith.constant 0 : index
// SPLIT-DAG:   %[[C8:.*]] = arith.constant 8 : index
// SPLIT-DAG:   %[[C12:.*]] = arith.constant 12 : index
// SPLIT:       %[[ROW:.*]] = vector.maskedload
// SPLIT:       %[[P8:.*]] = vector.extract_strided_slice %[[ROW]] {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// SPLIT:       vector.store %[[P8]], %{{.*}}[%[[C3]], %[[C0]]] : memref<8x13xf32, strided<[64, 1]>>, vector<8xf32>
// SPLIT:       %[[P4:.*]] = vector.extract_strided_slice %[[ROW]] {offsets = [8], sizes = [4], strides = [1]} : vector<16xf32> to vector<4xf32>
// SPLIT:       vector.store %[[P4]], %{{.*}}[%[[C3]], %[[C8]]] : memref<8x13xf32, strided<[64, 1]>>, vector<4xf32>
// SPLIT:       %[[P1:.*]] = vector.extract_strided_slice %[[ROW]] {offsets = [12], sizes = [1], strides = [1]} : vector<16xf32> to vector<1xf32>
// SPLIT:       vector.store %[[P1]], %{{.*}}[%[[C3]], %[[C12]]] : memref<8x13xf32, strided<[64, 1]>>, vector<1xf32>
// SPLIT-NOT:   vector.maskedstore
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
// SPLIT-LABEL: func.func @in_bounds
// SPLIT:       vector.store %{{.*}} : memref<8x16xf32>, vector<16xf32>
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
// SPLIT-LABEL: func.func @dynamic_row
// SPLIT:       vector.maskedload
func.func @dynamic_row(%m: memref<?xf32>, %i: index) -> vector<16xf32> {
  %zero = arith.constant 0.0 : f32
  %row = vector.transfer_read %m[%i], %zero {in_bounds = [false]} : memref<?xf32>, vector<16xf32>
  return %row : vector<16xf32>
}

// -----

// A store with a mask that is not known (a dynamic row length) stays a
// masked store at any vector width.
// CHECK-LABEL: func.func @dynamic_store
// CHECK:       vector.maskedstore
// SPLIT-LABEL: func.func @dynamic_store
// SPLIT:       %[[MASK:.*]] = arith.cmpi sgt
// SPLIT:       vector.maskedstore %{{.*}}[%{{.*}}], %[[MASK]]
// SPLIT-NOT:   vector.store
func.func @dynamic_store(%m: memref<?xf32>, %i: index, %v: vector<8xf32>) {
  vector.transfer_write %v, %m[%i] {in_bounds = [false]} : vector<8xf32>, memref<?xf32>
  return
}

// -----

// Masks that are constants but not a prefix of the lanes stay masked; a
// constant prefix of all lanes but one (rows of 7 in 8 lanes) is 4 + 2 + 1.
// SPLIT-LABEL: func.func @constant_masks
// SPLIT:       vector.maskedstore %{{.*}}, %{{.*}} : memref<64xf32>, vector<8xi1>, vector<8xf32>
// SPLIT:       vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]}
// SPLIT:       vector.store
// SPLIT:       vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [2], strides = [1]}
// SPLIT:       vector.store
// SPLIT:       vector.extract_strided_slice %{{.*}} {offsets = [6], sizes = [1], strides = [1]}
// SPLIT:       vector.store
// SPLIT-NOT:   vector.maskedstore
// SPLIT:       return
func.func @constant_masks(%m: memref<64xf32>, %v: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %holes = arith.constant dense<[true, false, true, true, false, false, false, false]> : vector<8xi1>
  vector.maskedstore %m[%c0], %holes, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  %prefix = vector.constant_mask [7] : vector<8xi1>
  vector.maskedstore %m[%c8], %prefix, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  return
}
