//===- GpuMap.cpp - GPU-mapped scf.forall to gpu.launch ---------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Turns the block foralls of a bufferized host function into gpu.launch ops
// (threads are mapped with upstream's mapNestedForallToThreadsImpl), stages
// workgroup buffers as launch attributions, and moves host buffers to device
// memory.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir {
namespace einsum {
#define GEN_PASS_DEF_EINSUMGPUMAPPASS
#include "einsum/Transforms/Passes.h.inc"
} // namespace einsum
} // namespace mlir

using namespace mlir;

static constexpr int64_t kWarpSize = 32;
/// Static shared memory per block on NVIDIA GPUs (more needs dynamic shared
/// memory and an opt-in).
static constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

static bool isWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_if_present<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

static bool hasMapping(scf::ForallOp forall, bool blocks) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty())
    return false;
  if (blocks)
    return isa<gpu::GPUBlockMappingAttr>(mapping->getValue().front());
  return isa<gpu::GPUThreadMappingAttr>(mapping->getValue().front());
}

/// The number of threads of a block: the most any thread forall in `root`
/// uses (1 without any).
static FailureOr<int64_t> getBlockSize(Operation *root) {
  int64_t size = 1;
  WalkResult result = root->walk([&](scf::ForallOp forall) {
    if (!hasMapping(forall, /*blocks=*/false))
      return WalkResult::advance();
    int64_t threads = 1;
    for (auto [lb, ub, step] :
         llvm::zip(forall.getStaticLowerBound(), forall.getStaticUpperBound(),
                   forall.getStaticStep())) {
      if (ShapedType::isDynamic(lb) || ShapedType::isDynamic(ub) ||
          ShapedType::isDynamic(step)) {
        forall.emitError("einsum-gpu-map: a thread loop needs a static "
                         "number of threads");
        return WalkResult::interrupt();
      }
      threads *= llvm::divideCeil(ub - lb, step);
    }
    size = std::max(size, threads);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (size > 1024)
    return root->emitError("einsum-gpu-map: ")
           << size << " threads in one block; a GPU block has at most 1024";
  return size;
}

/// Creates a gpu.launch of `gridSize` x 1 x 1 blocks of `blockSize` threads
/// with `workgroup` attributions before `before`; its body is empty but for
/// the terminator.
static gpu::LaunchOp createLaunch(RewriterBase &rewriter, Operation *before,
                                  Value gridSize, int64_t blockSize,
                                  TypeRange workgroup) {
  Location loc = before->getLoc();
  rewriter.setInsertionPoint(before);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  auto launch = gpu::LaunchOp::create(rewriter, loc, gridSize, one, one,
                                      threads, one, one, /*dynamicSmem=*/
                                      nullptr, /*asyncToken=*/nullptr,
                                      /*asyncDependencies=*/{}, workgroup);
  // Each kernel gets a name (and a module) of its own, <function>_kernel_N,
  // so that the kernels of one function can be printed as one PTX module.
  if (auto func = launch->getParentOfType<func::FuncOp>()) {
    unsigned index = 0;
    func.walk([&](gpu::LaunchOp other) { index += other != launch; });
    auto name = FlatSymbolRefAttr::get(
        rewriter.getContext(),
        (func.getSymName() + "_kernel_" + llvm::Twine(index)).str());
    launch.setFunctionAttr(name);
    launch.setModuleAttr(name);
  }
  rewriter.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
  return launch;
}

/// Maps the thread foralls nested in `launch`.
static LogicalResult mapThreads(RewriterBase &rewriter, gpu::LaunchOp launch,
                                int64_t blockSize) {
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  DiagnosedSilenceableFailure mapped =
      transform::gpu::mapNestedForallToThreadsImpl(
          rewriter, std::nullopt, launch, {blockSize, 1, 1}, kWarpSize,
          /*syncAfterDistribute=*/true);
  if (!mapped.succeeded()) {
    (void)mapped.silence();
    return launch.emitError("einsum-gpu-map: cannot map the thread loops");
  }
  return success();
}

/// Whether `op` (and what it nests) writes only to workgroup memory or not
/// at all. Barriers order the threads; they do not move data.
static bool writesOnlyWorkgroupMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (isa<gpu::BarrierOp>(nested))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          (nested->getNumRegions() == 0 && isMemoryEffectFree(nested)))
        return WalkResult::advance();
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      auto type = value ? dyn_cast<MemRefType>(value.getType()) : MemRefType();
      if (!type || !isWorkgroupMemory(type))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Keeps a thread's register tile in registers across the reduction step
/// loop: the loop reads and writes the accumulator tile in global memory
/// each step (bufferized from the tensor iteration), while everything else
/// it writes is workgroup memory, which cannot alias global buffers. The
/// read moves before the loop, the write after it, and the vector becomes
/// an iteration argument. (Upstream's hoistRedundantVectorTransfers gives up
/// on transfers through subviews.)
static void hoistAccumulators(RewriterBase &rewriter, scf::ForOp loop) {
  (void)moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  SmallVector<std::pair<vector::TransferReadOp, vector::TransferWriteOp>>
      pairs;
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    if (!isa<MemRefType>(read.getShapedType()) ||
        llvm::any_of(read->getOperands(), [&](Value v) {
          return !loop.isDefinedOutsideOfLoop(v);
        }))
      continue;
    for (auto write : loop.getBody()->getOps<vector::TransferWriteOp>())
      if (write.getBase() == read.getBase() &&
          write.getIndices() == read.getIndices() &&
          write.getVectorType() == read.getVectorType() &&
          write.getPermutationMap() == read.getPermutationMap() &&
          read->isBeforeInBlock(write))
        pairs.emplace_back(read, write);
  }
  if (pairs.empty())
    return;
  // Nothing else in the loop may write to global memory.
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (llvm::any_of(pairs, [&](auto pair) {
          return &op == pair.second.getOperation();
        }))
      continue;
    if (!writesOnlyWorkgroupMemory(&op))
      return;
  }
  for (auto &pair : pairs) {
    vector::TransferReadOp read = pair.first;
    vector::TransferWriteOp write = pair.second;
    loop.moveOutOfLoop(read);
    rewriter.moveOpAfter(write, loop);
    Value stored = write.getVector();
    FailureOr<LoopLikeOpInterface> newLoop =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, read.getVector(),
                /*replaceInitOperandUsesInLoop=*/true,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return SmallVector<Value>{stored};
                });
    if (failed(newLoop))
      return;
    loop = cast<scf::ForOp>(newLoop->getOperation());
    rewriter.modifyOpInPlace(write, [&] {
      write.getValueToStoreMutable().assign(loop.getResults().back());
    });
  }
}

