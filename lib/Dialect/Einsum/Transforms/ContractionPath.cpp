//===- ContractionPath.cpp - contraction path search for einsums -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/ContractionPath.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir::einsum;
using llvm::SmallVector;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<PathStrategy> mlir::einsum::parsePathStrategy(StringRef name) {
  return llvm::StringSwitch<std::optional<PathStrategy>>(name)
      .Case("auto", PathStrategy::Auto)
      .Case("optimal", PathStrategy::Optimal)
      .Case("dp", PathStrategy::DP)
      .Case("greedy", PathStrategy::Greedy)
      .Case("left-to-right", PathStrategy::LeftToRight)
      .Default(std::nullopt);
}

StringRef mlir::einsum::getName(PathStrategy strategy) {
  switch (strategy) {
  case PathStrategy::Auto:
    return "auto";
  case PathStrategy::Optimal:
    return "optimal";
  case PathStrategy::DP:
    return "dp";
  case PathStrategy::Greedy:
    return "greedy";
  case PathStrategy::LeftToRight:
    return "left-to-right";
  case PathStrategy::Explicit:
    return "explicit";
  }
  llvm_unreachable("unknown strategy");
}

llvm::Error mlir::einsum::parsePathOption(StringRef text,
                                          PathOptions &options) {
  if (!text.consume_front("explicit:")) {
    std::optional<PathStrategy> strategy = parsePathStrategy(text);
    if (!strategy)
      return makeError("unknown path strategy '" + text +
                       "' (expected auto, optimal, dp, greedy, left-to-right "
                       "or explicit:STEPS, e.g. explicit:1,2;0,1)");
    options.strategy = *strategy;
    return llvm::Error::success();
  }
  options.strategy = PathStrategy::Explicit;
  options.explicitPath.clear();
  SmallVector<StringRef> steps;
  text.split(steps, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef step : steps) {
    SmallVector<StringRef> positions;
    step.split(positions, ',');
    options.explicitPath.emplace_back();
    for (StringRef position : positions) {
      unsigned value;
      if (position.trim().getAsInteger(10, value))
        return makeError("explicit path: '" + position +
                         "' is not a tensor position (steps are positions "
                         "separated by ',', steps by ';')");
      options.explicitPath.back().push_back(value);
    }
  }
  return llvm::Error::success();
}

std::optional<PathObjective> mlir::einsum::parsePathObjective(StringRef name) {
  return llvm::StringSwitch<std::optional<PathObjective>>(name)
      .Case("flops", PathObjective::Flops)
      .Case("memory", PathObjective::Memory)
      .Default(std::nullopt);
}

