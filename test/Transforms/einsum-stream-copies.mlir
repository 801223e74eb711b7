// RUN: einsum-opt %s -split-input-file -einsum-stream-copies | FileCheck %s

// A block whose rows are contiguous on both sides is one run of 6 x 100
// elements: elements up to the destination's first 64-byte boundary, lines
// of 16 f32 in non-temporal stores aligned to 64 bytes, then the rest. The
// fence follows the loop around the copy, once.
// CHECK-LABEL: func.func @contiguous_block
//  CHECK-SAME: (%[[OUT:.*]]: memref<64x6x100xf32>)
//       CHECK:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//       CHECK:   scf.for %[[I:.*]] =
//       CHECK:     %[[DST:.*]] = memref.subview %[[OUT]][%[[I]], 0, 0] [1, 6, 100]
//       CHECK:     %[[FROM:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<6x100xf32> into memref<600xf32>
//       CHECK:     %[[TO:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<6x100xf32, strided<[100, 1], offset: ?>> into memref<600xf32, strided<[1], offset: ?>>
//       CHECK:     %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[TO]]
//       CHECK:     %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[TO]]
//       CHECK:     %[[BYTES:.*]] = arith.muli %[[OFFSET]], %{{.*}} : index
//       CHECK:     %[[ADDRESS:.*]] = arith.addi %[[PTR]], %[[BYTES]] : index
//       CHECK:     arith.remui %[[ADDRESS]], %{{.*}} : index
//       CHECK:     %[[HEAD:.*]] = arith.select
//       CHECK:     %[[END:.*]] = arith.addi %[[HEAD]], %{{.*}} : index
//       CHECK:     scf.for %[[J:.*]] = %{{.*}} to %[[HEAD]] step %{{.*}} {
//       CHECK:       memref.load %[[FROM]][%[[J]]]
//       CHECK:       memref.store %{{.*}}, %[[TO]][%[[J]]]
//       CHECK:     scf.for %[[K:.*]] = %[[HEAD]] to %[[END]] step %{{.*}} {
//       CHECK:       %[[LINE:.*]] = vector.load %[[FROM]][%[[K]]] : memref<600xf32>, vector<16xf32>
//       CHECK:       vector.store %[[LINE]], %[[TO]][%[[K]]] {alignment = 64 : i64, nontemporal = true}
//       CHECK:     scf.for %[[L:.*]] = %[[END]] to %{{.*}} step %{{.*}} {
//       CHECK:       memref.load %[[FROM]][%[[L]]]
//       CHECK:       memref.store %{{.*}}, %[[TO]][%[[L]]]
//   CHECK-NOT:     linalg.copy
//       CHECK:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   llvm.fence seq_cst
//  CHECK-NEXT:   return
func.func @contiguous_block(%out: memref<64x6x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %dst = memref.subview %out[%i, 0, 0] [1, 6, 100] [1, 1, 1] : memref<64x6x100xf32> to memref<6x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}

// -----

// Rows 400 elements apart in the output: a loop over the rows, one run of
// 100 per row; f64 lines are 8 elements.
// CHECK-LABEL: func.func @rows_apart
//       CHECK:   scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
//       CHECK:     memref.subview %{{.*}}[%[[R]], 0] [1, 100] [1, 1] : memref<6x100xf64> to memref<100xf64, strided<[1], offset: ?>>
//       CHECK:     memref.subview %{{.*}}[%[[R]], 0] [1, 100] [1, 1] : memref<6x100xf64, strided<[400, 1]>> to memref<100xf64, strided<[1], offset: ?>>
//       CHECK:     vector.load %{{.*}} : memref<100xf64, strided<[1], offset: ?>>, vector<8xf64>
//       CHECK:     vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<100xf64, strided<[1], offset: ?>>, vector<8xf64>
//       CHECK:       memref.store
//  CHECK-NEXT:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   llvm.fence seq_cst
func.func @rows_apart(%out: memref<6x400xf64>) {
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf64>
  %dst = memref.subview %out[0, 0] [6, 100] [1, 1] : memref<6x400xf64> to memref<6x100xf64, strided<[400, 1]>>
  linalg.copy {einsum.stream} ins(%buf : memref<6x100xf64>) outs(%dst : memref<6x100xf64, strided<[400, 1]>>)
  return
}

// -----

