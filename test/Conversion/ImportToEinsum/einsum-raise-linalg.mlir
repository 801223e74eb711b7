// RUN: einsum-opt %s --allow-unregistered-dialect --einsum-raise-linalg --split-input-file | FileCheck %s
// RUN: einsum-opt %s --allow-unregistered-dialect --einsum-raise-linalg=only-without-einsum-ops --split-input-file | FileCheck %s --check-prefix=ONLY

// A matmul into a zero fill: the fill is dead, the einsum is all.
// CHECK-LABEL: func.func @matmul
//  CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>)
//       CHECK:   %[[C:.*]] = einsum.contract "ac,cb->ab"(%[[A]], %[[B]]) : tensor<4x8xf32>, tensor<8x16xf32>
//       CHECK:   return %[[C]]
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// Accumulating into an argument: the init is added.
// CHECK-LABEL: func.func @batch_matmul_acc
//       CHECK:   %[[E:.*]] = einsum.contract "abd,adc->abc"(%{{.*}}, %{{.*}}) : tensor<2x3x5xf64>, tensor<2x5x7xf64>
//       CHECK:   %[[S:.*]] = linalg.add ins(%[[E]], %[[INIT:.*]] : tensor<2x3x7xf64>, tensor<2x3x7xf64>) outs(%[[INIT]] : tensor<2x3x7xf64>)
//       CHECK:   return %[[S]]
func.func @batch_matmul_acc(%a: tensor<2x3x5xf64>, %b: tensor<2x5x7xf64>, %c: tensor<2x3x7xf64>) -> tensor<2x3x7xf64> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x5xf64>, tensor<2x5x7xf64>) outs(%c : tensor<2x3x7xf64>) -> tensor<2x3x7xf64>
  return %r : tensor<2x3x7xf64>
}

// -----

// matvec, vecmat and dot; a zero splat constant init.
// CHECK-LABEL: func.func @vectors
//       CHECK:   einsum.contract "ab,b->a"
//       CHECK:   einsum.contract "b,ba->a"
//       CHECK:   einsum.contract "a,a->"
//   CHECK-NOT:   linalg.
func.func @vectors(%m: tensor<6x4xi32>, %v: tensor<4xi32>, %w: tensor<6xi32>) -> (tensor<6xi32>, tensor<4xi32>, tensor<i32>) {
  %z6 = arith.constant dense<0> : tensor<6xi32>
  %z4 = arith.constant dense<0> : tensor<4xi32>
  %z = arith.constant dense<0> : tensor<i32>
  %0 = linalg.matvec ins(%m, %v : tensor<6x4xi32>, tensor<4xi32>) outs(%z6 : tensor<6xi32>) -> tensor<6xi32>
  %1 = linalg.vecmat ins(%w, %m : tensor<6xi32>, tensor<6x4xi32>) outs(%z4 : tensor<4xi32>) -> tensor<4xi32>
  %2 = linalg.dot ins(%v, %v : tensor<4xi32>, tensor<4xi32>) outs(%z : tensor<i32>) -> tensor<i32>
  return %0, %1, %2 : tensor<6xi32>, tensor<4xi32>, tensor<i32>
}

// -----

// A matmul whose indexing maps transpose A, and linalg.contract.
// CHECK-LABEL: func.func @transposed
//       CHECK:   einsum.contract "ca,cb->ab"
//       CHECK:   einsum.contract "acd,bdc->ab"
func.func @transposed(%at: tensor<8x4xf32>, %b: tensor<8x16xf32>, %x: tensor<3x5x6xf32>, %y: tensor<7x6x5xf32>) -> (tensor<4x16xf32>, tensor<3x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%at, %b : tensor<8x4xf32>, tensor<8x16xf32>) outs(%f0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<3x7xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x7xf32>) -> tensor<3x7xf32>
  %1 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>]
         ins(%x, %y : tensor<3x5x6xf32>, tensor<7x6x5xf32>) outs(%f1 : tensor<3x7xf32>) -> tensor<3x7xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<3x7xf32>
}

// -----

// A generic contraction with a broadcast operand (an outer product summed
// over one operand's own loop), dynamic sizes: the einsum's static result is
// cast back to the op's type.
// CHECK-LABEL: func.func @generic
//       CHECK:   %[[E:.*]] = einsum.contract "bc,a->ab"(%{{.*}}, %{{.*}}) : tensor<?x5xf32>, tensor<3xf32>
//       CHECK:   %[[S:.*]] = linalg.add ins(%[[E]], %{{.*}} : tensor<3x?xf32>, tensor<3x?xf32>)
func.func @generic(%x: tensor<?x5xf32>, %y: tensor<3xf32>, %acc: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (b, c)>, affine_map<(a, b, c) -> (a)>, affine_map<(a, b, c) -> (a, b)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<?x5xf32>, tensor<3xf32>) outs(%acc : tensor<3x?xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %q, %p : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// Left alone: a body that is not exactly a multiply-add (a negation would
// be skipped by upstream's contraction matcher), mixed element types, an
// init-only loop, memrefs, fast-math flags.
// CHECK-LABEL: func.func @not_contractions
//   CHECK-NOT:   einsum.contract
func.func @not_contractions(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>,
                            %i: tensor<4x8xi8>, %j: tensor<8x16xi8>, %k: tensor<4x16xi32>,
                            %ma: memref<4x8xf32>, %mb: memref<8x16xf32>, %mc: memref<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %n = arith.negf %p : f32
    %m = arith.mulf %n, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %1 = linalg.matmul ins(%i, %j : tensor<4x8xi8>, tensor<8x16xi8>) outs(%k : tensor<4x16xi32>) -> tensor<4x16xi32>
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  linalg.matmul ins(%ma, %mb : memref<4x8xf32>, memref<8x16xf32>) outs(%mc : memref<4x16xf32>)
  %3 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q fastmath<fast> : f32
    %s = arith.addf %o, %m fastmath<fast> : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// only-without-einsum-ops: a module with an einsum op keeps its linalg.
// CHECK-LABEL: func.func @mixed
//       CHECK:   einsum.contract "ij,jk->ik"
//       CHECK:   einsum.contract "ac,cb->ab"
//       CHECK:   linalg.add
// ONLY-LABEL: func.func @mixed
//       ONLY:   einsum.contract "ij,jk->ik"
//       ONLY:   linalg.matmul
func.func @mixed(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x8xf32>, tensor<8x16xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Ops of unregistered dialects are no einsum ops (nor linalg).
// CHECK-LABEL: func.func @unregistered
//       CHECK:   "other.op"
//       CHECK:   einsum.contract "ac,cb->ab"
// ONLY-LABEL: func.func @unregistered
//       ONLY:   einsum.contract "ac,cb->ab"
func.func @unregistered(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %x = "other.op"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.matmul ins(%x, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
