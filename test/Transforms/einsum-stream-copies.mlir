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