// A destination without unit inner stride cannot be streamed: a plain copy.
// CHECK-LABEL: func.func @strided
//       CHECK:   linalg.copy ins(
//   CHECK-NOT:   einsum.stream
//   CHECK-NOT:   llvm.fence
func.func @strided(%out: memref<6x200xf32>) {
  %buf = memref.alloca() : memref<6x100xf32>
  %dst = memref.subview %out[0, 0] [6, 100] [1, 2] : memref<6x200xf32> to memref<6x100xf32, strided<[200, 2]>>
  linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[200, 2]>>)
  return
}

// -----

// Unmarked copies are left alone.
// CHECK-LABEL: func.func @unmarked
//       CHECK:   linalg.copy ins(
//   CHECK-NOT:   llvm.fence
func.func @unmarked(%a: memref<16xf32>, %b: memref<16xf32>) {
  linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
  return
}

// -----

// A loop whose body computes a block in tiles (the loops that store into the
// buffer) and ends with its copy is pipelined: a second buffer, iteration k
// computing into buffer k % 2 while the previous block streams out of the
// other, a share of its lines (7 of 38: one block's lines over its 6 tiles)
// after each tile, the rest and the elements off the lines after the body
// (none in the first iteration); the last block after the loop, then the
// fence.
// CHECK-LABEL: func.func @pipelined
//  CHECK-SAME: (%[[OUT:.*]]: memref<64x6x100xf32>, %[[IN:.*]]: memref<64x6x100xf32>)
//       CHECK:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//       CHECK:   %[[OTHER:.*]] = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//       CHECK:   %[[CURSOR:.*]] = memref.alloca() : memref<index>
//       CHECK:   scf.for %[[I:.*]] = %[[C0:.*]] to %{{.*}} step
//       CHECK:     %[[ODD:.*]] = arith.cmpi ne
//       CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[C0]] : index
//       CHECK:     %[[BEFORE:.*]] = arith.subi %[[I]], %{{.*}} : index
//       CHECK:     %[[PREVIOUS_I:.*]] = arith.maxsi %[[BEFORE]], %[[C0]] : index
//       CHECK:     %[[CURRENT:.*]] = arith.select %[[ODD]], %[[OTHER]], %[[BUF]] : memref<6x100xf32>
//       CHECK:     %[[PREVIOUS:.*]] = arith.select %[[ODD]], %[[BUF]], %[[OTHER]] : memref<6x100xf32>
//       CHECK:     %[[DST:.*]] = memref.subview %[[OUT]][%[[PREVIOUS_I]], 0, 0] [1, 6, 100]
//       CHECK:     %[[FROM:.*]] = memref.collapse_shape %[[PREVIOUS]]
//       CHECK:     %[[TO:.*]] = memref.collapse_shape %[[DST]]
//       CHECK:     arith.select %[[FIRST]], %{{.*}}, %{{.*}} : index
//       CHECK:     memref.store %{{.*}}, %[[CURSOR]][] : memref<index>
//       CHECK:     scf.for
//       CHECK:       vector.transfer_write %{{.*}}, %[[CURRENT]]
//       CHECK:       %[[AT:.*]] = memref.load %[[CURSOR]][] : memref<index>
//       CHECK:       %[[SHARE:.*]] = arith.addi %[[AT]], %[[C7:.*]] : index
//       CHECK:       %[[UNTIL:.*]] = arith.minui %[[SHARE]]
//       CHECK:       scf.for
//       CHECK:         vector.load %[[FROM]]
//       CHECK:         vector.store %{{.*}}, %[[TO]][%{{.*}}] {alignment = 64 : i64, nontemporal = true}
//       CHECK:       memref.store %[[UNTIL]], %[[CURSOR]][] : memref<index>
//       CHECK:     }
//       CHECK:     memref.load %[[CURSOR]][] : memref<index>
//       CHECK:     scf.for
//       CHECK:       vector.store %{{.*}}, %[[TO]][%{{.*}}] {alignment = 64 : i64, nontemporal = true}
//       CHECK:     scf.for
//       CHECK:       memref.store %{{.*}}, %[[TO]]
//       CHECK:     scf.for
//       CHECK:       memref.store %{{.*}}, %[[TO]]
//   CHECK-NOT:     linalg.copy
//       CHECK:   }
//       CHECK:   scf.if
//       CHECK:     %[[LAST:.*]] = memref.subview %[[OUT]]
//       CHECK:     %[[LAST_BUF:.*]] = arith.select %{{.*}}, %[[OTHER]], %[[BUF]] : memref<6x100xf32>
//       CHECK:     memref.collapse_shape %[[LAST_BUF]]
//       CHECK:     vector.store {{.*}} {alignment = 64 : i64, nontemporal = true}
//       CHECK:     llvm.fence seq_cst
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @pipelined(%out: memref<64x6x100xf32>, %in: memref<64x6x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %r = %c0 to %c6 step %c1 {
      %v = vector.transfer_read %in[%i, %r, %c0], %pad {in_bounds = [true]} : memref<64x6x100xf32>, vector<100xf32>
      vector.transfer_write %v, %buf[%r, %c0] {in_bounds = [true]} : vector<100xf32>, memref<6x100xf32>
    }
    %dst = memref.subview %out[%i, 0, 0] [1, 6, 100] [1, 1, 1] : memref<64x6x100xf32> to memref<6x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}

