//===- StreamCopies.cpp - staged blocks to the output in streaming stores -===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Lowers the `linalg.copy` ops marked `einsum.stream` (a staged output block
// copied to the output) to loads and non-temporal stores of whole cache
// lines. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "einsum/Dialect/Einsum/IR/EinsumDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMSTREAMCOPIESPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

/// Bytes of a cache line: each non-temporal store writes one whole.
static constexpr int64_t kLineBytes = 64;

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

/// Lowers one marked copy (see the pass description).
static void lowerStreamCopy(RewriterBase &rewriter, linalg::CopyOp copy) {
  rewriter.setInsertionPoint(copy);
  auto source = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  auto target = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
  Type elementType = source ? source.getElementType() : Type();
  unsigned bits = elementType && elementType.isIntOrFloat()
                      ? elementType.getIntOrFloatBitWidth()
                      : 0;
  int64_t inner = 0;
  if (source && target && source.hasStaticShape() &&
      source.getShape() == target.getShape() && source.getRank() > 0 &&
      elementType == target.getElementType() && bits % 8 == 0 && bits > 0 &&
      kLineBytes % (bits / 8) == 0)
    inner = std::min(source.getNumContiguousTrailingDims(),
                     target.getNumContiguousTrailingDims());
  if (inner == 0) {
    // Not ours to lower: a plain copy.
    rewriter.modifyOpInPlace(
        copy, [&] { copy->removeAttr(einsum::kStreamCopyAttrName); });
    return;
  }

  Location loc = copy.getLoc();
  int64_t elementBytes = bits / 8;
  int64_t lanes = kLineBytes / elementBytes;
  int64_t rank = source.getRank();
  int64_t runLength = 1;
  for (int64_t i = rank - inner; i < rank; ++i)
    runLength *= source.getDimSize(i);

  // The loops of the outer dimensions.
  SmallVector<Value> outer;
  OpBuilder::InsertionGuard guard(rewriter);
  Operation *outermost = nullptr;
  for (int64_t i = 0; i < rank - inner; ++i) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value size =
        arith::ConstantIndexOp::create(rewriter, loc, source.getDimSize(i));
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(rewriter, loc, zero, size, one);
    if (!outermost)
      outermost = loop;
    outer.push_back(loop.getInductionVar());
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  Value from = getRun(rewriter, loc, copy.getInputs()[0], outer);
  Value to = getRun(rewriter, loc, copy.getOutputs()[0], outer);

  // Elements up to the first line boundary of the destination (all of
  // them where it is not aligned to its element size), whole lines, then
  // the rest.
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, to);
  auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc, to);
  Value address = arith::AddIOp::create(
      rewriter, loc, pointer,
      arith::MulIOp::create(rewriter, loc, metadata.getOffset(),
                            index(elementBytes)));
  Value misaligned =
      arith::RemUIOp::create(rewriter, loc, address, index(kLineBytes));
  Value headBytes = arith::RemUIOp::create(
      rewriter, loc,
      arith::SubIOp::create(rewriter, loc, index(kLineBytes), misaligned),
      index(kLineBytes));
  Value length = index(runLength);
  Value elementAligned = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(rewriter, loc, address, index(elementBytes)),
      index(0));
  Value head = arith::SelectOp::create(
      rewriter, loc, elementAligned,
      arith::MinUIOp::create(
          rewriter, loc,
          arith::DivUIOp::create(rewriter, loc, headBytes, index(elementBytes)),
          length),
      length);
  Value lines = arith::DivUIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, length, head),
      index(lanes));
  Value bodyEnd = arith::AddIOp::create(
      rewriter, loc, head,
      arith::MulIOp::create(rewriter, loc, lines, index(lanes)));

  copyElements(rewriter, loc, from, to, index(0), head);
  auto vectorType = VectorType::get({lanes}, elementType);
  scf::ForOp::create(rewriter, loc, head, bodyEnd, index(lanes), ValueRange{},
                     [&](OpBuilder &b, Location l, Value i, ValueRange) {
                       Value line = vector::LoadOp::create(b, l, vectorType,
                                                           from, ValueRange{i});
                       vector::StoreOp::create(b, l, line, to, ValueRange{i},
                                               /*nontemporal=*/true,
                                               llvm::MaybeAlign(kLineBytes));
                       scf::YieldOp::create(b, l);
                     });
  copyElements(rewriter, loc, from, to, bodyEnd, length);

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

namespace {
struct EinsumStreamCopiesPass final
    : einsum::impl::EinsumStreamCopiesPassBase<EinsumStreamCopiesPass> {
  void runOnOperation() override {
    SmallVector<linalg::CopyOp> copies;
    getOperation()->walk([&](linalg::CopyOp copy) {
      if (copy->hasAttr(einsum::kStreamCopyAttrName) &&
          copy.hasPureBufferSemantics())
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::CopyOp copy : copies)
      lowerStreamCopy(rewriter, copy);
  }
};
} // namespace
