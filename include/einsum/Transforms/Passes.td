//===- Passes.td - einsum codegen passes -------------------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TRANSFORMS_PASSES
#define EINSUM_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def EinsumParallelizePass : Pass<"einsum-parallelize"> {
  let summary = "Distribute linalg ops over threads with scf.forall";
  let description = [{
    Tiles every `linalg` op on tensors but fills along the loop of its
    output's first dimension into `num-threads` chunks, as an `scf.forall`,
    and fuses the `linalg.fill` that initializes its accumulator into the
    loop body, so every thread initializes and computes its own slice of the
    output. Other producers are not fused (they would be recomputed by every
    thread wherever their slice is not split); they get loops of their own.

    Ops with a rank-0 output, an empty iteration space, fewer than
    `min-iterations` points in their iteration space (starting threads costs
    more than such an op), or whose first output dimension is dynamic or has
    size 1, are left alone. With `num-threads=1` the pass does nothing.

    Input invariant: linalg on tensors, as `convert-einsum-to-linalg` emits.
    Output IR: `scf.forall` loops (no mapping attribute) around tiled linalg
    ops on `tensor.extract_slice`s, ending in `tensor.parallel_insert_slice`.
    The CPU pipeline then lowers them with `scf-forall-to-parallel` and
    `convert-scf-to-openmp`.
  }];
  let options = [
    Option<"numThreads", "num-threads", "unsigned", /*default=*/"1",
           "Number of chunks (threads) to split each op into">,
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"32768",
           "Leave ops with a smaller (static) iteration space serial">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // EINSUM_TRANSFORMS_PASSES
