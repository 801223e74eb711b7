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

// -----

// A product with at least 8 terms per operand element: log as a plus-times
// product of exp(a - max_j a) and exp(b - max_j b) (maxima made 0 where not
// finite), then log(S) + the maxima; a run-time check of S (small sums lost
// terms to underflow; infinities, NaNs) sends the whole result to the
// definition above.
// CHECK-LABEL: func @log_scaled
// CHECK-SAME: (%[[A:.*]]: tensor<32x48xf32>, %[[B:.*]]: tensor<48x64xf32>)
// CHECK: %[[MA:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<32x48xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[EA:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[MA]] : tensor<32x48xf32>, tensor<32xf32>) outs(%{{.*}} : tensor<32x48xf32>)
// CHECK:   %[[ABS:.*]] = math.absf
// CHECK:   %[[FINITE:.*]] = arith.cmpf olt, %[[ABS]]
// CHECK:   %[[SAFE:.*]] = arith.select %[[FINITE]]
// CHECK:   %[[SHIFTED:.*]] = arith.subf %{{.*}}, %[[SAFE]] : f32
// CHECK:   math.exp %[[SHIFTED]] : f32
// CHECK: %[[MB:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[B]] : tensor<48x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[EB:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[MB]] : tensor<48x64xf32>, tensor<64xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[EA]], %[[EB]] : tensor<32x48xf32>, tensor<48x64xf32>)
// CHECK:   arith.mulf {{.*}} fastmath<contract>
// CHECK:   arith.addf {{.*}} fastmath<contract>
// CHECK: %[[FAST:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[MA]], %[[MB]] : tensor<32x64xf32>, tensor<32xf32>, tensor<64xf32>)
// CHECK:   math.log
// CHECK: %[[BAD:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[S]] : tensor<32x64xf32>) outs(%{{.*}} : tensor<i32>)
// CHECK:   arith.constant 1.000000e-24 : f32
// CHECK:   arith.cmpf oge
// CHECK: %[[FLAG:.*]] = tensor.extract %[[BAD]][]
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[FLAG]]
// CHECK: %[[R:.*]] = scf.if %[[ANY]] -> (tensor<32x64xf32>) {
// CHECK:   linalg.generic {{.*}} ins(%[[A]], %[[B]] : {{.*}})
// CHECK:     arith.maximumf
// CHECK:   math.exp
// CHECK:   math.log
// CHECK: } else {
// CHECK:   scf.yield %[[FAST]]
// CHECK: return %[[R]]
func.func @log_scaled(%a: tensor<32x48xf32>, %b: tensor<48x64xf32>) -> tensor<32x64xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<32x48xf32>, tensor<48x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// f64 keeps terms down to 1e-280 of the largest.
// CHECK-LABEL: func @log_scaled_f64
// CHECK: arith.constant 9.9999999999999996E-281 : f64
func.func @log_scaled_f64(%a: tensor<32x48xf64>, %b: tensor<48x64xf64>) -> tensor<32x64xf64> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<32x48xf64>, tensor<48x64xf64>
  return %0 : tensor<32x64xf64>
}

// -----

// Repeated labels (a diagonal) keep the definition.
// CHECK-LABEL: func @log_diagonal
// CHECK-NOT: scf.if
// CHECK: math.exp
// CHECK-NOT: scf.if
func.func @log_diagonal(%a: tensor<48x48x32xf32>, %b: tensor<48x64xf32>) -> tensor<32x64xf32> {
  %0 = einsum.contract "jji,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<48x48x32xf32>, tensor<48x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// max, min, max_times on floats, compute-bound: each operand is scanned for
// NaN (bit 1), +inf (bit 2) and -inf (bit 4); without NaN and without both
// infinities (for max_times: without any) no term can be NaN, and the max
// needs no NaN handling (fastmath<nnan,nsz>: one vmaxps).
// CHECK-LABEL: func @max_checked
// CHECK-SAME: (%[[A:.*]]: tensor<32x48xf32>, %[[B:.*]]: tensor<48x64xf32>)
// CHECK: %[[SA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<32x48xf32>) outs(%{{.*}} : tensor<i32>)
// CHECK:   arith.cmpf uno
// CHECK:   arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK:   arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK: %[[BA:.*]] = tensor.extract %[[SA]][]
// CHECK: %[[SB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<48x64xf32>) outs(%{{.*}} : tensor<i32>)
// CHECK: %[[BB:.*]] = tensor.extract %[[SB]][]
// CHECK: %[[BITS:.*]] = arith.ori %[[BA]], %[[BB]]
// CHECK: %[[NAN:.*]] = arith.andi %[[BITS]], %c1_i32
// CHECK: %[[NONAN:.*]] = arith.cmpi eq, %[[NAN]]
// CHECK: %[[INF:.*]] = arith.andi %[[BITS]], %c6_i32
// CHECK: %[[NOTBOTH:.*]] = arith.cmpi ne, %[[INF]]
// CHECK: %[[SAFE:.*]] = arith.andi %[[NONAN]], %[[NOTBOTH]] : i1
// CHECK: scf.if %[[SAFE]]
// CHECK:   arith.addf
// CHECK:   arith.maximumf %{{.*}}, %{{.*}} fastmath<nnan,nsz> : f32
// CHECK: } else {
// CHECK:   arith.addf
// CHECK:   arith.maximumf %{{.*}}, %{{.*}} : f32
func.func @max_checked(%a: tensor<32x48xf32>, %b: tensor<48x64xf32>) -> tensor<32x64xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max>} : tensor<32x48xf32>, tensor<48x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: func @max_times_checked
// CHECK: %[[BA:.*]] = tensor.extract
// CHECK: %[[BB:.*]] = tensor.extract
// CHECK: %[[BITS:.*]] = arith.ori %[[BA]], %[[BB]]
// CHECK: %[[SAFE:.*]] = arith.cmpi eq, %[[BITS]], %{{.*}} : i32
// CHECK: scf.if %[[SAFE]]
// CHECK:   arith.mulf
// CHECK:   arith.maximumf %{{.*}}, %{{.*}} fastmath<nnan,nsz> : f32
func.func @max_times_checked(%a: tensor<32x48xf32>, %b: tensor<48x64xf32>) -> tensor<32x64xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max_times>} : tensor<32x48xf32>, tensor<48x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// Integers need no check (maxsi is one instruction).
// CHECK-LABEL: func @max_i32_unchecked
// CHECK-NOT: scf.if
// CHECK: arith.maxsi
func.func @max_i32_unchecked(%a: tensor<32x48xi32>, %b: tensor<48x64xi32>) -> tensor<32x64xi32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max>} : tensor<32x48xi32>, tensor<48x64xi32>
  return %0 : tensor<32x64xi32>
}
