// RUN: einsum-opt %s -split-input-file -einsum-shard='grid=2,2 explain=1' -verify-diagnostics | FileCheck %s
// RUN: einsum-opt %s -split-input-file -einsum-shard='grid=4' | FileCheck %s --check-prefix=LINE
// RUN: einsum-opt %s -split-input-file -einsum-shard='grid=2 mpi-implementation=MPICH' | FileCheck %s --check-prefix=MPICH

// The grid (private: dropped once lowered) and the MPI ABI for the lowering.
// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK: shard.grid @einsum_grid(shape = 2x2) {sym_visibility = "private"}
// MPICH: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// MPICH: shard.grid @einsum_grid(shape = 2)

// GEMM on 2x2: rows over axis 0, columns over axis 1 (SUMMA's layout), no
// summed split. On a 1-D grid of 4: the rows.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[SA:.*]] = shard.sharding @einsum_grid split_axes = {{\[\[}}0], []]
// CHECK: %[[A:.*]] = shard.shard %arg0 to %[[SA]] annotate_for_users
// CHECK: %[[SB:.*]] = shard.sharding @einsum_grid split_axes = {{\[\[}}], [1]]
// CHECK: %[[B:.*]] = shard.shard %arg1 to %[[SB]] annotate_for_users
// CHECK: %[[C:.*]] = einsum.contract "ij,jk->ik"(%[[A]], %[[B]])
// CHECK: %[[SC:.*]] = shard.sharding @einsum_grid split_axes = {{\[\[}}0], [1]]
// CHECK: %[[R:.*]] = shard.shard %[[C]] to %[[SC]] :
// CHECK: return %[[R]]
// LINE-LABEL: func.func @gemm
// LINE: split_axes = {{\[\[}}0], []]
// LINE: split_axes = {{\[\[}}], []]
// LINE: split_axes = {{\[\[}}0], []]
func.func @gemm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{einsum 'ij,jk->ik' on grid 2x2: axis 0 (2 ranks): i, axis 1 (2 ranks): k; per rank: operands 7.0 KiB, result 3.0 KiB, all-reduce 0.0 B sent and received, 2.46e+04 points; lower bound on operands + result 9.9 KiB (1.01x)}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<64x32xf32>, tensor<32x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// A small result of a long sum: the summed j over both axes (an
// all-reduce of the 8x8 block), the result replicated.
// CHECK-LABEL: func.func @long_sum
// CHECK: split_axes = {{\[\[}}], [0, 1]]
// CHECK: split_axes = {{\[\[}}0, 1], []]
// CHECK: split_axes = {{\[\[}}], []]
// LINE-LABEL: func.func @long_sum
// LINE: split_axes = {{\[\[}}], [0]]
// LINE: split_axes = {{\[\[}}0], []]
// LINE: split_axes = {{\[\[}}], []]
func.func @long_sum(%a: tensor<8x4096xf32>, %b: tensor<4096x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{axis 0 (2 ranks): j (summed), axis 1 (2 ranks): j (summed); per rank: operands 64.0 KiB, result 256.0 B, all-reduce 384.0 B sent and received}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<8x4096xf32>, tensor<4096x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Batched: the batch over both axes.
// CHECK-LABEL: func.func @batched
// CHECK-COUNT-3: split_axes = {{\[\[}}0, 1], [], []]
func.func @batched(%a: tensor<8x32x32xf64>, %b: tensor<8x32x32xf64>) -> tensor<8x32x32xf64> {
  // expected-remark @below {{axis 0 (2 ranks): b, axis 1 (2 ranks): b;}}
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<8x32x32xf64>, tensor<8x32x32xf64>
  return %0 : tensor<8x32x32xf64>
}

// -----

// Sizes that no axis divides stay whole: 3 rows, 5 columns, 7 summed.
// CHECK-LABEL: func.func @indivisible
// CHECK-COUNT-3: split_axes = {{\[\[}}], []]
func.func @indivisible(%a: tensor<3x7xf32>, %b: tensor<7x5xf32>) -> tensor<3x5xf32> {
  // expected-remark @below {{axis 0 (2 ranks): replicated, axis 1 (2 ranks): replicated; per rank: operands 224.0 B, result 60.0 B, all-reduce 0.0 B sent and received, 1.05e+02 points; lower bound on operands + result 106.0 B (2.68x); not split: no dim's size divides by the grid's axes}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<3x7xf32>, tensor<7x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// max-plus has no MPI reduction: only the free dims split, however long the
// sum.
// CHECK-LABEL: func.func @max_plus
// CHECK: split_axes = {{\[\[}}0], []]
// CHECK: split_axes = {{\[\[}}], [1]]
// CHECK: split_axes = {{\[\[}}0], [1]]
func.func @max_plus(%a: tensor<4x1024xf32>, %b: tensor<1024x4xf32>) -> tensor<4x4xf32> {
  // expected-remark @below {{axis 0 (2 ranks): i, axis 1 (2 ranks): k;}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<max>} : tensor<4x1024xf32>, tensor<1024x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A chain: the intermediate keeps its split (k over axis 0, replicated over
// axis 1 after the sum over j); the next step sums over k and slices the
// intermediate over axis 1 (no communication).
// CHECK-LABEL: func.func @chain
// CHECK: %[[T:.*]] = einsum.contract "ij,jk->ki"
// CHECK: %[[S0:.*]] = shard.sharding @einsum_grid split_axes = {{\[\[}}0], []]
// CHECK: %[[T0:.*]] = shard.shard %[[T]] to %[[S0]] :
// CHECK: %[[S1:.*]] = shard.sharding @einsum_grid split_axes = {{\[\[}}0], [1]]
// CHECK: %[[T1:.*]] = shard.shard %[[T0]] to %[[S1]] annotate_for_users
// CHECK: einsum.contract "kl,ki->il"(%{{.*}}, %[[T1]])
func.func @chain(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>, %c: tensor<32x16xf32>) -> tensor<16x16xf32> {
  // expected-remark @below {{einsum 'ij,jk->ki' on grid 2x2: axis 0 (2 ranks): k, axis 1 (2 ranks): j (summed)}}
  %0 = einsum.contract "ij,jk->ki"(%a, %b) : tensor<16x64xf32>, tensor<64x32xf32>
  // expected-remark @below {{einsum 'kl,ki->il' on grid 2x2: axis 0 (2 ranks): k (summed), axis 1 (2 ranks): i}}
  %1 = einsum.contract "kl,ki->il"(%c, %0) : tensor<32x16xf32>, tensor<32x16xf32>
  return %1 : tensor<16x16xf32>
}
