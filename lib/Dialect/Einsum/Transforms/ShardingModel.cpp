//===- ShardingModel.cpp - distributing einsums over a grid -----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Transforms/ShardingModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::einsum;

SplitAxes mlir::einsum::getSplitAxes(const StepSharding &plan,
                                     llvm::ArrayRef<unsigned> dims) {
  SplitAxes split(dims.size());
  for (auto [axis, dim] : llvm::enumerate(dims))
    for (auto [gridAxis, splitDim] : llvm::enumerate(plan.axisDims))
      if (splitDim == static_cast<int>(dim))
        split[axis].push_back(static_cast<int16_t>(gridAxis));
  return split;
}

static int64_t getSplitCount(llvm::ArrayRef<int16_t> axes,
                             llvm::ArrayRef<int64_t> grid) {
  int64_t count = 1;
  for (int16_t axis : axes)
    count *= grid[axis];
  return count;
}

llvm::SmallVector<int64_t>
mlir::einsum::getShardShape(llvm::ArrayRef<int64_t> shape,
                            const SplitAxes &split,
                            llvm::ArrayRef<int64_t> grid) {
  llvm::SmallVector<int64_t> result(shape);
  for (auto [size, axes] : llvm::zip(result, split))
    size /= getSplitCount(axes, grid);
  return result;
}

llvm::SmallVector<int64_t> mlir::einsum::getShardOffsets(
    llvm::ArrayRef<int64_t> shape, const SplitAxes &split,
    llvm::ArrayRef<int64_t> grid, llvm::ArrayRef<int64_t> coords) {
  llvm::SmallVector<int64_t> offsets(shape.size(), 0);
  for (auto [axis, axes] : llvm::enumerate(split)) {
    // Mixed radix over the grid axes, the first most significant.
    int64_t index = 0;
    for (int16_t gridAxis : axes)
      index = index * grid[gridAxis] + coords[gridAxis];
    offsets[axis] = index * (shape[axis] / getSplitCount(axes, grid));
  }
  return offsets;
}

llvm::SmallVector<int64_t>
mlir::einsum::getGridCoordinates(int64_t rank, llvm::ArrayRef<int64_t> grid) {
  llvm::SmallVector<int64_t> coords(grid.size(), 0);
  for (int axis = static_cast<int>(grid.size()) - 1; axis >= 0; --axis) {
    coords[axis] = rank % grid[axis];
    rank /= grid[axis];
  }
  return coords;
}

llvm::Expected<llvm::SmallVector<int64_t>>
mlir::einsum::parseGrid(llvm::StringRef text) {
  auto bad = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "grid '" + text + "': " + why);
  };
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  if (parts.size() > 3)
    return bad("at most 3 axes (e.g. 4, 2x2 or 2x2x2)");
  llvm::SmallVector<int64_t> grid;
  int64_t ranks = 1;
  for (llvm::StringRef part : parts) {
    int64_t size = 0;
    if (part.getAsInteger(10, size) || size < 1 || size > (1 << 20))
      return bad("each axis is a number of ranks from 1 to 2^20, e.g. 2x2");
    grid.push_back(size);
    ranks *= size;
    if (ranks > (1 << 20))
      return bad("more than 2^20 ranks");
  }
  return grid;
}

std::string mlir::einsum::formatGrid(llvm::ArrayRef<int64_t> grid) {
  std::string text;
  for (auto [i, size] : llvm::enumerate(grid))
    text += (i ? "x" : "") + std::to_string(size);
  return text;
}

