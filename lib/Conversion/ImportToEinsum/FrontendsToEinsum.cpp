//===- FrontendsToEinsum.cpp - torch-mlir and StableHLO einsums -----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// einsum-import-frontends: `torch.aten.einsum` (torch-mlir),
// `stablehlo.einsum` / `stablehlo.unary_einsum` and float `tosa.matmul`, as
// their projects print them in generic form, become einsum.contract. Neither dialect is registered
// here: the ops are matched by name and their attributes (or properties) by
// name, and torch's `!torch.vtensor<[...],dtype>` types, opaque here, are
// read from their text.
//
//===----------------------------------------------------------------------===//

#include "einsum/Conversion/ImportToEinsum/ImportToEinsum.h"

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMIMPORTFRONTENDSPASS
#include "einsum/Conversion/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;
using namespace mlir::einsum;

/// The attribute `name` of an op of an unregistered dialect: an attribute
/// of the op, or an entry of its properties (`<{name = ...}>`).
static Attribute getAttrOrProperty(Operation *op, StringRef name) {
  if (Attribute attr = op->getAttr(name))
    return attr;
  if (auto props = dyn_cast_or_null<DictionaryAttr>(
          op->getPropertiesAsAttribute()))
    return props.get(name);
  return {};
}

//===----------------------------------------------------------------------===//
// torch-mlir
//===----------------------------------------------------------------------===//

static bool isTorchOp(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "torch" || dialect == "torch_c";
}

static bool isTorchType(Type type) {
  auto opaque = dyn_cast<OpaqueType>(type);
  return opaque && opaque.getDialectNamespace() == "torch";
}

/// `!torch.vtensor<[3,?],f32>` as `tensor<3x?xf32>`; failure for any other
/// torch type (unranked or non-value tensors, lists, scalars) and for
/// element types the einsum dialect does not take.
static FailureOr<RankedTensorType> convertTorchTensorType(Type type) {
  auto opaque = dyn_cast<OpaqueType>(type);
  if (!opaque || opaque.getDialectNamespace() != "torch")
    return failure();
  StringRef data = opaque.getTypeData().trim();
  if (!data.consume_front("vtensor<") || !data.consume_back(">"))
    return failure();
  data = data.trim();
  if (!data.consume_front("["))
    return failure();
  auto [dims, rest] = data.split(']');
  rest = rest.trim();
  if (!rest.consume_front(","))
    return failure();
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  dims.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    part = part.trim();
    int64_t size;
    if (part == "?" || part == "-1")
      shape.push_back(ShapedType::kDynamic);
    else if (!part.getAsInteger(10, size) && size >= 0)
      shape.push_back(size);
    else
      return failure();
  }
  MLIRContext *ctx = type.getContext();
  size_t read = 0;
  // A dtype that is no builtin type is a failure here, not a diagnostic.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  Type element = parseType(rest.trim(), ctx, &read);
  if (!element || read != rest.trim().size())
    return failure();
  // torch's si64 and ui8 are our signless integers.
  if (auto integer = dyn_cast<IntegerType>(element))
    element = IntegerType::get(ctx, integer.getWidth());
  if (!getElementTypeName(element))
    return failure();
  return RankedTensorType::get(shape, element);
}

/// The ops of a torch-mlir function the import understands.
static bool isImportableTorchOp(Operation *op) {
  return isa<func::FuncOp, func::ReturnOp, func::CallOp>(op) ||
         llvm::is_contained(
             {"torch.aten.einsum", "torch.constant.str", "torch.constant.none",
              "torch.constant.int", "torch.prim.ListConstruct",
              "torch_c.to_builtin_tensor", "torch_c.from_builtin_tensor"},
             op->getName().getStringRef()) ||
         !isTorchOp(op);
}

/// The equation of a `torch.aten.einsum`: its `equation` attribute or the
/// value of the `torch.constant.str` that is its first operand.
static FailureOr<std::string> getTorchEquation(Operation *op) {
  if (auto attr = dyn_cast_or_null<StringAttr>(op->getAttr("equation")))
    return attr.str();
  if (op->getNumOperands() == 0)
    return failure();
  Operation *def = op->getOperand(0).getDefiningOp();
  if (!def || def->getName().getStringRef() != "torch.constant.str")
    return failure();
  if (auto value =
          dyn_cast_or_null<StringAttr>(getAttrOrProperty(def, "value")))
    return value.str();
  return failure();
}

/// The tensors of a `torch.aten.einsum`: the operands of the
/// `torch.prim.ListConstruct` that is its tensor list.
static FailureOr<SmallVector<Value>> getTorchOperands(Operation *op) {
  // With an `equation` attribute the list may come first.
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (def && def->getName().getStringRef() == "torch.prim.ListConstruct" &&
        isa<OpaqueType>(operand.getType()) &&
        cast<OpaqueType>(operand.getType()).getTypeData().starts_with(
            "list<vtensor"))
      return SmallVector<Value>(def->getOperands());
  }
  return failure();
}

