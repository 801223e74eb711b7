//===- EinsumBase.td - einsum dialect definition -----------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_IR_EINSUMBASE
#define EINSUM_DIALECT_EINSUM_IR_EINSUMBASE

include "mlir/IR/OpBase.td"

def Einsum_Dialect : Dialect {
  let name = "einsum";
  let cppNamespace = "::mlir::einsum";
  let summary = "Einstein summations with the semantics of torch.einsum";
  let description = [{
    The `einsum` dialect holds one operation, `einsum.contract`, which carries a
    `torch.einsum` equation and its tensor operands. The equation is parsed and
    checked by the project's single equation grammar (rules E1-E13 in
    `docs/Dialect/Einsum.md`); the result type follows from the equation and
    the operand types.

    The attribute `#einsum.strategy` records the CPU schedule chosen for a
    `linalg` op (see `einsum-select-strategy`); the dialect verifies it where
    it is attached as `einsum.strategy`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
  private:
    /// Adds the attributes; defined next to their storage classes.
    void registerAttributes();

  public:
  }];
}

class Einsum_Op<string mnemonic, list<Trait> traits = []>
    : Op<Einsum_Dialect, mnemonic, traits>;

#endif // EINSUM_DIALECT_EINSUM_IR_EINSUMBASE
