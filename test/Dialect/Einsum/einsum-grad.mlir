// RUN: einsum-opt %s -split-input-file -einsum-grad | FileCheck %s
// RUN: einsum-opt %s -split-input-file -einsum-grad="wrt=1" | FileCheck %s --check-prefix=WRT1

// A product: each gradient is one einsum of the output gradient and the
// other operand (dims named A, B, ... by loop dimension: b, i, k, j).
// CHECK-LABEL: func.func @bmm(
// CHECK-LABEL: func.func @bmm_grad(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>, %[[G:.*]]: tensor<2x3x5xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x5xf32>)
// CHECK-NOT: "bij,bjk->bik"
// CHECK: %[[GA:.*]] = einsum.contract "ABC,ADC->ABD"(%[[G]], %[[B]])
// CHECK: %[[GB:.*]] = einsum.contract "ABC,ABD->ADC"(%[[G]], %[[A]])
// CHECK: return %[[GA]], %[[GB]]
// WRT1-LABEL: func.func @bmm_grad(
// WRT1-SAME: -> tensor<2x4x5xf32>
// WRT1-NEXT: einsum.contract "ABC,ABD->ADC"
// WRT1-NEXT: return
func.func @bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A repeated label puts the gradient on the diagonal (an identity matrix);
// a label only the operand has comes from ones; a size-1 broadcast axis is
// summed back to size 1 (a ones operand of size 1 gives it its own letter).
// CHECK-LABEL: func.func @diagonal_grad(
// CHECK-SAME: %[[A:.*]]: tensor<4x4x3xf32>, %[[B:.*]]: tensor<1x5xf32>, %[[G:.*]]: tensor<5xf32>)
// CHECK: %[[ONES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[EYE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x4xf32>)
// CHECK:   linalg.index 0
// CHECK:   linalg.index 1
// CHECK:   arith.cmpi eq
// CHECK: %[[GA:.*]] = einsum.contract "A,CA,BC,BD->BDC"(%[[G]], %[[B]], %[[ONES]], %[[EYE]])
// CHECK: %[[ONE:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>)
// CHECK: %[[GB:.*]] = einsum.contract "A,BBC,D->DA"(%[[G]], %[[A]], %[[ONE]])
// CHECK: return %[[GA]], %[[GB]]
func.func @diagonal(%a: tensor<4x4x3xf32>, %b: tensor<1x5xf32>) -> tensor<5xf32> {
  %0 = einsum.contract "iij,jk->k"(%a, %b) : tensor<4x4x3xf32>, tensor<1x5xf32>
  return %0 : tensor<5xf32>
}

// -----

// A path (einsum-optimize-path ran first): the intermediate is computed
// once, gradients flow through it; a value used twice gets the sum of its
// gradients; f16 casts get the opposite cast.
// CHECK-LABEL: func.func @chain_grad(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf16>, %[[B:.*]]: tensor<3x4xf16>, %[[G:.*]]: tensor<2x4xf16>)
// CHECK: %[[A32:.*]] = arith.extf %[[A]]
// CHECK: %[[B32:.*]] = arith.extf %[[B]]
// CHECK: %[[AB:.*]] = einsum.contract "ij,jk->ik"(%[[A32]], %[[B32]])
// CHECK-NOT: einsum.contract "ik,ik->ik"
// CHECK: %[[G32:.*]] = arith.extf %[[G]]
// CHECK: %[[GAB1:.*]] = einsum.contract "AB,AB->AB"(%[[G32]], %[[AB]])
// CHECK: %[[GAB2:.*]] = einsum.contract "AB,AB->AB"(%[[G32]], %[[AB]])
// CHECK: %[[GAB:.*]] = arith.addf %[[GAB1]], %[[GAB2]] : tensor<2x4xf32>
// CHECK: einsum.contract "AB,CB->AC"(%[[GAB]], %[[B32]])
// CHECK: einsum.contract "AB,AC->CB"(%[[GAB]], %[[A32]])
// CHECK-DAG: arith.truncf {{.*}} : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-DAG: arith.truncf {{.*}} : tensor<3x4xf32> to tensor<3x4xf16>
func.func @chain(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %a32 = arith.extf %a : tensor<2x3xf16> to tensor<2x3xf32>
  %b32 = arith.extf %b : tensor<3x4xf16> to tensor<3x4xf32>
  %ab = einsum.contract "ij,jk->ik"(%a32, %b32) : tensor<2x3xf32>, tensor<3x4xf32>
  %sq = einsum.contract "ik,ik->ik"(%ab, %ab) : tensor<2x4xf32>, tensor<2x4xf32>
  %r = arith.truncf %sq : tensor<2x4xf32> to tensor<2x4xf16>
  return %r : tensor<2x4xf16>
}

// -----

// An argument the result does not depend on gets zeros.
// CHECK-LABEL: func.func @unused_grad(
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<7xf32>)
// CHECK: return %{{.*}}, %[[Z]]
func.func @unused(%a: tensor<3xf32>, %b: tensor<7xf32>) -> tensor<f32> {
  %0 = einsum.contract "i->"(%a) : tensor<3xf32>
  return %0 : tensor<f32>
}

// -----

// log: one generic over the iteration space weighs each term by
// exp(term - result) (0 where the result is -inf), summed onto the operand.
// CHECK-LABEL: func.func @log_grad(
// CHECK-SAME: %[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x5xf32>, %[[G:.*]]: tensor<3x5xf32>)
// CHECK: %[[Y:.*]] = einsum.contract "ij,jk->ik"(%[[A]], %[[B]]) {semiring = #einsum.semiring<log>}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A]], %[[B]], %[[Y]], %[[G]] : {{.*}}) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK:   %[[T:.*]] = arith.addf
// CHECK:   %[[EMPTY:.*]] = arith.cmpf oeq, %[[R:.*]], %{{.*}}
// CHECK:   %[[D:.*]] = arith.subf %[[T]], %[[R]]
// CHECK:   %[[E:.*]] = math.exp %[[D]]
// CHECK:   %[[W:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[E]]
// CHECK:   arith.mulf %{{.*}}, %[[W]]
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[A]], %[[B]], %[[Y]], %[[G]] : {{.*}}) outs(%{{.*}} : tensor<4x5xf32>)
func.func @log(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<3x4xf32>, tensor<4x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// max_times: the indicator term == result times the other factor; a
// diagonal operand's gradient is placed on its diagonal by an einsum.
// CHECK-LABEL: func.func @max_times_grad(
// CHECK: %[[GU:.*]] = linalg.generic
// CHECK:   %[[T:.*]] = arith.mulf %[[X:.*]], %[[Y:.*]] : f64
// CHECK:   %[[CHOSEN:.*]] = arith.cmpf oeq, %[[T]]
// CHECK:   %[[OTHER:.*]] = arith.mulf %{{.*}}, %[[Y]] : f64
// CHECK:   arith.select %[[CHOSEN]], %[[OTHER]]
// CHECK: einsum.contract "A,AB->AB"(%[[GU]], %{{.*}})
func.func @max_times(%a: tensor<3x3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
  %0 = einsum.contract "ii,i->"(%a, %b) {semiring = #einsum.semiring<max_times>} : tensor<3x3xf64>, tensor<3xf64>
  return %0 : tensor<f64>
}
