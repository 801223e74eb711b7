// RUN: einsum-opt %s -split-input-file -verify-diagnostics -einsum-optimize-path="explain=true"

// The path report, as a remark on the rewritten op.
func.func @explain(%a1: tensor<30x35xf64>, %a2: tensor<35x15xf64>, %a3: tensor<15x5xf64>, %a4: tensor<5x10xf64>, %a5: tensor<10x20xf64>, %a6: tensor<20x25xf64>) -> tensor<30x25xf64> {
  // expected-remark @+1 {{naive flops 2362500000, optimized flops 30250, speedup 78099.17x}}
  %0 = einsum.contract "ab,bc,cd,de,ef,fg->ag"(%a1, %a2, %a3, %a4, %a5, %a6) : tensor<30x35xf64>, tensor<35x15xf64>, tensor<15x5xf64>, tensor<5x10xf64>, tensor<10x20xf64>, tensor<20x25xf64>
  return %0 : tensor<30x25xf64>
}

// -----

func.func @explain_steps(%l: tensor<2x5xf32>, %a: tensor<3x5x4xf32>, %r: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{step 0: bn,anm->mba (tensors 0, 1) -> shape [4x2x3], 96 bytes, 240 flops}}
  %0 = einsum.contract "bn,anm,bm->ba"(%l, %a, %r) : tensor<2x5xf32>, tensor<3x5x4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x3xf32>
}
