//===- EinsumEquation.h - The einsum equation grammar -----------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The one grammar of the project. An equation string (or a torch sublist) is
// parsed into one term per operand plus the output term (rules E1-E4, E8, E9 of
// docs/Dialect/Einsum.md), and then resolved against operand shapes, static or
// dynamic (E4-E7, E10): every label and ellipsis dimension becomes a loop
// dimension with a size and a role (parallel when it is in the output, summed
// otherwise), and every operand axis is mapped onto a loop dimension, either
// directly or as a broadcast (size-1) axis.
//
// This layer depends on LLVM Support only: the verifier, the lowering, the
// runner, the C API and the Python package all call it.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_UTILS_EINSUMEQUATION_H
#define EINSUM_DIALECT_EINSUM_UTILS_EINSUMEQUATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mlir {
namespace einsum {

/// A dimension size that is not known at compile time. Equal to
/// `mlir::ShapedType::kDynamic`, so shapes convert without translation.
constexpr int64_t kDynamicSize = std::numeric_limits<int64_t>::min();

/// Number of distinct labels (E1): 'A'-'Z' are 0-25, 'a'-'z' are 26-51, which
/// is also the numbering of torch's sublist format.
constexpr int kNumLabels = 52;

/// The largest rank of an operand (E4): torch and numpy 2 stop at 64
/// dimensions too. It bounds the work of every step, which is linear in the
/// rank or, for the path search over loop dimensions, in 52 + kMaxRank.
constexpr unsigned kMaxRank = 64;

/// The element of a term that stands for an ellipsis.
constexpr int kEllipsis = -1;

/// The value that stands for Python's `Ellipsis` in a sublist.
constexpr int64_t kSublistEllipsis = -1;

/// Returns the character of label `label` (0-51).
char labelToChar(int label);
/// Returns the label of character `c`, or std::nullopt when `c` is no label.
std::optional<int> charToLabel(char c);

/// The subscripts of one operand or of the output.
struct EinsumTerm {
  /// Label ids in order; `kEllipsis` marks the ellipsis.
  llvm::SmallVector<int, 8> elements;
  /// 1-based column of each element in the equation string; 0 when the term
  /// came from a sublist or was made implicitly.
  llvm::SmallVector<unsigned, 8> columns;
  /// 1-based column where the term starts (0 as above).
  unsigned column = 0;

  bool hasEllipsis() const;
  /// Position of the ellipsis in `elements`, if any.
  std::optional<unsigned> ellipsisPosition() const;
  /// Number of labels, not counting the ellipsis.
  unsigned numLabels() const;
  /// Number of occurrences of `label`.
  unsigned count(int label) const;
  /// The term as equation text, e.g. "...ij".
  std::string str() const;
  /// Column of element `index`, for diagnostics.
  unsigned columnOf(unsigned index) const {
    return index < columns.size() ? columns[index] : column;
  }
};

/// One loop dimension of an einsum: a label or one dimension covered by the
/// ellipsis.
struct EinsumLoopDim {
  /// The label id, or `kEllipsis` for an ellipsis dimension.
  int label = kEllipsis;
  /// For ellipsis dimensions: 0 is the left-most of the broadcast ellipsis.
  unsigned ellipsisIndex = 0;
  /// The (broadcast) size, or kDynamicSize.
  int64_t size = 0;
  /// Position in the output, or -1 when the dimension is summed.
  int outputAxis = -1;

  bool isEllipsis() const { return label == kEllipsis; }
  bool isReduction() const { return outputAxis < 0; }
  bool isDynamic() const { return size == kDynamicSize; }
  /// "j", or "...0" for the first ellipsis dimension.
  std::string name() const;
};

/// How one operand's axes map onto the loop dimensions.
struct EinsumOperandMap {
  /// Per axis: the loop dimension it is indexed by.
  llvm::SmallVector<unsigned, 8> dims;
  /// Per axis: true when the axis has size 1 and broadcasts against a larger
  /// (or dynamic) loop dimension; such an axis is always indexed with 0.
  llvm::SmallVector<bool, 8> broadcast;

  /// Groups of two or more axes indexed by the same loop dimension (E5).
  llvm::SmallVector<llvm::SmallVector<unsigned, 2>, 2> diagonalGroups() const;
};

/// An equation resolved against operand shapes.
struct EinsumResolution {
  /// Output dimensions in output order first, then the summed dimensions in
  /// order of first appearance in the inputs.
  llvm::SmallVector<EinsumLoopDim, 8> dims;
  llvm::SmallVector<EinsumOperandMap, 4> operands;
  /// The output shape; kDynamicSize where unknown.
  llvm::SmallVector<int64_t, 8> outputShape;
  /// Rank of the broadcast ellipsis (the largest number of dimensions an
  /// ellipsis covers in any operand).
  unsigned numEllipsisDims = 0;

  unsigned numDims() const { return dims.size(); }
  unsigned numOutputDims() const { return outputShape.size(); }
  unsigned numReductionDims() const { return numDims() - numOutputDims(); }
  /// True when the einsum is the identity on its only operand: one operand,
  /// no diagonal, no broadcast, no sum, output axes in operand order.
  bool isIdentity() const;
  /// The number of points of the iteration space (the product of all loop
  /// sizes, saturated at UINT64_MAX), or std::nullopt when a size is
  /// dynamic.
  std::optional<uint64_t> iterationCount() const;
  /// The number of output elements (saturated), or std::nullopt when
  /// dynamic.
  std::optional<uint64_t> outputElementCount() const;
};

/// A parsed equation: one term per operand and the output term.
class EinsumEquation {
public:
  /// Parses an equation string (E1-E4, E8, E9). Errors carry the 1-based
  /// column of the offending character.
  static llvm::Expected<EinsumEquation> parse(llvm::StringRef equation);

  /// Builds an equation from torch's sublist format: one sublist per operand,
  /// integers in [0, 52) and `kSublistEllipsis`, plus an optional output
  /// sublist.
  static llvm::Expected<EinsumEquation>
  fromSublists(llvm::ArrayRef<llvm::SmallVector<int64_t>> inputs,
               std::optional<llvm::ArrayRef<int64_t>> output);

  unsigned numInputs() const { return inputs.size(); }
  llvm::ArrayRef<EinsumTerm> getInputs() const { return inputs; }
  const EinsumTerm &getInput(unsigned i) const { return inputs[i]; }
  /// The output term; for an implicit output it is computed by E8.
  const EinsumTerm &getOutput() const { return output; }
  bool hasExplicitOutput() const { return explicitOutput; }
  bool anyInputHasEllipsis() const;

  /// The canonical text of the equation: explicit output, no whitespace.
  std::string str() const;

  /// Resolves the equation against one shape per operand (E3-E7, E10). A size
  /// may be kDynamicSize; checks that need it are skipped.
  llvm::Expected<EinsumResolution>
  resolve(llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes) const;

private:
  EinsumEquation() = default;
  /// Checks the output against the inputs (E9) or computes it (E8).
  llvm::Error finishOutput();

  llvm::SmallVector<EinsumTerm, 4> inputs;
  EinsumTerm output;
  bool explicitOutput = false;
};

/// Parses and resolves in one step.
llvm::Expected<EinsumResolution>
resolveEinsum(llvm::StringRef equation,
              llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_DIALECT_EINSUM_UTILS_EINSUMEQUATION_H
