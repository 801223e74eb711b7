//===- ImportToEinsum.h - other stacks' contractions to einsum --*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Passes that bring contractions written by other frontends into the einsum
// dialect: linalg contractions (einsum-raise-linalg) and the einsum ops of
// torch-mlir and StableHLO in generic form (einsum-import-frontends).
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_CONVERSION_IMPORTTOEINSUM_IMPORTTOEINSUM_H
#define EINSUM_CONVERSION_IMPORTTOEINSUM_IMPORTTOEINSUM_H

#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir {
namespace linalg {
class LinalgOp;
} // namespace linalg
namespace einsum {

#define GEN_PASS_DECL_EINSUMRAISELINALGPASS
#define GEN_PASS_DECL_EINSUMIMPORTFRONTENDSPASS
#include "einsum/Conversion/Passes.h.inc"

/// The torch.einsum equation of a linalg op on tensors that is a binary
/// contraction (see einsum-raise-linalg), or nothing.
std::optional<std::string> getContractionEquation(linalg::LinalgOp op);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_CONVERSION_IMPORTTOEINSUM_IMPORTTOEINSUM_H