/// Checks that `func` can be imported whole; diagnostics name the op.
static LogicalResult checkTorchFunction(func::FuncOp func) {
  WalkResult result = func.walk([&](Operation *op) {
    if (!isImportableTorchOp(op)) {
      op->emitError() << "einsum-import-frontends: cannot import '"
                      << op->getName()
                      << "': of torch-mlir's ops, only torch.aten.einsum "
                         "(with its constants and list) is imported";
      return WalkResult::interrupt();
    }
    if (op->getName().getStringRef() == "torch.aten.einsum") {
      if (failed(getTorchEquation(op))) {
        op->emitError() << "einsum-import-frontends: the equation of "
                           "torch.aten.einsum is neither an 'equation' "
                           "attribute nor a torch.constant.str";
        return WalkResult::interrupt();
      }
      if (failed(getTorchOperands(op))) {
        op->emitError() << "einsum-import-frontends: the tensors of "
                           "torch.aten.einsum are not a "
                           "torch.prim.ListConstruct of !torch.vtensor";
        return WalkResult::interrupt();
      }
    }
    // Tensor values must convert; other torch values (the equation, the
    // lists, constants) may only feed the ops that the import removes.
    for (Value value : op->getResults()) {
      if (!isTorchType(value.getType()) ||
          succeeded(convertTorchTensorType(value.getType())))
        continue;
      if (cast<OpaqueType>(value.getType()).getTypeData().starts_with(
              "vtensor")) {
        op->emitError() << "einsum-import-frontends: cannot import the type "
                        << value.getType()
                        << " (a ranked !torch.vtensor of a supported element "
                           "type is needed)";
        return WalkResult::interrupt();
      }
      for (Operation *user : value.getUsers())
        if (!isTorchOp(user)) {
          user->emitError() << "einsum-import-frontends: uses the torch "
                               "value of type "
                            << value.getType()
                            << ", which the import removes";
          return WalkResult::interrupt();
        }
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (BlockArgument arg : func.getArguments())
    if (isTorchType(arg.getType()) &&
        failed(convertTorchTensorType(arg.getType())))
      return func.emitError()
             << "einsum-import-frontends: cannot import argument "
             << arg.getArgNumber() << " of type " << arg.getType()
             << " (a ranked !torch.vtensor of a supported element type is "
                "needed)";
  return success();
}

/// Creates the einsum.contract of `equation` over `inputs` in place of
/// `op`'s single result (of type `declared`). Diagnostics go to `op`.
static LogicalResult replaceWithContract(Operation *op, StringRef equation,
                                         ValueRange inputs, Type declared,
                                         RewriterBase &rewriter) {
  for (auto [i, input] : llvm::enumerate(inputs))
    if (!isa<RankedTensorType>(input.getType()))
      return op->emitError() << "einsum-import-frontends: operand " << i
                             << " of type " << input.getType()
                             << " is not a ranked tensor";
  auto emitError = [&] {
    return op->emitError() << "einsum-import-frontends: ";
  };
  FailureOr<RankedTensorType> inferred =
      inferContractResultType(equation, inputs.getTypes(), emitError);
  if (failed(inferred))
    return failure();
  if (!tensor::CastOp::areCastCompatible(*inferred, declared))
    return op->emitError() << "einsum-import-frontends: the declared result "
                              "type "
                           << declared << " contradicts the type " << *inferred
                           << " of '" << equation << "'";
  rewriter.setInsertionPoint(op);
  Value result = ContractOp::create(rewriter, op->getLoc(), *inferred,
                                    rewriter.getStringAttr(equation), inputs,
                                    /*semiring=*/nullptr)
                     .getResult();
  if (result.getType() != declared)
    result = tensor::CastOp::create(rewriter, op->getLoc(), declared, result);
  rewriter.replaceOp(op, result);
  return success();
}

static LogicalResult importTorchFunction(func::FuncOp func) {
  bool hasTorch = false;
  func.walk([&](Operation *op) {
    hasTorch |= isTorchOp(op) ||
                llvm::any_of(op->getResultTypes(), isTorchType);
  });
  hasTorch |= llvm::any_of(func.getArgumentTypes(), isTorchType) ||
              llvm::any_of(func.getResultTypes(), isTorchType);
  if (!hasTorch)
    return success();
  if (failed(checkTorchFunction(func)))
    return failure();

  // Retype every tensor value in place: the function's ops stay valid, and
  // the einsums are then built on builtin tensors.
  auto retype = [](Value value) {
    if (FailureOr<RankedTensorType> type =
            convertTorchTensorType(value.getType());
        succeeded(type))
      value.setType(*type);
  };
  func.walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      retype(arg);
  });
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      retype(result);
  });

  IRRewriter rewriter(func.getContext());
  SmallVector<Operation *> einsums, boundaries;
  func.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name == "torch.aten.einsum")
      einsums.push_back(op);
    else if (name == "torch_c.to_builtin_tensor" ||
             name == "torch_c.from_builtin_tensor")
      boundaries.push_back(op);
  });
  for (Operation *op : boundaries) {
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        op->getOperand(0).getType() != op->getResult(0).getType())
      return op->emitError() << "einsum-import-frontends: "
                             << op->getName()
                             << " between types that do not match";
    rewriter.replaceOp(op, op->getOperand(0));
  }
  for (Operation *op : einsums) {
    if (op->getNumResults() != 1)
      return op->emitError()
             << "einsum-import-frontends: torch.aten.einsum has one result";
    std::string equation = *getTorchEquation(op);
    SmallVector<Value> inputs = *getTorchOperands(op);
    if (failed(replaceWithContract(op, equation, inputs,
                                   op->getResult(0).getType(), rewriter)))
      return failure();
  }
  // The equation strings, lists and constants are dead now.
  SmallVector<Operation *> dead;
  func.walk([&](Operation *op) {
    if (isTorchOp(op))
      dead.push_back(op);
  });
  for (Operation *op : llvm::reverse(dead))
    if (op->use_empty())
      rewriter.eraseOp(op);
  // The signature follows the retyped entry block and return.
  auto convert = [](Type type) -> Type {
    FailureOr<RankedTensorType> converted = convertTorchTensorType(type);
    return succeeded(converted) ? Type(*converted) : type;
  };
  SmallVector<Type> argTypes = llvm::map_to_vector(func.getArgumentTypes(),
                                                   convert);
  SmallVector<Type> resultTypes = llvm::map_to_vector(func.getResultTypes(),
                                                      convert);
  func.setFunctionType(
      FunctionType::get(func.getContext(), argTypes, resultTypes));
  return success();
}

