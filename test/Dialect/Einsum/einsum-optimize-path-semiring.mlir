// RUN: einsum-opt %s -split-input-file -einsum-optimize-path | FileCheck %s

// The steps of a path keep the einsum's semiring.
// CHECK-LABEL: func @log_chain
// CHECK-COUNT-2: einsum.contract {{.*}} {semiring = #einsum.semiring<log>}
// CHECK-NOT: einsum.contract
func.func @log_chain(%a: tensor<2x30xf32>, %b: tensor<30x40xf32>, %c: tensor<40x5xf32>) -> tensor<2x5xf32> {
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) {semiring = #einsum.semiring<log>} : tensor<2x30xf32>, tensor<30x40xf32>, tensor<40x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// max of products distributes over products of nonnegative numbers only:
// a max_times einsum stays one op.
// CHECK-LABEL: func @max_times_chain
// CHECK: einsum.contract "ij,jk,kl->il"(%{{.*}}, %{{.*}}, %{{.*}}) {semiring = #einsum.semiring<max_times>}
// CHECK-NOT: einsum.contract
func.func @max_times_chain(%a: tensor<2x30xf32>, %b: tensor<30x40xf32>, %c: tensor<40x5xf32>) -> tensor<2x5xf32> {
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) {semiring = #einsum.semiring<max_times>} : tensor<2x30xf32>, tensor<30x40xf32>, tensor<40x5xf32>
  return %0 : tensor<2x5xf32>
}
