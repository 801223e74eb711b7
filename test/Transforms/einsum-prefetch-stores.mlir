// RUN: einsum-opt %s -split-input-file -einsum-prefetch-stores | FileCheck %s
// RUN: einsum-opt %s -split-input-file -einsum-prefetch-stores=distance=0 | FileCheck %s --check-prefix=NOLOOP

// A register tile accumulated through its reductions: each of its 2 rows of
// 32 floats, 99 floats apart (not on lines), touches up to 3 lines; they
// are prefetched for writing before the reduction loop (elements 0, 16 and
// the last, 31).
// CHECK-LABEL: func.func @accumulated_tile
// CHECK-SAME: (%[[C:.*]]: memref<2x32xf32, strided<[99, 1], offset: ?>>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.prefetch %[[C]][%[[C0]], %[[C0]]], write, locality<3>, data
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: memref.prefetch %[[C]][%[[C0]], %[[C16]]], write, locality<3>, data
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : index
// CHECK-NEXT: memref.prefetch %[[C]][%[[C0]], %[[C31]]], write, locality<3>, data
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.prefetch %[[C]][%[[C1]], %[[C0]]], write, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[C]][%[[C1]], %[[C16]]], write, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[C]][%[[C1]], %[[C31]]], write, locality<3>, data
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_write
func.func @accumulated_tile(%c: memref<2x32xf32, strided<[99, 1], offset: ?>>,
                            %a: vector<2x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<2x32xf32>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<2x32xf32>) {
    %next = arith.addf %acc, %a : vector<2x32xf32>
    scf.yield %next : vector<2x32xf32>
  }
  vector.transfer_write %sum, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x32xf32>, memref<2x32xf32, strided<[99, 1], offset: ?>>
  return
}

// -----

// The subview the tile is stored through is made after the loop: it moves
// above it, with the prefetches. A transposed accumulator (vector.transpose
// of the loop's result) is followed back to the loop.
// CHECK-LABEL: func.func @subview_after_loop
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK: memref.prefetch %[[VIEW]]
// CHECK: scf.for
// CHECK: vector.transpose
// CHECK: vector.transfer_write {{.*}}, %[[VIEW]]
func.func @subview_after_loop(%c: memref<64x100xf32>, %i: index,
                              %a: vector<16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<16x1xf32>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<16x1xf32>) {
    %next = arith.addf %acc, %a : vector<16x1xf32>
    scf.yield %next : vector<16x1xf32>
  }
  %t = vector.transpose %sum, [1, 0] : vector<16x1xf32> to vector<1x16xf32>
  %view = memref.subview %c[%i, 3] [1, 16] [1, 1] : memref<64x100xf32> to memref<1x16xf32, strided<[100, 1], offset: ?>>
  vector.transfer_write %t, %view[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, memref<1x16xf32, strided<[100, 1], offset: ?>>
  return
}

// -----

// Rows of whole lines whose strides are whole lines (32 floats, 128 apart)
// are written line by line: no prefetch.
// CHECK-LABEL: func.func @line_rows
// CHECK-NOT: memref.prefetch
func.func @line_rows(%c: memref<8x32xf32, strided<[128, 1], offset: ?>>,
                     %a: vector<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<8x32xf32>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<8x32xf32>) {
    %next = arith.addf %acc, %a : vector<8x32xf32>
    scf.yield %next : vector<8x32xf32>
  }
  vector.transfer_write %sum, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32, strided<[128, 1], offset: ?>>
  return
}

// -----

