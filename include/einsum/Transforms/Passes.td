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

def EinsumSelectStrategyPass : Pass<"einsum-select-strategy"> {
  let summary = "Choose the CPU kernel schedule of every linalg.generic";
  let description = [{
    Classifies the loops of every `linalg.generic` on tensors (with one
    output) and attaches the schedule it chooses as
    `einsum.strategy = #einsum.strategy<...>`; `einsum-vectorize` applies it.
    This pass is the only place that decides tile sizes.

    Each operand is *contiguous along* the loop that indexes its last
    dimension (when that loop indexes no other dimension of it). Then:

    - `contract`: the op has reductions and a parallel loop N contiguous in
      an input. N gets a register tile of two vector registers (32 f32 with
      512-bit vectors, 16 with 256-bit), or 48/16 when that divides it; a
      parallel loop M of the output that the N-input does not use (broadcast
      from the other input) gets 8 rows (6 with 256-bit vectors). Loops are
      ordered [other parallel, M, N, reductions] so the M x N accumulator
      stays in registers across the reduction loops. Cache tiles: M 128,
      N 256, the reductions together 256 (rounded to divisors of the
      extents, innermost reduction first).
    - `reduce`: a reduction loop is contiguous in every input (`ijk->i`,
      `...d,...d->...`): it becomes the innermost loop with a vector tile.
    - `elementwise`: no reduction; the output's contiguous loop gets a vector
      tile; when the largest input is contiguous along another loop (a
      transpose) both get square tiles.
    - Otherwise (diagonals such as `ii->i`, integer-free tiny ops below
      `min-iterations` points, ops with an empty iteration space) no
      attribute is attached and the op lowers to its loop nest.

    `vector-bits` is the width of the target's vector registers (0: the
    host's, 512 with AVX-512, 256 with AVX2, 128 otherwise). Ops that
    already carry a strategy are left alone, so tests can set one by hand.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: detect the host's)">,
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"256",
           "Leave ops with a smaller (static) iteration space as loops">,
  ];
  let dependentDialects = ["::mlir::einsum::EinsumDialect"];
}

def EinsumVectorizePass : Pass<"einsum-vectorize"> {
  let summary = "Tile, peel and vectorize linalg ops as their einsum.strategy says";
  let description = [{
    For every `linalg.generic` on tensors that carries an `einsum.strategy`
    (see `einsum-select-strategy`):

    1. interchanges its loops to the strategy's `order`;
    2. tiles it for caches and then for registers (`scf.for` on tensors, the
       upstream TilingInterface);
    3. peels the register loops whose tile does not divide them, so the full
       tiles have static shapes;
    4. folds unit dimensions (keeping one reduction loop of a contraction);
    5. vectorizes each register tile with `linalg::vectorize` with its
       static shape; a partial tile is first split into tiles of size 1
       along its dynamic loops, so no masks are needed;
    6. turns multiply-reductions into `vector.contract`, then hoists the
       accumulator transfers out of the reduction loops, so the register
       tile stays in registers.

    The attribute is removed from the ops it was applied to. Ops without it
    are left alone. The CPU pipeline then bufferizes and lowers the vectors
    (contractions through outer products to FMAs).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::einsum::EinsumDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // EINSUM_TRANSFORMS_PASSES
