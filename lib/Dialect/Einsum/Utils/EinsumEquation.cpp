//===- EinsumEquation.cpp - The einsum equation grammar ---------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir::einsum;
using llvm::SmallVector;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Labels and terms
//===----------------------------------------------------------------------===//

char mlir::einsum::labelToChar(int label) {
  return label < 26 ? static_cast<char>('A' + label)
                    : static_cast<char>('a' + label - 26);
}

std::optional<int> mlir::einsum::charToLabel(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  return std::nullopt;
}

bool EinsumTerm::hasEllipsis() const { return ellipsisPosition().has_value(); }

std::optional<unsigned> EinsumTerm::ellipsisPosition() const {
  for (auto [i, e] : llvm::enumerate(elements))
    if (e == kEllipsis)
      return i;
  return std::nullopt;
}

unsigned EinsumTerm::numLabels() const {
  return elements.size() - (hasEllipsis() ? 1 : 0);
}

unsigned EinsumTerm::count(int label) const {
  return llvm::count(elements, label);
}

std::string EinsumTerm::str() const {
  std::string s;
  for (int e : elements) {
    if (e == kEllipsis)
      s += "...";
    else
      s += labelToChar(e);
  }
  return s;
}

std::string EinsumLoopDim::name() const {
  if (isEllipsis())
    return "..." + std::to_string(ellipsisIndex);
  return std::string(1, labelToChar(label));
}

SmallVector<SmallVector<unsigned, 2>, 2>
EinsumOperandMap::diagonalGroups() const {
  SmallVector<SmallVector<unsigned, 2>, 2> groups;
  for (unsigned axis = 0; axis < dims.size(); ++axis) {
    // Only start a group at the first axis of each loop dimension.
    if (llvm::is_contained(llvm::ArrayRef(dims).take_front(axis), dims[axis]))
      continue;
    SmallVector<unsigned, 2> group;
    for (unsigned other = axis; other < dims.size(); ++other)
      if (dims[other] == dims[axis])
        group.push_back(other);
    if (group.size() > 1)
      groups.push_back(std::move(group));
  }
  return groups;
}

bool EinsumResolution::isIdentity() const {
  if (operands.size() != 1 || numReductionDims() != 0)
    return false;
  const EinsumOperandMap &map = operands.front();
  if (map.dims.size() != numOutputDims())
    return false;
  for (auto [axis, dim] : llvm::enumerate(map.dims))
    if (dim != axis || map.broadcast[axis])
      return false;
  return true;
}

/// The product of `sizes`, saturated at UINT64_MAX (0 when a size is 0,
/// however large the others are), or std::nullopt when a size is dynamic.
static std::optional<uint64_t> productOf(llvm::ArrayRef<int64_t> sizes) {
  if (llvm::is_contained(sizes, kDynamicSize))
    return std::nullopt;
  if (llvm::is_contained(sizes, 0))
    return 0;
  uint64_t product = 1;
  for (int64_t size : sizes) {
    bool overflow = false;
    product = llvm::SaturatingMultiply(product, static_cast<uint64_t>(size),
                                       &overflow);
    if (overflow)
      return std::numeric_limits<uint64_t>::max();
  }
  return product;
}

std::optional<uint64_t> EinsumResolution::iterationCount() const {
  SmallVector<int64_t, 8> sizes;
  for (const EinsumLoopDim &dim : dims)
    sizes.push_back(dim.size);
  return productOf(sizes);
}