// -----

// A thread's share of the blocks (a loop of dynamic trip count, which may
// be none): the last block, if any, goes out under an scf.if. Two blocks
// per iteration (a whole one and the rest of the rows), each with its two
// buffers: each tile streams the next lines of both, one after the other
// (each copy's lines clamped to its part of the cursor's range).
// CHECK-LABEL: func.func @pipelined_dynamic_two_blocks
//  CHECK-SAME: (%[[OUT:.*]]: memref<64x10x100xf32>, %[[IN:.*]]: memref<64x10x100xf32>, %[[LB:.*]]: index, %[[UB:.*]]: index)
//   CHECK-DAG:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//   CHECK-DAG:   %[[OTHER:.*]] = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//   CHECK-DAG:   %[[REST:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x100xf32>
//   CHECK-DAG:   %[[REST_OTHER:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x100xf32>
//       CHECK:   scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step
//       CHECK:     scf.for
//       CHECK:       vector.transfer_write
//       CHECK:       memref.load
//       CHECK:       scf.for
//       CHECK:         vector.store {{.*}}nontemporal = true
//       CHECK:       scf.for
//       CHECK:         vector.store {{.*}}nontemporal = true
//       CHECK:       memref.store
//       CHECK:     scf.for
//       CHECK:       vector.transfer_write
//       CHECK:       memref.load
//   CHECK-NOT:     linalg.copy
//       CHECK:   }
//       CHECK:   %[[TRIPS:.*]] = arith.ceildivui
//       CHECK:   %[[ANY:.*]] = arith.cmpi sgt, %[[UB]], %[[LB]] : index
//       CHECK:   scf.if %[[ANY]] {
//       CHECK:     arith.subi %[[TRIPS]]
//       CHECK:     arith.select %{{.*}}, %[[OTHER]], %[[BUF]] : memref<6x100xf32>
//       CHECK:     arith.select %{{.*}}, %[[REST_OTHER]], %[[REST]] : memref<4x100xf32>
//       CHECK:     llvm.fence seq_cst
func.func @pipelined_dynamic_two_blocks(%out: memref<64x10x100xf32>, %in: memref<64x10x100xf32>, %lb: index, %ub: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %pad = arith.constant 0.0 : f32
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
  %rest = memref.alloca() {alignment = 64 : i64} : memref<4x100xf32>
  scf.for %i = %lb to %ub step %c1 {
    scf.for %r = %c0 to %c6 step %c1 {
      %v = vector.transfer_read %in[%i, %r, %c0], %pad {in_bounds = [true]} : memref<64x10x100xf32>, vector<100xf32>
      vector.transfer_write %v, %buf[%r, %c0] {in_bounds = [true]} : vector<100xf32>, memref<6x100xf32>
    }
    %dst = memref.subview %out[%i, 0, 0] [1, 6, 100] [1, 1, 1] : memref<64x10x100xf32> to memref<6x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[100, 1], offset: ?>>)
    scf.for %r = %c0 to %c4 step %c1 {
      %row = arith.addi %r, %c6 : index
      %v = vector.transfer_read %in[%i, %row, %c0], %pad {in_bounds = [true]} : memref<64x10x100xf32>, vector<100xf32>
      vector.transfer_write %v, %rest[%r, %c0] {in_bounds = [true]} : vector<100xf32>, memref<4x100xf32>
    }
    %dst_rest = memref.subview %out[%i, 6, 0] [1, 4, 100] [1, 1, 1] : memref<64x10x100xf32> to memref<4x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%rest : memref<4x100xf32>) outs(%dst_rest : memref<4x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}

