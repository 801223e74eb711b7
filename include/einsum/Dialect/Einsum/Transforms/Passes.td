//===- Passes.td - einsum dialect transforms ---------------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES
#define EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def EinsumOptimizePathPass : Pass<"einsum-optimize-path"> {
  let summary = "Split einsums of three or more operands along the cheapest "
                "contraction path";
  let description = [{
    Rewrites every `einsum.contract` with three or more operands into a
    sequence of `einsum.contract`s: first a unary einsum for each operand that
    has a diagonal or a label that no other operand and not the output uses
    (so no later step carries a dim it does not need), then pairwise
    contractions in the order the search finds (see
    `ContractionPath.h`). Ellipsis dims get letters of their own in the new
    equations.

    Cost model: FLOPs (2 per multiply-add over the product of the step's
    label sizes) and the bytes of every intermediate for the element type;
    `memory-limit` bounds the largest intermediate, and a limit that no path
    meets is an error. Dynamic sizes are estimated from `size-hints`
    (`i=128`) or taken as 128.

    With `explain`, each rewritten op gets a remark with the path report:
    every step's equation, FLOPs, shape and bytes, the naive and optimized
    FLOP counts and the largest intermediate.

    f16 and bf16 einsums are computed in f32 (`arith.extf` of the operands,
    `arith.truncf` of the result), so that intermediates are not rounded to
    the narrow type between steps.

    Input invariant: verified einsum ops. Output IR: einsum ops with at most
    two operands where the op had three or more, and `arith` casts on
    tensors.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "auto, optimal (exact, up to 8 operands), dp (connected subsets, "
           "up to about 20), greedy or left-to-right">,
    Option<"memoryLimit", "memory-limit", "uint64_t", /*default=*/"0",
           "Largest intermediate in bytes (0: no limit)">,
    Option<"minimize", "minimize", "std::string", /*default=*/"\"flops\"",
           "What the search minimizes first: flops or memory">,
    ListOption<"sizeHints", "size-hints", "std::string",
               "Assumed sizes of dynamic labels, as LABEL=SIZE">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Attach a remark with the path report to each rewritten op">,
  ];
}

def EinsumGradPass : Pass<"einsum-grad", "::mlir::ModuleOp"> {
  let summary = "Emit the vector-Jacobian product of einsum functions as "
                "einsums";
  let description = [{
    For every `func.func` with one tensor result whose body is
    `einsum.contract` ops (and the f32 casts `einsum-optimize-path` adds),
    adds `@NAME_grad(%args..., %grad_output) -> (gradients)`: the gradient
    of `sum(result * grad_output)` with respect to the arguments `wrt` names
    (default: all), by reverse-mode differentiation of the body. Run after
    `einsum-optimize-path`, so that the forward intermediates of a path are
    computed once and every step is differentiated as a binary einsum.

    The gradient of an ordinary (plus-times) einsum with respect to operand
    i is one einsum: the output gradient and the other operands, contracted
    to operand i's labels. Labels that operand i alone has (summed in the
    forward einsum) come from an operand of ones, so are its broadcast axes
    of size 1 (summed back to size 1); a label repeated in operand i
    (`ii->i`, `iij->ij`) puts the gradient on the diagonal through an
    identity matrix per repeated axis. Ellipsis dims get letters of their
    own. Gradients reaching a value along several uses are added
    (`arith.addf` on tensors).

    Other semirings differentiate as semiring-einsum and genbmm define it:
    one `linalg.generic` over the iteration space weighs each term by its
    marginal, exp(term - result) for `log` (the softmax weights), by the
    indicator term == result for `max` and `min` (every maximal term), and
    for `max_times` by that indicator times the product of the other
    operands; diagonals and broadcast axes as above. `bool` has no gradient.

    Input invariant: verified einsum ops on float tensors. Output IR: the
    original functions, unchanged, and the `_grad` functions (einsum ops,
    `linalg.generic`/`linalg.fill` for ones, identities and semiring
    gradients, `arith` casts and additions on tensors). A function that
    holds another op on the path from an argument to the result is an
    error naming the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    ListOption<"wrt", "wrt", "unsigned",
               "The arguments to differentiate (default: all)">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Only this function (default: every function of einsum ops)">,
  ];
}

def EinsumShardPass : Pass<"einsum-shard", "::mlir::ModuleOp"> {
  let summary = "Distribute einsums over a grid of ranks with shard "
                "annotations";
  let description = [{
    For every `func.func` whose body is `einsum.contract` ops of its
    arguments and of each other (after `einsum-optimize-path`: binary
    steps), decides which loop dims of each einsum are split over which
    axes of a grid of `grid` ranks (`ShardingModel.h`: the least data volume
    per rank, operand and result blocks plus the all-reduce that splitting a
    summed dim needs), and writes the decision as the `shard` dialect's
    annotations: a `shard.grid @einsum_grid`, `shard.shard ... annotate_for_
    users` on every einsum operand and `shard.shard` on every result, so
    that `convert-einsum-to-linalg`, `sharding-propagation` and
    `shard-partition` turn each function into the program of one rank
    (arguments and result of its block's shape, `shard.all_reduce` where a
    summed dim is split), and `convert-shard-to-mpi` into MPI calls. The
    module gets `dlti.map = #dlti.map<"MPI:Implementation" = IMPL>` for the
    MPI lowering.

    Summed dims are split only for plus-times einsums of f32, f64,
    i32 or i64 with a result of rank 1 or more (the element types, the
    reduction and the buffers that the MPI lowering's all-reduce takes).

    With `explain`, each einsum gets a remark with its split, the volumes
    per rank and the lower bound.

    Input invariant: static shapes; no repeated label within an operand and
    no broadcast axis (shard-partition's linalg model takes projected
    permutations); every argument and every einsum result has one use.
    Anything else in the function is an error naming the op.
    Output IR: the same einsums between shard annotations.
  }];
  let dependentDialects = [
    "::mlir::DLTIDialect",
    "::mlir::shard::ShardDialect",
  ];
  let options = [
    ListOption<"grid", "grid", "int64_t",
               "The grid's axes: number of ranks along each (e.g. 2,2)">,
    Option<"mpiImplementation", "mpi-implementation", "std::string",
           /*default=*/"\"OpenMPI\"",
           "The MPI ABI to lower to: OpenMPI or MPICH">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Attach a remark with the decision and its costs to each einsum">,
  ];
}

#endif // EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES
