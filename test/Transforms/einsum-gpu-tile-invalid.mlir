// RUN: einsum-opt %s --pass-pipeline='builtin.module(func.func(einsum-gpu-tile{tile-sizes=128,128}))' -verify-diagnostics -split-input-file
// RUN: not einsum-opt %s --pass-pipeline='builtin.module(func.func(einsum-gpu-tile{tile-sizes=128,128,8 thread-tile=3,8}))' 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not einsum-opt %s --pass-pipeline='builtin.module(func.func(einsum-gpu-tile{tile-sizes=256,256,8 thread-tile=4,4}))' 2>&1 | FileCheck %s --check-prefix=THREADS

// DIVIDE: error: einsum-gpu-tile: tile-sizes must be three positive sizes M,N,K and thread-tile two positive sizes that divide M and N
// THREADS: error: einsum-gpu-tile: a block of 256x256 with thread tiles of 4x4 needs 4096 threads; a GPU block has at most 1024

// expected-error @+1 {{einsum-gpu-tile: tile-sizes must be three positive sizes M,N,K and thread-tile two positive sizes that divide M and N}}
func.func @bad_tile_sizes(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
