//===- PrefetchStores.cpp - prefetch the lines that tile stores write -----===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Asks for the cache lines of a tile's vector stores before the stores: a
// store that misses blocks the in-order store buffer, a prefetch does not.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMPREFETCHSTORESPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

namespace {
/// Bytes of a cache line.
constexpr int64_t kLineBytes = 64;
/// At most this many prefetches for one store (8 rows of 3 lines: 24).
constexpr int64_t kMaxPrefetches = 64;

/// A point of a written tile, as offsets from the write's indices along the
/// vector's dimensions.
using Point = SmallVector<int64_t>;

/// Whether `memref`'s innermost dimension has unit stride.
static bool hasUnitInnerStride(Value memref) {
  SmallVector<int64_t> strides;
  int64_t offset;
  auto type = cast<MemRefType>(memref.getType());
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

/// The points of `write` whose lines cover what it writes: in each row (the
/// vector's leading dimensions), one element per line from the first; for
/// the `wholeTile` (prefetched at once, not a row's next lines by the next
/// iteration) the row's last element too, as a row that does not start on a
/// line touches one more, and none for rows of whole lines. An innermost
/// stride other than 1 gives each element of a row. std::nullopt where the
/// write is not handled (see the pass description).
static std::optional<SmallVector<Point>>
getLinePoints(vector::TransferWriteOp write, bool wholeTile) {
  auto memrefType = dyn_cast<MemRefType>(write.getBase().getType());
  VectorType vectorType = write.getVectorType();
  if (!memrefType || vectorType.getRank() == 0 || vectorType.isScalable() ||
      write.getMask() || !write.getPermutationMap().isMinorIdentity())
    return std::nullopt;
  Type elementType = memrefType.getElementType();
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  unsigned rank = vectorType.getRank();
  unsigned memrefRank = memrefType.getRank();
  // What is written along each vector dimension: all of it where in bounds,
  // else up to the memref's static end.
  SmallVector<int64_t> extents;
  for (unsigned dim = 0; dim < rank; ++dim) {
    int64_t extent = vectorType.getDimSize(dim);
    if (!write.isDimInBounds(dim)) {
      unsigned memrefDim = memrefRank - rank + dim;
      int64_t size = memrefType.getDimSize(memrefDim);
      std::optional<int64_t> index =
          getConstantIntValue(write.getIndices()[memrefDim]);
      if (ShapedType::isDynamic(size) || !index)
        return std::nullopt;
      extent = std::min(extent, size - *index);
    }
    if (extent <= 0)
      return SmallVector<Point>();
    extents.push_back(extent);
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  bool strided = succeeded(memrefType.getStridesAndOffset(strides, offset));
  bool unitInnerStride = strided && strides.back() == 1;
  int64_t rowLength = extents.back();
  // Rows of whole lines 64-byte multiples apart (the output's rows are
  // 64-byte aligned) are written line by line: the full-line stores need no
  // prefetch, and one only added work (fdeb,edfq->dbfq, rows of 624 floats:
  // 0.91-0.97x with it; urc,xru->crx 0.92x).
  auto isLineMultiple = [&](int64_t elements) {
    return !ShapedType::isDynamic(elements) &&
           elements * elementBytes % kLineBytes == 0;
  };
  if (wholeTile && unitInnerStride && isLineMultiple(rowLength) &&
      llvm::all_of(ArrayRef(strides).take_back(rank).drop_back(),
                   isLineMultiple))
    return SmallVector<Point>();
  SmallVector<int64_t> rowPoints;
  if (unitInnerStride) {
    int64_t step = std::max<int64_t>(1, kLineBytes / elementBytes);
    for (int64_t element = 0; element < rowLength; element += step)
      rowPoints.push_back(element);
    if (wholeTile && (rowLength - 1) % step != 0)
      rowPoints.push_back(rowLength - 1);
  } else {
    for (int64_t element = 0; element < rowLength; ++element)
      rowPoints.push_back(element);
  }
  int64_t rows = 1;
  for (int64_t extent : ArrayRef(extents).drop_back())
    rows *= extent;
  if (rows * static_cast<int64_t>(rowPoints.size()) > kMaxPrefetches)
    return std::nullopt;
  SmallVector<Point> points;
  Point row(rank - 1, 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t element : rowPoints) {
      Point point(row);
      point.push_back(element);
      points.push_back(std::move(point));
    }
    for (int dim = static_cast<int>(rank) - 2; dim >= 0; --dim) {
      if (++row[dim] < extents[dim])
        break;
      row[dim] = 0;
    }
  }
  return points;
}

/// Prefetches, for writing, the lines of `points` of a tile at `indices` of
/// `base` (a vector of `rank` dimensions written there).
static void prefetchPoints(OpBuilder &builder, Location loc, Value base,
                           ValueRange indices, unsigned rank,
                           ArrayRef<Point> points) {
  unsigned first = indices.size() - rank;
  DenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) {
    Value &slot = constants[value];
    if (!slot)
      slot = arith::ConstantIndexOp::create(builder, loc, value);
    return slot;
  };
  auto add = [&](Value index, int64_t offset) -> Value {
    if (offset == 0)
      return index;
    if (std::optional<int64_t> value = getConstantIntValue(index))
      return constant(*value + offset);
    return arith::AddIOp::create(builder, loc, index, constant(offset));
  };
  for (const Point &point : points) {
    SmallVector<Value> at(indices);
    for (auto [dim, offset] : llvm::enumerate(point))
      at[first + dim] = add(at[first + dim], offset);
    memref::PrefetchOp::create(builder, loc, base, at, /*isWrite=*/true,
                               /*localityHint=*/3, /*isDataCache=*/true);
  }
}

/// The scf.for whose result `write` stores, through side-effect-free
/// single-vector ops (a transpose, a cast) in the same block.
static scf::ForOp getAccumulatingLoop(vector::TransferWriteOp write) {
  Value value = write.getVector();
  while (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() != write->getBlock())
      return nullptr;
    if (auto loop = dyn_cast<scf::ForOp>(def))
      return loop;
    if (def->getNumOperands() != 1 || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def) ||
        !isa<VectorType>(def->getOperand(0).getType()))
      return nullptr;
    value = def->getOperand(0);
  }
  return nullptr;
}

/// Collects, in topological order, the ops of `body` that `value` depends
/// on; false where one has effects or regions, or reads a block argument of
/// `body` other than `iv`.
static bool collectAddressOps(Value value, Block *body, Value iv,
                              SetVector<Operation *> &ops) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner() != body || value == iv;
  Operation *def = value.getDefiningOp();
  if (def->getBlock() != body || ops.contains(def))
    return true;
  if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands())
    if (!collectAddressOps(operand, body, iv, ops))
      return false;
  ops.insert(def);
  return true;
}

/// Whether any of `values` is `iv` or computed from it by `ops`.
static bool dependsOn(ValueRange values, Value iv,
                      const SetVector<Operation *> &ops) {
  auto isIV = [&](Value value) { return value == iv; };
  return llvm::any_of(values, isIV) ||
         llvm::any_of(ops, [&](Operation *op) {
           return llvm::any_of(op->getOperands(), isIV);
         });
}

/// Whether `memref` is a view of a buffer on the stack (a staged output
/// block, einsum-vectorize): its lines stay in L1 between its stores.
static bool isOnStack(Value memref) {
  return memref::skipViewLikeOps(cast<MemrefValue>(memref))
      .getDefiningOp<memref::AllocaOp>();
}

struct EinsumPrefetchStoresPass
    : einsum::impl::EinsumPrefetchStoresPassBase<EinsumPrefetchStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<vector::TransferWriteOp> writes;
    getOperation()->walk([&](vector::TransferWriteOp write) {
      if (isa<MemRefType>(write.getBase().getType()) &&
          !isOnStack(write.getBase()))
        writes.push_back(write);
    });
    DominanceInfo dominance(getOperation());
    IRRewriter builder(&getContext());
    for (vector::TransferWriteOp write : writes) {
      unsigned rank = write.getVectorType().getRank();
      if (scf::ForOp loop = getAccumulatingLoop(write)) {
        std::optional<SmallVector<Point>> points =
            getLinePoints(write, /*wholeTile=*/true);
        SmallVector<Value> address = {write.getBase()};
        llvm::append_range(address, write.getIndices());
        // The subview the tile is stored through may be made after the
        // loop: it moves above it (upstream, all or nothing).
        if (!points || points->empty() ||
            failed(moveValueDefinitions(builder, address, loop, dominance)))
          continue;
        builder.setInsertionPoint(loop);
        prefetchPoints(builder, write.getLoc(), write.getBase(),
                       write.getIndices(), rank, *points);
        continue;
      }
      // A tile of a loop: rows apart only (one contiguous row is what the
      // hardware prefetchers follow).
      auto loop = dyn_cast<scf::ForOp>(write->getParentOp());
      if (!loop || distance <= 0)
        continue;
      std::optional<SmallVector<Point>> points =
          getLinePoints(write, /*wholeTile=*/false);
      if (!points || points->empty() ||
          (rank == 1 && hasUnitInnerStride(write.getBase())))
        continue;
      Value iv = loop.getInductionVar();
      Block *body = loop.getBody();
      SetVector<Operation *> ops;
      SmallVector<Value> address = {write.getBase()};
      llvm::append_range(address, write.getIndices());
      if (!llvm::all_of(address, [&](Value value) {
            return collectAddressOps(value, body, iv, ops);
          }) ||
          !dependsOn(address, iv, ops))
        continue;
      Location loc = write.getLoc();
      builder.setInsertionPointToStart(body);
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      Value distanceValue = arith::ConstantIndexOp::create(
          builder, loc, step.value_or(1) * distance);
      if (!step)
        distanceValue = arith::MulIOp::create(builder, loc, loop.getStep(),
                                              distanceValue);
      Value ahead = arith::AddIOp::create(builder, loc, iv, distanceValue);
      IRMapping mapping;
      mapping.map(iv, ahead);
      for (Operation *op : ops)
        builder.clone(*op, mapping);
      SmallVector<Value> indices = llvm::map_to_vector(
          write.getIndices(),
          [&](Value index) { return mapping.lookupOrDefault(index); });
      prefetchPoints(builder, loc, mapping.lookupOrDefault(write.getBase()),
                     indices, rank, *points);
    }
  }
};
} // namespace
