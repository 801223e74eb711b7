// RUN: einsum-opt %s -einsum-vectorize -split-input-file | FileCheck %s
// RUN: einsum-opt %s '-einsum-vectorize=masked-remainders=true vector-bits=512' -split-input-file | FileCheck %s --check-prefix=MASKED

// Cache tiles 16x8x64 then register tiles 8x1x32 with the reduction innermost:
// the 8x32 accumulator is read before the reduction loop, carried as a
// vector<8x32xf32> and written after it.
// CHECK-LABEL: func.func @gemm
// CHECK-NOT: einsum.strategy
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} step %c1 iter_args(%[[ITER:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} %[[ITER]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.transfer_write %[[SUM]]
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @gemm(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<32x16xf32>, tensor<16x64xf32>) outs(%c : tensor<32x64xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [16, 8, 64], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// 20x40 does not divide into 8x32 tiles: the loops are peeled, and the
// partial tiles (4 rows, 8 columns) get vectors of their own sizes; no masks.
// CHECK-LABEL: func.func @remainder
// CHECK-NOT: vector.mask
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x8xf32> into vector<8x8xf32>
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x8xf32> into vector<4x8xf32>
// CHECK-NOT: vector.mask
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @remainder(%a: tensor<20x16xf32>, %b: tensor<16x40xf32>, %c: tensor<20x40xf32>) -> tensor<20x40xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<20x16xf32>, tensor<16x40xf32>) outs(%c : tensor<20x40xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [0, 0, 0], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<20x40xf32>
  return %r : tensor<20x40xf32>
}

// -----

// Dynamic sizes: the full tiles are static, the partial ones are split into
// columns, rows and single elements (unit loops folded), static as well.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: vector.mask
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1xf32> into vector<8xf32>
// CHECK: vector.contract {{.*}} : vector<1xf32>, vector<1x32xf32> into vector<32xf32>
// CHECK: vector.contract {{.*}} : vector<1xf32>, vector<1xf32> into f32
// CHECK-NOT: vector.mask
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [0, 0, 0], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A transpose in 16x16 tiles: one read, a vector.transpose, one write.
// CHECK-LABEL: func.func @transpose
// CHECK: vector.transfer_read {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
func.func @transpose(%a: tensor<32x32xf32>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [16, 16]>} {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A reduction along the contiguous loop is split into 32 partial sums carried
// in a vector through the loop (upstream partial-reduction tiling); one
// horizontal reduction per row merges them into the output.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK: %[[PARTIAL:.*]] = scf.for {{.*}} step %c32 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<32xf32>)
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<32xf32>, vector<32xf32>
// CHECK: arith.addf %[[ACC]], %[[X]] : vector<32xf32>
// CHECK: vector.multi_reduction <add>, %[[PARTIAL]], %{{.*}} [0] : vector<32xf32> to f32
func.func @reduce(%a: tensor<8x128xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<8x128xf32>) outs(%c : tensor<8xf32>) attrs = {einsum.strategy = #einsum.strategy<reduce, order = [0, 1], cache = [0, 0], register = [1, 32]>} {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A transposed output (`ij,jk->ki`, loops (k, j, i) interchanged to
// (i, k, j)): the accumulator keeps the 8 x 32 layout of the register tile;
// the tile is transposed once before and once after the reduction loop.
// CHECK-LABEL: func.func @transposed_output
// CHECK: %[[C:.*]] = vector.transfer_read {{.*}} : tensor<32x8xf32>, vector<32x8xf32>
// CHECK: %[[ACC:.*]] = vector.transpose %[[C]], [1, 0] : vector<32x8xf32> to vector<8x32xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: %[[T:.*]] = vector.transpose %[[SUM]], [1, 0] : vector<8x32xf32> to vector<32x8xf32>
// CHECK: vector.transfer_write %[[T]]
func.func @transposed_output(%a: tensor<16x16xf32>, %b: tensor<16x64xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<16x16xf32>, tensor<16x64xf32>) outs(%c : tensor<64x16xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [2, 0, 1], cache = [0, 0, 0], register = [32, 1, 8]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// A contraction whose output is a fill, with the reduction in one cache tile:
// the fill is fused into the register tiles, so the accumulator starts as a
// vector of zeros; the output is written once and never read.
// CHECK-LABEL: func.func @gemm_fill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK-NOT: vector.transfer_read {{.*}} : tensor<8x32xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK: vector.contract
// CHECK: vector.transfer_write %[[SUM]]
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @gemm_fill(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<32x16xf32>, tensor<16x64xf32>) outs(%init : tensor<32x64xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [16, 16, 64], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// The reduction spans two cache tiles: each cache tile of the output is
// filled right before its reduction loop (not the whole output first), and
// the register tiles accumulate onto it.
// CHECK-LABEL: func.func @gemm_fill_k_tiles
// CHECK: scf.for {{.*}} step %c16
// CHECK: %[[SLICE:.*]] = tensor.extract_slice {{.*}} [16, 64] [1, 1] : tensor<32x64xf32> to tensor<16x64xf32>
// CHECK: %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<16x64xf32>)
// CHECK: scf.for {{.*}} step %c8 iter_args(%{{.*}} = %[[FILLED]])
// CHECK: vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: vector.contract
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @gemm_fill_k_tiles(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<32x16xf32>, tensor<16x64xf32>) outs(%init : tensor<32x64xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [16, 8, 64], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// 105 columns in cache tiles of 64: the partial cache tile (41 columns) is
// peeled too, so its register tiles have static sizes, 32 + 9; the 9 are
// split into powers of two, 8 + 1, each a vector of its own (no vector<9>,
// which LLVM legalizes element by element).
// With masked remainders (512-bit registers), the 9 are one 16-lane vector
// instead: the accumulator is read and written out of bounds past column 9
// (masked loads and stores once lowered), B's row likewise; no 8 + 1 split.
// MASKED-LABEL: func.func @odd
// MASKED:     vector.transfer_read %{{.*}}[%c0, %c0], %{{.*}} {in_bounds = [true, false]} : tensor<8x9xf32>, vector<8x16xf32>
// MASKED:     scf.for {{.*}} -> (vector<8x16xf32>)
// MASKED:       vector.transfer_read %{{.*}} {in_bounds = [true, false]} : tensor<1x9xf32>, vector<1x16xf32>
// MASKED:       vector.contract {{.*}} into vector<8x16xf32>
// MASKED:     vector.transfer_write %{{.*}} {in_bounds = [true, false]} : vector<8x16xf32>, tensor<8x9xf32>
// MASKED-NOT: vector<8x8xf32>
// MASKED-NOT: vector<8x1xf32>, vector<1x1xf32>
// MASKED-NOT: vector.mask
// MASKED-LABEL: func.func @rows_not_split
// CHECK-LABEL: func.func @odd
// CHECK: scf.for {{.*}} -> (tensor<16x64xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: scf.for {{.*}} -> (tensor<16x41xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: scf.for {{.*}} -> (vector<8x8xf32>, vector<8xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x8xf32> into vector<8x8xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1xf32> into vector<8xf32>
// The pieces' stores are chained, each into a slice of the tile the previous
// piece was inserted into, so bufferization writes them in place (a slice of
// the tile from before the 8 x 1 insert was written to a new buffer and
// copied in).
// CHECK:      %[[ONE:.*]] = tensor.insert_slice %{{.*}}[0, 8] [8, 1] [1, 1] : tensor<8x1xf32> into tensor<8x9xf32>
// CHECK-NEXT: %[[EIGHT:.*]] = tensor.extract_slice %[[ONE]][0, 0] [8, 8] [1, 1] : tensor<8x9xf32> to tensor<8x8xf32>
// CHECK-NEXT: %[[W:.*]] = vector.transfer_write %{{.*}}, %[[EIGHT]]
// CHECK-NEXT: tensor.insert_slice %[[W]] into %[[ONE]][0, 0] [8, 8] [1, 1]
// CHECK-NOT: vector<9
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @odd(%a: tensor<16x4xf32>, %b: tensor<4x105xf32>, %c: tensor<16x105xf32>) -> tensor<16x105xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<16x4xf32>, tensor<4x105xf32>) outs(%c : tensor<16x105xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [16, 4, 64], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x105xf32>
  return %r : tensor<16x105xf32>
}

// -----

// An input contiguous along the register tile's rows (A along r, 7 rows)
// is read as broadcasts: the rows are not split into powers of two (7 =
// 4 + 2 + 1 pieces each had an accumulator bufferization copied in and out
// of every tile); one 7x32 accumulator is carried through the reduction.
// CHECK-LABEL: func.func @rows_not_split
// CHECK: scf.for {{.*}} -> (vector<7x32xf32>)
// CHECK-NOT: vector<4x32xf32>
// CHECK-NOT: vector<2x32xf32>
#rows_a = affine_map<(d0, d1, d2) -> (d2, d0)>
#rows_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#rows_c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @rows_not_split(%a: tensor<8x7xf32>, %b: tensor<8x64xf32>) -> tensor<7x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<7x64xf32>) -> tensor<7x64xf32>
  %r = linalg.generic {indexing_maps = [#rows_a, #rows_b, #rows_c],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x7xf32>, tensor<8x64xf32>) outs(%f : tensor<7x64xf32>)
      attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2], cache = [7, 64, 0], register = [7, 32, 1]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<7x64xf32>
  return %r : tensor<7x64xf32>
}

// -----

// A packing copy read only by a contraction over 24 or more reduction steps,
// of 1 MiB or more (32 x 8192 f32), is made slice by slice in the
// contraction's cache tiles (GETT): each N tile of 64 transposes its 32 x 64
// slice of B into a buffer of its own (16 x 16 vector transposes, the copy's
// strategy) and reads it at once; no 32 x 8192 temporary.
// CHECK-LABEL: func.func @fused_pack
// CHECK-NOT: tensor.empty() : tensor<32x8192xf32>
// CHECK: scf.for {{.*}} step %c64
// CHECK: %[[SLICE:.*]] = tensor.empty() : tensor<32x64xf32>
// CHECK: vector.transpose {{.*}} : vector<16x16xf32> to vector<16x16xf32>
// CHECK: vector.contract
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#nk_t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @fused_pack(%a: tensor<64x32xf32>, %b: tensor<8192x32xf32>, %c: tensor<64x8192xf32>) -> tensor<64x8192xf32> {
  %empty = tensor.empty() : tensor<32x8192xf32>
  %packed = linalg.generic {indexing_maps = [#nk_t, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<8192x32xf32>) outs(%empty : tensor<32x8192xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [16, 16]>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<32x8192xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x8192xf32>) -> tensor<64x8192xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %packed : tensor<64x32xf32>, tensor<32x8192xf32>) outs(%init : tensor<64x8192xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2], cache = [64, 64, 0], register = [8, 32, 1]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x8192xf32>
  return %r : tensor<64x8192xf32>
}

// -----

// The same contraction with a packed operand that fits L2 (32 x 256 f32):
// the whole operand is packed first, as its own op, and stays in L2 for the
// contraction; slices would only add their loops.
// CHECK-LABEL: func.func @pack_fits_l2
// CHECK: tensor.empty() : tensor<32x256xf32>
// CHECK: vector.transpose
// CHECK: scf.for {{.*}} step %c64
// CHECK-NOT: tensor.empty() : tensor<32x64xf32>
// CHECK: vector.contract
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#nk_t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @pack_fits_l2(%a: tensor<64x32xf32>, %b: tensor<256x32xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %empty = tensor.empty() : tensor<32x256xf32>
  %packed = linalg.generic {indexing_maps = [#nk_t, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<256x32xf32>) outs(%empty : tensor<32x256xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [16, 16]>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<32x256xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %packed : tensor<64x32xf32>, tensor<32x256xf32>) outs(%init : tensor<64x256xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2], cache = [64, 64, 0], register = [8, 32, 1]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A pack that the contraction reads through a collapse_shape ([l, g, o, i]
// read as [l, go, i]; 1.2 MB) is made slice by slice too: the slice of the
// collapsed operand that each tile of l reads is taken of the pack itself,
// 1 x 6 x 8 x 300, and collapsed.
// CHECK-LABEL: func.func @fused_pack_through_collapse
// CHECK-NOT: tensor.empty() : tensor<20x6x8x300xf32>
// CHECK: scf.for
// CHECK: %[[SLICE:.*]] = tensor.empty() : tensor<1x6x8x300xf32>
// CHECK: %[[PACK:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[SLICE]])
// CHECK: tensor.collapse_shape %[[PACK]] {{\[}}[0], [1, 2], [3]] : tensor<1x6x8x300xf32> into tensor<1x48x300xf32>
// CHECK: vector.contract
#glio = affine_map<(d0, d1, d2, d3) -> (d1, d3, d0, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#lki = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#klx = affine_map<(d0, d1, d2, d3) -> (d2, d1, d0)>
#xli = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
func.func @fused_pack_through_collapse(%a: tensor<6x300x20x8xf32>, %b: tensor<48x20x37xf32>, %c: tensor<37x20x300xf32>) -> tensor<37x20x300xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<37x20x300xf32>) -> tensor<37x20x300xf32>
  %empty = tensor.empty() : tensor<20x6x8x300xf32>
  %packed = linalg.generic {indexing_maps = [#glio, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<6x300x20x8xf32>) outs(%empty : tensor<20x6x8x300xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [1, 0, 2, 3], cache = [8, 1, 0, 64], register = [1, 1, 8, 16]>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<20x6x8x300xf32>
  %collapsed = tensor.collapse_shape %packed [[0], [1, 2], [3]] : tensor<20x6x8x300xf32> into tensor<20x48x300xf32>
  %r = linalg.generic {indexing_maps = [#lki, #klx, #xli], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%collapsed, %b : tensor<20x48x300xf32>, tensor<48x20x37xf32>) outs(%init : tensor<37x20x300xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [40, 1, 48, 320], register = [8, 1, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<37x20x300xf32>
  return %r : tensor<37x20x300xf32>
}

// -----

// Over 16 reduction steps, a packed operand of 4 MiB or more (16 x 65536
// f32) is made slice by slice too: the whole one would go to memory and back
// between the copy and the contraction.
// CHECK-LABEL: func.func @fused_pack_large_short_depth
// CHECK-NOT: tensor.empty() : tensor<16x65536xf32>
// CHECK: scf.for {{.*}} step %c64
// CHECK: %[[SLICE:.*]] = tensor.empty() : tensor<16x64xf32>
// CHECK: vector.transpose {{.*}} : vector<16x16xf32> to vector<16x16xf32>
// CHECK: vector.contract
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#nk_t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @fused_pack_large_short_depth(%a: tensor<64x16xf32>, %b: tensor<65536x16xf32>, %c: tensor<64x65536xf32>) -> tensor<64x65536xf32> {
  %empty = tensor.empty() : tensor<16x65536xf32>
  %packed = linalg.generic {indexing_maps = [#nk_t, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<65536x16xf32>) outs(%empty : tensor<16x65536xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [16, 16]>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<16x65536xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x65536xf32>) -> tensor<64x65536xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %packed : tensor<64x16xf32>, tensor<16x65536xf32>) outs(%init : tensor<64x65536xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2], cache = [64, 64, 0], register = [8, 32, 1]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x65536xf32>
  return %r : tensor<64x65536xf32>
}

// -----

// Over 16 reduction steps the slices of a smaller operand (16 x 256) are too
// thin to pay for their loops: the whole operand is packed first, as its own
// op (it stays in cache for the contraction).
// CHECK-LABEL: func.func @pack_short_depth
// CHECK: tensor.empty() : tensor<16x256xf32>
// CHECK: vector.transpose
// CHECK: scf.for {{.*}} step %c64
// CHECK-NOT: tensor.empty() : tensor<16x64xf32>
// CHECK: vector.contract
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#nk_t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @pack_short_depth(%a: tensor<64x16xf32>, %b: tensor<256x16xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %empty = tensor.empty() : tensor<16x256xf32>
  %packed = linalg.generic {indexing_maps = [#nk_t, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<256x16xf32>) outs(%empty : tensor<16x256xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [16, 16]>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<16x256xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %packed : tensor<64x16xf32>, tensor<16x256xf32>) outs(%init : tensor<64x256xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2], cache = [64, 64, 0], register = [8, 32, 1]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A register tile whose accumulator is a rank-reduced slice of the filled
// output tile (8 x 1 x 16 read as 8 x 16): its first read is the fill's
// value, a constant, and the fill, which the tile then overwrites whole, is
// not stored at all: the output is written once and never read.
// CHECK-LABEL: func.func @batch_fill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_write %cst
// CHECK-NOT: vector.transfer_read {{.*}} : tensor<8x16xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x16xf32>)
// CHECK: vector.contract
// CHECK: vector.transfer_write %[[SUM]], %{{.*}} {in_bounds = [true, true]} : vector<8x16xf32>, tensor<8x16xf32>
#a = affine_map<(d0, d1, d2, d3) -> (d2, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
func.func @batch_fill(%a: tensor<16x4x16xf32>, %b: tensor<16x4x16xf32>, %c: tensor<16x4x16xf32>) -> tensor<16x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<16x4x16xf32>) -> tensor<16x4x16xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #out], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : tensor<16x4x16xf32>, tensor<16x4x16xf32>) outs(%init : tensor<16x4x16xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [16, 2, 16, 16], register = [8, 1, 1, 16]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x4x16xf32>
  return %r : tensor<16x4x16xf32>
}

// -----

// The same with rows of 13 padded to one masked 16-lane vector: the first
// read of the accumulator is the constant too (a masked 64-byte load of the
// zeros just stored stalled on store forwarding), and the zeros are not
// stored first: the masked store of the accumulator covers the tile (its
// lines are prefetched before the reductions by einsum-prefetch-stores).
// MASKED-LABEL: func.func @batch_fill_masked
// MASKED-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// MASKED-NOT: vector.transfer_write %{{.*}} : vector<8x1x13xf32>, tensor<8x1x13xf32>
// MASKED-NOT: vector.transfer_read {{.*}} : tensor<8x13xf32>
// MASKED: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x16xf32>)
// MASKED: vector.contract
// MASKED: vector.transfer_write %[[SUM]], %{{.*}} {in_bounds = [true, false]} : vector<8x16xf32>, tensor<8x13xf32>
#a = affine_map<(d0, d1, d2, d3) -> (d2, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
func.func @batch_fill_masked(%a: tensor<16x4x13xf32>, %b: tensor<16x4x16xf32>, %c: tensor<16x4x13xf32>) -> tensor<16x4x13xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<16x4x13xf32>) -> tensor<16x4x13xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #out], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : tensor<16x4x13xf32>, tensor<16x4x16xf32>) outs(%init : tensor<16x4x13xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [16, 2, 16, 13], register = [8, 1, 1, 13]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x4x13xf32>
  return %r : tensor<16x4x13xf32>
}

// -----

// Without rows (M) and with N in both inputs (`ij,ij->j`), a register tile
// step multiplies a row of each input into the accumulator: the contraction
// of its unit reduction becomes one elementwise FMA of the 128 lanes, not a
// dot product per lane.
// CHECK-LABEL: func.func @unit_reduction_rows
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} -> (vector<128xf32>)
// CHECK-NOT:           vector.contract
// CHECK:               vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<128xf32>
// MASKED-LABEL: func.func @unit_reduction_rows
// MASKED-NOT:    vector.contract
// MASKED:        vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<128xf32>
func.func @unit_reduction_rows(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<512xf32>) -> tensor<512xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%1 : tensor<512xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [1, 0], cache = [256, 128], register = [1, 128]>} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in_0, %in fastmath<contract> : f32
    %4 = arith.addf %out, %3 fastmath<contract> : f32
    linalg.yield %4 : f32
  } -> tensor<512xf32>
  return %2 : tensor<512xf32>
}

// -----

// A register tile that folds rows (einsum-select-strategy: 3 rows of g, of
// 20 columns each, next to each other in B): its accumulator is 6 rows of M
// by 64 lanes (60 columns and 4 past them), carried through the reduction
// loop as vector<6x64>; B's three rows are read as one masked vector of 64
// lanes through a collapse_shape of its slice; after the loop each row of
// 20 is written on its own, 32 lanes taken from the folded vector (24 for
// the last one) and written masked.
// MASKED-LABEL: func.func @folded_rows
// MASKED:         scf.for {{.*}} -> (vector<6x64xf32>)
// MASKED:           %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<1x3x20xf32> into tensor<1x60xf32>
// MASKED:           vector.transfer_read %[[ROWS]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, false]} : tensor<1x60xf32>, vector<1x64xf32>
// MASKED:           vector.contract {{.*}} : vector<1x6xf32>, vector<1x64xf32> into vector<6x64xf32>
// MASKED:         vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [32], strides = [1]} : vector<64xf32> to vector<32xf32>
// MASKED:         vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : vector<32xf32>, tensor<3x6x20xf32>
// MASKED:         vector.extract_strided_slice %{{.*}} {offsets = [20], sizes = [32], strides = [1]} : vector<64xf32> to vector<32xf32>
// MASKED:         vector.extract_strided_slice %{{.*}} {offsets = [40], sizes = [24], strides = [1]} : vector<64xf32> to vector<24xf32>
// MASKED:         vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : vector<24xf32>, tensor<3x6x20xf32>
func.func @folded_rows(%a: tensor<16x12xf32>, %b: tensor<16x6x20xf32>) -> tensor<6x12x20xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<6x12x20xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<6x12x20xf32>) -> tensor<6x12x20xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : tensor<16x12xf32>, tensor<16x6x20xf32>) outs(%1 : tensor<6x12x20xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [6, 12, 16, 20], register = [3, 6, 1, 20]>} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 fastmath<contract> : f32
    %4 = arith.addf %out, %3 fastmath<contract> : f32
    linalg.yield %4 : f32
  } -> tensor<6x12x20xf32>
  return %2 : tensor<6x12x20xf32>
}

// -----

// `stage = 1`: each tile of the first loop (h, by 1) computes its 8 x 48
// block of the output in a buffer on the stack, allocated once before the
// loops, which the fill, the register tiles and their stores use; a
// linalg.copy marked einsum.stream then moves the block to the output.
// CHECK-LABEL: func.func @staged_output
//  CHECK-SAME: (%{{.*}}: tensor<64x8x8xf32>, %{{.*}}: tensor<64x8x48xf32>, %[[C:.*]]: tensor<64x8x48xf32>)
//       CHECK:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x8x48xf32>
//       CHECK:   scf.for %[[H:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %[[C]])
//       CHECK:     %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][%[[H]], 0, 0] [1, 8, 48] [1, 1, 1]
//       CHECK:     %[[STAGED:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<1x8x48xf32> to tensor<1x8x48xf32>
//       CHECK:     vector.contract
//       CHECK:     %[[BLOCK:.*]] = linalg.copy {einsum.stream} ins(%{{.*}} : tensor<1x8x48xf32>) outs(%[[SLICE]] : tensor<1x8x48xf32>)
//       CHECK:     tensor.insert_slice %[[BLOCK]] into %[[OUT]][%[[H]], 0, 0] [1, 8, 48] [1, 1, 1]
#hmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#hkn = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#hmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @staged_output(%a: tensor<64x8x8xf32>, %b: tensor<64x8x48xf32>, %c: tensor<64x8x48xf32>) -> tensor<64x8x48xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x8x48xf32>) -> tensor<64x8x48xf32>
  %r = linalg.generic {indexing_maps = [#hmk, #hkn, #hmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x8x8xf32>, tensor<64x8x48xf32>) outs(%init : tensor<64x8x48xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2, 3], cache = [1, 8, 48, 8], register = [1, 8, 16, 1], stage = 1>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x8x48xf32>
  return %r : tensor<64x8x48xf32>
}

// -----

// A staged loop whose tile does not divide it (64 by 24): its last tile (16
// of h) is peeled, and has a buffer of its own shape.
// CHECK-LABEL: func.func @staged_partial_tile
//   CHECK-DAG:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<24x8x48xf32>
//   CHECK-DAG:   %[[LAST:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x8x48xf32>
//       CHECK:   scf.for %{{.*}} = %c0 to %c48 step %c24
//       CHECK:     bufferization.to_tensor %[[BUF]] restrict writable : memref<24x8x48xf32> to tensor<24x8x48xf32>
//       CHECK:     vector.contract
//       CHECK:     linalg.copy {einsum.stream} ins(%{{.*}} : tensor<24x8x48xf32>)
//       CHECK:   bufferization.to_tensor %[[LAST]] restrict writable : memref<16x8x48xf32> to tensor<16x8x48xf32>
//       CHECK:   vector.contract
//       CHECK:   linalg.copy {einsum.stream} ins(%{{.*}} : tensor<16x8x48xf32>)
#hmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#hkn = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#hmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @staged_partial_tile(%a: tensor<64x8x8xf32>, %b: tensor<64x8x48xf32>, %c: tensor<64x8x48xf32>) -> tensor<64x8x48xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x8x48xf32>) -> tensor<64x8x48xf32>
  %r = linalg.generic {indexing_maps = [#hmk, #hkn, #hmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x8x8xf32>, tensor<64x8x48xf32>) outs(%init : tensor<64x8x48xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2, 3], cache = [24, 8, 48, 8], register = [1, 8, 16, 1], stage = 1>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x8x48xf32>
  return %r : tensor<64x8x48xf32>
}

// -----

// Two staged loops whose tiles do not divide them (64 by 24, 10 by 4) are
// not staged: the output is written in place.
// CHECK-LABEL: func.func @unstaged_two_partial_tiles
//   CHECK-NOT:   memref.alloca
//   CHECK-NOT:   einsum.stream
//       CHECK:   return
#hmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#hkn = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#hmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @unstaged_two_partial_tiles(%a: tensor<64x10x8xf32>, %b: tensor<64x8x48xf32>, %c: tensor<64x10x48xf32>) -> tensor<64x10x48xf32> {
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%c : tensor<64x10x48xf32>) -> tensor<64x10x48xf32>
  %r = linalg.generic {indexing_maps = [#hmk, #hkn, #hmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x10x8xf32>, tensor<64x8x48xf32>) outs(%init : tensor<64x10x48xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2, 3], cache = [24, 4, 48, 8], register = [1, 2, 16, 1], stage = 2>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x10x48xf32>
  return %r : tensor<64x10x48xf32>
}

// -----

// An elementwise op that does not read its output (an outer product) is
// staged the same way: each row goes to the buffer on the stack, then out.
// CHECK-LABEL: func.func @staged_elementwise
//       CHECK:   %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x256xf32>
//       CHECK:   scf.for %[[I:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %{{.*}})
//       CHECK:     %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [1, 256] [1, 1]
//       CHECK:     bufferization.to_tensor %[[BUF]] restrict writable : memref<1x256xf32> to tensor<1x256xf32>
//       CHECK:     vector.transfer_write
//       CHECK:     %[[ROW:.*]] = linalg.copy {einsum.stream} ins(%{{.*}} : tensor<1x256xf32>) outs(%[[SLICE]] : tensor<1x256xf32>)
//       CHECK:     tensor.insert_slice %[[ROW]] into %[[OUT]][%[[I]], 0] [1, 256] [1, 1]
#i = affine_map<(d0, d1) -> (d0)>
#j = affine_map<(d0, d1) -> (d1)>
#ij = affine_map<(d0, d1) -> (d0, d1)>
func.func @staged_elementwise(%a: tensor<64xf32>, %b: tensor<256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#i, #j, #ij], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<64xf32>, tensor<256xf32>) outs(%c : tensor<64x256xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [1, 0], register = [1, 32], stage = 1>} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// One that reads its output (an accumulation) is not staged.
// CHECK-LABEL: func.func @unstaged_reads_output
//   CHECK-NOT:   memref.alloca
//   CHECK-NOT:   einsum.stream
//       CHECK:   return
#i = affine_map<(d0, d1) -> (d0)>
#j = affine_map<(d0, d1) -> (d1)>
#ij = affine_map<(d0, d1) -> (d0, d1)>
func.func @unstaged_reads_output(%a: tensor<64xf32>, %b: tensor<256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.generic {indexing_maps = [#i, #j, #ij], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<64xf32>, tensor<256xf32>) outs(%c : tensor<64x256xf32>) attrs = {einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [1, 0], register = [1, 32], stage = 1>} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