namespace {
/// Bytes of a tensor whose axes are `dims`, split as `axisDims` says.
double blockBytes(const mlir::einsum::ShardingStep &step,
                  llvm::ArrayRef<unsigned> dims, llvm::ArrayRef<int> axisDims,
                  llvm::ArrayRef<int64_t> grid, unsigned elementBytes) {
  double bytes = elementBytes;
  for (unsigned dim : dims) {
    int64_t count = 1;
    for (auto [gridAxis, splitDim] : llvm::enumerate(axisDims))
      if (splitDim == static_cast<int>(dim))
        count *= grid[gridAxis];
    bytes *= static_cast<double>(step.dimSizes[dim] / count);
  }
  return bytes;
}

/// The least operand + result volume over real split factors (see the
/// header): dims that index the same tensors form one class; the classes'
/// shares of log(ranks) run over a grid of 1/kSteps.
double lowerBound(const mlir::einsum::ShardingStep &step, int64_t ranks,
                  unsigned elementBytes) {
  unsigned numTensors = step.operandDims.size() + 1;
  llvm::SmallVector<unsigned> masks(step.dimSizes.size(), 0);
  for (auto [t, dims] : llvm::enumerate(step.operandDims))
    for (unsigned dim : dims)
      masks[dim] |= 1u << t;
  for (unsigned dim : step.resultDims)
    masks[dim] |= 1u << (numTensors - 1);
  // Class extents by membership mask.
  llvm::SmallVector<std::pair<unsigned, double>> classes;
  for (unsigned dim = 0, e = masks.size(); dim < e; ++dim) {
    unsigned mask = masks[dim];
    auto *it = llvm::find_if(classes, [&](auto &c) { return c.first == mask; });
    if (it == classes.end())
      classes.push_back({mask, static_cast<double>(step.dimSizes[dim])});
    else
      it->second *= static_cast<double>(step.dimSizes[dim]);
  }
  const unsigned kSteps = classes.size() > 5 ? 12 : 24;
  double logRanks = std::log(static_cast<double>(ranks));
  double best = std::numeric_limits<double>::infinity();
  llvm::SmallVector<double> split(classes.size(), 1.0);
  std::function<void(unsigned, unsigned)> visit = [&](unsigned c,
                                                      unsigned left) {
    if (c + 1 == classes.size() || classes.empty()) {
      if (!classes.empty()) {
        split[c] = std::exp(logRanks * left / kSteps);
        if (split[c] > classes[c].second * (1 + 1e-9))
          return;
      } else if (left) {
        return;
      }
      double volume = 0;
      for (unsigned t = 0; t < numTensors; ++t) {
        double elements = 1;
        for (auto [k, cls] : llvm::enumerate(classes))
          if (cls.first & (1u << t))
            elements *= cls.second / split[k];
        volume += elements;
      }
      best = std::min(best, volume);
      return;
    }
    for (unsigned share = 0; share <= left; ++share) {
      split[c] = std::exp(logRanks * share / kSteps);
      if (split[c] > classes[c].second * (1 + 1e-9))
        break;
      visit(c + 1, left - share);
    }
  };
  visit(0, kSteps);
  if (!std::isfinite(best))
    return 0;
  return best * elementBytes;
}

/// Whether the consumer's split of an operand is the producer's, or the
/// producer's with one more grid axis appended to one tensor axis (an
/// all_slice: no communication).
bool isReachableWithoutGather(const SplitAxes &produced,
                              const SplitAxes &needed) {
  unsigned added = 0;
  for (auto [have, want] : llvm::zip(produced, needed)) {
    if (have.size() > want.size() ||
        !std::equal(have.begin(), have.end(), want.begin()))
      return false;
    added += want.size() - have.size();
  }
  return added <= 1;
}
} // namespace

