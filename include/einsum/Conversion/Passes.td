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
    f32 tensor and truncated by a second, elementwise generic.

    Dynamic sizes are checked at run time as the verifier checks static ones:
    a `cf.assert` per repeated label within an operand (equal sizes, E5) and
    per pair of operands that share a label (equal, or one of them 1: E6,
    E7), placed at the start of the function when every operand is one of its
    arguments. A loop's size is the operands' size that is not 1 (or 1); an
    operand axis of dynamic size that is 1 at run time where its loop is not
    is expanded to the loop's size (an `scf.if` around a broadcasting
    `linalg.generic`), since no indexing map can express a broadcast decided
    at run time. With `expand-dynamic-broadcasts=false` (targets whose host
    code cannot allocate conditionally: CUDA), such a broadcast fails a
    run-time check instead, with a message that says so.

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
  let options = [
    Option<"expandDynamicBroadcasts", "expand-dynamic-broadcasts", "bool",
           /*default=*/"true",
           "Expand an operand axis of dynamic size that is 1 at run time where "
           "its loop is not (false: fail a run-time check)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // EINSUM_CONVERSION_PASSES
