// RUN: einsum-opt %s -split-input-file -verify-diagnostics -einsum-optimize-path="memory-limit=1000"

// A memory limit that no path can meet is an error, before anything runs.
func.func @memory_limit_unreachable(%a: tensor<64x16xf32>, %b: tensor<16x64xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{'einsum.contract' op no contraction path keeps every intermediate within the memory limit of 1000 bytes (strategy optimal; minimizing memory, the largest intermediate needs 1024 bytes)}}
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) : tensor<64x16xf32>, tensor<16x64xf32>, tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

// Under the limit: rewritten, no diagnostic.
func.func @memory_limit_met(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