/// Plans the steps in order; where `replicateIntermediates`, a step whose
/// result feeds a later step splits summed dims only, so that its result is
/// replicated (after the all-reduce) and any consumer can slice it. Returns
/// an empty plan where some step has no split its producers allow.
static llvm::SmallVector<StepSharding>
planInOrder(llvm::ArrayRef<ShardingStep> steps, llvm::ArrayRef<int64_t> grid,
            unsigned elementBytes, bool replicateIntermediates) {
  llvm::SmallVector<bool> feedsLaterStep(steps.size(), false);
  for (const ShardingStep &step : steps)
    for (int producer : step.producers)
      if (producer >= 0)
        feedsLaterStep[producer] = true;
  int64_t ranks = 1;
  for (int64_t size : grid)
    ranks *= size;
  llvm::SmallVector<StepSharding> plans;
  for (unsigned index = 0, e = steps.size(); index < e; ++index) {
    const ShardingStep &step = steps[index];
    unsigned numDims = step.dimSizes.size();
    bool onlySummed = replicateIntermediates && feedsLaterStep[index];
    StepSharding best;
    bool found = false;
    llvm::SmallVector<int> axisDims(grid.size(), -1);
    auto evaluate = [&]() {
      // Each dim's split count divides its size.
      for (unsigned dim = 0; dim < numDims; ++dim) {
        int64_t count = 1;
        for (auto [gridAxis, splitDim] : llvm::enumerate(axisDims))
          if (splitDim == static_cast<int>(dim))
            count *= grid[gridAxis];
        if (step.dimSizes[dim] % count != 0)
          return;
      }
      StepSharding candidate;
      candidate.axisDims = axisDims;
      for (auto [operand, dims] : llvm::enumerate(step.operandDims)) {
        int producer = step.producers[operand];
        if (producer >= 0) {
          const StepSharding &made = plans[producer];
          if (!isReachableWithoutGather(
                  getSplitAxes(made, steps[producer].resultDims),
                  getSplitAxes(candidate, dims)))
            return;
        }
        candidate.operandBytes +=
            blockBytes(step, dims, axisDims, grid, elementBytes);
      }
      candidate.resultBytes =
          blockBytes(step, step.resultDims, axisDims, grid, elementBytes);
      int64_t reduceRanks = 1;
      for (auto [gridAxis, splitDim] : llvm::enumerate(axisDims))
        if (splitDim >= 0 && step.dimIsReduction[splitDim])
          reduceRanks *= grid[gridAxis];
      if (reduceRanks > 1)
        candidate.allReduceBytes = 2.0 * (reduceRanks - 1) / reduceRanks *
                                   candidate.resultBytes;
      candidate.points = 1;
      for (unsigned dim = 0; dim < numDims; ++dim) {
        int64_t count = 1;
        for (auto [gridAxis, splitDim] : llvm::enumerate(axisDims))
          if (splitDim == static_cast<int>(dim))
            count *= grid[gridAxis];
        candidate.points *= static_cast<double>(step.dimSizes[dim] / count);
      }
      double tolerance = 1e-9 * std::max(1.0, best.volume());
      if (!found || candidate.volume() < best.volume() - tolerance ||
          (candidate.volume() <= best.volume() + tolerance &&
           candidate.points < best.points * (1 - 1e-12))) {
        best = std::move(candidate);
        found = true;
      }
    };
    std::function<void(unsigned)> visit = [&](unsigned gridAxis) {
      if (gridAxis == grid.size())
        return evaluate();
      axisDims[gridAxis] = -1;
      visit(gridAxis + 1);
      if (grid[gridAxis] == 1)
        return;
      for (unsigned dim = 0; dim < numDims; ++dim) {
        if (step.dimIsReduction[dim] ? !step.reductionsSplittable
                                     : onlySummed)
          continue;
        axisDims[gridAxis] = dim;
        visit(gridAxis + 1);
      }
      axisDims[gridAxis] = -1;
    };
    visit(0);
    // Two operands whose producers split different dims over one grid axis
    // leave no split: the caller plans again with replicated
    // intermediates, where splitting nothing is always reachable.
    if (!found)
      return {};
    if (llvm::all_of(best.axisDims, [](int d) { return d < 0; }) &&
             ranks > 1)
      best.note = step.reductionsSplittable ||
                          llvm::none_of(step.dimIsReduction,
                                        [](bool summed) { return summed; })
                      ? "not split: no dim's size divides by the grid's axes"
                      : "not split: no free dim's size divides by the grid's "
                        "axes, and the summed dims are not all-reduced "
                        "(semiring, element type or a scalar result)";
    best.lowerBoundBytes = lowerBound(step, ranks, elementBytes);
    plans.push_back(std::move(best));
  }
  return plans;
}

llvm::SmallVector<StepSharding>
mlir::einsum::planSharding(llvm::ArrayRef<ShardingStep> steps,
                           llvm::ArrayRef<int64_t> grid,
                           unsigned elementBytes) {
  llvm::SmallVector<StepSharding> plans =
      planInOrder(steps, grid, elementBytes, /*replicateIntermediates=*/false);
  if (plans.size() == steps.size())
    return plans;
  plans =
      planInOrder(steps, grid, elementBytes, /*replicateIntermediates=*/true);
  assert(plans.size() == steps.size() &&
         "replicated intermediates can always be consumed");
  return plans;
}

static std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(units)) {
    bytes /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:f1} {1}", bytes, units[unit]).str();
}

std::string
mlir::einsum::describeSharding(const ShardingStep &step,
                               const StepSharding &plan,
                               llvm::ArrayRef<int64_t> grid,
                               llvm::ArrayRef<std::string> dimNames) {
  std::string split;
  for (auto [gridAxis, dim] : llvm::enumerate(plan.axisDims)) {
    if (!split.empty())
      split += ", ";
    split += llvm::formatv("axis {0} ({1} ranks): {2}", gridAxis,
                           grid[gridAxis],
                           dim < 0 ? std::string("replicated")
                                   : dimNames[dim] +
                                         (step.dimIsReduction[dim]
                                              ? std::string(" (summed)")
                                              : std::string()))
                 .str();
  }
  double base = plan.operandBytes + plan.resultBytes;
  std::string text = llvm::formatv(
      "einsum '{0}' on grid {1}: {2}; per rank: operands {3}, result {4}, "
      "all-reduce {5} sent and received, {6:e2} points; lower bound on "
      "operands + result {7} ({8:f2}x)",
      step.equation, formatGrid(grid), split, formatBytes(plan.operandBytes),
      formatBytes(plan.resultBytes), formatBytes(plan.allReduceBytes),
      plan.points, formatBytes(plan.lowerBoundBytes),
      plan.lowerBoundBytes > 0 ? base / plan.lowerBoundBytes : 1.0);
  if (!plan.note.empty())
    text += "; " + plan.note;
  return text;
}