/// Replaces a block forall with a gpu.launch over all its iterations.
static LogicalResult mapBlocks(RewriterBase &rewriter, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  FailureOr<int64_t> blockSize = getBlockSize(forall);
  if (failed(blockSize))
    return failure();

  // Workgroup buffers become attributions of the launch.
  SmallVector<memref::AllocOp> sharedAllocs;
  WalkResult walked = forall.walk([&](memref::AllocOp alloc) {
    if (!isWorkgroupMemory(alloc.getType()))
      return WalkResult::advance();
    if (!alloc.getType().hasStaticShape()) {
      alloc.emitError("einsum-gpu-map: workgroup buffers need a static shape");
      return WalkResult::interrupt();
    }
    sharedAllocs.push_back(alloc);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  int64_t sharedBytes = 0;
  for (memref::AllocOp alloc : sharedAllocs)
    sharedBytes += alloc.getType().getNumElements() *
                   alloc.getType().getElementTypeBitWidth() / 8;
  if (sharedBytes > kMaxStaticSharedBytes)
    return forall.emitError("einsum-gpu-map: ")
           << sharedBytes << " bytes of workgroup memory in one block; "
           << "statically allocated shared memory is at most "
           << kMaxStaticSharedBytes << " bytes";

  // The grid: one block per iteration.
  rewriter.setInsertionPoint(forall);
  SmallVector<Value> tripCounts;
  Value gridSize = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    Value lower = getValueOrCreateConstantIndexOp(rewriter, loc, lb);
    Value upper = getValueOrCreateConstantIndexOp(rewriter, loc, ub);
    Value stride = getValueOrCreateConstantIndexOp(rewriter, loc, step);
    Value span = arith::SubIOp::create(rewriter, loc, upper, lower);
    Value count = arith::CeilDivUIOp::create(rewriter, loc, span, stride);
    tripCounts.push_back(count);
    gridSize = arith::MulIOp::create(rewriter, loc, gridSize, count);
  }
  SmallVector<Type> sharedTypes = llvm::map_to_vector(
      sharedAllocs, [](memref::AllocOp alloc) -> Type {
        return alloc.getType();
      });
  gpu::LaunchOp launch =
      createLaunch(rewriter, forall, gridSize, *blockSize, sharedTypes);

  // The forall's induction variables from the block id.
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  Value blockId = launch.getBlockIds().x;
  SmallVector<Value> ivs;
  if (tripCounts.size() == 1) {
    ivs.push_back(blockId);
  } else {
    auto delinearized = affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, blockId, tripCounts, /*hasOuterBound=*/true);
    llvm::append_range(ivs, delinearized.getResults());
  }
  for (auto [iv, lb, step] : llvm::zip(ivs, forall.getMixedLowerBound(),
                                       forall.getMixedStep())) {
    Value lower = getValueOrCreateConstantIndexOp(rewriter, loc, lb);
    Value stride = getValueOrCreateConstantIndexOp(rewriter, loc, step);
    iv = arith::AddIOp::create(
        rewriter, loc, lower,
        arith::MulIOp::create(rewriter, loc, iv, stride));
  }

  Block *forallBody = forall.getBody();
  Operation *terminator = forallBody->getTerminator();
  if (!cast<scf::InParallelOp>(terminator).getYieldingOps().empty())
    return forall.emitError("einsum-gpu-map: the block loop still has tensor "
                            "results; bufferize first");
  rewriter.eraseOp(terminator);
  rewriter.inlineBlockBefore(forallBody, body.getTerminator(), ivs);
  rewriter.eraseOp(forall);

  for (auto [alloc, attribution] :
       llvm::zip(sharedAllocs, launch.getWorkgroupAttributions())) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    rewriter.replaceOp(alloc, attribution);
  }
  // Copies inside the kernel: bufferization's copies of a buffer onto itself
  // are dropped; others become linalg.copy, which lowers to loads and stores.
  launch.walk([&](memref::CopyOp copy) {
    rewriter.setInsertionPoint(copy);
    if (copy.getSource() != copy.getTarget())
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
    rewriter.eraseOp(copy);
  });
  if (failed(mapThreads(rewriter, launch, *blockSize)))
    return failure();
  SmallVector<scf::ForOp> loops;
  launch.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    hoistAccumulators(rewriter, loop);
  return success();
}

/// Runs a top-level op (a linalg op with a rank-0 output) on one thread.
static void wrapInSingleThreadLaunch(RewriterBase &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  Value one = arith::ConstantIndexOp::create(rewriter, op->getLoc(), 1);
  gpu::LaunchOp launch = createLaunch(rewriter, op, one, 1, {});
  rewriter.moveOpBefore(op, launch.getBody().front().getTerminator());
}

/// Whether `value` (or a view of it) is returned.
static bool isReturned(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<func::ReturnOp>(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == v)
          worklist.push_back(view->getResult(0));
      if (isa<memref::CastOp>(user))
        worklist.push_back(user->getResult(0));
    }
  }
  return false;
}

/// Host buffers live in device memory.
static void mapHostMemory(RewriterBase &rewriter, func::FuncOp func) {
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();
  for (Operation &op : llvm::make_early_inc_range(body)) {
    Location loc = op.getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(&op)) {
      rewriter.setInsertionPoint(alloc);
      auto gpuAlloc = gpu::AllocOp::create(
          rewriter, loc, alloc.getType(), /*asyncToken=*/nullptr,
          /*asyncDependencies=*/{}, alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/nullptr);
      bool returned = isReturned(alloc.getResult());
      rewriter.replaceOp(alloc, gpuAlloc.getMemref());
      if (!returned) {
        rewriter.setInsertionPoint(ret);
        gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                               ValueRange(), gpuAlloc.getMemref());
      }
      continue;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(&op)) {
      rewriter.setInsertionPoint(dealloc);
      gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange(),
                             dealloc.getMemref());
      rewriter.eraseOp(dealloc);
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(&op)) {
      rewriter.setInsertionPoint(copy);
      gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange(),
                            copy.getTarget(), copy.getSource());
      rewriter.eraseOp(copy);
      continue;
    }
  }
}

/// Ops the host may run on device buffers: launches, the gpu memory ops,
/// views and pure computations of indices.
static LogicalResult verifyHostCode(Block &block) {
  for (Operation &op : block) {
    if (isa<gpu::LaunchOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
            func::ReturnOp, memref::CastOp, cf::AssertOp, scf::YieldOp>(op) ||
        isa<ViewLikeOpInterface>(op) || isMemoryEffectFree(&op))
      continue;
    // Host control flow (run-time broadcasts of dynamic sizes) around host
    // code.
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!region->empty() && failed(verifyHostCode(region->front())))
          return failure();
      continue;
    }
    return op.emitError("einsum-gpu-map: '")
           << op.getName() << "' cannot run on the host: its buffers live in "
           << "GPU memory";
  }
  return success();
}

namespace {
struct EinsumGpuMapPass
    : einsum::impl::EinsumGpuMapPassBase<EinsumGpuMapPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitError("einsum-gpu-map: the host function must be a single "
                     "block");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    Block &body = func.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto forall = dyn_cast<scf::ForallOp>(&op)) {
        if (!hasMapping(forall, /*blocks=*/true)) {
          forall.emitError("einsum-gpu-map: a loop without a GPU block "
                           "mapping on the host");
          return signalPassFailure();
        }
        if (failed(mapBlocks(rewriter, forall)))
          return signalPassFailure();
        continue;
      }
      if (isa<linalg::LinalgOp>(&op))
        wrapInSingleThreadLaunch(rewriter, &op);
    }
    mapHostMemory(rewriter, func);
    if (failed(verifyHostCode(func.getBody().front())))
      return signalPassFailure();
  }
};
} // namespace
