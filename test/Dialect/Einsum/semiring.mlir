// RUN: einsum-opt %s -split-input-file | FileCheck %s

// #einsum.semiring on einsum.contract: printed and parsed back; plus_times
// where absent.

// CHECK-LABEL: func @each
// CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) {semiring = #einsum.semiring<log>}
// CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) {semiring = #einsum.semiring<max>}
// CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) {semiring = #einsum.semiring<min>}
// CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) {semiring = #einsum.semiring<max_times>}
// CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) {semiring = #einsum.semiring<plus_times>}
// CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) {semiring = #einsum.semiring<bool>}
func.func @each(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x3xi32>,
                %d: tensor<3x4xi32>) {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max>} : tensor<2x3xf32>, tensor<3x4xf32>
  %2 = einsum.contract "ij,jk->ik"(%c, %d) {semiring = #einsum.semiring<min>} : tensor<2x3xi32>, tensor<3x4xi32>
  %3 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max_times>} : tensor<2x3xf32>, tensor<3x4xf32>
  %4 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<plus_times>} : tensor<2x3xf32>, tensor<3x4xf32>
  %5 = einsum.contract "ij,jk->ik"(%c, %d) {semiring = #einsum.semiring<bool>} : tensor<2x3xi32>, tensor<3x4xi32>
  return
}
