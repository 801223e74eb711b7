// RUN: einsum-opt %s -split-input-file -canonicalize -cse | FileCheck %s

// The identity folds to its operand, whatever the spelling.
// CHECK-LABEL: func.func @fold_identity
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>)
// CHECK-NOT: einsum.contract
// CHECK: return %[[A]], %[[A]], %[[A]], %[[A]]
func.func @fold_identity(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = einsum.contract "ij->ij"(%a) : tensor<2x3xf32>
  %1 = einsum.contract "ij"(%a) : tensor<2x3xf32>
  %2 = einsum.contract "...->..."(%a) : tensor<2x3xf32>
  %3 = einsum.contract " i ... -> i ... "(%a) : tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Scalars too.
// CHECK-LABEL: func.func @fold_scalar_identity
// CHECK-SAME: (%[[S:.*]]: tensor<f64>)
// CHECK-NEXT: return %[[S]]
func.func @fold_scalar_identity(%s: tensor<f64>) -> tensor<f64> {
  %0 = einsum.contract ""(%s) : tensor<f64>
  return %0 : tensor<f64>
}

// -----

// Not an identity: a transpose, a diagonal, a broadcast.
// CHECK-LABEL: func.func @no_fold
// CHECK: einsum.contract "ji->ij"
// CHECK: einsum.contract "ii->i"
// CHECK: einsum.contract "ij,ij->ij"
func.func @no_fold(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>, %c: tensor<1x3xf32>)
    -> (tensor<3x2xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %0 = einsum.contract "ji"(%a) : tensor<2x3xf32>
  %1 = einsum.contract "ii->i"(%b) : tensor<3x3xf32>
  %2 = einsum.contract "ij,ij->ij"(%c, %a) : tensor<1x3xf32>, tensor<2x3xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<3xf32>, tensor<2x3xf32>
}

// -----

// Equations are rewritten to their canonical text: explicit output, no
// whitespace; then CSE sees equal einsums.
// CHECK-LABEL: func.func @canonical_equation
// CHECK: einsum.contract "ij,jk->ik"
// CHECK: einsum.contract "...ij,...jk->...ik"
// CHECK: einsum.contract "aB->Ba"
// CHECK: einsum.contract "ii->"
func.func @canonical_equation(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x2xf32>, tensor<f32>) {
  %0 = einsum.contract "ij,jk"(%a, %b) : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = einsum.contract "...ij , ...jk"(%a, %b) : tensor<2x3xf32>, tensor<3x4xf32>
  %2 = einsum.contract "aB"(%a) : tensor<2x3xf32>
  %3 = einsum.contract "ii"(%c) : tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x2xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @cse_after_canonicalization
// CHECK-COUNT-1: einsum.contract
// CHECK-NOT: einsum.contract
func.func @cse_after_canonicalization(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = einsum.contract "ij,jk"(%a, %b) : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf32>, tensor<3x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}