std::optional<uint64_t> EinsumResolution::outputElementCount() const {
  return productOf(outputShape);
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// " (column N)" for terms parsed from a string, "" otherwise.
static std::string at(unsigned column) {
  if (column == 0)
    return "";
  return " (column " + std::to_string(column) + ")";
}

static std::string quoteChar(char c) {
  if (llvm::isPrint(c))
    return std::string("'") + c + "'";
  return llvm::formatv("'\\x{0:x-2}'", static_cast<unsigned char>(c)).str();
}

static std::string termName(int operand) {
  return operand < 0 ? std::string("output")
                     : "operand " + std::to_string(operand);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

llvm::Expected<EinsumEquation> EinsumEquation::parse(StringRef equation) {
  EinsumEquation result;
  EinsumTerm current;
  bool inOutput = false;
  // The term starts at the first element; until then it "starts" right after
  // its separator, which is where an empty term is reported.
  current.column = 1;
  bool currentStarted = false;
  auto addElement = [&](int element, unsigned column) {
    if (!currentStarted) {
      current.column = column;
      currentStarted = true;
    }
    current.elements.push_back(element);
    current.columns.push_back(column);
  };
  auto startTerm = [&](unsigned column) {
    current = EinsumTerm();
    current.column = column;
    currentStarted = false;
  };
  auto currentName = [&] {
    return inOutput ? termName(-1) : termName(result.inputs.size());
  };

  for (size_t i = 0, e = equation.size(); i < e; ++i) {
    char c = equation[i];
    unsigned column = i + 1;
    // E2: the space character only; tabs, newlines and other white space
    // are invalid characters, as in torch.
    if (c == ' ')
      continue;
    if (c == ',') {
      if (inOutput)
        return makeError("',' in the output" + at(column) +
                         "; the output is a single term");
      result.inputs.push_back(std::move(current));
      startTerm(column + 1);
      continue;
    }
    if (c == '-') {
      if (i + 1 >= e || equation[i + 1] != '>')
        return makeError("'-' is not followed by '>'" + at(column));
      if (inOutput)
        return makeError("more than one '->'" + at(column));
      result.inputs.push_back(std::move(current));
      inOutput = true;
      startTerm(column + 2);
      ++i;
      continue;
    }
    if (c == '.') {
      if (i + 2 >= e || equation[i + 1] != '.' || equation[i + 2] != '.')
        return makeError("'.' is not part of an ellipsis '...'" + at(column));
      if (current.hasEllipsis())
        return makeError(currentName() + ": more than one ellipsis" +
                         at(column));
      addElement(kEllipsis, column);
      i += 2;
      continue;
    }
    std::optional<int> label = charToLabel(c);
    if (!label)
      return makeError("invalid character " + quoteChar(c) + at(column) +
                       "; subscripts are letters [a-zA-Z]");
    addElement(*label, column);
  }
  if (inOutput) {
    result.output = std::move(current);
    result.explicitOutput = true;
  } else {
    result.inputs.push_back(std::move(current));
  }
  if (llvm::Error err = result.finishOutput())
    return std::move(err);
  return result;
}

/// Converts one sublist into a term. `operand` is -1 for the output.
static llvm::Expected<EinsumTerm> termFromSublist(llvm::ArrayRef<int64_t> list,
                                                  int operand) {
  EinsumTerm term;
  std::string name = operand < 0 ? std::string("the output sublist")
                                 : "the sublist of operand " +
                                       std::to_string(operand);
  for (auto [pos, value] : llvm::enumerate(list)) {
    if (value == kSublistEllipsis) {
      if (term.hasEllipsis())
        return makeError(name + ": more than one Ellipsis (position " +
                         std::to_string(pos) + ")");
      term.elements.push_back(kEllipsis);
    } else if (value < 0 || value >= kNumLabels) {
      return makeError(name + ": " + std::to_string(value) +
                       " is not a subscript (position " + std::to_string(pos) +
                       "); subscripts are integers in [0, 52) or Ellipsis");
    } else {
      term.elements.push_back(static_cast<int>(value));
    }
    term.columns.push_back(0);
  }
  return term;
}

llvm::Expected<EinsumEquation>
EinsumEquation::fromSublists(llvm::ArrayRef<SmallVector<int64_t>> inputs,
                             std::optional<llvm::ArrayRef<int64_t>> output) {
  EinsumEquation result;
  for (auto [i, list] : llvm::enumerate(inputs)) {
    llvm::Expected<EinsumTerm> term = termFromSublist(list, i);
    if (!term)
      return term.takeError();
    result.inputs.push_back(std::move(*term));
  }
  if (output) {
    llvm::Expected<EinsumTerm> term = termFromSublist(*output, -1);
    if (!term)
      return term.takeError();
    result.output = std::move(*term);
    result.explicitOutput = true;
  }
  if (llvm::Error err = result.finishOutput())
    return std::move(err);
  return result;
}

bool EinsumEquation::anyInputHasEllipsis() const {
  return llvm::any_of(inputs,
                      [](const EinsumTerm &t) { return t.hasEllipsis(); });
}

llvm::Error EinsumEquation::finishOutput() {
  std::array<unsigned, kNumLabels> inputCount{};
  for (const EinsumTerm &term : inputs)
    for (int e : term.elements)
      if (e != kEllipsis)
        ++inputCount[e];

  if (explicitOutput) {
    // E9: each output label occurs in some input and at most once in the
    // output. A second ellipsis was refused while parsing.
    std::array<bool, kNumLabels> seen{};
    for (auto [i, e] : llvm::enumerate(output.elements)) {
      if (e == kEllipsis)
        continue;
      std::string where = output.columnOf(i)
                              ? at(output.columnOf(i))
                              : " (position " + std::to_string(i) + ")";
      if (inputCount[e] == 0)
        return makeError("output: label '" + std::string(1, labelToChar(e)) +
                         "' does not occur in any input" + where);
      if (seen[e])
        return makeError("output: label '" + std::string(1, labelToChar(e)) +
                         "' occurs more than once" + where);
      seen[e] = true;
    }
    return llvm::Error::success();
  }

  // E8: the broadcast ellipsis first, then the labels that occur exactly once,
  // in ASCII order (upper case first), which is the order of label ids.
  output = EinsumTerm();
  if (anyInputHasEllipsis()) {
    output.elements.push_back(kEllipsis);
    output.columns.push_back(0);
  }
  for (int label = 0; label < kNumLabels; ++label) {
    if (inputCount[label] == 1) {
      output.elements.push_back(label);
      output.columns.push_back(0);
    }
  }
  return llvm::Error::success();
}

std::string EinsumEquation::str() const {
  std::string s;
  for (auto [i, term] : llvm::enumerate(inputs)) {
    if (i)
      s += ',';
    s += term.str();
  }
  return s + "->" + output.str();
}

//===----------------------------------------------------------------------===//
// Resolution against shapes
//===----------------------------------------------------------------------===//

namespace {
/// What is known of one loop dimension's size while operands are merged.
struct SizeInfo {
  /// A static size other than 1, or -1.
  int64_t size = -1;
  /// The operand that set `size`.
  unsigned sizeOperand = 0;
  bool sawOne = false;
  bool sawDynamic = false;

  /// Merges one operand's size; returns false on a mismatch (E6/E7).
  bool merge(int64_t s, unsigned operand) {
    if (s == kDynamicSize) {
      sawDynamic = true;
    } else if (s == 1) {
      sawOne = true;
    } else if (size < 0) {
      size = s;
      sizeOperand = operand;
    } else if (size != s) {
      return false;
    }
    return true;
  }
  int64_t finalSize() const {
    if (size >= 0)
      return size;
    return sawDynamic ? kDynamicSize : 1;
  }
};

std::string sizeStr(int64_t size) {
  return size == kDynamicSize ? std::string("?") : std::to_string(size);
}
} // namespace

llvm::Expected<EinsumResolution>
EinsumEquation::resolve(llvm::ArrayRef<SmallVector<int64_t>> shapes) const {
  // E3: one term per operand.
  if (shapes.size() != inputs.size())
    return makeError(llvm::formatv("the equation has {0} operand term{1}, but "
                                   "{2} operand{3} {4} given",
                                   inputs.size(),
                                   inputs.size() == 1 ? "" : "s", shapes.size(),
                                   shapes.size() == 1 ? "" : "s",
                                   shapes.size() == 1 ? "was" : "were")
                         .str());

  // E4: ranks, and the number of dimensions each ellipsis covers.
  SmallVector<unsigned, 4> ellipsisRanks;
  unsigned numEllipsisDims = 0;
  for (auto [i, term] : llvm::enumerate(inputs)) {
    unsigned rank = shapes[i].size();
    unsigned labels = term.numLabels();
    std::string text = term.str();
    if (!term.hasEllipsis() && labels != rank)
      return makeError(llvm::formatv("operand {0}: the term '{1}' has {2} "
                                     "subscript{3}, but the operand has rank "
                                     "{4}{5}",
                                     i, text, labels, labels == 1 ? "" : "s",
                                     rank, at(term.column))
                           .str());
    if (term.hasEllipsis() && labels > rank)
      return makeError(llvm::formatv("operand {0}: the term '{1}' has {2} "
                                     "subscript{3} besides the ellipsis, more "
                                     "than the operand's rank {4}{5}",
                                     i, text, labels, labels == 1 ? "" : "s",
                                     rank, at(term.column))
                           .str());
    if (rank > kMaxRank)
      return makeError(llvm::formatv("operand {0}: rank {1} is more than the "
                                     "{2} dimensions an operand may have",
                                     i, rank, kMaxRank)
                           .str());
    for (int64_t size : shapes[i])
      if (size < 0 && size != kDynamicSize)
        return makeError(llvm::formatv("operand {0}: negative dimension size "
                                       "{1}",
                                       i, size)
                             .str());
    ellipsisRanks.push_back(rank - labels);
    if (term.hasEllipsis())
      numEllipsisDims = std::max(numEllipsisDims, rank - labels);
  }

  // A key names a loop dimension before it has an index: a label id, or
  // kNumLabels + k for ellipsis dimension k.
  auto ellipsisKey = [](unsigned k) { return kNumLabels + static_cast<int>(k); };
  unsigned numKeys = kNumLabels + numEllipsisDims;
  SmallVector<SizeInfo, 64> sizes(numKeys);

  // Per operand and axis: the key, and the column for diagnostics.
  SmallVector<SmallVector<int, 8>, 4> axisKeys(inputs.size());
  SmallVector<SmallVector<unsigned, 8>, 4> axisColumns(inputs.size());
  for (auto [i, term] : llvm::enumerate(inputs)) {
    unsigned ellRank = ellipsisRanks[i];
    for (auto [pos, e] : llvm::enumerate(term.elements)) {
      unsigned column = term.columnOf(pos);
      if (e != kEllipsis) {
        axisKeys[i].push_back(e);
        axisColumns[i].push_back(column);
        continue;
      }
      // E7: ellipsis dimensions are right-aligned.
      for (unsigned k = 0; k < ellRank; ++k) {
        axisKeys[i].push_back(ellipsisKey(numEllipsisDims - ellRank + k));
        axisColumns[i].push_back(column);
      }
    }

    // E5: repeated labels take the diagonal and need equal sizes; then the
    // operand's size of each key is merged with the other operands' (E6, E7).
    SmallVector<int64_t, 8> operandSize(numKeys, kDynamicSize);
    SmallVector<bool, 8> present(numKeys, false);
    for (auto [axis, key] : llvm::enumerate(axisKeys[i])) {
      int64_t size = shapes[i][axis];
      if (present[key] && size != kDynamicSize &&
          operandSize[key] != kDynamicSize && size != operandSize[key])
        return makeError(
            llvm::formatv("operand {0}: label '{1}' is repeated for a "
                          "diagonal, but its dimensions have sizes {2} and "
                          "{3}{4}",
                          i, labelToChar(key), operandSize[key], size,
                          at(axisColumns[i][axis]))
                .str());
      if (!present[key] || operandSize[key] == kDynamicSize)
        operandSize[key] = size;
      present[key] = true;
    }
    for (auto [axis, key] : llvm::enumerate(axisKeys[i])) {
      if (!present[key])
        continue;
      present[key] = false; // Merge each key once per operand.
      SizeInfo before = sizes[key];
      if (sizes[key].merge(operandSize[key], i))
        continue;
      std::string what =
          key < kNumLabels
              ? "label '" + std::string(1, labelToChar(key)) + "'"
              : "ellipsis dimension " + std::to_string(key - kNumLabels);
      return makeError(llvm::formatv("operand {0}: {1} has size {2}, but size "
                                     "{3} was seen before in operand {4}{5}",
                                     i, what, sizeStr(operandSize[key]),
                                     before.size, before.sizeOperand,
                                     at(axisColumns[i][axis]))
                           .str());
    }
  }

  // Loop dimensions: the output's first, then the summed ones.
  EinsumResolution result;
  result.numEllipsisDims = numEllipsisDims;
  SmallVector<int, 64> dimOfKey(numKeys, -1);
  auto addDim = [&](int key, int outputAxis) {
    EinsumLoopDim dim;
    if (key < kNumLabels) {
      dim.label = key;
    } else {
      dim.label = kEllipsis;
      dim.ellipsisIndex = key - kNumLabels;
    }
    dim.size = sizes[key].finalSize();
    dim.outputAxis = outputAxis;
    dimOfKey[key] = result.dims.size();
    result.dims.push_back(dim);
  };
  int outputAxis = 0;
  for (int e : output.elements) {
    if (e != kEllipsis) {
      addDim(e, outputAxis++);
      continue;
    }
    for (unsigned k = 0; k < numEllipsisDims; ++k)
      addDim(ellipsisKey(k), outputAxis++);
  }
  for (auto [i, term] : llvm::enumerate(inputs)) {
    for (int e : term.elements) {
      if (e != kEllipsis) {
        if (dimOfKey[e] < 0)
          addDim(e, -1);
        continue;
      }
      // E9 (torch): an ellipsis missing from the output is summed.
      for (unsigned k = 0; k < numEllipsisDims; ++k)
        if (dimOfKey[ellipsisKey(k)] < 0)
          addDim(ellipsisKey(k), -1);
    }
  }
  for (const EinsumLoopDim &dim : result.dims)
    if (!dim.isReduction())
      result.outputShape.push_back(dim.size);

  for (auto [i, keys] : llvm::enumerate(axisKeys)) {
    EinsumOperandMap map;
    for (auto [axis, key] : llvm::enumerate(keys)) {
      unsigned dim = dimOfKey[key];
      map.dims.push_back(dim);
      map.broadcast.push_back(shapes[i][axis] == 1 &&
                              result.dims[dim].size != 1);
    }
    result.operands.push_back(std::move(map));
  }
  return result;
}

llvm::Expected<EinsumResolution>
mlir::einsum::resolveEinsum(StringRef equation,
                            llvm::ArrayRef<SmallVector<int64_t>> shapes) {
  llvm::Expected<EinsumEquation> parsed = EinsumEquation::parse(equation);
  if (!parsed)
    return parsed.takeError();
  return parsed->resolve(shapes);
}
