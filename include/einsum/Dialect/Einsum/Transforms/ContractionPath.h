//===- ContractionPath.h - contraction path search for einsums --*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Chooses the order in which an einsum of N operands is computed as a
// sequence of smaller einsums:
//
//   1. every operand with a diagonal, or with a label that occurs in no other
//      operand and not in the output, is first reduced on its own (a unary
//      step), so no later step carries a dim it does not need;
//   2. the remaining tensors are contracted pairwise, in the order the
//      strategy finds: `optimal` (exact dynamic programming over all subsets,
//      up to 8 tensors; equal to brute force), `dp` (dynamic programming over
//      connected subsets, up to about 20), `greedy` (smallest intermediate
//      first), `left-to-right` (what torch 1.13 does), `auto` (by count), or
//      an explicit path in numpy's convention.
//      The dynamic programs have a work budget: past it (optimal at about 14
//      tensors) the next search runs, and the path says so.
//
// An einsum with a dim of size 0 is one step: its result is zeros.
//
// Cost model: a step costs (number of its input tensors) FLOPs per point of
// its iteration space, i.e. 2 per multiply-add for pairwise steps, and its
// result needs (product of its sizes) x (element bytes); a memory limit
// bounds the largest intermediate.
//
// Like the equation layer, this depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_TRANSFORMS_CONTRACTIONPATH_H
#define EINSUM_DIALECT_EINSUM_TRANSFORMS_CONTRACTIONPATH_H

#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"

#include <array>

namespace mlir {
namespace einsum {

enum class PathStrategy { Auto, Optimal, DP, Greedy, LeftToRight, Explicit };
enum class PathObjective { Flops, Memory };

std::optional<PathStrategy> parsePathStrategy(llvm::StringRef name);
llvm::StringRef getName(PathStrategy strategy);
std::optional<PathObjective> parsePathObjective(llvm::StringRef name);

struct PathOptions {
  PathStrategy strategy = PathStrategy::Auto;
  /// The Explicit strategy's path, in numpy's and opt_einsum's convention:
  /// each step lists positions in the current list of tensors (the operands
  /// at first); those tensors are removed and the step's result is appended.
  llvm::SmallVector<llvm::SmallVector<unsigned, 2>> explicitPath;
  PathObjective objective = PathObjective::Flops;
  /// The largest intermediate may have at most this many bytes; 0: no limit.
  uint64_t memoryLimit = 0;
  /// Bytes per element, for intermediate sizes.
  unsigned elementBytes = 4;
  /// Assumed sizes of dynamic labels (0: unset), indexed by label id.
  std::array<int64_t, kNumLabels> sizeHints{};
  /// Assumed size of a dynamic dim without a hint.
  int64_t defaultDynamicSize = 128;
  /// Work a step does besides its multiply-adds, counted in its flops: per
  /// element of each tensor it reads, and per element it writes (the log
  /// semiring's exponentials, maxima and logarithms; max/min's NaN scan).
  double operandElementFlops = 0;
  double resultElementFlops = 0;
};

/// Parses a path option: a strategy name (auto, optimal, dp, greedy,
/// left-to-right) or an explicit path, "explicit:1,2;0,1" (numpy's
/// [(1, 2), (0, 1)]), into `options.strategy` (and `explicitPath`).
llvm::Error parsePathOption(llvm::StringRef text, PathOptions &options);

/// Parses "i=128" into `options.sizeHints`.
llvm::Error parseSizeHint(llvm::StringRef hint, PathOptions &options);

/// One step of a path.
struct PathStep {
  /// The tensors it reads: 0..N-1 are the einsum's operands, N+k is the
  /// result of step k.
  llvm::SmallVector<unsigned, 2> inputs;
  /// Its equation, without ellipsis (ellipsis dims get letters of their own).
  std::string equation;
  /// Its result shape (kDynamicSize where unknown) and the cost estimate.
  llvm::SmallVector<int64_t, 8> shape;
  double flops = 0;
  uint64_t bytes = 0;
};

struct ContractionPath {
  llvm::SmallVector<PathStep, 8> steps;
  /// The strategy that ran (auto resolved; dp where optimal gave up, greedy
  /// where dp did), and why another than the one asked for ran.
  PathStrategy strategy = PathStrategy::Auto;
  std::string searchNote;
  /// Cost of one loop nest over all dims, and of the steps.
  double naiveFlops = 0;
  double optimizedFlops = 0;
  /// The largest result of a step other than the last (0 when none).
  uint64_t largestIntermediateBytes = 0;

  /// A human-readable report, and the same as JSON.
  std::string getReport(llvm::StringRef equation) const;
  std::string getJSON(llvm::StringRef equation) const;
};

/// Finds a path for `equation` resolved as `resolution`. Fails when no path
/// keeps every intermediate within the memory limit, or when the einsum has
/// more distinct dims than there are letters to name them.
llvm::Expected<ContractionPath>
findContractionPath(const EinsumResolution &resolution,
                    const PathOptions &options);

/// For tests: the least total FLOPs over every order of pairwise
/// contractions (after the unary steps), found by plain enumeration.
double bruteForceOptimalFlops(const EinsumResolution &resolution,
                              const PathOptions &options);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_DIALECT_EINSUM_TRANSFORMS_CONTRACTIONPATH_H
