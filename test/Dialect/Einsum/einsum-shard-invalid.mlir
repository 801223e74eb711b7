// RUN: einsum-opt %s -split-input-file -einsum-shard='grid=2' -verify-diagnostics
// RUN: not einsum-opt %s -einsum-shard 2>&1 | FileCheck %s --check-prefix=NOGRID
// RUN: not einsum-opt %s -einsum-shard='grid=2,2,2,2' 2>&1 | FileCheck %s --check-prefix=AXES
// RUN: not einsum-opt %s -einsum-shard='grid=0' 2>&1 | FileCheck %s --check-prefix=AXES
// RUN: not einsum-opt %s -einsum-shard='grid=2 mpi-implementation=LAM' 2>&1 | FileCheck %s --check-prefix=ABI

// NOGRID: error: einsum-shard: give the grid (grid=4 or grid=2,2)
// AXES: error: einsum-shard: the grid has 1 to 3 axes of at least one rank each
// ABI: error: einsum-shard: unknown mpi-implementation 'LAM' (expected OpenMPI or MPICH)

func.func @other_op(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{einsum-shard: only einsums of the function's arguments and of each other can be distributed, not 'arith.addf'}}
  %0 = arith.addf %a, %b : tensor<4x4xf32>
  %1 = einsum.contract "ij,jk->ik"(%0, %c) : tensor<4x4xf32>, tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// expected-error @below {{einsum-shard: argument 0 has 2 uses; a distributed argument is the operand of one einsum}}
func.func @two_uses(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %a) : tensor<4x4xf32>, tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{einsum-shard: dim 'i' has a dynamic size; distributed einsums need static shapes}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<?x4xf32>, tensor<4x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @result_twice(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  // expected-error @below {{einsum-shard: the result of a distributed einsum has one use}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x4xf32>, tensor<4x4xf32>
  %1 = einsum.contract "ij,jk->ik"(%0, %c) : tensor<4x4xf32>, tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

func.func @diagonal(%a: tensor<16x16xf32>) -> tensor<16xf32> {
  // expected-error @below {{einsum-shard: operand 0 has a repeated label (a diagonal); distributed einsums take operands without repeated labels}}
  %0 = einsum.contract "ii->i"(%a) : tensor<16x16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @broadcast(%a: tensor<1x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{einsum-shard: operand 0 has a size-1 axis broadcast against a larger one; distributed einsums take operands without broadcasting}}
  %0 = einsum.contract "ij,ij->ij"(%a, %b) : tensor<1x16xf32>, tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