//===----------------------------------------------------------------------===//
// StableHLO
//===----------------------------------------------------------------------===//

static LogicalResult importStableHLO(Operation *op, RewriterBase &rewriter) {
  StringRef name = op->getName().getStringRef();
  unsigned arity = name == "stablehlo.einsum" ? 2 : 1;
  if (op->getNumOperands() != arity || op->getNumResults() != 1)
    return op->emitError() << "einsum-import-frontends: " << name
                           << " takes " << arity
                           << (arity == 1 ? " operand" : " operands")
                           << " and has one result";
  auto config =
      dyn_cast_or_null<StringAttr>(getAttrOrProperty(op, "einsum_config"));
  if (!config)
    return op->emitError() << "einsum-import-frontends: " << name
                           << " has no string 'einsum_config'";
  return replaceWithContract(op, config.getValue(), op->getOperands(),
                             op->getResult(0).getType(), rewriter);
}

//===----------------------------------------------------------------------===//
// TOSA
//===----------------------------------------------------------------------===//

/// `tosa.matmul(a, b[, a_zp, b_zp])` on floats is `bij,bjk->bik` (TOSA
/// requires zero points of 0 for floats). Integer matmuls subtract their
/// zero points and widen: not an einsum of one element type.
static LogicalResult importTosaMatmul(Operation *op, RewriterBase &rewriter) {
  if ((op->getNumOperands() != 2 && op->getNumOperands() != 4) ||
      op->getNumResults() != 1)
    return op->emitError() << "einsum-import-frontends: tosa.matmul takes "
                              "two tensors (and two zero points)";
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto b = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !b || !result)
    return op->emitError() << "einsum-import-frontends: tosa.matmul on "
                              "unranked tensors is not imported";
  if (!isa<FloatType>(a.getElementType()) ||
      a.getElementType() != b.getElementType() ||
      a.getElementType() != result.getElementType())
    return op->emitError()
           << "einsum-import-frontends: only tosa.matmul of one float type "
              "is imported (integer ones subtract zero points and widen)";
  llvm::SetVector<Operation *> zeroPoints; // Both may be one op.
  for (Value zp : op->getOperands().drop_front(2))
    if (Operation *def = zp.getDefiningOp();
        def && def->getName().getStringRef() == "tosa.const")
      zeroPoints.insert(def);
  if (failed(replaceWithContract(op, "bij,bjk->bik",
                                 op->getOperands().take_front(2), result,
                                 rewriter)))
    return failure();
  // The zero points' constants, now unused.
  for (Operation *def : zeroPoints)
    if (def->use_empty())
      rewriter.eraseOp(def);
  return success();
}

namespace {
struct EinsumImportFrontendsPass
    : einsum::impl::EinsumImportFrontendsPassBase<EinsumImportFrontendsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    for (auto func : module.getOps<func::FuncOp>())
      failedAny |= failed(importTorchFunction(func));
    // Callers of a retyped function see its new type.
    module.walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!callee)
        return;
      for (auto [result, type] :
           llvm::zip(call.getResults(), callee.getResultTypes()))
        result.setType(type);
    });
    SmallVector<Operation *> hlo, tosa;
    module.walk([&](Operation *op) {
      StringRef name = op->getName().getStringRef();
      if (name == "stablehlo.einsum" || name == "stablehlo.unary_einsum")
        hlo.push_back(op);
      else if (name == "tosa.matmul")
        tosa.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : hlo)
      failedAny |= failed(importStableHLO(op, rewriter));
    for (Operation *op : tosa)
      failedAny |= failed(importTosaMatmul(op, rewriter));
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
