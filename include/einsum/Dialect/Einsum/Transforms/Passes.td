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

#endif // EINSUM_DIALECT_EINSUM_TRANSFORMS_PASSES
