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
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EinsumRaiseLinalgPass : Pass<"einsum-raise-linalg", "::mlir::ModuleOp"> {
  let summary = "Raise linalg contractions on tensors to einsum.contract";
  let description = [{
    Rewrites every linalg op on tensors that is a binary contraction into an
    `einsum.contract`, so that linalg from any frontend gets the path search
    and the schedule of einsums. Named ops (`linalg.matmul`,
    `linalg.batch_matmul`, `linalg.matvec`, `linalg.vecmat`, `linalg.dot`,
    `linalg.contract`, ... with or without `indexing_maps`) and
    `linalg.generic` are matched alike, by their structure:

    - two inputs and one init, all of one element type the einsum dialect
      supports, no `linalg.index`;
    - indexing maps that are projected permutations (each loop at most once
      per operand, no constants);
    - every output loop in some input, every loop that is not in the output
      a reduction in some input;
    - a body that is exactly `yield(add(init, mul(in0, in1)))` (either
      operand order; `arith.mulf`/`addf` or `arith.muli`/`addi`).

    Loop `d<i>` becomes a label of the equation (`a`..`z`, `A`..`Z`). An init
    that is a `linalg.fill` of zero (or a zero splat constant) is dropped;
    any other init is added to the einsum's result by a `linalg.add`.
    Anything else is left as it is.

    With `only-without-einsum-ops` (as `einsum-to-llvm-pipeline` runs it),
    a module that already holds einsum ops is left alone.

    ```mlir
    %0 = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
    %1 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                       outs(%0 : tensor<4x16xf32>) -> tensor<4x16xf32>
    // becomes
    %1 = einsum.contract "ac,cb->ab"(%a, %b) : tensor<4x8xf32>, tensor<8x16xf32>
    ```
  }];
  let options = [
    Option<"onlyWithoutEinsumOps", "only-without-einsum-ops", "bool",
           /*default=*/"false",
           "Leave a module that already holds einsum ops as it is">,
  ];
  let dependentDialects = [
    "::mlir::einsum::EinsumDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EinsumImportFrontendsPass
    : Pass<"einsum-import-frontends", "::mlir::ModuleOp"> {
  let summary = "Import torch-mlir's and StableHLO's einsum ops and TOSA's "
                "matmul into einsum.contract";
  let description = [{
    Imports the einsum ops of other stacks as they appear in their projects'
    generic textual IR, parsed with unregistered dialects allowed
    (`einsum-opt --allow-unregistered-dialect`; `einsum-run` allows them):

    - `"stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"}` and
      `"stablehlo.unary_einsum"(%a) {einsum_config = "ab->a"}`, on builtin
      tensors (the attribute or the property of that name);
    - `"torch.aten.einsum"(%equation, %list, %path)` from torch-mlir, whose
      equation is a `"torch.constant.str"() {value = "..."}` (or an
      `equation` attribute on the op) and whose operands are a
      `"torch.prim.ListConstruct"`. The `path` operand is ignored: the
      path search chooses. `!torch.vtensor<[3,?],f32>` values become
      `tensor<3x?xf32>` (`si`/`ui` integers become signless), in function
      signatures too, and `torch_c.to_builtin_tensor` /
      `torch_c.from_builtin_tensor` become no-ops;
    - `"tosa.matmul"(%a, %b, %a_zp, %b_zp)` of one float type, as
      `bij,bjk->bik` (TOSA's zero points are 0 for floats; integer matmuls,
      which subtract them and widen, are refused).

    A function with torch ops the import does not know is refused with an
    error naming the op, and left as it was. A declared result type that
    contradicts the equation's inferred type is an error; a less static one
    gets a `tensor.cast`.
  }];
  let dependentDialects = [
    "::mlir::einsum::EinsumDialect",
    "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // EINSUM_CONVERSION_PASSES
