//===- einsum-equation-fuzzer.cpp - fuzz the equation grammar -------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for the one equation grammar (lib/Dialect/Einsum/Utils)
// and the path search built on it. The first byte chooses the form:
//
//   even: an equation string, then '\0', then one byte per dimension size
//         (0-255; 0xff separates operands, so sizes are 0-254);
//   odd:  torch's sublist form, one int64 per entry read from the bytes,
//         with entries 0x7f.. separating sublists (the last one the output
//         when the second byte is odd).
//
// Invariants checked beyond "no crash": the canonical text parses back to
// itself; a resolution's maps, roles and output shape agree with each
// other; a contraction path's steps use every tensor once and end in the
// einsum's output shape.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/ContractionPath.h"
#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"

#include "llvm/ADT/SmallBitVector.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir::einsum;
using llvm::SmallVector;

/// Reports a broken invariant: libFuzzer records the input as a crash.
#define FUZZ_CHECK(condition)                                                  \
  do {                                                                         \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "einsum-equation-fuzzer: invariant failed: %s\n",   \
                   #condition);                                                \
      std::abort();                                                            \
    }                                                                          \
  } while (false)

/// The canonical text of a parsed equation parses back to itself.
static void checkRoundTrip(const EinsumEquation &equation) {
  std::string text = equation.str();
  llvm::Expected<EinsumEquation> again = EinsumEquation::parse(text);
  FUZZ_CHECK(!!again);
  FUZZ_CHECK(again->str() == text);
  FUZZ_CHECK(again->numInputs() == equation.numInputs());
}

/// The resolution's parts agree with each other and with the shapes.
static void checkResolution(const EinsumEquation &equation,
                            const EinsumResolution &res,
                            llvm::ArrayRef<SmallVector<int64_t>> shapes) {
  FUZZ_CHECK(res.operands.size() == shapes.size());
  unsigned outputs = 0;
  for (auto [d, dim] : llvm::enumerate(res.dims)) {
    if (dim.isReduction())
      continue;
    // Output dims come first, in output order.
    FUZZ_CHECK(dim.outputAxis == static_cast<int>(d));
    FUZZ_CHECK(res.outputShape[d] == dim.size);
    ++outputs;
  }
  FUZZ_CHECK(outputs == res.numOutputDims());
  for (auto [i, map] : llvm::enumerate(res.operands)) {
    FUZZ_CHECK(map.dims.size() == shapes[i].size());
    FUZZ_CHECK(map.broadcast.size() == shapes[i].size());
    for (auto [axis, d] : llvm::enumerate(map.dims)) {
      FUZZ_CHECK(d < res.numDims());
      int64_t size = shapes[i][axis];
      // An axis is its loop's size, or 1 and broadcast.
      if (map.broadcast[axis])
        FUZZ_CHECK(size == 1 && res.dims[d].size != 1);
      else
        FUZZ_CHECK(size == res.dims[d].size);
    }
  }
  // The output term names the output dims (ellipsis dims expanded).
  unsigned termRank = equation.getOutput().numLabels() +
                      (equation.getOutput().hasEllipsis()
                           ? res.numEllipsisDims
                           : 0);
  FUZZ_CHECK(termRank == res.numOutputDims());
  std::optional<uint64_t> points = res.iterationCount();
  FUZZ_CHECK(points.has_value());
  bool empty = llvm::any_of(res.dims, [](const EinsumLoopDim &dim) {
    return dim.size == 0;
  });
  FUZZ_CHECK(empty == (*points == 0));
}

/// Every tensor of a path is read once, and the last step is the output.
static void checkPath(const EinsumResolution &res,
                      const ContractionPath &path) {
  unsigned numTensors = res.operands.size() + path.steps.size();
  llvm::SmallBitVector used(numTensors);
  for (auto [k, step] : llvm::enumerate(path.steps)) {
    FUZZ_CHECK(!step.inputs.empty());
    for (unsigned t : step.inputs) {
      FUZZ_CHECK(t < res.operands.size() + k);
      FUZZ_CHECK(!used.test(t));
      used.set(t);
    }
    // Each step is an equation of its own.
    llvm::Expected<EinsumEquation> parsed =
        EinsumEquation::parse(step.equation);
    FUZZ_CHECK(!!parsed);
    FUZZ_CHECK(parsed->numInputs() == step.inputs.size());
  }
  FUZZ_CHECK(!path.steps.empty());
  FUZZ_CHECK(used.count() + 1 == numTensors);
  FUZZ_CHECK(llvm::ArrayRef<int64_t>(path.steps.back().shape) ==
             llvm::ArrayRef<int64_t>(res.outputShape));
}

