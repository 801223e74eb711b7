// RUN: einsum-opt %s -split-input-file -convert-einsum-to-linalg | FileCheck %s

// Each semiring's generic: the fill is the identity of its sum, the body its
// product and sum.

// CHECK-LABEL: func @max_plus
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK: linalg.generic {{.*}} outs(%[[INIT]] : tensor<4x6xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[T:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:   %[[M:.*]] = arith.maximumf %[[ACC]], %[[T]] : f32
// CHECK-NEXT:   linalg.yield %[[M]]
func.func @max_plus(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max>} : tensor<4x5xf32>, tensor<5x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func @min_plus_i64
// CHECK: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: linalg.fill ins(%[[MAX]] : i64)
// CHECK: arith.addi
// CHECK-NEXT: arith.minsi
func.func @min_plus_i64(%a: tensor<4x5xi64>, %b: tensor<5x6xi64>) -> tensor<4x6xi64> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<min>} : tensor<4x5xi64>, tensor<5x6xi64>
  return %0 : tensor<4x6xi64>
}

// -----

// CHECK-LABEL: func @max_times
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT: arith.maximumf
func.func @max_times(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max_times>} : tensor<4x5xf32>, tensor<5x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// bool: nonzero is true; the product an and, the sum an or, results 0 or 1.
// CHECK-LABEL: func @bool
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK:   %[[TA:.*]] = arith.cmpi ne, %[[A]]
// CHECK:   %[[TB:.*]] = arith.cmpi ne, %[[B]]
// CHECK:   %[[AND:.*]] = arith.andi %[[TA]], %[[TB]] : i1
// CHECK:   %[[EXT:.*]] = arith.extui %[[AND]] : i1 to i32
// CHECK:   %[[OR:.*]] = arith.ori %[[ACC]], %[[EXT]] : i32
// CHECK:   linalg.yield %[[OR]]
func.func @bool(%a: tensor<4x5xi32>, %b: tensor<5x6xi32>) -> tensor<4x6xi32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<bool>} : tensor<4x5xi32>, tensor<5x6xi32>
  return %0 : tensor<4x6xi32>
}

// -----

// log: the maximum M of the terms, the sum of exp(term - M) (0 where the
// term is M), then M + log(sum): never the exponential of a large value.
// CHECK-LABEL: func @log
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MINIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} outs(%[[MINIT]] : tensor<4x6xf32>)
// CHECK:   arith.addf
// CHECK:   arith.maximumf
// CHECK: %[[SINIT:.*]] = linalg.fill ins(%{{.*}} : f32)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[MAX]] : {{.*}}) outs(%[[SINIT]] : tensor<4x6xf32>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %[[M:.*]]: f32, %[[S:.*]]: f32):
// CHECK:   %[[T:.*]] = arith.addf
// CHECK:   %[[SAME:.*]] = arith.cmpf oeq, %[[T]], %[[M]] : f32
// CHECK:   %[[DIFF:.*]] = arith.subf %[[T]], %[[M]] : f32
// CHECK:   %[[SHIFT:.*]] = arith.select %[[SAME]], %{{.*}}, %[[DIFF]] : f32
// CHECK:   %[[E:.*]] = math.exp %[[SHIFT]] : f32
// CHECK:   arith.addf %[[S]], %[[E]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]] : {{.*}})
// CHECK:   %[[LOG:.*]] = math.log
// CHECK:   arith.addf %{{.*}}, %[[LOG]] : f32
func.func @log(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<4x5xf32>, tensor<5x6xf32>
  return %0 : tensor<4x6xf32>
}