llvm::Error mlir::einsum::parseSizeHint(StringRef hint, PathOptions &options) {
  auto [label, value] = hint.split('=');
  int64_t size;
  std::optional<int> id =
      label.size() == 1 ? charToLabel(label.front()) : std::nullopt;
  if (!id || value.getAsInteger(10, size) || size < 0)
    return makeError("size hint '" + hint +
                     "' is not LABEL=SIZE (e.g. 'i=128')");
  options.sizeHints[*id] = size;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The problem: leaves (operands after their unary steps) as dim masks
//===----------------------------------------------------------------------===//

namespace {
using Mask = uint64_t;
/// Search sets of leaves are masks too.
using Set = uint64_t;

constexpr unsigned kMaxDims = 64;
/// Connected subsets the dp strategy enumerates before it gives up.
constexpr size_t kMaxDPSubsets = 1 << 16;
/// Work a dynamic-programming search does before it gives up (about 0.2 s
/// here), counted per pair of subsets examined: 1 for a pair that overlaps,
/// the number of tensors for one that is costed. `optimal` is exhaustive,
/// about 3^n pairs for n tensors, so it completes up to about 12 of them
/// and gives way to `dp` beyond (opt_einsum also bounds its optimal
/// search).
constexpr uint64_t kMaxSearchWork = uint64_t(1) << 23;

class Problem {
public:
  Problem(const EinsumResolution &res, const PathOptions &options)
      : res(res), options(options) {}

  llvm::Error init();

  unsigned numLeaves() const { return leafDims.size(); }
  Set fullSet() const {
    return numLeaves() == 64 ? ~Set(0) : (Set(1) << numLeaves()) - 1;
  }

  Mask dimsOf(Set s) const { return accumulate(s, leafDims); }
  Mask fullOf(Set s) const { return accumulate(s, leafFull); }
  /// Dims a tensor for `s` keeps: those used outside `s` or in the output.
  Mask keepOf(Set s) const {
    return dimsOf(s) & (dimsOf(fullSet() & ~s) | outputMask);
  }
  double sizeOf(Mask dims, Mask full) const {
    double n = 1;
    for (unsigned d = 0; d < numDims; ++d)
      if (dims >> d & 1)
        n *= (full >> d & 1) ? size[d] : 1;
    return n;
  }
  /// Cost of contracting the tensors of `a` and `b`.
  double stepFlops(Set a, Set b) const {
    double flops = 2 * sizeOf(keepOf(a) | keepOf(b), fullOf(a | b));
    if (options.operandElementFlops != 0 || options.resultElementFlops != 0)
      flops += options.operandElementFlops *
                   (sizeOf(keepOf(a), fullOf(a)) +
                    sizeOf(keepOf(b), fullOf(b))) +
               options.resultElementFlops * sizeOf(keepOf(a | b), fullOf(a | b));
    return flops;
  }
  double resultBytes(Set s) const {
    return sizeOf(keepOf(s), fullOf(s)) * options.elementBytes;
  }
  bool exceedsLimit(Set s) const {
    return options.memoryLimit && s != fullSet() &&
           resultBytes(s) > static_cast<double>(options.memoryLimit);
  }
  bool better(double flops, double peak, double otherFlops,
              double otherPeak) const {
    if (options.objective == PathObjective::Memory)
      return peak < otherPeak || (peak == otherPeak && flops < otherFlops);
    return flops < otherFlops || (flops == otherFlops && peak < otherPeak);
  }

  /// Appends the step that contracts the tensors `inputs` (tensor ids) with
  /// dims `loop` into a tensor of dims `result`.
  unsigned addStep(SmallVector<unsigned, 2> inputs, Mask result, Mask full,
                   double flops, ContractionPath &path);
  std::string termOf(Mask dims) const;

  const EinsumResolution &res;
  const PathOptions &options;
  unsigned numDims = 0;
  SmallVector<double> size;
  SmallVector<int64_t> staticSize;
  Mask outputMask = 0;
  SmallVector<Mask> leafDims, leafFull;
  SmallVector<char> letter;
  /// Per leaf: the tensor id it is (an operand or a unary step's result).
  SmallVector<unsigned> leafTensor;
  /// Per tensor id: its term.
  SmallVector<std::string> terms;
  /// The unary steps.
  ContractionPath prefix;

private:
  Mask accumulate(Set s, llvm::ArrayRef<Mask> masks) const {
    Mask m = 0;
    for (unsigned i = 0; i < masks.size(); ++i)
      if (s >> i & 1)
        m |= masks[i];
    return m;
  }
};
} // namespace

std::string Problem::termOf(Mask dims) const {
  // Dims a later step sums come first and output dims last, in output order:
  // the loop nests keep the output's last dim innermost, so intermediates
  // are then read with unit stride there.
  std::string term;
  unsigned numOut = res.numOutputDims();
  for (unsigned d = numOut; d < numDims; ++d)
    if (dims >> d & 1)
      term += letter[d];
  for (unsigned d = 0; d < numOut; ++d)
    if (dims >> d & 1)
      term += letter[d];
  return term;
}

unsigned Problem::addStep(SmallVector<unsigned, 2> inputs, Mask result,
                          Mask full, double flops, ContractionPath &path) {
  PathStep step;
  step.inputs = inputs;
  std::string resultTerm = termOf(result);
  for (auto [i, t] : llvm::enumerate(inputs))
    step.equation += (i ? "," : "") + terms[t];
  step.equation += "->" + resultTerm;
  double bytes = options.elementBytes;
  for (char c : resultTerm) {
    unsigned d = llvm::find(letter, c) - letter.begin();
    bool isFull = full >> d & 1;
    step.shape.push_back(isFull ? staticSize[d] : 1);
    bytes *= isFull ? size[d] : 1;
  }
  step.flops = flops;
  // Saturated: sizes whose product exceeds 64 bits (an empty path through
  // huge dims) are reported as the largest count.
  step.bytes = bytes >= 18446744073709551615.0
                   ? std::numeric_limits<uint64_t>::max()
                   : static_cast<uint64_t>(bytes);
  path.steps.push_back(std::move(step));
  terms.push_back(resultTerm);
  return terms.size() - 1;
}

llvm::Error Problem::init() {
  numDims = res.numDims();
  if (numDims > kMaxDims || numDims > static_cast<unsigned>(kNumLabels))
    return makeError(llvm::formatv("the einsum has {0} distinct dims; a path "
                                   "can name at most 52",
                                   numDims)
                         .str());
  if (res.operands.size() > 64)
    return makeError("a path can be searched for at most 64 operands");
  // Sizes, with hints for dynamic dims.
  for (const EinsumLoopDim &dim : res.dims) {
    staticSize.push_back(dim.size);
    int64_t assumed = dim.size;
    if (dim.isDynamic()) {
      assumed = options.defaultDynamicSize;
      if (!dim.isEllipsis() && options.sizeHints[dim.label] > 0)
        assumed = options.sizeHints[dim.label];
    }
    size.push_back(static_cast<double>(assumed));
  }
  for (unsigned d = 0; d < res.numOutputDims(); ++d)
    outputMask |= Mask(1) << d;

  // Letters: labels keep theirs, ellipsis dims take unused ones.
  std::array<bool, kNumLabels> used{};
  for (const EinsumLoopDim &dim : res.dims)
    if (!dim.isEllipsis())
      used[dim.label] = true;
  int next = 0;
  for (const EinsumLoopDim &dim : res.dims) {
    if (!dim.isEllipsis()) {
      letter.push_back(labelToChar(dim.label));
      continue;
    }
    while (used[next])
      ++next;
    used[next] = true;
    letter.push_back(labelToChar(next));
  }

  // Operands and their unary steps.
  unsigned n = res.operands.size();
  SmallVector<Mask> dims(n, 0), full(n, 0);
  for (auto [i, map] : llvm::enumerate(res.operands)) {
    std::string term;
    for (auto [axis, dim] : llvm::enumerate(map.dims)) {
      dims[i] |= Mask(1) << dim;
      if (!map.broadcast[axis])
        full[i] |= Mask(1) << dim;
      term += letter[dim];
    }
    terms.push_back(term);
  }
  for (unsigned i = 0; i < n; ++i) {
    Mask others = outputMask;
    for (unsigned j = 0; j < n; ++j)
      if (j != i)
        others |= dims[j];
    Mask needed = dims[i] & others;
    bool diagonal = !res.operands[i].diagonalGroups().empty();
    if (n > 1 && (diagonal || needed != dims[i])) {
      double flops = sizeOf(dims[i], full[i]);
      unsigned id = addStep({i}, needed, full[i] & needed, flops, prefix);
      leafTensor.push_back(id);
      prefix.largestIntermediateBytes =
          std::max(prefix.largestIntermediateBytes, prefix.steps.back().bytes);
    } else {
      leafTensor.push_back(i);
    }
    leafDims.push_back(needed);
    leafFull.push_back(full[i] & needed);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Strategies: each returns a binary tree as a list of merges of leaf sets
//===----------------------------------------------------------------------===//

namespace {
/// A pairwise order: each merge joins two disjoint sets of leaves.
using Merges = SmallVector<std::pair<Set, Set>>;

struct DPEntry {
  double flops = 0;
  double peak = 0;
  Set left = 0;
};

/// Dynamic programming over subsets; with `connectedOnly`, only subsets
/// whose two halves share a dim (no outer products). Returns std::nullopt
/// when the full set cannot be formed (limit, disconnected) or when more
/// than `maxSubsets` subsets or kMaxSearchWork would be needed
/// (`gaveUp` is set then).
std::optional<Merges> searchDP(const Problem &p, bool connectedOnly,
                               size_t maxSubsets, bool &gaveUp) {
  gaveUp = false;
  uint64_t pairs = 0;
  unsigned n = p.numLeaves();
  llvm::DenseMap<Set, DPEntry> best;
  SmallVector<SmallVector<Set>> bySize(n + 1);
  for (unsigned i = 0; i < n; ++i) {
    best[Set(1) << i] = DPEntry();
    bySize[1].push_back(Set(1) << i);
  }
  for (unsigned k = 2; k <= n; ++k) {
    for (unsigned i = 1; i <= k / 2; ++i) {
      for (Set a : bySize[i]) {
        for (Set b : bySize[k - i]) {
          // Work: a pair that overlaps costs a test; one that is costed,
          // a walk over the leaves.
          pairs += (a & b) ? 1 : n;
          if (pairs > kMaxSearchWork) {
            gaveUp = true;
            return std::nullopt;
          }
          if ((a & b) || (i == k - i && a > b))
            continue;
          if (connectedOnly && !(p.dimsOf(a) & p.dimsOf(b)))
            continue;
          Set s = a | b;
          if (p.exceedsLimit(s))
            continue;
          const DPEntry &ea = best[a];
          const DPEntry &eb = best[b];
          double flops = ea.flops + eb.flops + p.stepFlops(a, b);
          double peak = std::max(ea.peak, eb.peak);
          if (s != p.fullSet())
            peak = std::max(peak, p.resultBytes(s));
          auto it = best.find(s);
          if (it == best.end()) {
            best[s] = DPEntry{flops, peak, a};
            bySize[k].push_back(s);
            if (best.size() > maxSubsets) {
              gaveUp = true;
              return std::nullopt;
            }
          } else if (p.better(flops, peak, it->second.flops,
                              it->second.peak)) {
            it->second = DPEntry{flops, peak, a};
          }
        }
      }
    }
  }
  if (!best.count(p.fullSet()))
    return std::nullopt;
  Merges merges;
  std::function<void(Set)> unfold = [&](Set s) {
    Set a = best[s].left;
    if (!a)
      return;
    unfold(a);
    unfold(s & ~a);
    merges.push_back({a, s & ~a});
  };
  unfold(p.fullSet());
  return merges;
}

/// Repeatedly contracts the pair whose result grows memory the least (or
/// shrinks it the most), preferring pairs that share a dim.
std::optional<Merges> searchGreedy(const Problem &p) {
  SmallVector<Set> nodes;
  for (unsigned i = 0; i < p.numLeaves(); ++i)
    nodes.push_back(Set(1) << i);
  Merges merges;
  while (nodes.size() > 1) {
    int bestA = -1, bestB = -1;
    bool bestConnected = false;
    double bestScore = 0, bestFlops = 0;
    for (unsigned a = 0; a < nodes.size(); ++a) {
      for (unsigned b = a + 1; b < nodes.size(); ++b) {
        Set s = nodes[a] | nodes[b];
        if (p.exceedsLimit(s))
          continue;
        bool connected = p.dimsOf(nodes[a]) & p.dimsOf(nodes[b]);
        double score = p.resultBytes(s) - p.resultBytes(nodes[a]) -
                       p.resultBytes(nodes[b]);
        if (!connected) // Outer products: the two smallest first.
          score = p.resultBytes(nodes[a]) + p.resultBytes(nodes[b]);
        double flops = p.stepFlops(nodes[a], nodes[b]);
        bool take = bestA < 0 || (connected && !bestConnected) ||
                    (connected == bestConnected &&
                     (score < bestScore ||
                      (score == bestScore && flops < bestFlops)));
        if (take) {
          bestA = a;
          bestB = b;
          bestConnected = connected;
          bestScore = score;
          bestFlops = flops;
        }
      }
    }
    if (bestA < 0)
      return std::nullopt;
    merges.push_back({nodes[bestA], nodes[bestB]});
    nodes[bestA] |= nodes[bestB];
    nodes.erase(nodes.begin() + bestB);
  }
  return merges;
}

/// The merges of an explicit path (checked by checkExplicitPath): each step
/// joins its tensors left to right; the result goes to the end of the list.
/// std::nullopt when a step exceeds the memory limit.
std::optional<Merges> followExplicit(const Problem &p) {
  SmallVector<Set> nodes;
  for (unsigned i = 0; i < p.numLeaves(); ++i)
    nodes.push_back(Set(1) << i);
  Merges merges;
  for (const SmallVector<unsigned, 2> &step : p.options.explicitPath) {
    Set joined = 0;
    for (unsigned position : step) {
      if (joined) {
        if (p.exceedsLimit(joined | nodes[position]))
          return std::nullopt;
        merges.push_back({joined, nodes[position]});
      }
      joined |= nodes[position];
    }
    SmallVector<unsigned, 2> sorted(step);
    llvm::sort(sorted);
    for (unsigned position : llvm::reverse(sorted))
      nodes.erase(nodes.begin() + position);
    nodes.push_back(joined);
  }
  return merges;
}

std::optional<Merges> searchLeftToRight(const Problem &p) {
  Merges merges;
  Set acc = 1;
  for (unsigned i = 1; i < p.numLeaves(); ++i) {
    Set s = acc | (Set(1) << i);
    if (p.exceedsLimit(s))
      return std::nullopt;
    merges.push_back({acc, Set(1) << i});
    acc = s;
  }
  return merges;
}

/// Runs `strategy` (resolving auto); sets `used` to what ran and `note` to
/// why, where a search gave up and another ran.
std::optional<Merges> search(const Problem &p, PathStrategy strategy,
                             PathStrategy &used, std::string &note) {
  unsigned n = p.numLeaves();
  if (strategy == PathStrategy::Auto)
    strategy = n <= 8    ? PathStrategy::Optimal
               : n <= 20 ? PathStrategy::DP
                         : PathStrategy::Greedy;
  used = strategy;
  bool gaveUp = false;
  switch (strategy) {
  case PathStrategy::Optimal:
    if (auto merges = searchDP(p, /*connectedOnly=*/false, ~size_t(0), gaveUp))
      return merges;
    if (!gaveUp)
      return std::nullopt; // The memory limit: no search does better.
    note = "optimal gave up at its work limit (" + std::to_string(n) +
           " tensors)";
    [[fallthrough]];
  case PathStrategy::DP:
    used = PathStrategy::DP;
    if (auto merges =
            searchDP(p, /*connectedOnly=*/true, kMaxDPSubsets, gaveUp))
      return merges;
    // Disconnected (outer products), too many subsets, or the limit: the
    // greedy search handles all three.
    if (gaveUp)
      note += std::string(note.empty() ? "" : "; ") +
              "dp gave up at its work limit";
    used = PathStrategy::Greedy;
    return searchGreedy(p);
  case PathStrategy::Greedy:
    return searchGreedy(p);
  case PathStrategy::LeftToRight:
    return searchLeftToRight(p);
  case PathStrategy::Explicit:
    return followExplicit(p);
  case PathStrategy::Auto:
    break;
  }
  llvm_unreachable("auto was resolved");
}
} // namespace

/// An explicit path over `n` tensors: positions within the list, distinct
/// in a step, and one tensor left at the end.
static llvm::Error
checkExplicitPath(llvm::ArrayRef<SmallVector<unsigned, 2>> path, unsigned n) {
  unsigned count = n;
  for (auto [k, step] : llvm::enumerate(path)) {
    if (step.empty())
      return makeError(llvm::formatv("explicit path: step {0} is empty", k)
                           .str());
    for (auto [i, position] : llvm::enumerate(step)) {
      if (position >= count)
        return makeError(llvm::formatv("explicit path: step {0} names "
                                       "tensor {1}, but there are {2}",
                                       k, position, count)
                             .str());
      if (llvm::is_contained(llvm::ArrayRef(step).take_front(i), position))
        return makeError(llvm::formatv("explicit path: step {0} names "
                                       "tensor {1} twice",
                                       k, position)
                             .str());
    }
    count = count - step.size() + 1;
  }
  if (count != 1)
    return makeError(llvm::formatv("explicit path: it leaves {0} tensors, "
                                   "not one",
                                   count)
                         .str());
  return llvm::Error::success();
}

llvm::Expected<ContractionPath>
mlir::einsum::findContractionPath(const EinsumResolution &res,
                                  const PathOptions &options) {
  Problem p(res, options);
  if (llvm::Error err = p.init())
    return std::move(err);
  if (res.operands.empty())
    return makeError("an einsum has at least one operand");

  if (options.strategy == PathStrategy::Explicit)
    if (llvm::Error err =
            checkExplicitPath(options.explicitPath, p.numLeaves()))
      return std::move(err);

  // An empty iteration space (a dim of size 0): the result is zeros, and
  // no step may materialize an intermediate of the other, possibly huge,
  // dims (i,j,ijk-> with k = 0 would otherwise sum k out of ijk first).
  // The whole einsum is one step that computes nothing.
  if (res.iterationCount() == std::optional<uint64_t>(0)) {
    ContractionPath path;
    path.strategy = options.strategy;
    path.searchNote = "the iteration space is empty: one step, no search";
    PathStep step;
    for (unsigned i = 0; i < res.operands.size(); ++i) {
      step.inputs.push_back(i);
      step.equation += (i ? "," : "") + p.terms[i];
    }
    step.equation += "->" + p.termOf(p.outputMask);
    step.shape.assign(res.outputShape.begin(), res.outputShape.end());
    uint64_t elements = res.outputElementCount().value_or(0);
    bool overflow = false;
    step.bytes = llvm::SaturatingMultiply<uint64_t>(
        elements, options.elementBytes, &overflow);
    path.steps.push_back(std::move(step));
    return path;
  }

  ContractionPath path = p.prefix;
  double naive = res.operands.size();
  for (double s : p.size)
    naive *= s;
  // One loop nest reads each operand and writes the result once.
  for (const EinsumOperandMap &map : res.operands) {
    double elements = 1;
    for (auto [axis, dim] : llvm::enumerate(map.dims))
      elements *= map.broadcast[axis] ? 1 : p.size[dim];
    naive += options.operandElementFlops * elements;
  }
  double outputElements = 1;
  for (unsigned d = 0; d < res.numOutputDims(); ++d)
    outputElements *= p.size[d];
  naive += options.resultElementFlops * outputElements;
  path.naiveFlops = naive;

  // The limit covers the unary steps' results too; they are never larger
  // than their operand, but may be larger than the limit.
  auto limitError = [&](PathStrategy strategy) -> llvm::Error {
    // Report how small the largest intermediate can be.
    PathOptions relaxed = options;
    relaxed.memoryLimit = 0;
    relaxed.objective = PathObjective::Memory;
    relaxed.strategy = PathStrategy::Auto;
    uint64_t smallest = 0;
    if (auto best = findContractionPath(res, relaxed))
      smallest = best->largestIntermediateBytes;
    else
      llvm::consumeError(best.takeError());
    return makeError(
        llvm::formatv("no contraction path keeps every intermediate within "
                      "the memory limit of {0} bytes (strategy {1}; "
                      "minimizing memory, the largest intermediate needs "
                      "{2} bytes)",
                      options.memoryLimit, getName(strategy), smallest)
            .str());
  };
  if (options.memoryLimit &&
      path.largestIntermediateBytes > options.memoryLimit)
    return limitError(options.strategy);

  unsigned n = p.numLeaves();
  if (n == 1) {
    // One operand: the whole einsum is one step.
    if (path.steps.empty())
      p.addStep({0}, p.outputMask, p.leafFull[0] & p.outputMask,
                p.sizeOf(p.leafDims[0], p.leafFull[0]), path);
    path.strategy = options.strategy;
  } else {
    std::optional<Merges> merges =
        search(p, options.strategy, path.strategy, path.searchNote);
    if (!merges)
      return limitError(path.strategy);
    llvm::DenseMap<Set, unsigned> tensorOf;
    for (unsigned i = 0; i < n; ++i)
      tensorOf[Set(1) << i] = p.leafTensor[i];
    for (auto [a, b] : *merges) {
      Set s = a | b;
      unsigned id = p.addStep({tensorOf[a], tensorOf[b]}, p.keepOf(s),
                              p.fullOf(s) & p.keepOf(s), p.stepFlops(a, b),
                              path);
      tensorOf[s] = id;
      if (s != p.fullSet())
        path.largestIntermediateBytes =
            std::max(path.largestIntermediateBytes, path.steps.back().bytes);
    }
  }
  for (const PathStep &step : path.steps)
    path.optimizedFlops += step.flops;
  return path;
}

double mlir::einsum::bruteForceOptimalFlops(const EinsumResolution &res,
                                            const PathOptions &options) {
  Problem p(res, options);
  if (llvm::Error err = p.init()) {
    llvm::consumeError(std::move(err));
    return -1;
  }
  double prefixFlops = 0;
  for (const PathStep &step : p.prefix.steps)
    prefixFlops += step.flops;
  SmallVector<Set> nodes;
  for (unsigned i = 0; i < p.numLeaves(); ++i)
    nodes.push_back(Set(1) << i);
  std::function<double(SmallVector<Set> &)> recurse =
      [&](SmallVector<Set> &list) -> double {
    if (list.size() == 1)
      return 0;
    double best = INFINITY;
    for (unsigned a = 0; a < list.size(); ++a) {
      for (unsigned b = a + 1; b < list.size(); ++b) {
        SmallVector<Set> next;
        for (unsigned k = 0; k < list.size(); ++k)
          if (k != a && k != b)
            next.push_back(list[k]);
        next.push_back(list[a] | list[b]);
        best = std::min(best, p.stepFlops(list[a], list[b]) + recurse(next));
      }
    }
    return best;
  };
  if (nodes.size() == 1)
    return prefixFlops + (p.prefix.steps.empty()
                              ? p.sizeOf(p.leafDims[0], p.leafFull[0])
                              : 0);
  return prefixFlops + recurse(nodes);
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

static std::string formatCount(double value) {
  if (value < 9007199254740992.0)
    return llvm::formatv("{0}", static_cast<uint64_t>(value)).str();
  return llvm::formatv("{0:e}", value).str();
}

static std::string shapeText(llvm::ArrayRef<int64_t> shape,
                             StringRef separator) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += separator;
    s += d == kDynamicSize ? std::string(separator == "x" ? "?" : "null")
                           : std::to_string(d);
  }
  return s;
}

std::string ContractionPath::getReport(StringRef equation) const {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "einsum path for '" << equation << "', strategy "
     << getName(strategy);
  if (!searchNote.empty())
    os << " (" << searchNote << ")";
  os << ":\n";
  for (auto [i, step] : llvm::enumerate(steps)) {
    std::string inputs;
    for (auto [k, t] : llvm::enumerate(step.inputs))
      inputs += (k ? ", " : "") + std::to_string(t);
    os << llvm::formatv("  step {0}: {1} (tensors {2}) -> shape [{3}], {4} "
                        "bytes, {5} flops\n",
                        i, step.equation, inputs, shapeText(step.shape, "x"),
                        step.bytes, formatCount(step.flops));
  }
  os << llvm::formatv("  naive flops {0}, optimized flops {1}, speedup "
                      "{2:f2}x\n",
                      formatCount(naiveFlops), formatCount(optimizedFlops),
                      optimizedFlops > 0 ? naiveFlops / optimizedFlops : 1.0);
  os << "  largest intermediate " << largestIntermediateBytes << " bytes\n";
  return out;
}

std::string ContractionPath::getJSON(StringRef equation) const {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto quote = [](StringRef s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\')
        q += '\\';
      q += c;
    }
    return q + "\"";
  };
  os << "{\"equation\": " << quote(equation) << ", \"strategy\": "
     << quote(getName(strategy)) << ", \"search_note\": " << quote(searchNote)
     << ", \"naive_flops\": "
     << formatCount(naiveFlops) << ", \"optimized_flops\": "
     << formatCount(optimizedFlops) << ", \"speedup\": "
     << llvm::formatv("{0:f4}",
                      optimizedFlops > 0 ? naiveFlops / optimizedFlops : 1.0)
     << ", \"largest_intermediate_bytes\": " << largestIntermediateBytes
     << ", \"steps\": [";
  for (auto [i, step] : llvm::enumerate(steps)) {
    os << (i ? ", " : "") << "{\"equation\": " << quote(step.equation)
       << ", \"inputs\": [";
    for (auto [k, t] : llvm::enumerate(step.inputs))
      os << (k ? ", " : "") << t;
    os << "], \"flops\": " << formatCount(step.flops) << ", \"shape\": ["
       << shapeText(step.shape, ", ") << "], \"bytes\": " << step.bytes
       << "}";
  }
  os << "]}\n";
  return out;
}
