//===- EinsumAttrs.td - einsum dialect attributes ----------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS
#define EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS

include "einsum/Dialect/Einsum/IR/EinsumBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Einsum_StrategyKind : I32EnumAttr<"StrategyKind",
    "how the CPU code generator schedules one linalg op", [
      I32EnumAttrCase<"Loops", 0, "loops">,
      I32EnumAttrCase<"Contract", 1, "contract">,
      I32EnumAttrCase<"Reduce", 2, "reduce">,
      I32EnumAttrCase<"Elementwise", 3, "elementwise">,
    ]> {
  let cppNamespace = "::mlir::einsum";
  let genSpecializedAttr = 0;
}

def Einsum_Semiring : I32EnumAttr<"Semiring",
    "the sum and product an einsum is computed with", [
      I32EnumAttrCase<"PlusTimes", 0, "plus_times">,
      I32EnumAttrCase<"Log", 1, "log">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"MaxTimes", 4, "max_times">,
      I32EnumAttrCase<"Bool", 5, "bool">,
    ]> {
  let cppNamespace = "::mlir::einsum";
  let genSpecializedAttr = 0;
}

def Einsum_SemiringAttr : EnumAttr<Einsum_Dialect, Einsum_Semiring,
                                   "semiring"> {
  let summary = "The semiring of an einsum.contract";
  let description = [{
    What `einsum.contract` sums (⊕, over the summed labels) and multiplies
    (⊗, across the operands) with, and the identity of ⊕ (the result of an
    empty sum):

    | semiring | ⊕ | ⊗ | identity | element types |
    | --- | --- | --- | --- | --- |
    | `plus_times` (default) | + | × | 0 | all |
    | `log` | log-sum-exp | + | -inf | floats |
    | `max` | max | + | -inf (the type's lowest integer) | all |
    | `min` | min | + | +inf (the type's highest integer) | all |
    | `max_times` | max | × | -inf (the type's lowest integer) | all |
    | `bool` | or | and | 0 | integers (nonzero is true; results 0 or 1) |

    Sums over three or more operands are computed along a contraction path
    (⊗ distributes over ⊕), but in `max_times`, where that needs
    nonnegative operands: it is computed as one loop nest.
    `log` is computed stably: the maximum of the products of each output
    element first, then the sum of the exponentials of their differences
    from it (never the exponential of a large value).

    ```mlir
    %v = einsum.contract "bi,ij->bj"(%alpha, %t) {semiring = #einsum.semiring<log>}
        : tensor<4x8xf32>, tensor<8x8xf32>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Einsum_StrategyAttr : AttrDef<Einsum_Dialect, "Strategy"> {
  let mnemonic = "strategy";
  let summary = "The CPU kernel schedule chosen for one linalg op";
  let description = [{
    Attached as `einsum.strategy` to a `linalg.generic` by
    `einsum-select-strategy` (or written by hand in tests); `einsum-vectorize`
    only reads it. All lists are indexed by the op's loop dimensions as they
    are *before* the interchange:

    - `kind`: `loops` (no tiling, the loop nest of the generic),
      `contract` (a register tile of M x N accumulators carried through the
      reduction loops, lowered to broadcasts and FMAs), `reduce` (the
      contiguous dimension is reduced, vectorized along it) or `elementwise`
      (vectorized along the output's contiguous dimension; a 2-D register
      tile also covers transposes; reductions over other dimensions, if
      any, accumulate a register tile in place).
    - `order`: the loop interchange applied first (`order[i]` is the old loop
      that becomes loop `i`); reduction loops of a `contract` come last.
    - `cache`: tile sizes of the outer (cache) level; 0 leaves a loop untiled.
    - `register`: tile sizes of the inner (register) level, which are also the
      vector sizes. Tiles that do not divide the loop are peeled (cache tiles
      too, where the register tile is wider than 1), so that static sizes
      give static partial tiles, whose vector dimensions are split into
      powers of two (9 = 8 + 1); dynamic partial tiles are vectorized in
      slices of size 1 along the partial loops.
    - `stage` (optional, `contract` and `elementwise` only; 0 when absent):
      the number of leading loops of `order` whose cache tiles each write
      one block of the output into a buffer on the stack (an L1 or L2 sized
      staging block), which is then copied to the output in whole cache
      lines with non-temporal (streaming) stores. A short contraction or an
      outer product that writes an output far larger than the caches
      otherwise reads every line of it for ownership before its stores
      complete it. One staged loop may end in a partial tile (peeled, its
      block staged in a buffer of its own shape). An op that reads its
      output other than through a fill of its own is not staged.

    Example:

    ```mlir
    #einsum.strategy<contract, order = [0, 2, 1], cache = [128, 256, 256],
                     register = [8, 1, 32]>
    ```
  }];
  let parameters = (ins
    EnumParameter<Einsum_StrategyKind>:$kind,
    ArrayRefParameter<"int64_t">:$order,
    ArrayRefParameter<"int64_t">:$cacheTiles,
    ArrayRefParameter<"int64_t">:$registerTiles,
    DefaultValuedParameter<"int64_t", "0">:$stage
  );
  let assemblyFormat = [{
    `<` $kind `,` `order` `=` `[` $order `]` `,` `cache` `=` `[` $cacheTiles `]`
    `,` `register` `=` `[` $registerTiles `]`
    (`,` `stage` `=` $stage^)? `>`
  }];
  // `stage` is optional for C++ callers too.
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "::mlir::einsum::StrategyKind":$kind,
                     "::llvm::ArrayRef<int64_t>":$order,
                     "::llvm::ArrayRef<int64_t>":$cacheTiles,
                     "::llvm::ArrayRef<int64_t>":$registerTiles,
                     CArg<"int64_t", "0">:$stage), [{
      return $_get($_ctxt, kind, order, cacheTiles, registerTiles, stage);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that carries a strategy.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("einsum.strategy");
    }
  }];
}

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS
