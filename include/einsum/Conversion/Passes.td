//===- Passes.td - einsum conversion passes ----------------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_CONVERSION_PASSES
#define EINSUM_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertEinsumToLinalgPass : Pass<"convert-einsum-to-linalg"> {
  let summary = "Lower einsum.contract to linalg.generic";
  let description = [{
    Rewrites every `einsum.contract` into a `linalg.fill` of zero and one
    `linalg.generic` whose indexing maps come from the resolved equation:

    - every label and ellipsis dimension is one loop dimension, `parallel`
      when it is in the output and `reduction` otherwise;
    - a label repeated within an operand (a diagonal) repeats its loop
      dimension in that operand's map;
    - a size-1 dimension that broadcasts against a larger one is indexed with
      the constant 0;
    - loops are ordered so that the output's last (contiguous) dimension is
      innermost, the other output dimensions outermost and the summed
      dimensions in between, which lets LLVM vectorize the untiled loop nest.

    f16 and bf16 operands are extended to f32 in the body, accumulated in an
    f32 tensor and truncated by a second, elementwise generic. Dynamic output
    sizes are taken from an operand with `tensor.dim`.

    Input invariant: verified `einsum.contract` ops. Output IR: `linalg`,
    `tensor` and `arith` ops on tensors; no einsum op is left.

    ```mlir
    %c = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x8xf32>, tensor<8x16xf32>
    // becomes
    %init = tensor.empty() : tensor<4x16xf32>
    %zero = linalg.fill ins(%cst : f32) outs(%init : tensor<4x16xf32>)
    %c = linalg.generic {
        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>,
                         affine_map<(d0, d1, d2) -> (d1, d2)>,
                         affine_map<(d0, d1, d2) -> (d0, d2)>],
        iterator_types = ["parallel", "reduction", "parallel"]} ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // EINSUM_CONVERSION_PASSES
