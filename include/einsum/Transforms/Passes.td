//===- Passes.td - einsum codegen passes -------------------*- tablegen -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TRANSFORMS_PASSES
#define EINSUM_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def EinsumParallelizePass : Pass<"einsum-parallelize"> {
  let summary = "Distribute linalg ops over threads with scf.forall";
  let description = [{
    Tiles every `linalg` op on tensors but fills along the loop of its
    output's first dimension into `num-threads` chunks, as an `scf.forall`,
    and fuses the `linalg.fill` that initializes its accumulator into the
    loop body, so every thread initializes and computes its own slice of the
    output. Other producers are not fused (they would be recomputed by every
    thread wherever their slice is not split); they get loops of their own.

    Ops with a rank-0 output, an empty iteration space, fewer than
    `min-iterations` points in their iteration space (starting threads costs
    more than such an op), or whose first output dimension is dynamic or has
    size 1, are left alone. With `num-threads=1` the pass does nothing.

    Input invariant: linalg on tensors, as `convert-einsum-to-linalg` emits.
    Output IR: `scf.forall` loops (no mapping attribute) around tiled linalg
    ops on `tensor.extract_slice`s, ending in `tensor.parallel_insert_slice`.
    The CPU pipeline then lowers them with `scf-forall-to-parallel` and
    `convert-scf-to-openmp`.
  }];
  let options = [
    Option<"numThreads", "num-threads", "unsigned", /*default=*/"1",
           "Number of chunks (threads) to split each op into">,
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"32768",
           "Leave ops with a smaller (static) iteration space serial">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EinsumSelectStrategyPass : Pass<"einsum-select-strategy"> {
  let summary = "Choose the CPU kernel schedule of every linalg.generic";
  let description = [{
    Classifies the loops of every `linalg.generic` on tensors (with one
    output) and attaches the schedule it chooses as
    `einsum.strategy = #einsum.strategy<...>`; `einsum-vectorize` applies it.
    This pass is the only place that decides tile sizes and operand layouts.

    Each operand is *contiguous along* the loop that indexes its last
    dimension (when that loop indexes no other dimension of it). First, the
    operands of static contractions are packed where that pays, each by a
    copy of its own (a `linalg.generic` transpose, scheduled like one):

    - the input holding the output's contiguous loop N is permuted into the
      order the schedule walks it ([other parallel, reductions, N], the
      other parallel dimensions in its own order, so that an input whose
      blocks are already in place is read as it is) when it is not
      contiguous along N (`bhqd,bhkd->bhqk`), and split into panels
      of the register tile's width, [other parallel, N / w, reductions, w],
      where its rows are 4 KiB apart (one L1's set span), M >= 256 and
      K >= 64; the product gets a panel loop and writes an `expand_shape` of
      its output;
      (not where the other input is contiguous along an output loop of its
      own and the product, without batch loops, has 64 or more reduction
      steps, or its output rows are shorter than a vector: that loop is then
      N, the accumulator stored transposed);
    - the other input, where it is contiguous along M with rows 4 KiB apart
      (`ji,jk->ik`), into panels of the register tile's rows;
    - runs of reduction loops adjacent in every operand are collapsed into
      one (`ijk->i`).

    Then:

    - `contract`: the op has reductions and a parallel loop N contiguous in
      an input. N gets a register tile of two vector registers (32 f32 with
      512-bit vectors, 16 with 256-bit; up to 8 registers when there is no
      M, so that B streams in order); a parallel loop M of the output that
      the N-input does not use (the one the other input is contiguous along,
      else the largest) gets 8 rows (6 with 256-bit vectors). Loops are
      ordered [other parallel, M, N, reductions] so the M x N accumulator
      stays in registers across the reduction loops. Cache tiles: M 256,
      N 128, the reductions together 256 (rounded to divisors of the
      extents, innermost reduction first); panel loops (used by one input
      only) are blocked to 512 columns of N and 256 rows of M. Where M's
      rows lie apart in the output (M is not the output's next loop) and N
      is the output's contiguous loop, N's cache tile is the whole row, or
      as long a stretch as keeps the N block of a cache tile (reduction
      tiles x N) within 256 x 128 elements; where that row is also short
      (at most 128 elements; at most 1024 over 32 or fewer reduction steps
      where M spans several register tiles), the output's next loop (one
      the M input uses too) is ordered right after M, with a cache tile of
      about 2048 elements of output row, so that each register tile row is
      written as one contiguous stretch.
    - `reduce`: a reduction loop is contiguous in every input (`ijk->i`,
      `...d,...d->...`): it becomes the innermost loop, split into vector
      partial sums.
    - `elementwise`: the output's contiguous loop gets a vector tile; when
      the largest input uses it but is contiguous along another loop (a
      transpose) both get square tiles; reductions over other loops
      (`ijk->jk`) come before it and accumulate a row of up to 16 vectors in
      registers.
    - Otherwise (diagonals such as `ii->i`, tiny ops below `min-iterations`
      points, ops with an empty iteration space) no attribute is attached
      and the op lowers to its loop nest.

    `vector-bits` is the width of the target's vector registers (0: the
    host's, 512 with AVX-512, 256 with AVX2 and on AMD Zen 4, whose 512-bit
    operations run as two 256-bit halves, 128 otherwise) and
    `vector-registers` how many the register tiles may fill (0: the host's
    where `vector-bits` is 0, else 32 at 512 bits and 16 below; Zen 4's
    256-bit schedules have AVX-512's 32: register tiles of 8 rows, not 6).
    Ops that already carry a strategy are left alone, so tests can set one
    by hand.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: detect the host's)">,
    Option<"vectorRegisters", "vector-registers", "unsigned", /*default=*/"0",
           "Vector registers the register tiles may fill: 16 or 32 (0: the "
           "host's, or those of vector-bits' ISA)">,
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"256",
           "Leave ops with a smaller (static) iteration space as loops">,
  ];
  let dependentDialects = [
    "::mlir::einsum::EinsumDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EinsumVectorizePass : Pass<"einsum-vectorize"> {
  let summary = "Tile, peel and vectorize linalg ops as their einsum.strategy says";
  let description = [{
    For every `linalg.generic` on tensors that carries an `einsum.strategy`
    (see `einsum-select-strategy`):

    1. interchanges its loops to the strategy's `order`;
    2. tiles it for caches and then for registers (`scf.for` on tensors, the
       upstream TilingInterface);
    3. peels the register loops whose tile does not divide them, so the full
       tiles have static shapes;
    4. folds unit dimensions (keeping one reduction loop of a contraction);
    5. vectorizes each register tile with `linalg::vectorize` with its
       static shape; a partial tile is first split into tiles of size 1
       along its dynamic loops, so no masks are needed;
    6. turns multiply-reductions into `vector.contract`, then hoists the
       accumulator transfers out of the reduction loops, so the register
       tile stays in registers. An accumulator whose tile was filled with a
       constant starts as that constant (its reads fold, through slices and
       padding); the fill is not stored where the tile then overwrites it
       whole with unmasked stores. The stores of a split tile's pieces
       (18 columns: 16 + 2) are chained, each into a slice of the tile the
       previous piece was inserted into, so that bufferization writes them
       in place rather than into a buffer allocated and copied per tile.
    7. folds the rows of a register tile that spans two loops of one input
       (its last two, `[.., g, n]`, packed so by `einsum-select-strategy`
       where rows of n waste lanes) into one vector dimension of whole
       registers: `[m] x [k, g, n]` becomes `[m] x [k, w]`, B's rows are
       read as one masked vector of w lanes, the accumulator is carried as
       `vector<m x w>`, and after the reductions each row of n is written
       on its own, masked, from a slice of the folded vector.

    The attribute is removed from the ops it was applied to. Ops without it
    are left alone. A step that cannot apply (a tile that upstream cannot
    vectorize, a split that fails) is not an error: what is left are
    correct linalg ops, tiled or not, which the pipeline lowers to loops.
    The CPU pipeline then bufferizes and lowers the vectors (contractions
    through outer products to FMAs).

    With `masked-remainders`, a contraction's register tile whose output
    rows would split into power-of-two pieces ending in one of 1 or 2
    elements (13 columns: 8 + 4 + 1) is vectorized as one vector of the next
    power of two (16; above a register, the next multiple of one) read and
    written out of bounds, wherever that takes fewer vector operations (for
    registers of `vector-bits`, 0: the host's). Rows whose pieces are all 4
    or more elements long (12 = 8 + 4) stay split.
  }];
  let options = [
    Option<"maskedRemainders", "masked-remainders", "bool", /*default=*/"false",
           "Vectorize contraction remainders as masked vectors where fewer">,
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: detect the host's)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::einsum::EinsumDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EinsumGpuTilePass : Pass<"einsum-gpu-tile", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on tensors for GPU blocks, threads and registers";
  let description = [{
    Distributes every `linalg` op on tensors at the top level of a function
    over GPU blocks and threads (`scf.forall` loops whose mapping says which;
    `einsum-gpu-map` turns them into a `gpu.launch` after bufferization).

    - Contractions (two inputs, reductions, an output of rank 2 or more): the
      output's last loop N and second-to-last loop M get a block tile of
      `tile-sizes[0]` x `tile-sizes[1]`, its other loops a tile of 1; the
      innermost reduction loop is tiled by `tile-sizes[2]` (the others by 1)
      with an `scf.for`. In that loop each input's tile is copied to
      workgroup (shared) memory (`bufferization.alloc_tensor` in
      `#gpu.address_space<workgroup>`; inputs whose tile exceeds
      `max-shared-bytes` stay in global memory) by all threads of the block,
      and each of the (M/`thread-tile[0]`) x (N/`thread-tile[1]`) threads
      computes a register tile of `thread-tile[0]` x `thread-tile[1]`
      outputs. That tile carries an `einsum.strategy` (kind `contract`) for
      `einsum-vectorize`, which keeps the accumulators in vector registers.
    - Other ops (fills, element-wise ops, transposes, reductions, diagonals):
      blocks of 4 x 64 output elements (256 along a rank-1 output), one
      element per thread; reductions run within each thread.
    - Ops with a rank-0 output or an empty iteration space are left alone:
      `einsum-gpu-map` runs them on one thread.

    Run serially (each forall a loop), the tiled IR computes what the GPU
    computes: the threads of a forall finish before the next op starts, as
    the barriers after each thread loop ensure on the GPU. With
    `workgroup-memory=false` the staging buffers are plain allocations, and
    the CPU pipeline can run the schedule to check it without a GPU.

    Input invariant: linalg on tensors, as `convert-einsum-to-linalg` emits.
    Output IR: `scf.forall` with `#gpu.block<linear_dim_*>` mappings around
    `scf.forall` loops with `#gpu.thread<linear_dim_*>` mappings; the
    thread foralls of one block have at most (M/TM) x (N/TN) threads (256
    outside contractions).
  }];
  let options = [
    ListOption<"tileSizes", "tile-sizes", "int64_t",
               "Block tile of a contraction: M, N and the reduction step K "
               "(default 128,128,8)">,
    ListOption<"threadTile", "thread-tile", "int64_t",
               "Register tile of a thread in a contraction: M, N "
               "(default 8,8)">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t",
           /*default=*/"16384",
           "Largest input tile copied to workgroup memory">,
    Option<"workgroupMemory", "workgroup-memory", "bool", /*default=*/"true",
           "Stage input tiles in workgroup memory (false: in plain "
           "allocations, so that the schedule can run serially on a CPU)">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::einsum::EinsumDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EinsumGpuMapPass : Pass<"einsum-gpu-map", "::mlir::func::FuncOp"> {
  let summary = "Turn GPU-mapped scf.forall loops on memrefs into gpu.launch";
  let description = [{
    After bufferization, for a host function whose linalg ops were tiled by
    `einsum-gpu-tile`:

    - every top-level `scf.forall` with a `#gpu.block` mapping becomes a
      `gpu.launch` whose one-dimensional grid covers all its iterations (the
      block id is delinearized into the forall's induction variables, so any
      number of mapped loops and dynamic trip counts work); its nested
      thread foralls are mapped with upstream's
      `mapNestedForallToThreadsImpl` (linear thread ids, a barrier after
      each), and the block size is the largest of their thread counts;
    - workgroup-memory `memref.alloc`s inside the block become workgroup
      attributions of the launch (static shapes only, at most 48 KiB per
      block: static shared memory);
    - a linalg op left at the top level (rank-0 outputs) runs in a launch of
      one thread;
    - host buffers: `memref.alloc`/`memref.dealloc` become
      `gpu.alloc`/`gpu.dealloc` (a buffer not returned is freed before the
      return), `memref.copy` becomes `gpu.memcpy`.

    Anything else on the host that reads or writes memory is an error: the
    function's memrefs live in device memory.

    Input invariant: one-shot bufferized host functions with straight-line
    bodies. Output IR: `gpu.launch` regions and `gpu` memory operations,
    ready for `gpu-kernel-outlining`.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EinsumLowerMaskedTransfersPass : Pass<"einsum-lower-masked-transfers"> {
  let summary = "Lower out-of-bounds 1-D vector transfers to masked loads and stores";
  let description = [{
    The padded register tiles of `einsum-vectorize{masked-remainders}` read
    and write their rows with 1-D transfers that are out of bounds past the
    row's end (13 columns in a 16-lane vector). This pass turns each such
    transfer on a memref into `vector.maskedload` / `vector.maskedstore`
    whose mask is `vector.create_mask` of the lanes in bounds (a constant
    where the row's length and the index are), with a greedy driver, before
    `convert-vector-to-llvm` lowers them to `llvm.intr.masked.load/store`
    (AVX-512 masked moves). Transfers in bounds become plain
    `vector.load` / `vector.store`, as `convert-vector-to-llvm` would make
    them.

    Below 512-bit vectors on targets without AVX-512 (16 vector registers:
    x86 whose masked stores are microcoded `vmaskmovps`), a masked store
    whose mask is a constant prefix of its lanes is stored as plain stores
    of power-of-two pieces instead (13 lanes: 8 + 4 + 1); masked loads stay.
    With AVX-512's mask registers (Zen 4's 256-bit schedules) masked stores
    stay: on Zen 4, hsaw,lhnw->hnasl (rows of 7) ran 0.88x the 512-bit
    schedule with its stores split and 1.05x with them masked.

    Input invariant: transfers of rank 1 on memrefs (`convert-vector-to-scf`
    with full unrolling ran).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits the kernels were scheduled for "
           "(0: the host's); below 512, constant-mask stores are split">,
    Option<"vectorRegisters", "vector-registers", "unsigned", /*default=*/"0",
           "Vector registers of the target: 32 (AVX-512) keeps masked "
           "stores at any width (0: the host's, or those of vector-bits' "
           "ISA)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EinsumLowerVectorsPass : Pass<"einsum-lower-vectors"> {
  let summary = "Lower vector contractions and transfers to FMAs, loads and stores";
  let description = [{
    Applies upstream's vector lowering patterns that `convert-vector-to-llvm`
    applies before its conversion, so that a later conversion that has no
    such step of its own (`convert-gpu-to-nvvm`, which also maps the GPU
    memory spaces that `convert-vector-to-llvm` cannot) sees only 1-D vector
    ops: `vector.contract` through outer products to `vector.fma` (one
    whose reductions have extent 1 and whose operands both hold the
    result's dimensions, as `ij,ij->j` accumulates a row at a time, to one
    elementwise `vector.fma`), transfer
    permutations to transposes and broadcasts, 1-D transfers to
    `vector.load`/`vector.store` (or scalar loads), multi-reductions to
    `vector.reduction`, and broadcasts, shape casts and transposes to
    extracts and inserts.

    Input invariant: transfers of rank 1 (`convert-vector-to-scf` with full
    unrolling ran). Output IR: 1-D vector arithmetic, loads and stores.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EinsumLowerMathPass : Pass<"einsum-lower-math"> {
  let summary = "Lower exp, log and bf16 arithmetic to code that vectorizes";
  let description = [{
    Replaces what the LLVM conversion would turn into slow or unsupported
    code, and nothing else:
    - f32 `math.exp` and `math.log` (scalars and vectors, as the semiring
      lowerings emit them) by upstream's polynomial approximations
      (`populateMathPolynomialApproximationPatterns`: range reduction, a
      polynomial, `ldexp` by integer arithmetic; about 1 ulp), which stay
      vectors, where `llvm.exp` on a vector becomes one libm call per lane;
    - with `expand-bf16`, bf16 `arith.extf`/`arith.truncf` by integer
      arithmetic (upstream's bf16 expansion), which the LLVM backend lacks;
    - `arith.ceildivsi`, `arith.floordivsi` and `arith.ceildivui` by
      divisions and selects.
    Unlike upstream `arith-expand`, `arith.maximumf`/`arith.minimumf` stay,
    so that ops whose operands are known free of NaNs (`fastmath<nnan,
    nsz>`) become one `vmaxps`.

    Input invariant: none (any function). Output IR: the same ops, with the
    ones above replaced by arith, math (fma) and vector ops.
  }];
  let options = [
    Option<"expandBF16", "expand-bf16", "bool", /*default=*/"true",
           "Expand bf16 extf/truncf into integer arithmetic">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EinsumCheckAllocationsPass : Pass<"einsum-check-allocations"> {
  let summary = "Assert that every heap allocation succeeded";
  let description = [{
    Adds, after every `memref.alloc`, a `cf.assert` that its aligned pointer
    is not null, with a message that gives the bytes asked for (the static
    size, or "a run-time size"), so that a kernel whose allocation fails
    stops with that message instead of writing through a null pointer.
    (The aligned pointer of a failed allocation is null too: the lowering
    rounds a null base up to 0.) Allocations of zero-size buffers are not
    checked.

    Input invariant: bufferized code (memrefs). Output IR: the same, plus
    `memref.extract_aligned_pointer_as_index`, `arith.cmpi` and `cf.assert`
    after each allocation. `einsum-lower-runtime-checks` (or upstream
    `convert-cf-to-llvm`, which aborts) lowers the assertions.

    ```mlir
    %m = memref.alloc() {alignment = 64 : i64} : memref<1024x1024xf32>
    %p = memref.extract_aligned_pointer_as_index %m : memref<1024x1024xf32> -> index
    %ok = arith.cmpi ne, %p, %c0 : index
    cf.assert %ok, "einsum: cannot allocate 4194304 bytes (memref<1024x1024xf32>)"
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EinsumLowerRuntimeChecksPass
    : Pass<"einsum-lower-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Lower failed assertions to an error returned to the caller";
  let description = [{
    Rewrites every `cf.assert` that sits in the region of a `func.func`
    itself (not inside another op's region, such as an OpenMP loop) into a
    conditional branch to a block that calls
    `einsum_runtime_error(message)` and returns from the function (poison
    results, which the caller must not use). The engine binds
    `einsum_runtime_error` to a function that records the message for the
    calling thread and turns it into the kernel call's error, so that a
    kernel whose sizes do not fit at run time, or whose allocation fails,
    reports a clear error instead of aborting the process. Assertions in
    nested regions are left to `convert-cf-to-llvm` (which aborts with the
    message).

    Input invariant: structured control flow already lowered to `cf`
    (after `convert-scf-to-cf`); memrefs may already be LLVM structs. Output
    IR: `cf.cond_br`, `llvm.call` of the external `einsum_runtime_error`,
    `llvm.mlir.global` message strings, `ub.poison` and `func.return`.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::ub::UBDialect",
  ];
}

def EinsumStreamCopiesPass : Pass<"einsum-stream-copies"> {
  let summary = "Copy staged output blocks to the output with non-temporal stores";
  let description = [{
    A `contract` strategy with a `stage` computes each block of its output
    into a buffer on the stack and copies it out with a `linalg.copy`
    marked `einsum.stream` (einsum-vectorize). This pass lowers those copies
    (bufferized, static shapes, integer or float elements of whole bytes):
    the inner dimensions that are contiguous on both sides are one run, and
    each run is copied as

    - the elements before the first 64-byte boundary of the destination,
      one at a time;
    - whole 64-byte lines, one vector load and one `vector.store` with
      `nontemporal` and an alignment of 64 each (`vmovntps` on x86): the
      line is written without first being read for ownership, and it does
      not evict the operands from the caches;
    - the rest, one element at a time.

    The outer dimensions are loops. An `llvm.fence` (seq_cst) follows the
    outermost `scf.for` around each copy: streaming stores are weakly
    ordered, and the output must be visible to every thread once the kernel
    returns. A run whose destination is not aligned to its element size is
    copied element by element. Other `linalg.copy` ops are left alone, as
    are marked copies this pass cannot handle (the marker is then dropped).

    Copied out after its block is computed, a block's stores do not overlap
    any computation: the core computes, then waits for the lines to drain.
    Where the marked copies (one run each) end the blocks of an `scf.for`
    body, from buffers on the stack (`memref.alloca`) defined outside the
    loop, of 256 KiB or less in all, the loop is software-pipelined: each
    buffer gets a second one, iteration k computes into buffers k % 2 while
    iteration k - 1's blocks stream out of the others, a share of their
    lines after each tile that the body stores into a buffer (the lines over
    the tiles of one iteration, rounded up), the rest and the elements off
    the lines at the end of the body; the last iteration's blocks are copied
    out after the loop, if it ran at all. On an Intel Xeon with AVX-512 (2
    MiB of L2 per core), one thread: the staged contractions of the suite
    and of 4 generated seeds ran 1.28x and 1.22x on the geomean, 2 threads
    1.18x. The loop is left as it was where its body writes anything but the
    buffers and allocations of the kernel, reads a copy's destination,
    writes a buffer after its copy, or stores no tiles into them, or where
    the loop runs once.

    Input invariant: bufferized code. Output IR: the same, with loops of
    loads and stores for the marked copies.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EinsumVectorizeCopiesPass : Pass<"einsum-vectorize-copies"> {
  let summary = "Turn static memref.copy ops into vector transfers";
  let description = [{
    Bufferization leaves `memref.copy` ops (operand packing copies whose
    tiles it turned into copies, copies of tile remainders); one between
    strided views lowers to a call of the runner utils' `memrefCopy`, which
    copies element by element through descriptors (a fifth of a packed
    contraction's time). Every copy of a static shape of at most 1024
    elements (larger ones would be vectors LLVM legalizes slowly) whose
    innermost dimension has unit stride becomes a vector.transfer_read and
    vector.transfer_write (upstream `linalg::CopyVectorizationPattern`),
    which the vector lowering turns into loads and stores. Other copies with
    a side that is not contiguous (the column remainder of a packing tile:
    8 elements 99 apart) become `linalg.copy`, which `convert-linalg-to-loops`
    makes loads and stores that LLVM compiles for their strides, instead of
    the generic `memrefCopy`'s per-element calls (sedm,dcm->dces: 2.1x).
    Contiguous copies stay `memref.copy` (`llvm.memcpy`).

    Input invariant: bufferized code. Output IR: the same, with vector
    transfers or `linalg.copy` for those copies.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EinsumPrefetchStoresPass : Pass<"einsum-prefetch-stores"> {
  let summary = "Prefetch for writing the lines that vector stores of tiles will write";
  let description = [{
    A store that misses the cache waits in the store buffer for its line
    (read for ownership), and the stores behind it wait too: the buffer
    drains in order. Tiles whose stores go to lines far apart (a register
    tile's 8 rows, a transpose's 16) miss on every row, and on this kind of
    machine a kernel that writes an output much larger than L2 that way ran
    at a third to a half of what the same stores reach into lines already
    held. Loads (and prefetches) have no such order: many misses overlap.
    This pass asks for those lines ahead of the stores, with
    `memref.prefetch` for writing (`prefetchw`):

    - a `vector.transfer_write` of the result of an `scf.for` (a register
      tile accumulated through its reductions): every line of the tile is
      prefetched right before that loop, which then hides the misses. Rows
      of whole lines whose strides are whole lines too (aligned rows, as
      the 64-byte aligned outputs have) are written in whole lines and get
      none: there a prefetch only added work (0.91-0.97x);
    - a `vector.transfer_write` in the body of an `scf.for` whose address
      moves with the loop (the tiles of a transpose or of a copy): the first
      line of each row of the tile `distance` iterations ahead is
      prefetched at the start of the body (the rest of each row is the next
      iteration's first line).

    Rows are the vector's leading dimensions; each row's lines are found
    from the memref's strides (an innermost stride other than 1 prefetches
    each element). A write with a transposing permutation map, a dimension
    out of bounds without a static extent, or more than 64 lines is left as
    it is. Prefetches never fault: the lines of a tile past the end of its
    loop are only asked for.

    Input invariant: bufferized code with vector transfers on memrefs.
    Output IR: the same, with `memref.prefetch` ops.
  }];
  let options = [
    Option<"distance", "distance", "int64_t", /*default=*/"2",
           "Iterations ahead that a store's tile in a loop is prefetched">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EinsumFixOpenMPIABIPass
    : Pass<"einsum-fix-openmpi-abi", "::mlir::ModuleOp"> {
  let summary = "Correct two OpenMPI ABI errors of LLVM 22's MPI lowering";
  let description = [{
    LLVM 22's MPI-to-LLVM lowering (`convert-to-llvm` of the mpi dialect,
    `MPI:Implementation = "OpenMPI"`) gets two things of OpenMPI's ABI
    wrong, so that a kernel with an all-reduce does not link or crashes:

    - it refers to the predefined `MPI_Op`s as `ompi_mpi_sum`,
      `ompi_mpi_max`, ...; OpenMPI (4.x, 5.x) names them `ompi_mpi_op_sum`,
      `ompi_mpi_op_max`, ...: the external `llvm.mlir.global`s and their
      `llvm.mlir.addressof` uses are renamed;
    - it reads the communicator that `MPI_Comm_split` writes as a 32-bit
      integer (MPICH's handles) and sign-extends it, where OpenMPI's
      `MPI_Comm` is a pointer: `llvm.load ... -> i32` of the call's result
      slot followed by `llvm.sext` to i64 becomes one `llvm.load ... -> i64`.

    Anything else is left as it is, so the pass is a no-op on modules that
    the lowering got right.

    Input invariant: the LLVM dialect after the MPI lowering for OpenMPI.
    Output IR: the same with the two corrections.
  }];
}

def EinsumLowerShardSlicesPass : Pass<"einsum-lower-shard-slices"> {
  let summary = "Lower shard.all_slice to each rank's tensor.extract_slice";
  let description = [{
    `shard-partition` reshards a tensor that is replicated over a grid axis
    into one split over it with `shard.all_slice`: every rank keeps its
    block, no communication. `convert-shard-to-mpi` has no pattern for it;
    this pass applies upstream's lowering (`populateAllSliceOpLowering
    Patterns`): the rank's index along the axes (`shard.process_multi_index`,
    which the MPI lowering turns into `MPI_Comm_rank` arithmetic) times the
    block size is the offset of a `tensor.extract_slice`.

    Input invariant: partitioned functions (after `shard-partition`).
    Output IR: no `shard.all_slice`; `shard.process_multi_index`,
    `tensor.extract_slice` and `affine`/`arith` index arithmetic instead.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // EINSUM_TRANSFORMS_PASSES