// A padded row (out of bounds along the columns) is prefetched up to the
// memref's end: 3 of the vector's 4 columns, one line; a column (stride 99)
// element by element.
// CHECK-LABEL: func.func @padded_and_column
// CHECK: memref.prefetch %arg0[%[[C0:.*]], %[[C0]]]
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: memref.prefetch %arg0[%[[C0]], %[[C2]]]
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.prefetch %arg0[%[[C1]], %[[C0]]]
// CHECK-NEXT: memref.prefetch %arg0[%[[C1]], %[[C2]]]
// CHECK-NEXT: scf.for
// CHECK: memref.prefetch %arg1[%[[C0]]]
// CHECK-NEXT: %[[D1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.prefetch %arg1[%[[D1]]]
// CHECK-NEXT: %[[D2:.*]] = arith.constant 2 : index
// CHECK-NEXT: memref.prefetch %arg1[%[[D2]]]
// CHECK-NEXT: scf.for
func.func @padded_and_column(%c: memref<2x3xf32, strided<[99, 1], offset: ?>>,
                             %d: memref<3xf32, strided<[99], offset: ?>>,
                             %a: vector<2x4xf32>, %b: vector<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<2x4xf32>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<2x4xf32>) {
    %next = arith.addf %acc, %a : vector<2x4xf32>
    scf.yield %next : vector<2x4xf32>
  }
  vector.transfer_write %sum, %c[%c0, %c0] {in_bounds = [true, false]} : vector<2x4xf32>, memref<2x3xf32, strided<[99, 1], offset: ?>>
  %zero1 = arith.constant dense<0.0> : vector<3xf32>
  %col = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero1) -> (vector<3xf32>) {
    %next = arith.addf %acc, %b : vector<3xf32>
    scf.yield %next : vector<3xf32>
  }
  vector.transfer_write %col, %d[%c0] {in_bounds = [true]} : vector<3xf32>, memref<3xf32, strided<[99], offset: ?>>
  return
}

// -----

// The tiles of a transpose: the first line of each of the tile's 4 rows,
// two iterations ahead (iv + 2 * 16), asked for at the start of the body.
// CHECK-LABEL: func.func @transpose_tiles
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[DIST:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[J]], %[[DIST]]
// CHECK-NEXT: %[[VIEW:.*]] = memref.subview %{{.*}}[0, %[[AHEAD]]] [4, 16]
// CHECK-COUNT-4: memref.prefetch %[[VIEW]][%{{.*}}, %{{.*}}], write, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
// NOLOOP-LABEL: func.func @transpose_tiles
// NOLOOP-NOT: memref.prefetch
func.func @transpose_tiles(%in: memref<1000x4xf32>, %out: memref<4x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c992 = arith.constant 992 : index
  %pad = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c992 step %c16 {
    %src = memref.subview %in[%j, 0] [16, 4] [1, 1] : memref<1000x4xf32> to memref<16x4xf32, strided<[4, 1], offset: ?>>
    %tile = vector.transfer_read %src[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x4xf32, strided<[4, 1], offset: ?>>, vector<16x4xf32>
    %t = vector.transpose %tile, [1, 0] : vector<16x4xf32> to vector<4x16xf32>
    %dst = memref.subview %out[0, %j] [4, 16] [1, 1] : memref<4x1000xf32> to memref<4x16xf32, strided<[1000, 1], offset: ?>>
    vector.transfer_write %t, %dst[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32, strided<[1000, 1], offset: ?>>
  }
  return
}

// -----

// One contiguous row per iteration is what the hardware prefetchers follow;
// a write whose address does not move with the loop, and one that
// transposes through its permutation map, are left too.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.prefetch
func.func @left_alone(%out: memref<1000xf32>, %other: memref<16x16xf32>,
                      %v: vector<16xf32>, %m: vector<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c992 = arith.constant 992 : index
  scf.for %j = %c0 to %c992 step %c16 {
    vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<16xf32>, memref<1000xf32>
    vector.transfer_write %m, %other[%c0, %c0] {in_bounds = [true, true]} : vector<16x16xf32>, memref<16x16xf32>
    vector.transfer_write %m, %other[%c0, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<16x16xf32>, memref<16x16xf32>
  }
  return
}

// -----

// A step known only at run time: the distance is step * 2.
// CHECK-LABEL: func.func @dynamic_step
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[STEP:[^ ]*]] {
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[DIST:.*]] = arith.muli %[[STEP]], %[[TWO]]
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[J]], %[[DIST]]
// CHECK: memref.prefetch %{{.*}}[%{{.*}}, %[[AHEAD]]]
func.func @dynamic_step(%out: memref<2x1000xf32>, %v: vector<2x16xf32>,
                        %step: index) {
  %c0 = arith.constant 0 : index
  %c992 = arith.constant 992 : index
  scf.for %j = %c0 to %c992 step %step {
    vector.transfer_write %v, %out[%c0, %j] {in_bounds = [true, true]} : vector<2x16xf32>, memref<2x1000xf32>
  }
  return
}