static void resolveAndCheck(const EinsumEquation &equation,
                            llvm::ArrayRef<SmallVector<int64_t>> shapes) {
  llvm::Expected<EinsumResolution> res = equation.resolve(shapes);
  if (!res) {
    FUZZ_CHECK(!llvm::toString(res.takeError()).empty());
    return;
  }
  checkResolution(equation, *res, shapes);
  // The path search, bounded by its own work limits; up to 16 operands (the
  // searches' cost grows with a power of the count, and more operands only
  // slow the fuzzer down without reaching other code).
  if (res->numDims() > static_cast<unsigned>(kNumLabels) ||
      res->operands.size() > 16)
    return;
  for (PathStrategy strategy :
       {PathStrategy::Auto, PathStrategy::Greedy, PathStrategy::LeftToRight}) {
    PathOptions options;
    options.strategy = strategy;
    llvm::Expected<ContractionPath> path = findContractionPath(*res, options);
    if (!path) {
      llvm::consumeError(path.takeError());
      continue;
    }
    checkPath(*res, *path);
  }
}

/// Shapes from bytes: 0xff ends an operand.
static SmallVector<SmallVector<int64_t>> readShapes(llvm::ArrayRef<uint8_t> in,
                                                    unsigned numOperands) {
  SmallVector<SmallVector<int64_t>> shapes(1);
  for (uint8_t byte : in) {
    if (byte == 0xff) {
      shapes.emplace_back();
      continue;
    }
    if (shapes.back().size() < kMaxRank + 2)
      shapes.back().push_back(byte % 8 == 7 ? byte : byte % 8);
  }
  shapes.resize(numOperands);
  return shapes;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 4096)
    return 0;
  llvm::ArrayRef<uint8_t> bytes(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    const uint8_t *end =
        static_cast<const uint8_t *>(std::memchr(bytes.data(), 0, bytes.size()));
    size_t length = end ? end - bytes.data() : bytes.size();
    llvm::StringRef text(reinterpret_cast<const char *>(bytes.data()), length);
    llvm::Expected<EinsumEquation> equation = EinsumEquation::parse(text);
    if (!equation) {
      FUZZ_CHECK(!llvm::toString(equation.takeError()).empty());
      return 0;
    }
    checkRoundTrip(*equation);
    llvm::ArrayRef<uint8_t> shapeBytes =
        end ? bytes.drop_front(length + 1) : llvm::ArrayRef<uint8_t>();
    resolveAndCheck(*equation, readShapes(shapeBytes, equation->numInputs()));
    return 0;
  }

  // Sublists: 2-byte little-endian entries, 0x7fff separates sublists and
  // 0x7ffe stands for the ellipsis; other values map onto [-300, 300).
  SmallVector<SmallVector<int64_t>> lists(1);
  for (size_t i = 1; i + 1 < bytes.size(); i += 2) {
    unsigned value = bytes[i] | (unsigned(bytes[i + 1]) << 8);
    if (value == 0x7fff) {
      if (lists.size() < 64)
        lists.emplace_back();
      continue;
    }
    lists.back().push_back(value == 0x7ffe ? kSublistEllipsis
                                           : int64_t(value % 600) - 300);
  }
  bool explicitOutput = bytes.size() > 0 && bytes[0] % 2 == 1;
  std::optional<llvm::ArrayRef<int64_t>> output;
  SmallVector<int64_t> outputList;
  if (explicitOutput && lists.size() > 1) {
    outputList = lists.pop_back_val();
    output = outputList;
  }
  llvm::Expected<EinsumEquation> equation =
      EinsumEquation::fromSublists(lists, output);
  if (!equation) {
    FUZZ_CHECK(!llvm::toString(equation.takeError()).empty());
    return 0;
  }
  checkRoundTrip(*equation);
  SmallVector<SmallVector<int64_t>> shapes;
  for (const EinsumTerm &term : equation->getInputs())
    shapes.emplace_back(term.numLabels() + (term.hasEllipsis() ? 1 : 0), 2);
  resolveAndCheck(*equation, shapes);
  return 0;
}
