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
    ArrayRefParameter<"int64_t">:$registerTiles
  );
  let assemblyFormat = [{
    `<` $kind `,` `order` `=` `[` $order `]` `,` `cache` `=` `[` $cacheTiles `]`
    `,` `register` `=` `[` $registerTiles `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that carries a strategy.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("einsum.strategy");
    }
  }];
}

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMATTRS
