//===- ShardingModel.h - distributing einsums over a grid -------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The cost model of `einsum-shard`: which loop dims of each einsum (after the
// contraction path) are split over which axes of a grid of ranks, and what
// that costs each rank in data volume. LLVM Support only, like the path
// search, so that tools can print and test it without MLIR.
//
// The model. Every rank computes the block of the iteration space that its
// grid coordinates select: a loop dim split over grid axes a1, a2, ... (most
// significant first) is cut into prod(size(ai)) equal parts. The data volume
// of a rank is
//   - the operand blocks it needs (read from the inputs, or kept in place
//     from the step that produced them),
//   - the output block it writes, and
//   - for a summed dim split over axes of P ranks, the all-reduce of the
//     output block over those ranks: 2 (P - 1) / P times the block's bytes
//     sent and as much received (a ring all-reduce; the shard dialect has no
//     partial shardings, so a reduce-scatter is not expressible and the
//     result is replicated over those axes).
// The search minimizes the volume; ties go to the plan with fewer redundant
// iteration points (a grid axis that splits nothing makes its ranks compute
// the same block), then to the earlier dims. The lower bound printed next to
// it is the least volume over real-valued split factors whose product is the
// number of ranks, ignoring the grid's shape and divisibility and not
// counting the all-reduce: for a GEMM it is the Loomis-Whitney bound
// 3 (mnk/R)^(2/3) elements that SUMMA-like 2-D and 3-D algorithms approach.
//
// Steps of a path are planned in order. An operand produced by an earlier
// step keeps that step's split (any reshard that is not the identity or a
// further split of a replicated axis would need an all-gather, which the
// shard-to-MPI lowering does not provide), so a consumer either splits the
// same dims on the same axes or sums over them (an all-reduce).
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_DIALECT_EINSUM_TRANSFORMS_SHARDINGMODEL_H
#define EINSUM_DIALECT_EINSUM_TRANSFORMS_SHARDINGMODEL_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace einsum {

/// One einsum to distribute: its loop dims and how operands and the result
/// index them.
struct ShardingStep {
  /// Loop dim sizes (static) and whether each is summed.
  llvm::SmallVector<int64_t> dimSizes;
  llvm::SmallVector<bool> dimIsReduction;
  /// Per operand, per axis: the loop dim.
  llvm::SmallVector<llvm::SmallVector<unsigned>> operandDims;
  /// Per result axis: the loop dim.
  llvm::SmallVector<unsigned> resultDims;
  /// Per operand: the step that produced it, or -1 for a function argument.
  llvm::SmallVector<int> producers;
  /// Summed dims may be split (the reduction has an MPI all-reduce).
  bool reductionsSplittable = true;
  /// For messages: the step's equation.
  std::string equation;
};

/// Where the model puts one step.
struct StepSharding {
  /// Per grid axis: the loop dim split over it, or -1.
  llvm::SmallVector<int> axisDims;
  /// Per rank, in bytes.
  double operandBytes = 0, resultBytes = 0, allReduceBytes = 0;
  /// Per rank: iteration points.
  double points = 0;
  /// The lower bound on operandBytes + resultBytes (see above).
  double lowerBoundBytes = 0;
  /// Why dims could not be split, where none are.
  std::string note;

  double volume() const { return operandBytes + resultBytes + allReduceBytes; }
};

/// Per tensor axis: the grid axes it is split over, most significant first
/// (the shard dialect's split_axes).
using SplitAxes = llvm::SmallVector<llvm::SmallVector<int16_t>>;

/// Plans every step for `grid` (the size of each axis).
llvm::SmallVector<StepSharding>
planSharding(llvm::ArrayRef<ShardingStep> steps, llvm::ArrayRef<int64_t> grid,
             unsigned elementBytes);

/// The split of a tensor whose axes are the loop dims `dims` under `plan`.
SplitAxes getSplitAxes(const StepSharding &plan,
                       llvm::ArrayRef<unsigned> dims);

/// The shape of a rank's block of a tensor of `shape` split as `split`.
llvm::SmallVector<int64_t> getShardShape(llvm::ArrayRef<int64_t> shape,
                                         const SplitAxes &split,
                                         llvm::ArrayRef<int64_t> grid);

/// The offset of the block of the rank with coordinates `coords`.
llvm::SmallVector<int64_t>
getShardOffsets(llvm::ArrayRef<int64_t> shape, const SplitAxes &split,
                llvm::ArrayRef<int64_t> grid, llvm::ArrayRef<int64_t> coords);

/// Grid coordinates of a linear rank (row-major: the last axis fastest, as
/// shard.process_multi_index delinearizes).
llvm::SmallVector<int64_t> getGridCoordinates(int64_t rank,
                                              llvm::ArrayRef<int64_t> grid);

/// Parses "4" or "2x2" (at most 3 axes, each >= 1).
llvm::Expected<llvm::SmallVector<int64_t>> parseGrid(llvm::StringRef text);
std::string formatGrid(llvm::ArrayRef<int64_t> grid);

/// One line per step: the split, the volumes and the bound.
std::string describeSharding(const ShardingStep &step,
                             const StepSharding &plan,
                             llvm::ArrayRef<int64_t> grid,
                             llvm::ArrayRef<std::string> dimNames);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_DIALECT_EINSUM_TRANSFORMS_SHARDINGMODEL_H
