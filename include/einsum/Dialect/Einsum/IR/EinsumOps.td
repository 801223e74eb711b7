//===- EinsumOps.td - einsum dialect operations ------------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMOPS
#define EINSUM_DIALECT_EINSUM_IR_EINSUMOPS

include "einsum/Dialect/Einsum/IR/EinsumAttrs.td"
include "einsum/Dialect/Einsum/IR/EinsumBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Einsum_ContractOp : Einsum_Op<"contract", [
    Pure, InferTypeOpAdaptor]> {
  let summary = "Einstein summation of tensors, as torch.einsum";
  let description = [{
    Multiplies the operands elementwise with their dimensions aligned by the
    subscripts of `equation`, and sums over every subscript that is not in the
    output, exactly as `torch.einsum(equation, *inputs)` does:

    - subscripts are the letters `[a-zA-Z]`, one per dimension, one
      comma-separated term per operand; whitespace may separate elements;
    - a subscript repeated within one operand takes its diagonal;
    - dimensions with the same subscript must have equal sizes or size 1
      (broadcast);
    - `...` covers the remaining dimensions of an operand; ellipsis dimensions
      broadcast numpy-style, right-aligned, and are summed when the explicit
      output has no ellipsis;
    - without `->`, the output is the ellipsis followed by the subscripts that
      occur exactly once, in ASCII order (upper case first);
    - `''` is the equation of one scalar operand, `,->` of two.

    All operands share one element type (f32, f64, f16, bf16, i32 or i64),
    which is the result's. Dimension sizes may be dynamic; checks that need
    them are then left to run time. The result type is inferred from the
    equation and the operand types, and is not written in the custom form.

    Example:

    ```mlir
    %c = einsum.contract "bij,bjk->bik"(%a, %b)
        : tensor<8x16x32xf32>, tensor<8x32x4xf32>
    // %c : tensor<8x16x4xf32>
    %t = einsum.contract "ii"(%m) : tensor<4x4xf64>   // trace: tensor<f64>
    ```
  }];

  // Element types (E13) are checked with the equation, so that every
  // violation gets one precise diagnostic.
  let arguments = (ins StrAttr:$equation, Variadic<AnyRankedTensor>:$inputs,
                       OptionalAttr<Einsum_SemiringAttr>:$semiring);
  let results = (outs AnyRankedTensor:$result);

  let assemblyFormat = [{
    $equation `(` $inputs `)` attr-dict `:` type($inputs)
  }];

  let hasFolder = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;

  let extraClassDeclaration = [{
    /// Parses the equation and resolves it against the operand types.
    /// Only valid on verified ops.
    ::mlir::einsum::EinsumResolution getResolution();
    /// The semiring (plus_times where the attribute is absent).
    ::mlir::einsum::Semiring getSemiringOrDefault() {
      return getSemiring().value_or(::mlir::einsum::Semiring::PlusTimes);
    }
  }];
}

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMOPS
