//===- StreamCopies.cpp - staged blocks to the output in streaming stores -===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Lowers the `linalg.copy` ops marked `einsum.stream` (a staged output block
// copied to the output) to loads and non-temporal stores of whole cache
// lines, software-pipelined where they end the body of a loop: each
// iteration's blocks stream out during the next iteration's tiles. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMSTREAMCOPIESPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

/// Bytes of a cache line: each non-temporal store writes one whole.
static constexpr int64_t kLineBytes = 64;
/// The buffers of a pipelined loop, in all: twice that is half of a Zen 4's
/// 1 MiB L2, a quarter of the 2 MiB of the Intel Xeon (AVX-512) it was
/// measured on, where blocks of 396-522 KB, staged over 8 reduction steps,
/// ran 0.90-1.04x pipelined (the operands' blocks need the rest).
static constexpr int64_t kMaxPipelinedBytes = 256 << 10;

/// The run of `memref` (rank `rank`) at `outer` (indices of its leading
/// dimensions) along its trailing `rank - outer.size()` dimensions, which
/// must be contiguous: a 1-D view of the run's elements.
static Value getRun(OpBuilder &builder, Location loc, Value memref,
                    ValueRange outer) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  auto inner = type.getShape().drop_front(outer.size());
  Value run = memref;
  if (!outer.empty()) {
    SmallVector<OpFoldResult> offsets(outer.begin(), outer.end());
    SmallVector<OpFoldResult> sizes(outer.size(), builder.getIndexAttr(1));
    SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
    for (int64_t i = outer.size(); i < rank; ++i) {
      offsets.push_back(builder.getIndexAttr(0));
      sizes.push_back(builder.getIndexAttr(type.getDimSize(i)));
    }
    auto sliceType = memref::SubViewOp::inferRankReducedResultType(
        inner, type, offsets, sizes, strides);
    run = memref::SubViewOp::create(builder, loc, sliceType, memref, offsets,
                                    sizes, strides);
  }
  if (inner.size() == 1)
    return run;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, inner.size()));
  return memref::CollapseShapeOp::create(builder, loc, run,
                                         ArrayRef<ReassociationIndices>{all});
}

/// Copies `source[from:to]` to `target[from:to]` (1-D) one element at a
/// time.
static void copyElements(OpBuilder &builder, Location loc, Value source,
                         Value target, Value from, Value to) {
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  scf::ForOp::create(builder, loc, from, to, one, ValueRange{},
                     [&](OpBuilder &b, Location l, Value i, ValueRange) {
                       Value element = memref::LoadOp::create(b, l, source, i);
                       memref::StoreOp::create(b, l, element, target, i);
                       scf::YieldOp::create(b, l);
                     });
}

namespace {
/// The layout of a marked copy that this pass lowers: its element type and
/// size, the elements of one line, and how many of its inner dimensions are
/// contiguous on both sides (one run of `runLength` elements).
struct StreamLayout {
  Type elementType;
  int64_t elementBytes;
  int64_t lanes;
  int64_t inner;
  int64_t runLength;
};
} // namespace

/// The layout of `copy`; std::nullopt where it is not ours to lower (see the
/// pass description).
static std::optional<StreamLayout> getStreamLayout(linalg::CopyOp copy) {
  auto source = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  auto target = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
  if (!source || !target || !source.hasStaticShape() ||
      source.getShape() != target.getShape() || source.getRank() == 0 ||
      source.getElementType() != target.getElementType())
    return std::nullopt;
  Type elementType = source.getElementType();
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 0;
  if (bits == 0 || bits % 8 != 0 || kLineBytes % (bits / 8) != 0)
    return std::nullopt;
  int64_t inner = std::min(source.getNumContiguousTrailingDims(),
                           target.getNumContiguousTrailingDims());
  if (inner == 0)
    return std::nullopt;
  int64_t runLength = 1;
  for (int64_t i = source.getRank() - inner; i < source.getRank(); ++i)
    runLength *= source.getDimSize(i);
  int64_t elementBytes = bits / 8;
  return StreamLayout{elementType, elementBytes, kLineBytes / elementBytes,
                      inner, runLength};
}

namespace {
/// One run of a copy, split at the destination's 64-byte lines: `head`
/// elements up to the first line boundary (all of them where the
/// destination is not aligned to its element size), `lines` whole lines
/// from there to `bodyEnd`, then the rest up to `length`.
struct StreamRun {
  Value from, to;
  Value head, lines, bodyEnd, length;
};
} // namespace

/// The run from `from` to `to` (1-D views of `layout`'s run), split at the
/// destination's lines.
static StreamRun getStreamRun(OpBuilder &builder, Location loc,
                              const StreamLayout &layout, Value from,
                              Value to) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, to);
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, to);
  Value address = arith::AddIOp::create(
      builder, loc, pointer,
      arith::MulIOp::create(builder, loc, metadata.getOffset(),
                            index(layout.elementBytes)));
  Value misaligned =
      arith::RemUIOp::create(builder, loc, address, index(kLineBytes));
  Value headBytes = arith::RemUIOp::create(
      builder, loc,
      arith::SubIOp::create(builder, loc, index(kLineBytes), misaligned),
      index(kLineBytes));
  Value length = index(layout.runLength);
  Value elementAligned = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(builder, loc, address,
                             index(layout.elementBytes)),
      index(0));
  Value head = arith::SelectOp::create(
      builder, loc, elementAligned,
      arith::MinUIOp::create(builder, loc,
                             arith::DivUIOp::create(
                                 builder, loc, headBytes,
                                 index(layout.elementBytes)),
                             length),
      length);
  Value lines = arith::DivUIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, length, head),
      index(layout.lanes));
  Value bodyEnd = arith::AddIOp::create(
      builder, loc, head,
      arith::MulIOp::create(builder, loc, lines, index(layout.lanes)));
  return {from, to, head, lines, bodyEnd, length};
}

/// Copies the elements [`from`, `to`) of `run`, which start whole lines:
/// one vector load and one non-temporal store of a whole line each.
static void streamLines(OpBuilder &builder, Location loc,
                        const StreamLayout &layout, const StreamRun &run,
                        Value from, Value to) {
  Value lanes = arith::ConstantIndexOp::create(builder, loc, layout.lanes);
  auto vectorType = VectorType::get({layout.lanes}, layout.elementType);
  scf::ForOp::create(
      builder, loc, from, to, lanes, ValueRange{},
      [&](OpBuilder &b, Location l, Value i, ValueRange) {
        Value line =
            vector::LoadOp::create(b, l, vectorType, run.from, ValueRange{i});
        vector::StoreOp::create(b, l, line, run.to, ValueRange{i},
                                /*nontemporal=*/true,
                                llvm::MaybeAlign(kLineBytes));
        scf::YieldOp::create(b, l);
      });
}

/// The first element of line `line` of `run`.
static Value getLineStart(OpBuilder &builder, Location loc,
                          const StreamLayout &layout, const StreamRun &run,
                          Value line) {
  return arith::AddIOp::create(
      builder, loc, run.head,
      arith::MulIOp::create(
          builder, loc, line,
          arith::ConstantIndexOp::create(builder, loc, layout.lanes)));
}

/// Lowers one marked copy (see the pass description).
static void lowerStreamCopy(RewriterBase &rewriter, linalg::CopyOp copy) {
  rewriter.setInsertionPoint(copy);
  std::optional<StreamLayout> layout = getStreamLayout(copy);
  if (!layout) {
    // Not ours to lower: a plain copy.
    rewriter.modifyOpInPlace(
        copy, [&] { copy->removeAttr(einsum::kStreamCopyAttrName); });
    return;
  }

  Location loc = copy.getLoc();
  int64_t rank = cast<MemRefType>(copy.getInputs()[0].getType()).getRank();
  // The loops of the outer dimensions.
  SmallVector<Value> outer;
  OpBuilder::InsertionGuard guard(rewriter);
  Operation *outermost = nullptr;
  for (int64_t i = 0; i < rank - layout->inner; ++i) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value size = arith::ConstantIndexOp::create(
        rewriter, loc,
        cast<MemRefType>(copy.getInputs()[0].getType()).getDimSize(i));
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(rewriter, loc, zero, size, one);
    if (!outermost)
      outermost = loop;
    outer.push_back(loop.getInductionVar());
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  StreamRun run = getStreamRun(
      rewriter, loc, *layout, getRun(rewriter, loc, copy.getInputs()[0], outer),
      getRun(rewriter, loc, copy.getOutputs()[0], outer));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  copyElements(rewriter, loc, run.from, run.to, zero, run.head);
  streamLines(rewriter, loc, *layout, run, run.head, run.bodyEnd);
  copyElements(rewriter, loc, run.from, run.to, run.bodyEnd, run.length);

  // Streaming stores are weakly ordered: one fence after the outermost
  // loop around the copy (the tiles' loops), not one per block.
  Operation *last = outermost ? outermost : copy.getOperation();
  while (isa_and_nonnull<scf::ForOp>(last->getParentOp()))
    last = last->getParentOp();
  rewriter.setInsertionPointAfter(last);
  if (!isa_and_nonnull<LLVM::FenceOp>(last->getNextNode()))
    LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::seq_cst);
  rewriter.eraseOp(copy);
}

/// The buffer that `value` views (upstream's skipViewLikeOps), or itself
/// where it is not a memref.
static Value getViewRoot(Value value) {
  auto memref = dyn_cast<MemrefValue>(value);
  return memref ? memref::skipViewLikeOps(memref) : value;
}

/// Adds to `slice` (in order of definition) the ops of `body` that `value`
/// is computed from; false where one of them is not pure or has regions.
static bool collectSlice(Value value, Block *body,
                         llvm::SetVector<Operation *> &slice) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getBlock() != body || slice.contains(op))
    return true;
  if (!isPure(op) || op->getNumRegions() != 0)
    return false;
  for (Value operand : op->getOperands())
    if (!collectSlice(operand, body, slice))
      return false;
  slice.insert(op);
  return true;
}

/// The destination of `copy` (in the body of `loop`) at the induction
/// variable `iv`: `slice` cloned at the builder's insertion point.
static Value cloneTarget(OpBuilder &builder, scf::ForOp loop,
                         ArrayRef<Operation *> slice, linalg::CopyOp copy,
                         Value iv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    builder.clone(*op, mapping);
  return mapping.lookupOrDefault(copy.getOutputs()[0]);
}

/// The memory effects of `op` and the ops nested in it, but for
/// `cf.assert` (a failed allocation's check, which reads and writes nothing
/// the kernel does); false where one of them does not declare its effects.
static bool getNestedEffects(
    Operation *op, SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  WalkResult walk = op->walk([&](Operation *nested) {
    if (isa<cf::AssertOp>(nested))
      return WalkResult::advance();
    if (auto effectOp = dyn_cast<MemoryEffectOpInterface>(nested)) {
      effectOp.getEffects(effects);
      return WalkResult::advance();
    }
    return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

namespace {
/// A marked copy in the body of a loop that pipelineStreamCopies
/// pipelines: its layout, its buffer (and the second one), the ops of the
/// body that compute its destination.
struct PipelinedCopy {
  linalg::CopyOp copy;
  StreamLayout layout;
  memref::AllocaOp buffer;
  memref::AllocaOp other;
  llvm::SetVector<Operation *> slice;
};
} // namespace

/// Pipelines the marked copies of the body of `loop`, each from a buffer on
/// the stack defined outside the loop, so that each iteration's streaming
/// stores overlap the computation of the next (see the pass description).
/// Failure (nothing changed) where the loop is not of that form.
static LogicalResult pipelineStreamCopies(RewriterBase &rewriter,
                                          scf::ForOp loop) {
  // (A loop of one iteration has nothing to overlap.)
  std::optional<APInt> staticTrips = loop.getStaticTripCount();
  if (loop.getNumResults() != 0 ||
      (staticTrips && staticTrips->getZExtValue() < 2))
    return failure();
  Block *body = loop.getBody();
  SmallVector<PipelinedCopy> copies;
  DenseSet<Value> buffers, destinations;
  for (auto copy : body->getOps<linalg::CopyOp>()) {
    if (!copy->hasAttr(einsum::kStreamCopyAttrName) ||
        !copy.hasPureBufferSemantics())
      continue;
    std::optional<StreamLayout> layout = getStreamLayout(copy);
    Value buffer = copy.getInputs()[0];
    auto alloca = buffer.getDefiningOp<memref::AllocaOp>();
    auto type = cast<MemRefType>(buffer.getType());
    if (!layout || !alloca || layout->inner != type.getRank() ||
        !type.getLayout().isIdentity() || loop->isAncestor(alloca) ||
        !buffers.insert(buffer).second)
      return failure();
    for (Operation *user : buffer.getUsers())
      if (!loop->isProperAncestor(user))
        return failure();
    // Nothing writes the buffer after its copy.
    for (Operation *op = copy->getNextNode(); op; op = op->getNextNode()) {
      SmallVector<MemoryEffects::EffectInstance> effects;
      if (!getNestedEffects(op, effects))
        return failure();
      for (const MemoryEffects::EffectInstance &effect : effects)
        if (isa<MemoryEffects::Write>(effect.getEffect()) &&
            (!effect.getValue() || getViewRoot(effect.getValue()) == buffer))
          return failure();
    }
    PipelinedCopy pipelined{copy, *layout, alloca, nullptr, {}};
    if (!collectSlice(copy.getOutputs()[0], body, pipelined.slice))
      return failure();
    destinations.insert(getViewRoot(copy.getOutputs()[0]));
    copies.push_back(std::move(pipelined));
  }
  if (copies.empty())
    return failure();
  int64_t bytes = 0;
  for (PipelinedCopy &pipelined : copies)
    bytes += cast<MemRefType>(pipelined.buffer.getType()).getNumElements() *
             pipelined.layout.elementBytes;
  if (bytes > kMaxPipelinedBytes)
    return failure();
  // The body neither reads the destinations nor writes anything but the
  // buffers and other allocations of the kernel (packed operands), so the
  // previous iteration's destinations are not touched while they are copied
  // out.
  for (Operation &op : body->without_terminator()) {
    auto copy = dyn_cast<linalg::CopyOp>(op);
    if (copy && llvm::any_of(copies, [&](const PipelinedCopy &pipelined) {
          return pipelined.copy == copy;
        }))
      continue;
    SmallVector<MemoryEffects::EffectInstance> effects;
    if (!getNestedEffects(&op, effects))
      return failure();
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value root = effect.getValue() ? getViewRoot(effect.getValue()) : Value();
      if (!root || destinations.contains(root))
        return failure();
      if (isa<MemoryEffects::Write>(effect.getEffect()) &&
          !root.getDefiningOp<memref::AllocOp>() &&
          !root.getDefiningOp<memref::AllocaOp>())
        return failure();
    }
  }
  // The loops of the body that store tiles into the buffers, and the tiles
  // they store in one iteration.
  SmallVector<scf::ForOp> tileLoops;
  int64_t tiles = 0;
  WalkResult walk = body->walk([&](scf::ForOp inner) {
    bool stores =
        llvm::any_of(inner.getBody()->getOperations(), [&](Operation &op) {
          auto write = dyn_cast<vector::TransferWriteOp>(op);
          return write && buffers.contains(getViewRoot(write.getBase()));
        });
    if (!stores)
      return WalkResult::advance();
    int64_t count = 1;
    for (Operation *op = inner; op != loop; op = op->getParentOp()) {
      auto forOp = dyn_cast<scf::ForOp>(op);
      if (!forOp)
        continue;
      std::optional<APInt> innerTrips = forOp.getStaticTripCount();
      if (!innerTrips)
        return WalkResult::interrupt();
      count *= innerTrips->getZExtValue();
    }
    tileLoops.push_back(inner);
    tiles += count;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || tiles == 0)
    return failure();

  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  // The second buffers, and the next line to copy out, of all the copies'
  // lines one after the other.
  for (PipelinedCopy &pipelined : copies) {
    rewriter.setInsertionPointAfter(pipelined.buffer);
    pipelined.other = cast<memref::AllocaOp>(rewriter.clone(*pipelined.buffer));
  }
  rewriter.setInsertionPointAfter(copies.front().other);
  auto cursor = memref::AllocaOp::create(
      rewriter, loc, MemRefType::get({}, rewriter.getIndexType()));

  // Iteration k computes into buffers k % 2 and copies iteration k - 1's
  // out of the others (none in the first).
  rewriter.setInsertionPointToStart(body);
  Value iv = loop.getInductionVar();
  Value lb = loop.getLowerBound();
  Value iteration = arith::DivUIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, iv, lb),
      loop.getStep());
  Value odd = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ne,
      arith::RemUIOp::create(rewriter, loc, iteration, index(2)), index(0));
  Value first =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, iv, lb);
  Value previousIv = arith::MaxSIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, iv, loop.getStep()),
      lb);
  Value zero = index(0);
  SmallVector<StreamRun> runs;
  // Each copy's lines [start, end) of all of them.
  SmallVector<Value> starts, ends, headEnds, tailStarts;
  Value total = zero;
  int64_t staticLines = 0;
  for (PipelinedCopy &pipelined : copies) {
    Value current = arith::SelectOp::create(rewriter, loc, odd,
                                            pipelined.other, pipelined.buffer);
    Value previous = arith::SelectOp::create(
        rewriter, loc, odd, pipelined.buffer, pipelined.other);
    rewriter.replaceUsesWithIf(pipelined.buffer, current, [&](OpOperand &use) {
      return loop->isProperAncestor(use.getOwner()) &&
             use.getOwner() != current.getDefiningOp() &&
             use.getOwner() != previous.getDefiningOp();
    });
    Value target = cloneTarget(rewriter, loop, pipelined.slice.getArrayRef(),
                               pipelined.copy, previousIv);
    StreamRun run = getStreamRun(rewriter, loc, pipelined.layout,
                                 getRun(rewriter, loc, previous, {}),
                                 getRun(rewriter, loc, target, {}));
    // Nothing to copy in the first iteration: no lines, and the elements
    // off the lines from 0 to 0 and from the end to the end.
    run.lines = arith::SelectOp::create(rewriter, loc, first, zero, run.lines);
    headEnds.push_back(
        arith::SelectOp::create(rewriter, loc, first, zero, run.head));
    tailStarts.push_back(
        arith::SelectOp::create(rewriter, loc, first, run.length, run.bodyEnd));
    starts.push_back(total);
    total = arith::AddIOp::create(rewriter, loc, total, run.lines);
    ends.push_back(total);
    runs.push_back(run);
    staticLines += llvm::divideCeil(pipelined.layout.runLength,
                                    pipelined.layout.lanes);
  }
  memref::StoreOp::create(rewriter, loc, zero, cursor, ValueRange{});
  // Lines [from, to) of all of them.
  auto stream = [&](Value from, Value to) {
    for (size_t i = 0; i < copies.size(); ++i) {
      auto clamp = [&](Value line) -> Value {
        return arith::SubIOp::create(
            rewriter, loc,
            arith::MinUIOp::create(
                rewriter, loc,
                arith::MaxUIOp::create(rewriter, loc, line, starts[i]),
                ends[i]),
            starts[i]);
      };
      streamLines(
          rewriter, loc, copies[i].layout, runs[i],
          getLineStart(rewriter, loc, copies[i].layout, runs[i], clamp(from)),
          getLineStart(rewriter, loc, copies[i].layout, runs[i], clamp(to)));
    }
  };
  // A share of the lines after each tile; what is left after the body.
  int64_t share = llvm::divideCeil(staticLines, tiles);
  for (scf::ForOp tileLoop : tileLoops) {
    rewriter.setInsertionPoint(tileLoop.getBody()->getTerminator());
    Value from = memref::LoadOp::create(rewriter, loc, cursor, ValueRange{});
    Value to = arith::MinUIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, from, index(share)),
        total);
    stream(from, to);
    memref::StoreOp::create(rewriter, loc, to, cursor, ValueRange{});
  }
  rewriter.setInsertionPoint(body->getTerminator());
  stream(memref::LoadOp::create(rewriter, loc, cursor, ValueRange{}), total);
  for (auto [run, headEnd, tailStart] :
       llvm::zip_equal(runs, headEnds, tailStarts)) {
    copyElements(rewriter, loc, run.from, run.to, zero, headEnd);
    copyElements(rewriter, loc, run.from, run.to, tailStart, run.length);
  }

  // The last iteration's blocks, after the loop (where it has any): marked
  // copies that lowerStreamCopy lowers.
  rewriter.setInsertionPointAfter(loop);
  Value trips = arith::CeilDivUIOp::create(
      rewriter, loc,
      arith::SubIOp::create(rewriter, loc, loop.getUpperBound(), lb),
      loop.getStep());
  Value any = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                    loop.getUpperBound(), lb);
  auto ifAny = scf::IfOp::create(rewriter, loc, any, /*withElse=*/false);
  rewriter.setInsertionPointToStart(ifAny.thenBlock());
  Value last = arith::SubIOp::create(rewriter, loc, trips, index(1));
  Value lastIv = arith::AddIOp::create(
      rewriter, loc, lb,
      arith::MulIOp::create(rewriter, loc, last, loop.getStep()));
  Value lastOdd = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ne,
      arith::RemUIOp::create(rewriter, loc, last, index(2)), index(0));
  SmallVector<linalg::CopyOp> lastCopies;
  for (PipelinedCopy &pipelined : copies) {
    Value target = cloneTarget(rewriter, loop, pipelined.slice.getArrayRef(),
                               pipelined.copy, lastIv);
    Value buffer = arith::SelectOp::create(rewriter, loc, lastOdd,
                                           pipelined.other, pipelined.buffer);
    auto lastCopy = linalg::CopyOp::create(rewriter, loc, buffer, target);
    lastCopy->setAttr(einsum::kStreamCopyAttrName, rewriter.getUnitAttr());
    lastCopies.push_back(lastCopy);
    rewriter.eraseOp(pipelined.copy);
    for (Operation *op : llvm::reverse(pipelined.slice))
      if (op->use_empty())
        rewriter.eraseOp(op);
  }
  for (linalg::CopyOp lastCopy : lastCopies)
    lowerStreamCopy(rewriter, lastCopy);
  return success();
}

namespace {
struct EinsumStreamCopiesPass final
    : einsum::impl::EinsumStreamCopiesPassBase<EinsumStreamCopiesPass> {
  void runOnOperation() override {
    // Loops whose bodies end staged blocks first, innermost first.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getBody()->getOps<linalg::CopyOp>(),
                       [](linalg::CopyOp copy) {
                         return copy->hasAttr(einsum::kStreamCopyAttrName);
                       }))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      (void)pipelineStreamCopies(rewriter, loop);
    SmallVector<linalg::CopyOp> copies;
    getOperation()->walk([&](linalg::CopyOp copy) {
      if (copy->hasAttr(einsum::kStreamCopyAttrName) &&
          copy.hasPureBufferSemantics())
        copies.push_back(copy);
    });
    for (linalg::CopyOp copy : copies)
      lowerStreamCopy(rewriter, copy);
  }
};
} // namespace