// -----

// Not pipelined (each block copied out after it is computed, as above):
// buffers of more than 256 KiB in all (two of them would crowd L2), a body
// that writes the output, a buffer written after its copy, a loop of one
// iteration.
// CHECK-LABEL: func.func @large_block
//       CHECK:   memref.alloca() {alignment = 64 : i64} : memref<256x257xf32>
//   CHECK-NOT:   memref.alloca
//       CHECK:   scf.for
//       CHECK:     nontemporal = true
//       CHECK:   llvm.fence seq_cst
func.func @large_block(%out: memref<8x256x257xf32>, %in: memref<8x256x257xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %buf = memref.alloca() {alignment = 64 : i64} : memref<256x257xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %r = %c0 to %c256 step %c1 {
      %v = vector.transfer_read %in[%i, %r, %c0], %pad {in_bounds = [true]} : memref<8x256x257xf32>, vector<257xf32>
      vector.transfer_write %v, %buf[%r, %c0] {in_bounds = [true]} : vector<257xf32>, memref<256x257xf32>
    }
    %dst = memref.subview %out[%i, 0, 0] [1, 256, 257] [1, 1, 1] : memref<8x256x257xf32> to memref<256x257xf32, strided<[257, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<256x257xf32>) outs(%dst : memref<256x257xf32, strided<[257, 1], offset: ?>>)
  }
  return
}

// CHECK-LABEL: func.func @writes_output
//       CHECK:   memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//   CHECK-NOT:   memref.alloca
//       CHECK:   scf.for
//       CHECK:     nontemporal = true
func.func @writes_output(%out: memref<64x6x100xf32>, %in: memref<64x6x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %r = %c0 to %c6 step %c1 {
      %v = vector.transfer_read %in[%i, %r, %c0], %pad {in_bounds = [true]} : memref<64x6x100xf32>, vector<100xf32>
      vector.transfer_write %v, %buf[%r, %c0] {in_bounds = [true]} : vector<100xf32>, memref<6x100xf32>
    }
    memref.store %pad, %out[%c0, %c0, %c0] : memref<64x6x100xf32>
    %dst = memref.subview %out[%i, 0, 0] [1, 6, 100] [1, 1, 1] : memref<64x6x100xf32> to memref<6x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}

// CHECK-LABEL: func.func @written_after_copy
//       CHECK:   memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//   CHECK-NOT:   memref.alloca
//       CHECK:   scf.for
//       CHECK:     nontemporal = true
func.func @written_after_copy(%out: memref<64x6x100xf32>, %in: memref<64x6x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %r = %c0 to %c6 step %c1 {
      %v = vector.transfer_read %in[%i, %r, %c0], %pad {in_bounds = [true]} : memref<64x6x100xf32>, vector<100xf32>
      vector.transfer_write %v, %buf[%r, %c0] {in_bounds = [true]} : vector<100xf32>, memref<6x100xf32>
    }
    %dst = memref.subview %out[%i, 0, 0] [1, 6, 100] [1, 1, 1] : memref<64x6x100xf32> to memref<6x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[100, 1], offset: ?>>)
    memref.store %pad, %buf[%c0, %c0] : memref<6x100xf32>
  }
  return
}

// CHECK-LABEL: func.func @one_iteration
//       CHECK:   memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
//   CHECK-NOT:   memref.alloca
//       CHECK:   scf.for
//       CHECK:     nontemporal = true
func.func @one_iteration(%out: memref<64x6x100xf32>, %in: memref<64x6x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %pad = arith.constant 0.0 : f32
  %buf = memref.alloca() {alignment = 64 : i64} : memref<6x100xf32>
  scf.for %i = %c0 to %c1 step %c1 {
    scf.for %r = %c0 to %c6 step %c1 {
      %v = vector.transfer_read %in[%i, %r, %c0], %pad {in_bounds = [true]} : memref<64x6x100xf32>, vector<100xf32>
      vector.transfer_write %v, %buf[%r, %c0] {in_bounds = [true]} : vector<100xf32>, memref<6x100xf32>
    }
    %dst = memref.subview %out[%i, 0, 0] [1, 6, 100] [1, 1, 1] : memref<64x6x100xf32> to memref<6x100xf32, strided<[100, 1], offset: ?>>
    linalg.copy {einsum.stream} ins(%buf : memref<6x100xf32>) outs(%dst : memref<6x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}
