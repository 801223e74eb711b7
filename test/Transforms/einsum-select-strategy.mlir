// RUN: einsum-opt %s -einsum-to-linalg-pipeline -einsum-select-strategy=vector-bits=512 -split-input-file | FileCheck %s
// RUN: einsum-opt %s -einsum-to-linalg-pipeline -einsum-select-strategy=vector-bits=256 -split-input-file | FileCheck %s --check-prefix=AVX2
// 256-bit vectors with AVX-512's 32 registers (AMD Zen 4's schedules):
// RUN: einsum-opt %s -einsum-to-linalg-pipeline '-einsum-select-strategy=vector-bits=256 vector-registers=32' -split-input-file | FileCheck %s --check-prefix=ZEN4

// Loops of the generic: (i, j, k) = (M, K, N). The register tile is 8 rows x
// two vectors of 16 f32, reductions last; cache tiles M 256, K 512 (all of
// it: up to 1024 steps), N 128.
// B's rows are 2 KiB apart: it is read in place.
// CHECK-LABEL: func.func @gemm
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [256, 512, 128], register = [8, 1, 32]>
// AVX2-LABEL: func.func @gemm
// AVX2: linalg.generic
// AVX2-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [252, 512, 128], register = [6, 1, 16]>
// With 32 registers, 8 rows of two 8-lane vectors.
// ZEN4-LABEL: func.func @gemm
// ZEN4: linalg.generic
// ZEN4-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [256, 512, 128], register = [8, 1, 16]>
func.func @gemm(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<512x512xf32>, tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// B's rows are 4 KiB apart (the span of an L1 cache's sets) and M is large:
// B is packed into panels of the register tile's width, [N / 32, K, 32], and
// the product gets a loop for the panel (d3, outermost, cache-blocked by 16
// panels: 512 columns, as N's cache tile is without panels) and writes an
// expand_shape of its output, filled in that shape (panels of 16 with AVX2).
// The 2048 reduction steps are tiled by 1024.
// CHECK-DAG: #[[$PANEL_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>
// CHECK-DAG: #[[$OUT_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @gemm_panels
// CHECK-SAME: (%[[A:.*]]: tensor<1024x2048xf32>, %[[B:.*]]: tensor<2048x1024xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1024x1024xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[B]] {{\[}}[0], [1, 2]] output_shape [2048, 32, 32]
// CHECK: %[[PANELS:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[SPLIT]] : tensor<2048x32x32xf32>) outs(%{{.*}} : tensor<32x2048x32xf32>)
// CHECK-SAME: #einsum.strategy<elementwise
// CHECK: %[[INIT:.*]] = tensor.expand_shape %[[EMPTY]] {{\[}}[0], [1, 2]] output_shape [1024, 32, 32]
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[INIT]] : tensor<1024x32x32xf32>)
// CHECK: %[[PRODUCT:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#{{.*}}, #[[$PANEL_MAP]], #[[$OUT_MAP]]]
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[PANELS]] : tensor<1024x2048xf32>, tensor<32x2048x32xf32>) outs(%[[FILL]] : tensor<1024x32x32xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [3, 0, 2, 1], cache = [256, 1024, 32, 16], register = [8, 1, 32, 1]>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[PRODUCT]] {{\[}}[0], [1, 2]] : tensor<1024x32x32xf32> into tensor<1024x1024xf32>
// CHECK: return %[[C]]
// AVX2-LABEL: func.func @gemm_panels
// AVX2: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2048, 64, 16]
// AVX2: register = [6, 1, 16, 1]
func.func @gemm_panels(%a: tensor<1024x2048xf32>, %b: tensor<2048x1024xf32>) -> tensor<1024x1024xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<1024x2048xf32>, tensor<2048x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// N = 1041 is not a whole number of panels, B's rows are 2 KiB or more apart
// and there are 256 or more reduction steps: the product is split along N
// into its whole panels (1024 columns, packed and written as above, into
// their slice of the output) and the other 17 columns, a contraction of its
// own on slices of B and of the first part's result, with a fill of its own
// (65 panels of 16 and 1 column with 256-bit vectors).
// CHECK-LABEL: func.func @gemm_panels_rest
// CHECK-SAME: (%[[A:.*]]: tensor<512x256xf32>, %[[B:.*]]: tensor<256x1041xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<512x1041xf32>
// CHECK: %[[BW:.*]] = tensor.extract_slice %[[B]][0, 0] [256, 1024] [1, 1]
// CHECK: %[[CW:.*]] = tensor.extract_slice %[[EMPTY]][0, 0] [512, 1024] [1, 1]
// CHECK: tensor.expand_shape %[[BW]] {{\[}}[0], [1, 2]] output_shape [256, 32, 32]
// CHECK: %[[INIT:.*]] = tensor.expand_shape %[[CW]] {{\[}}[0], [1, 2]] output_shape [512, 32, 32]
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[INIT]] : tensor<512x32x32xf32>)
// CHECK: %[[WHOLE:.*]] = linalg.generic
// CHECK-SAME: outs(%[[FILL]] : tensor<512x32x32xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [3, 0, 2, 1], cache = [256, 256, 32, 16], register = [8, 1, 32, 1]>
// CHECK: %[[WC:.*]] = tensor.collapse_shape %[[WHOLE]] {{\[}}[0], [1, 2]] : tensor<512x32x32xf32> into tensor<512x1024xf32>
// CHECK: %[[PART:.*]] = tensor.insert_slice %[[WC]] into %[[EMPTY]][0, 0] [512, 1024] [1, 1]
// CHECK: %[[BR:.*]] = tensor.extract_slice %[[B]][0, 1024] [256, 17] [1, 1]
// CHECK: %[[CR:.*]] = tensor.extract_slice %[[PART]][0, 1024] [512, 17] [1, 1]
// CHECK: %[[FR:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[CR]] : tensor<512x17xf32>)
// CHECK: %[[REST:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[BR]] : tensor<512x256xf32>, tensor<256x17xf32>) outs(%[[FR]] : tensor<512x17xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract
// CHECK: %[[C:.*]] = tensor.insert_slice %[[REST]] into %[[PART]][0, 1024] [512, 17] [1, 1]
// CHECK: return %[[C]]
// ZEN4-LABEL: func.func @gemm_panels_rest
// ZEN4: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [256, 65, 16]
// ZEN4: tensor.extract_slice %{{.*}}[0, 1040] [256, 1] [1, 1]
func.func @gemm_panels_rest(%a: tensor<512x256xf32>, %b: tensor<256x1041xf32>) -> tensor<512x1041xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<512x256xf32>, tensor<256x1041xf32>
  return %r : tensor<512x1041xf32>
}

// -----

// Over fewer than 256 reduction steps, such an N is read in place (its
// rows' walk fits the L1).
// CHECK-LABEL: func.func @gemm_panels_rest_shallow
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @gemm_panels_rest_shallow(%a: tensor<512x128xf32>, %b: tensor<128x1041xf32>) -> tensor<512x1041xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<512x128xf32>, tensor<128x1041xf32>
  return %r : tensor<512x1041xf32>
}

// -----

// Nor where B's rows are less than 2 KiB apart (N = 500 f32: 2000 bytes).
// CHECK-LABEL: func.func @gemm_panels_rest_close_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @gemm_panels_rest_close_rows(%a: tensor<512x256xf32>, %b: tensor<256x500xf32>) -> tensor<512x500xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<512x256xf32>, tensor<256x500xf32>
  return %r : tensor<512x500xf32>
}

// -----

// With rows 2 KiB or more apart but short of 4 KiB (N = 1001 f32: 4004
// bytes), N is split: 992 columns in panels of 32, a rest of 9.
// CHECK-LABEL: func.func @gemm_panels_rest_page_rows
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [256, 31, 32]
// CHECK: tensor.extract_slice %{{.*}}[0, 992] [256, 9] [1, 1]
func.func @gemm_panels_rest_page_rows(%a: tensor<512x256xf32>, %b: tensor<256x1001xf32>) -> tensor<512x1001xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<512x256xf32>, tensor<256x1001xf32>
  return %r : tensor<512x1001xf32>
}

// -----

// Fewer than 256 rows do not repay the copy: B is read in place.
// CHECK-LABEL: func.func @gemm_few_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @gemm_few_rows(%a: tensor<128x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<128x1024xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<128x1024xf32>, tensor<1024x1024xf32>
  return %r : tensor<128x1024xf32>
}

// -----

// Nor do fewer than 64 reduction steps (K = 16): such a product is bound by
// writing its output, which panels would write in strips.
// CHECK-LABEL: func.func @gemm_shallow
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @gemm_shallow(%a: tensor<1024x16xf32>, %b: tensor<16x1024xf32>) -> tensor<1024x1024xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<1024x16xf32>, tensor<16x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// An "NT" product with 4 KiB rows once packed: the transpose and the split
// are one copy, B (k, j) -> [k / 32, j, 32]; batch loops stay outermost.
// CHECK-LABEL: func.func @bmm_nt_panels
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [2, 32, 32, 64] : tensor<2x1024x64xf32> into tensor<2x32x32x64xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x32x64x32xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x512x32x32xf32>)
// CHECK-SAME: #einsum.strategy<contract, order = [0, 4, 1, 3, 2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<2x512x32x32xf32> into tensor<2x512x1024xf32>
func.func @bmm_nt_panels(%a: tensor<2x512x64xf32>, %b: tensor<2x1024x64xf32>) -> tensor<2x512x1024xf32> {
  %r = einsum.contract "bij,bkj->bik"(%a, %b) : tensor<2x512x64xf32>, tensor<2x1024x64xf32>
  return %r : tensor<2x512x1024xf32>
}

// -----

// The output is transposed: loops (k, j, i). N is k, the loop B is
// contiguous along; M is i. The accumulator is written transposed once per
// tile. B's rows are 2 KiB apart: no panels.
// CHECK-LABEL: func.func @gemm_out_t
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [2, 0, 1], cache = [128, 512, 256], register = [32, 1, 8]>
func.func @gemm_out_t(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = einsum.contract "ij,jk->ki"(%a, %b) : tensor<512x512xf32>, tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// The same with 4 KiB rows: B (j, k) is split into panels along N = k, and
// the output's k dimension (its first) into (panel, lane).
// CHECK-LABEL: func.func @gemm_out_t_panels
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [1024, 32, 32] : tensor<1024x1024xf32> into tensor<1024x32x32xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<32x1024x32xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [32, 32, 1024]
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<32x32x1024xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [3, 2, 0, 1], cache = [32, 1024, 256, 16], register = [32, 1, 8, 1]>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<32x32x1024xf32> into tensor<1024x1024xf32>
func.func @gemm_out_t_panels(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %r = einsum.contract "ij,jk->ki"(%a, %b) : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// An "NT" product: B (k, j) is contiguous along the reduction j. It is
// packed to (j, k) by a transpose of its own (16 x 16 tiles in blocks of
// 64 x 64: runs of 256 bytes read and written), and the product runs the
// gemm schedule.
// CHECK-LABEL: func.func @gemm_nt
// CHECK-SAME: (%[[A:.*]]: tensor<1024x512xf32>, %[[B:.*]]: tensor<256x512xf32>)
// CHECK: %[[PACKED:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<256x512xf32>) outs(%{{.*}} : tensor<512x256xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [64, 64], register = [16, 16]>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[PACKED]] : tensor<1024x512xf32>, tensor<512x256xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [256, 512, 128], register = [8, 1, 32]>
func.func @gemm_nt(%a: tensor<1024x512xf32>, %b: tensor<256x512xf32>) -> tensor<1024x256xf32> {
  %r = einsum.contract "ij,kj->ik"(%a, %b) : tensor<1024x512xf32>, tensor<256x512xf32>
  return %r : tensor<1024x256xf32>
}

// -----

// Rows of fewer than 8 outputs (a matrix-vector product) are not worth a
// pass over B: no packing.
// CHECK-LABEL: func.func @matvec_nt
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
func.func @matvec_nt(%a: tensor<4x512xf32>, %b: tensor<256x512xf32>) -> tensor<4x256xf32> {
  %r = einsum.contract "ij,kj->ik"(%a, %b) : tensor<4x512xf32>, tensor<256x512xf32>
  return %r : tensor<4x256xf32>
}

// -----

// f64: 8 lanes per vector; the batch loop is tiled by 1 at both levels.
// CHECK-LABEL: func.func @bmm_f64
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 64, 64, 64], register = [1, 8, 1, 16]>
func.func @bmm_f64(%a: tensor<8x64x64xf64>, %b: tensor<8x64x64xf64>) -> tensor<8x64x64xf64> {
  %r = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<8x64x64xf64>, tensor<8x64x64xf64>
  return %r : tensor<8x64x64xf64>
}

// -----

// A tensor contraction: loops (a, e, c, d, b, f). B (d, b, e, f) is packed
// first into the order the schedule walks it, (e, d, b, f): the reduction
// steps then move along rows of f. N = f gets two vectors (its 48 = a tile
// of 32 and a peeled one of 16: vectors of 48 are no power of two), M = c;
// the reductions d and b share the cache budget of 256 (48 x 4). a (only A
// uses it) and e (only B) are blocked like M's and N's panels: 24 (of 256 / 8
// rows) and 16 (of 512 / 32 columns).
// CHECK-LABEL: func.func @tc
// CHECK-SAME: (%[[A:.*]]: tensor<48x48x48x48xf32>, %[[B:.*]]: tensor<48x48x48x48xf32>)
// CHECK: %[[PACKED:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<48x48x48x48xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[PACKED]] :
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 2, 5, 3, 4], cache = [24, 16, 48, 16, 48, 64], register = [1, 1, 8, 1, 1, 32]>
func.func @tc(%a: tensor<48x48x48x48xf32>, %b: tensor<48x48x48x48xf32>) -> tensor<48x48x48x48xf32> {
  %r = einsum.contract "abcd,dbef->aecf"(%a, %b) : tensor<48x48x48x48xf32>, tensor<48x48x48x48xf32>
  return %r : tensor<48x48x48x48xf32>
}

// -----

// Dynamic sizes are assumed large. The copies that expand a size-1 broadcast
// decided at run time get no schedule.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.generic
// CHECK-NOT: einsum.strategy
// CHECK-SAME: einsum.runtime_broadcast
// CHECK: linalg.generic
// CHECK-NOT: einsum.strategy
// CHECK-SAME: einsum.runtime_broadcast
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [256, 1024, 128], register = [8, 1, 32]>
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<?x?xf32>, tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// The reductions j and k are adjacent in the input: they are collapsed into
// one contiguous loop jk (the input read through a collapse_shape), loops
// (jk, i) become (i, jk), and jk is split into 32 partial sums (two vectors)
// for each of 4 rows i.
// CHECK-LABEL: func.func @sum_jk
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<64x64x64xf32> into tensor<64x4096xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK-SAME: einsum.strategy = #einsum.strategy<reduce, order = [1, 0], cache = [0, 0], register = [32, 4]>
func.func @sum_jk(%a: tensor<64x64x64xf32>) -> tensor<64xf32> {
  %r = einsum.contract "ijk->i"(%a) : tensor<64x64x64xf32>
  return %r : tensor<64xf32>
}

// -----

// A transposed A (ji: contiguous along M, rows 4 KiB apart) is split into
// panels of the register tile's 8 rows, [M / 8, K, 8]: each register tile's
// broadcasts then read one contiguous panel. M (d0, the panels' lanes) stays
// the register tile's M; the panel index is loop d3. B (2 KiB rows) is read
// in place.
// CHECK-LABEL: func.func @gemm_tn_panels
// CHECK-SAME: (%[[A:.*]]: tensor<2048x1024xf32>, %[[B:.*]]: tensor<2048x512xf32>)
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [2048, 128, 8]
// CHECK: %[[PANELS:.*]] = linalg.generic
// CHECK-SAME: ins(%[[SPLIT]] : tensor<2048x128x8xf32>) outs(%{{.*}} : tensor<128x2048x8xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [128, 8, 512]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[PANELS]], %[[B]] : tensor<128x2048x8xf32>, tensor<2048x512xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [3, 0, 2, 1], cache = [8, 1024, 128, 32], register = [8, 1, 32, 1]>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<128x8x512xf32> into tensor<1024x512xf32>
func.func @gemm_tn_panels(%a: tensor<2048x1024xf32>, %b: tensor<2048x512xf32>) -> tensor<1024x512xf32> {
  %r = einsum.contract "ji,jk->ik"(%a, %b) : tensor<2048x1024xf32>, tensor<2048x512xf32>
  return %r : tensor<1024x512xf32>
}

// -----

// A tensor contraction whose reduction r is A's outer dimension: its 24 steps
// lie 4 KiB apart in A (a x i = 8 x 128 floats), all in one L1 set, more than
// its 8 ways hold. A is split into panels of the register tile's 8 rows,
// [a, i / 8, r, 8], although r has fewer than 64 steps; the panel index is
// loop d4. With AVX2's 6 rows, which do not divide i = 128, A is read in place.
// CHECK-LABEL: func.func @crowded_reduction_panels
// CHECK-SAME: (%[[A:.*]]: tensor<24x8x128xf32>, %[[B:.*]]: tensor<8x24x100xf32>)
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1], [2, 3]] output_shape [24, 8, 16, 8]
// CHECK: %[[PANELS:.*]] = linalg.generic
// CHECK-SAME: ins(%[[SPLIT]] : tensor<24x8x16x8xf32>) outs(%{{.*}} : tensor<8x16x24x8xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[PANELS]], %[[B]] : tensor<8x16x24x8xf32>, tensor<8x24x100xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 4, 1, 3, 2], cache = [1, 8, 24, 128, 16], register = [1, 8, 1, 32, 1]>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<8x16x8x100xf32> into tensor<8x128x100xf32>
// ZEN4-LABEL: func.func @crowded_reduction_panels
// ZEN4: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16x24x8xf32>, tensor<8x24x100xf32>)
// ZEN4-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 4, 1, 3, 2], cache = [1, 8, 24, 112, 16], register = [1, 8, 1, 16, 1]>
// AVX2-LABEL: func.func @crowded_reduction_panels
// AVX2-NOT: tensor.expand_shape
// AVX2: linalg.generic
// AVX2-SAME: ins(%{{.*}}, %{{.*}} : tensor<24x8x128xf32>, tensor<8x24x100xf32>)
// AVX2-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 132, 24, 112], register = [1, 6, 1, 16]>
func.func @crowded_reduction_panels(%a: tensor<24x8x128xf32>, %b: tensor<8x24x100xf32>) -> tensor<8x128x100xf32> {
  %r = einsum.contract "rai,arj->aij"(%a, %b) : tensor<24x8x128xf32>, tensor<8x24x100xf32>
  return %r : tensor<8x128x100xf32>
}

// -----

// The same with r's steps 2 KiB apart (a = 4): they alternate between two
// sets, and A is read in place (panels ran 0.93-1.13x there).
// CHECK-LABEL: func.func @reduction_two_sets
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<24x4x128xf32>, tensor<4x24x100xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 128, 24, 128], register = [1, 8, 1, 32]>
func.func @reduction_two_sets(%a: tensor<24x4x128xf32>, %b: tensor<4x24x100xf32>) -> tensor<4x128x100xf32> {
  %r = einsum.contract "rai,arj->aij"(%a, %b) : tensor<24x4x128xf32>, tensor<4x24x100xf32>
  return %r : tensor<4x128x100xf32>
}

// -----

// Eight steps 4 KiB apart fit the set's 8 ways: A is read in place.
// CHECK-LABEL: func.func @crowded_eight_steps
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8x8x128xf32>, tensor<8x8x100xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 128, 8, 128], register = [1, 8, 1, 32]>
func.func @crowded_eight_steps(%a: tensor<8x8x128xf32>, %b: tensor<8x8x100xf32>) -> tensor<8x128x100xf32> {
  %r = einsum.contract "rai,arj->aij"(%a, %b) : tensor<8x8x128xf32>, tensor<8x8x100xf32>
  return %r : tensor<8x128x100xf32>
}

// -----

// A is a packed panel layout, contiguous along m: m is the register tile's
// M (8 adjacent elements per reduction step), not the larger p. Loops
// (p, m, j, k).
// CHECK-LABEL: func.func @a_panels
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [16, 8, 64, 128], register = [1, 8, 1, 32]>
func.func @a_panels(%a: tensor<16x64x8xf32>, %b: tensor<64x128xf32>) -> tensor<16x8x128xf32> {
  %r = einsum.contract "pjm,jk->pmk"(%a, %b) : tensor<16x64x8xf32>, tensor<64x128xf32>
  return %r : tensor<16x8x128xf32>
}

// -----

// No rows of its own: the register tile spans 8 vectors of N (l, 128) so
// that B is streamed once, row by row. The reductions j and k, adjacent in
// both inputs, are one loop (i, jk, l), tiled by 256 (a product with M rows
// gets reduction tiles of up to 1024: @gemm_panels).
// CHECK-LABEL: func.func @stream_b
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<64x64xf32> into tensor<4096xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<16x64x64x128xf32> into tensor<16x4096x128xf32>
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [1, 256, 128], register = [1, 1, 128]>
func.func @stream_b(%a: tensor<64x64xf32>, %b: tensor<16x64x64x128xf32>) -> tensor<16x128xf32> {
  %r = einsum.contract "jk,ijkl->il"(%a, %b) : tensor<64x64xf32>, tensor<16x64x64x128xf32>
  return %r : tensor<16x128xf32>
}

// -----

// A reduction over a loop no input is contiguous along: a row of the output
// (16 vectors) is accumulated in registers through the reductions. Loops
// (j, i, k): the parallel j, the reduction i, the row k.
// CHECK-LABEL: func.func @sum_i
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1, 2], cache = [0, 0, 0], register = [1, 1, 256]>
// AVX2-LABEL: func.func @sum_i
// AVX2: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1, 2], cache = [0, 0, 64], register = [1, 1, 64]>
// ZEN4-LABEL: func.func @sum_i
// ZEN4: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1, 2], cache = [0, 0, 128], register = [1, 1, 128]>
func.func @sum_i(%a: tensor<64x64x256xf32>) -> tensor<64x256xf32> {
  %r = einsum.contract "ijk->jk"(%a) : tensor<64x64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// Wider rows are cache-tiled by the row, so that the row's loop stays
// outside the reduction. Loops (i, j): the reduction i, the row j.
// CHECK-LABEL: func.func @column_sums
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 256], register = [1, 256]>
func.func @column_sums(%a: tensor<64x1000xf32>) -> tensor<1000xf32> {
  %r = einsum.contract "ij->j"(%a) : tensor<64x1000xf32>
  return %r : tensor<1000xf32>
}

// -----

// An outer product: neither input uses the other's loop (each is broadcast
// along it), so the output's rows are written whole, four vectors at a
// time, not in transposing 16 x 16 tiles.
// CHECK-LABEL: func.func @outer
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [1, 64]>
func.func @outer(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %r = einsum.contract "i,j->ij"(%a, %b) : tensor<1024xf32>, tensor<1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// CHECK-LABEL: func.func @hadamard
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [0, 0], register = [1, 64]>
func.func @hadamard(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = einsum.contract "ij,ij->ij"(%a, %b) : tensor<64x64xf32>, tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A transpose: 16 x 16 tiles (8 x 8 with 256-bit vectors); the batch
// loop runs outside the blocks, one at a time (cache tile 1); rows of 64
// are whole blocks.
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1, 2], cache = [1, 0, 0], register = [1, 16, 16]>
// AVX2-LABEL: func.func @transpose
// AVX2: linalg.generic
// AVX2-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1, 2], cache = [1, 0, 0], register = [1, 8, 8]>
func.func @transpose(%a: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %r = einsum.contract "...ij->...ji"(%a) : tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}

// -----

// A large transpose is blocked (HPTT): 64 x 64 blocks of 16 x 16 tiles,
// each block reading 64 rows of 256 bytes and writing 64 (with 256-bit
// vectors, 32 x 32 blocks of 8 x 8 tiles: runs of 128 bytes).
// CHECK-LABEL: func.func @transpose_blocks
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [64, 64], register = [16, 16]>
// AVX2-LABEL: func.func @transpose_blocks
// AVX2: linalg.generic
// AVX2-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [32, 32], register = [8, 8]>
func.func @transpose_blocks(%a: tensor<4096x2048xf32>) -> tensor<2048x4096xf32> {
  %r = einsum.contract "ij->ji"(%a) : tensor<4096x2048xf32>
  return %r : tensor<2048x4096xf32>
}

// -----

// Output rows of 8 (i): 32 bytes. Loops (k, j, i); the input (i, j, k) is
// contiguous along k. The output's next loop j continues its rows
// (out[k, j:j+8, :] is 256 contiguous bytes), so j is blocked by 8 and
// runs outside k's blocks of 64: each block writes 64 runs of 256 bytes and
// reads 8 x 8 of 256.
// CHECK-LABEL: func.func @transpose_short_rows
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [1, 0, 2], cache = [64, 8, 0], register = [16, 1, 8]>
func.func @transpose_short_rows(%a: tensor<8x2048x256xf32>) -> tensor<256x2048x8xf32> {
  %r = einsum.contract "ijk->kji"(%a) : tensor<8x2048x256xf32>
  return %r : tensor<256x2048x8xf32>
}

// -----

// Rows short on both sides: the input (s, e, d, m) is contiguous along m
// (8), the output (d, m, e, s) along s (9). d continues the input's runs
// (32 bytes each) and is blocked by 8; e continues the output's and is
// whole (11 <= 2 x 8). Loops (d, m, e, s): d's blocks of 8; in each, e,
// d, then the m x s tiles, so that each input run is read whole.
// CHECK-LABEL: func.func @transpose_short_both
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<elementwise, order = [2, 0, 1, 3], cache = [8, 0, 0, 0], register = [1, 8, 1, 9]>
func.func @transpose_short_both(%a: tensor<9x11x2499x8xf32>) -> tensor<2499x8x11x9xf32> {
  %r = einsum.contract "sedm->dmes"(%a) : tensor<9x11x2499x8xf32>
  return %r : tensor<2499x8x11x9xf32>
}

// -----

// A diagonal is contiguous along no loop, and a 4x4x4 product is too small:
// both stay loop nests.
// CHECK-LABEL: func.func @diag
// CHECK-NOT: einsum.strategy
// CHECK-LABEL: func.func @tiny
// CHECK-NOT: einsum.strategy
// CHECK: return
func.func @diag(%a: tensor<64x64xf32>) -> tensor<64xf32> {
  %r = einsum.contract "ii->i"(%a) : tensor<64x64xf32>
  return %r : tensor<64xf32>
}
func.func @tiny(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x4xf32>, tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// The output's contiguous loop p belongs to A, which is contiguous along the
// 16-step reduction e; B is contiguous along an output loop of its own (i).
// Over so few reduction steps, taking i as N would store every accumulator
// tile transposed: A is packed instead, [j, m, e, p], and N stays p, the
// vector dimension of the stores (GETT's choice); the 8 rows of the
// register tile are i, B's contiguous loop. The output rows (64 of p) are
// short and the M rows (i) lie apart: m, the output's next loop, runs inside
// M's tiles, whole (4 <= 2048 / 64).
// CHECK-LABEL: func.func @short_k_packs_n_operand
// CHECK: %[[PACKED:.*]] = linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x4x64x16xf32>) outs(%{{.*}} : tensor<4x4x16x64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[PACKED]], %{{.*}} : tensor<4x4x16x64xf32>, tensor<16x4x4x24xf32>)
// CHECK-SAME: #einsum.strategy<contract, order = [0, 1, 2, 4, 3], cache = [1, 24, 4, 16, 64], register = [1, 8, 1, 1, 32]>
func.func @short_k_packs_n_operand(%a: tensor<4x4x64x16xf32>, %b: tensor<16x4x4x24xf32>) -> tensor<4x24x4x64xf32> {
  %r = einsum.contract "jmpe,ejmi->jimp"(%a, %b) : tensor<4x4x64x16xf32>, tensor<16x4x4x24xf32>
  return %r : tensor<4x24x4x64xf32>
}

// -----

// N (s, 9 wide) is shorter than a register tile's width: A is packed with
// the output's other trailing loop of its own (e) after the reduction m,
// [d, m, e, s]; (e, s) are then adjacent in A and in the output, and are
// collapsed (after an interchange that puts m first) into one vector loop
// of 99. The output's fill moves onto the collapsed view.
// CHECK-LABEL: func.func @trailing_labels_collapse
// CHECK: %[[PACKED:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64x8x11x9xf32>)
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[PACKED]] {{\[}}[0], [1], [2, 3]] : tensor<64x8x11x9xf32> into tensor<64x8x99xf32>
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<64x39x11x9xf32> into tensor<64x39x99xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : tensor<64x39x99xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %{{.*}} : tensor<64x8x99xf32>, tensor<64x39x8xf32>) outs(%[[FILL]] : tensor<64x39x99xf32>)
// CHECK-SAME: #einsum.strategy<contract
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0], [1], [2, 3]] output_shape [64, 39, 11, 9]
func.func @trailing_labels_collapse(%a: tensor<9x11x64x8xf32>, %b: tensor<64x39x8xf32>) -> tensor<64x39x11x9xf32> {
  %r = einsum.contract "sedm,dcm->dces"(%a, %b) : tensor<9x11x64x8xf32>, tensor<64x39x8xf32>
  return %r : tensor<64x39x11x9xf32>
}

// -----

// N (n of 34) is not a multiple of a vector: its rows would end in a peeled
// tile of 2 columns. The output's other trailing loop of A's (m) joins it,
// and A, already [a, m, n], is collapsed in place (no copy) with the output
// into one vector loop of 952, with one partial vector at its end.
// CHECK-LABEL: func.func @partial_vector_rows_collapse
// CHECK-NOT: linalg.generic
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<64x28x34xf32> into tensor<64x952xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %{{.*}} : tensor<64x952xf32>, tensor<64x40xf32>)
// CHECK-SAME: #einsum.strategy<contract, order = [0, 1, 2], cache = [40, 128, 64], register = [8, 32, 1]>
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [40, 28, 34]
// AVX2-LABEL: func.func @partial_vector_rows_collapse
// AVX2: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<64x28x34xf32> into tensor<64x952xf32>
// AVX2: #einsum.strategy<contract, order = [0, 1, 2], cache = [42, 128, 64], register = [6, 16, 1]>
func.func @partial_vector_rows_collapse(%a: tensor<64x28x34xf32>, %b: tensor<64x40xf32>) -> tensor<40x28x34xf32> {
  %r = einsum.contract "amn,ak->kmn"(%a, %b) : tensor<64x28x34xf32>, tensor<64x40xf32>
  return %r : tensor<40x28x34xf32>
}

// -----

// Rows of whole vectors (48 = 32 + 16) keep their own loop: A is packed
// [m, a, n] and nothing is collapsed.
// CHECK-LABEL: func.func @whole_vector_rows_stay
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<28x64x48xf32>)
// CHECK: linalg.generic
// CHECK-SAME: #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [40, 14, 64, 48], register = [8, 1, 1, 32]>
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @whole_vector_rows_stay(%a: tensor<64x28x48xf32>, %b: tensor<64x40xf32>) -> tensor<40x28x48xf32> {
  %r = einsum.contract "amn,ak->kmn"(%a, %b) : tensor<64x28x48xf32>, tensor<64x40xf32>
  return %r : tensor<40x28x48xf32>
}

// A chain of output loops with two dynamic sizes stays two loops (its
// result would be a memref.expand_shape with two dynamic sizes in one
// group, which MLIR 22's expand-strided-metadata crashes on; found by
// einsum-dialect-fuzzer); the reduction chain of B still collapses.
// CHECK-LABEL: func.func @dynamic_output_chain
//       CHECK:   %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<?x?xf32> into tensor<?xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %[[B]] : tensor<?x?xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?x?xf32>)
//   CHECK-NOT:   tensor.expand_shape
//       CHECK:   return
func.func @dynamic_output_chain(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = einsum.contract "ij,hk->ij"(%a, %b) : tensor<?x?xf32>, tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Output rows (y, 13) shorter than a vector, over 24 reduction steps: B,
// which holds y, is contiguous along j, summed, and has no other output loop
// of its own to fold with y; A is contiguous along an output loop of its own
// (c, 263), which becomes N (full vectors, the accumulator tile stored
// transposed) instead of packing B for rows of 13 (8 + 4 + 1 lanes). M is
// y, the output's contiguous loop, so the transposed rows are stored
// contiguously. Nothing is packed.
// CHECK-LABEL: func.func @short_rows_transposed
//   CHECK-NOT:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.*}}, %{{.*}} : tensor<24x164x263xf32>, tensor<164x13x24xf32>)
//  CHECK-SAME:     #einsum.strategy<contract, order = [0, 3, 1, 2], cache = [1, 128, 24, 16], register = [1, 32, 1, 8]>
func.func @short_rows_transposed(%a: tensor<24x164x263xf32>, %b: tensor<164x13x24xf32>) -> tensor<164x263x13xf32> {
  %r = einsum.contract "jkc,kyj->kcy"(%a, %b) : tensor<24x164x263xf32>, tensor<164x13x24xf32>
  return %r : tensor<164x263x13xf32>
}

// -----

// The same over 8 steps: transposed stores would cost more than the empty
// lanes; B is packed, [k, j, y], and N stays y, one register tile of its
// 13 columns (einsum-vectorize pads it to a masked vector).
// CHECK-LABEL: func.func @short_rows_short_k
//       CHECK:   %[[PACKED:.*]] = linalg.generic
//  CHECK-SAME:     ins(%{{.*}} : tensor<164x13x8xf32>) outs(%{{.*}} : tensor<164x8x13xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.*}}, %[[PACKED]] : tensor<8x164x263xf32>, tensor<164x8x13xf32>)
//  CHECK-SAME:     #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 256, 8, 13], register = [1, 8, 1, 13]>
func.func @short_rows_short_k(%a: tensor<8x164x263xf32>, %b: tensor<164x13x8xf32>) -> tensor<164x263x13xf32> {
  %r = einsum.contract "jkc,kyj->kcy"(%a, %b) : tensor<8x164x263xf32>, tensor<164x13x8xf32>
  return %r : tensor<164x263x13xf32>
}

// -----

// Rows of 13 (y) whose input B also holds an output loop of its own (d, 12):
// B is packed [k, j, d, y], with d next to y, and the register tile folds 4
// rows of y (52 columns) into 4 registers of 16 lanes, 6 rows of M (c)
// each: one broadcast of A serves 4 rows of y. Loops: k, d, c, j, y.
// With AVX2 (rows of 13 in 2 registers of 8) folding gains no lanes, and
// the tile keeps its rows.
// CHECK-LABEL: func.func @folded_rows
//       CHECK:   %[[PACKED:.*]] = linalg.generic
//  CHECK-SAME:     ins(%{{.*}} : tensor<164x13x12x24xf32>) outs(%{{.*}} : tensor<164x24x12x13xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.*}}, %[[PACKED]] : tensor<24x164x263xf32>, tensor<164x24x12x13xf32>)
//  CHECK-SAME:     #einsum.strategy<contract, order = [0, 2, 1, 4, 3], cache = [1, 4, 252, 24, 13], register = [1, 4, 6, 1, 13]>
// AVX2-LABEL: func.func @folded_rows
//       AVX2:   #einsum.strategy<contract, order = [0, 1, 2, 4, 3], cache = [1, 12, 252, 24, 13], register = [1, 1, 6, 1, 13]>
func.func @folded_rows(%a: tensor<24x164x263xf32>, %b: tensor<164x13x12x24xf32>) -> tensor<164x12x263x13xf32> {
  %r = einsum.contract "jkc,kydj->kdcy"(%a, %b) : tensor<24x164x263xf32>, tensor<164x13x12x24xf32>
  return %r : tensor<164x12x263x13xf32>
}

// -----

// Rows of 20 (16 + 4: 62% of 32 lanes) fold 3 at a time into 64 lanes
// (94%); B packed [s, l, k, v]. Loops: s, k, o, l, v. The 60 MB output over
// 16 steps is written in place, not staged: the tile's rows of o are 80
// bytes apart, so each tile's stores are one short run.
// CHECK-LABEL: func.func @folded_long_rows
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%{{.*}} : tensor<250x16x24x20xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     #einsum.strategy<contract, order = [0, 2, 1, 4, 3], cache = [1, 6, 132, 16, 20], register = [1, 3, 6, 1, 20]>
func.func @folded_long_rows(%a: tensor<250x16x127xf32>, %b: tensor<20x24x250x16xf32>) -> tensor<250x24x127x20xf32> {
  %r = einsum.contract "slo,vksl->skov"(%a, %b) : tensor<250x16x127xf32>, tensor<20x24x250x16xf32>
  return %r : tensor<250x24x127x20xf32>
}

// -----

// Rows of 23 use 72% of 32 lanes, and 2 folded use 72% of 64: they are not
// folded (no loop of B's output loops next to t in its pack).
// CHECK-LABEL: func.func @rows_not_worth_folding
//       CHECK:   #einsum.strategy<contract, {{.*}}, register = [1, 8, 1, 1, 23]>
func.func @rows_not_worth_folding(%a: tensor<37x875x64xf32>, %b: tensor<23x37x17x64xf32>) -> tensor<17x875x37x23xf32> {
  %r = einsum.contract "lqc,tlxc->xqlt"(%a, %b) : tensor<37x875x64xf32>, tensor<23x37x17x64xf32>
  return %r : tensor<17x875x37x23xf32>
}

// -----

// Rows of 12 over 24 steps, but the operand that holds them (A) has them
// 121 KiB apart (l is its outermost label): as M rows read unpacked they
// would fall on different pages each step, so A is packed, [o, x, l], and
// N stays l.
// CHECK-LABEL: func.func @short_rows_far_apart
//       CHECK:   %[[PACKED:.*]] = linalg.generic
//  CHECK-SAME:     ins(%{{.*}} : tensor<12x79x24xf32>) outs(%{{.*}} : tensor<79x24x12xf32>)
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[PACKED]], %{{.*}} : tensor<79x24x12xf32>, tensor<79x24x572xf32>)
//  CHECK-SAME:     #einsum.strategy<contract, order = [0, 1, 3, 2]
func.func @short_rows_far_apart(%a: tensor<12x79x24xf32>, %b: tensor<79x24x572xf32>) -> tensor<79x572x12xf32> {
  %r = einsum.contract "lox,oxv->ovl"(%a, %b) : tensor<12x79x24xf32>, tensor<79x24x572xf32>
  return %r : tensor<79x572x12xf32>
}

// -----

// Short output rows (y: 13, at most 128 elements) whose M rows (b) lie 490 KB
// apart in the output: the output's next loop, t, runs inside M's tiles, so
// that each of a register tile's rows is written as one contiguous stretch
// of t, not 13 elements per tile. t is a batch loop: each of its steps reads
// a new block of A (16 x 13), and the stretch is cut from 157 (2048 / 13
// elements) to 19, so that its blocks (19 x 16 x 13) fit 4096 elements.
// The tile folds 4 rows of y (r). Loops: b, r, t, z (reduction), y.
// CHECK-LABEL: func.func @short_rows_stretch_batch
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1, 4, 3], cache = [102, 8, 19, 16, 13], register = [6, 4, 1, 1, 13]>
// AVX2-LABEL: func.func @short_rows_stretch_batch
// AVX2: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 2, 4, 3], cache = [102, 11, 19, 16, 13], register = [6, 1, 1, 1, 13]>
func.func @short_rows_stretch_batch(%a: tensor<16x11x857x13xf32>, %b: tensor<98x857x16xf32>) -> tensor<98x11x857x13xf32> {
  %r = einsum.contract "zrty,btz->brty"(%a, %b) : tensor<16x11x857x13xf32>, tensor<98x857x16xf32>
  return %r : tensor<98x11x857x13xf32>
}

// -----

// Output rows of 206 elements (b) over 16 reduction steps, whose M rows (h)
// lie 600 KB apart in the output: its next loop, k, runs inside M's tiles
// in stretches of 2048 / 206 = 9 steps. k is a batch loop (A's packed block
// per step: 16 x 206); the rows are longer than 16 elements, so the blocks
// need only fit L2 (32768 elements: 9 steps), not L1 (4096 elements: 1
// step, each of which wrote 824 bytes of every one of the 107 rows).
// Loops: h, f, k, j (reduction), b.
// CHECK-LABEL: func.func @long_rows_stretch_batch
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<27x27x16x206xf32>)
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 2, 4, 3], cache = [112, 1, 9, 16, 206], register = [8, 1, 1, 1, 32]>
// AVX2-LABEL: func.func @long_rows_stretch_batch
// AVX2: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 2, 4, 3], cache = [108, 1, 9, 16, 206], register = [6, 1, 1, 1, 16]>
// ZEN4-LABEL: func.func @long_rows_stretch_batch
// ZEN4: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 2, 4, 3], cache = [112, 1, 9, 16, 206], register = [8, 1, 1, 1, 16]>
func.func @long_rows_stretch_batch(%a: tensor<27x206x27x16xf32>, %b: tensor<27x107x27x16xf32>) -> tensor<107x27x27x206xf32> {
  %r = einsum.contract "fbkj,fhkj->hfkb"(%a, %b) : tensor<27x206x27x16xf32>, tensor<27x107x27x16xf32>
  return %r : tensor<107x27x27x206xf32>
}

// -----

// The row bound is in elements: f64 rows of 13 (104 bytes, past a cache
// line) keep the L1 bound of 4096 elements, a stretch of 19 as in f32.
// CHECK-LABEL: func.func @short_rows_stretch_batch_f64
// CHECK: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 2, 4, 3], cache = [104, 11, 19, 16, 13], register = [8, 1, 1, 1, 13]>
func.func @short_rows_stretch_batch_f64(%a: tensor<16x11x857x13xf64>, %b: tensor<98x857x16xf64>) -> tensor<98x11x857x13xf64> {
  %r = einsum.contract "zrty,btz->brty"(%a, %b) : tensor<16x11x857x13xf64>, tensor<98x857x16xf64>
  return %r : tensor<98x11x857x13xf64>
}

// -----

// A long reduction (64 steps) in a product with a batch loop (r): B, not
// contiguous along the output's contiguous loop x, is packed to [r, u, x]
// and N stays x (stored as it is), rather than N = c, A's contiguous loop,
// with the tile stored transposed (2.2x slower). Loops: c, r, u, x. A,
// contiguous along M = c, has its 64 reduction steps 109 KB apart: its
// first 408 rows of c are split into panels of the register tile's 8 rows
// (isDeepSpreadPanel), the last row is a contraction of its own that reads
// A in place.
// CHECK-LABEL: func.func @batch_long_reduction_packs
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<393x67x64xf32>) outs(%{{.*}} : tensor<67x64x393xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [64, 67, 408] [1, 1, 1] : tensor<64x67x409xf32> to tensor<64x67x408xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<64x67x51x8xf32>) outs(%{{.*}} : tensor<67x51x64x8xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<51x8x67x393xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 4, 0, 3, 2], cache = [8, 1, 64, 393, 17], register = [8, 1, 1, 32, 1]>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 408] [64, 67, 1] [1, 1, 1] : tensor<64x67x409xf32> to tensor<64x67x1xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<1x67x393xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [1, 1, 64, 393], register = [1, 1, 1, 32]>
func.func @batch_long_reduction_packs(%a: tensor<64x67x409xf32>, %b: tensor<393x67x64xf32>) -> tensor<409x67x393xf32> {
  %r = einsum.contract "urc,xru->crx"(%a, %b) : tensor<64x67x409xf32>, tensor<393x67x64xf32>
  return %r : tensor<409x67x393xf32>
}

// -----

// A contiguous along M = y, its 64 reduction steps (j) 16.5 KB apart, each
// a line of another page, and A of 5.3 MB: A is split into panels of the
// register tile's 8 rows although its steps crowd no cache set
// (isDeepSpreadPanel). y = 825 is not a whole number of tiles: its first
// 824 rows are packed, [a, t, y / 8, j, 8], and the last is a contraction
// of its own that reads A in place.
// CHECK-LABEL: func.func @spread_reduction_panels
// CHECK-SAME: (%[[B:.*]]: tensor<5x5x64x637xf32>, %[[A:.*]]: tensor<5x64x5x825xf32>)
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[A]][0, 0, 0, 0] [5, 64, 5, 824] [1, 1, 1, 1]
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[WHOLE]] {{\[}}[0], [1], [2], [3, 4]] output_shape [5, 64, 5, 103, 8]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SPLIT]] : tensor<5x64x5x103x8xf32>) outs(%{{.*}} : tensor<5x5x103x64x8xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<103x8x25x637xf32>)
// CHECK-SAME: #einsum.strategy<contract, order = [1, 4, 0, 3, 2], cache = [8, 1, 64, 512, 32], register = [8, 1, 1, 32, 1]>
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[A]][0, 0, 0, 824] [5, 64, 5, 1] [1, 1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[B]], %[[REST]] : tensor<5x5x64x637xf32>, tensor<5x64x5x1xf32>) outs(%{{.*}} : tensor<1x5x5x637xf32>)
func.func @spread_reduction_panels(%a: tensor<5x5x64x637xf32>, %b: tensor<5x64x5x825xf32>) -> tensor<825x5x5x637xf32> {
  %r = einsum.contract "atju,ajty->yatu"(%a, %b) : tensor<5x5x64x637xf32>, tensor<5x64x5x825xf32>
  return %r : tensor<825x5x5x637xf32>
}

// -----

// From 40 steps on (kMinSpreadPanelDepth) A is split so; over 32 it is not.
// CHECK-LABEL: func.func @spread_forty_steps
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] output_shape [5, 40, 5, 103, 8]
func.func @spread_forty_steps(%a: tensor<5x5x40x637xf32>, %b: tensor<5x40x5x825xf32>) -> tensor<825x5x5x637xf32> {
  %r = einsum.contract "atju,ajty->yatu"(%a, %b) : tensor<5x5x40x637xf32>, tensor<5x40x5x825xf32>
  return %r : tensor<825x5x5x637xf32>
}

// -----

// CHECK-LABEL: func.func @spread_thirty_two_steps
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<5x5x32x637xf32>, tensor<5x32x5x825xf32>)
func.func @spread_thirty_two_steps(%a: tensor<5x5x32x637xf32>, %b: tensor<5x32x5x825xf32>) -> tensor<825x5x5x637xf32> {
  %r = einsum.contract "atju,ajty->yatu"(%a, %b) : tensor<5x5x32x637xf32>, tensor<5x32x5x825xf32>
  return %r : tensor<825x5x5x637xf32>
}

// -----

// The same over 24 steps: the copy does not pay, and A is read in place.
// CHECK-LABEL: func.func @spread_short_reduction
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<5x5x24x637xf32>, tensor<5x24x5x825xf32>)
func.func @spread_short_reduction(%a: tensor<5x5x24x637xf32>, %b: tensor<5x24x5x825xf32>) -> tensor<825x5x5x637xf32> {
  %r = einsum.contract "atju,ajty->yatu"(%a, %b) : tensor<5x5x24x637xf32>, tensor<5x24x5x825xf32>
  return %r : tensor<825x5x5x637xf32>
}

// -----

// An A of 500 KB, which stays in L2: read in place.
// CHECK-LABEL: func.func @spread_small_operand
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<5x5x64x637xf32>, tensor<5x64x5x80xf32>)
func.func @spread_small_operand(%a: tensor<5x5x64x637xf32>, %b: tensor<5x64x5x80xf32>) -> tensor<80x5x5x637xf32> {
  %r = einsum.contract "atju,ajty->yatu"(%a, %b) : tensor<5x5x64x637xf32>, tensor<5x64x5x80xf32>
  return %r : tensor<80x5x5x637xf32>
}

// -----

// A split along M = w (24 of 26 rows in panels): the whole part's output is
// a slice of 24 of w's 26, so its panel loop (w / 8 = 3) cannot be
// collapsed with x before it, which would not be one strided dimension of
// the output (bufferization copied the part out of a buffer of its own:
// 0.45x). The loops stay [d, x, w / 8, 8, p, q, f].
// CHECK-LABEL: func.func @split_rows_keep_loops
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<7x30x3x64x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<42x30x3x8x7x56xf32>)
// CHECK-NOT: tensor<42x90x8x7x56xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4], [5]] : tensor<42x30x3x8x7x56xf32> into tensor<42x30x24x7x56xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 24] [64, 7, 30, 2] [1, 1, 1, 1]
func.func @split_rows_keep_loops(%a: tensor<64x42x7x56xf32>, %b: tensor<64x7x30x26xf32>) -> tensor<42x30x26x7x56xf32> {
  %r = einsum.contract "qdpf,qpxw->dxwpf"(%a, %b) : tensor<64x42x7x56xf32>, tensor<64x7x30x26xf32>
  return %r : tensor<42x30x26x7x56xf32>
}

// -----

// Output rows that lie apart (M = m is not the output's next loop, b is) are
// written whole when the N input's block of a cache tile (40 reduction steps
// x N) stays within the 256 x 128 elements of a GEMM's block: N's cache tile
// is the whole row of 301. Loops: m, b, k, n.
// CHECK-LABEL: func.func @rows_apart_whole_row
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [24, 1, 40, 301], register = [8, 1, 1, 32]>
// AVX2-LABEL: func.func @rows_apart_whole_row
// AVX2: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [24, 1, 40, 301], register = [6, 1, 1, 16]>
func.func @rows_apart_whole_row(%a: tensor<24x61x40xf32>, %b: tensor<40x61x301xf32>) -> tensor<24x61x301xf32> {
  %r = einsum.contract "mbk,kbn->mbn"(%a, %b) : tensor<24x61x40xf32>, tensor<40x61x301xf32>
  return %r : tensor<24x61x301xf32>
}

// -----

// Rows longer than the block allows (16 x 5003 > 256 x 128) are written in
// stretches of 2048 = 256 x 128 / 16 columns.
// CHECK-LABEL: func.func @rows_apart_long_row
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [24, 1, 16, 2048], register = [8, 1, 1, 32]>
func.func @rows_apart_long_row(%a: tensor<24x61x16xf32>, %b: tensor<16x61x5003xf32>) -> tensor<24x61x5003xf32> {
  %r = einsum.contract "mbk,kbn->mbn"(%a, %b) : tensor<24x61x16xf32>, tensor<16x61x5003xf32>
  return %r : tensor<24x61x5003xf32>
}

// -----

// A reduction tile of 512 leaves no room for more than 128 columns of N.
// CHECK-LABEL: func.func @rows_apart_long_reduction
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [24, 1, 512, 128], register = [8, 1, 1, 32]>
func.func @rows_apart_long_reduction(%a: tensor<24x61x512xf32>, %b: tensor<512x61x301xf32>) -> tensor<24x61x301xf32> {
  %r = einsum.contract "mbk,kbn->mbn"(%a, %b) : tensor<24x61x512xf32>, tensor<512x61x301xf32>
  return %r : tensor<24x61x301xf32>
}

// -----

// Rows that follow each other (M = m is the output's next loop, as in a
// GEMM) keep N's tile of 128.
// CHECK-LABEL: func.func @rows_adjacent_keep_tile
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 24, 16, 128], register = [1, 8, 1, 32]>
func.func @rows_adjacent_keep_tile(%a: tensor<24x61x16xf32>, %b: tensor<16x61x301xf32>) -> tensor<61x24x301xf32> {
  %r = einsum.contract "mbk,kbn->bmn"(%a, %b) : tensor<24x61x16xf32>, tensor<16x61x301xf32>
  return %r : tensor<61x24x301xf32>
}

// -----

// Output rows of 82 columns (three register tiles wide, within 128) whose M
// rows (x) lie 354 KB apart: the batch loop r, the output's next loop, runs
// inside M's tiles in cache tiles of 13 (2048 / 82 = 24 steps, whose
// blocks of A, 8 x 82 per step, fit the 32768 elements of L2 that rows
// longer than 16 elements may take; 1079 = 13 x 83), so that each row is
// written in stretches of 13 x 82 elements rather than 82 per batch.
// Loops: x, r, j (reduction), g.
// CHECK-LABEL: func.func @wide_short_rows_far_apart
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [216, 13, 8, 82], register = [8, 1, 1, 32]>
func.func @wide_short_rows_far_apart(%a: tensor<8x1079x82xf32>, %b: tensor<1079x8x213xf32>) -> tensor<213x1079x82xf32> {
  %r = einsum.contract "jrg,rjx->xrg"(%a, %b) : tensor<8x1079x82xf32>, tensor<1079x8x213xf32>
  return %r : tensor<213x1079x82xf32>
}

// -----

// Rows of 129 columns over 40 reduction steps are long enough: r stays
// outside M (loop d1, first in the order). A (rjx, contiguous along M = x,
// its 40 steps 852 bytes apart) is split into panels of 8 rows
// (isDeepSpreadPanel): 208 rows in 26 panels, loop d4, and a rest of 5.
// CHECK-LABEL: func.func @rows_past_short_bound
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<26x8x1079x129xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 4, 0, 3, 2], cache = [8, 1, 40, 129, 26],
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<5x1079x129xf32>)
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [5, 1, 40, 129],
func.func @rows_past_short_bound(%a: tensor<40x1079x129xf32>, %b: tensor<1079x40x213xf32>) -> tensor<213x1079x129xf32> {
  %r = einsum.contract "jrg,rjx->xrg"(%a, %b) : tensor<40x1079x129xf32>, tensor<1079x40x213xf32>
  return %r : tensor<213x1079x129xf32>
}

// -----

// Over a short reduction (8 steps, within 32) rows of up to 1024 columns
// are written in stretches too where M spans several register tiles: rows
// of 146, r's cache tile 13 (2048 / 146 = 14 steps, blocks of 8 x 146
// within 32768 elements; 1079 = 13 x 83).
// CHECK-LABEL: func.func @short_reduction_long_rows
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [216, 13, 8, 146], register = [8, 1, 1, 32]>
func.func @short_reduction_long_rows(%a: tensor<8x1079x146xf32>, %b: tensor<1079x8x213xf32>) -> tensor<213x1079x146xf32> {
  %r = einsum.contract "jrg,rjx->xrg"(%a, %b) : tensor<8x1079x146xf32>, tensor<1079x8x213xf32>
  return %r : tensor<213x1079x146xf32>
}

// -----

// Rows of 1025 columns are longer than half a stretch: r stays outside M.
// CHECK-LABEL: func.func @short_reduction_rows_past_half_stretch
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [216, 1, 8, 1025],
func.func @short_reduction_rows_past_half_stretch(%a: tensor<8x64x1025xf32>, %b: tensor<64x8x213xf32>) -> tensor<213x64x1025xf32> {
  %r = einsum.contract "jrg,rjx->xrg"(%a, %b) : tensor<8x64x1025xf32>, tensor<64x8x213xf32>
  return %r : tensor<213x64x1025xf32>
}

// -----

// M of 7 rows is one register tile: r stays outside M (stretches ran 0.91x).
// CHECK-LABEL: func.func @short_reduction_one_row_tile
// CHECK: linalg.generic
// CHECK-SAME: einsum.strategy = #einsum.strategy<contract, order = [1, 0, 3, 2], cache = [7, 1, 8, 146], register = [7, 1, 1, 32]>
func.func @short_reduction_one_row_tile(%a: tensor<8x1079x146xf32>, %b: tensor<1079x8x7xf32>) -> tensor<7x1079x146xf32> {
  %r = einsum.contract "jrg,rjx->xrg"(%a, %b) : tensor<8x1079x146xf32>, tensor<1079x8x7xf32>
  return %r : tensor<7x1079x146xf32>
}

// -----

// B's batches (b, a) come in the other order than the loops (a, b), but each
// holds its k x j block in the order the schedule walks it: B is read in
// place, not copied.
// CHECK-LABEL: func.func @blocks_in_place
//   CHECK-NOT:   tensor.empty() : tensor<8x16x64x256xf32>
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.*}}, %{{.*}} : tensor<8x16x128x64xf32>, tensor<16x8x64x256xf32>)
//  CHECK-SAME:     #einsum.strategy<contract
func.func @blocks_in_place(%a: tensor<8x16x128x64xf32>, %b: tensor<16x8x64x256xf32>) -> tensor<8x16x128x256xf32> {
  %r = einsum.contract "abik,bakj->abij"(%a, %b) : tensor<8x16x128x64xf32>, tensor<16x8x64x256xf32>
  return %r : tensor<8x16x128x256xf32>
}

// -----

// 8 reduction steps into a 40 MB output: each h computes its 12.5 KB block
// of the output (n, a, s, l) in a buffer on the stack, streamed out in whole
// lines (`stage = 1`: the first loop of the order, h, tiled by 1).
// CHECK-LABEL: func.func @staged_short_reduction
// CHECK: einsum.strategy = #einsum.strategy<contract, order = [0, {{.*}}], cache = [1, {{.*}}], stage = 1>
// ZEN4-LABEL: func.func @staged_short_reduction
// ZEN4: einsum.strategy = #einsum.strategy<contract, order = [0, {{.*}}], cache = [1, {{.*}}], stage = 1>
func.func @staged_short_reduction(%a: tensor<3170x7x8x8xf32>, %b: tensor<7x3170x8x8xf32>) -> tensor<3170x8x8x7x7xf32> {
  %r = einsum.contract "hsaw,lhnw->hnasl"(%a, %b) : tensor<3170x7x8x8xf32>, tensor<7x3170x8x8xf32>
  return %r : tensor<3170x8x8x7x7xf32>
}

// -----

// 24 reduction steps into a 46 MB output whose register tiles' rows (v)
// are 548 bytes apart: each a computes its 88 KiB block (v, k) on the
// stack, streamed out in whole lines.
// CHECK-LABEL: func.func @staged_24_steps
// CHECK: #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 168, 24, 128], register = [1, 8, 1, 32], stage = 1>
// AVX2-LABEL: func.func @staged_24_steps
// AVX2: #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 162, 24, 128], register = [1, 6, 1, 16], stage = 1>
// ZEN4-LABEL: func.func @staged_24_steps
// ZEN4: #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 168, 24, 128], register = [1, 8, 1, 16], stage = 1>
func.func @staged_24_steps(%a: tensor<24x524x162xf32>, %b: tensor<24x524x137xf32>) -> tensor<524x162x137xf32> {
  %r = einsum.contract "rav,rak->avk"(%a, %b) : tensor<24x524x162xf32>, tensor<24x524x137xf32>
  return %r : tensor<524x162x137xf32>
}

// -----

// 24 steps into a 45 MB output, but the rows of its register tiles (b) are
// 76 bytes apart (rows of z, 19 wide): each tile's stores are one run of
// about 600 bytes, which the stores in place write well, and it is not
// staged (it would be with rows 256 bytes or more apart).
// CHECK-LABEL: func.func @unstaged_close_rows
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
// ZEN4-LABEL: func.func @unstaged_close_rows
// ZEN4: linalg.generic
// ZEN4-NOT: stage =
// ZEN4: return
func.func @unstaged_close_rows(%a: tensor<19x279x15x24xf32>, %b: tensor<279x140x24xf32>) -> tensor<279x15x140x19xf32> {
  %r = einsum.contract "zohd,obd->ohbz"(%a, %b) : tensor<19x279x15x24xf32>, tensor<279x140x24xf32>
  return %r : tensor<279x15x140x19xf32>
}

// -----

// 24 steps into a 40 MB output whose rows (f, 632 bytes apart) the plan's
// cache tile (256 of 799) does not divide: the staged loops get tiles of
// their own, h by 1 and f by as many register tiles as fit 128 KiB (200
// rows: blocks of 200 x 158, the last of 199); at 512 bits too.
// CHECK-LABEL: func.func @staged_own_tiles
// CHECK: #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 200, 24, 128], register = [1, 8, 1, 32], stage = 2>
// AVX2-LABEL: func.func @staged_own_tiles
// AVX2: #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 204, 24, 128], register = [1, 6, 1, 16], stage = 2>
// ZEN4-LABEL: func.func @staged_own_tiles
// ZEN4: #einsum.strategy<contract, order = [0, 1, 3, 2], cache = [1, 200, 24, 128], register = [1, 8, 1, 16], stage = 2>
func.func @staged_own_tiles(%a: tensor<799x79x4x6xf32>, %b: tensor<4x79x6x158xf32>) -> tensor<79x799x158xf32> {
  %r = einsum.contract "fhoe,oheb->hfb"(%a, %b) : tensor<799x79x4x6xf32>, tensor<4x79x6x158xf32>
  return %r : tensor<79x799x158xf32>
}

// -----

// 8 steps: p (13) whole makes no contiguous block, so it is tiled by 1, and
// a by 110 (of 641) keeps the block within 512 KiB. (At 512 bits the
// register tile's rows fold, and p and a come after m in the order: no
// contiguous block.)
// CHECK-LABEL: func.func @staged_own_tiles_short_reduction
// CHECK: #einsum.strategy<contract, order = [1, 2, 0, 4, 3], cache = [6, 1, 66, 8, 18], register = [3, 1, 6, 1, 18]>
// ZEN4-LABEL: func.func @staged_own_tiles_short_reduction
// ZEN4: #einsum.strategy<contract, order = [0, 1, 2, 4, 3], cache = [1, 110, 72, 8, 32], register = [1, 1, 8, 1, 16], stage = 2>
func.func @staged_own_tiles_short_reduction(%a: tensor<8x641x66xf32>, %b: tensor<13x641x18x8xf32>) -> tensor<13x641x66x18xf32> {
  %r = einsum.contract "iam,pali->paml"(%a, %b) : tensor<8x641x66xf32>, tensor<13x641x18x8xf32>
  return %r : tensor<13x641x66x18xf32>
}

// -----

// 24 steps into a 30 MB output whose blocks per y (e, i, v) would be
// contiguous, but the register tile's rows (e) are 17 KiB apart: 8 separate
// row streams, which the stores in place write well. Not staged.
// CHECK-LABEL: func.func @unstaged_rows_far_apart
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
// ZEN4-LABEL: func.func @unstaged_rows_far_apart
// ZEN4: linalg.generic
// ZEN4-NOT: stage =
// ZEN4: return
func.func @unstaged_rows_far_apart(%a: tensor<390x137x24xf32>, %b: tensor<137x11x13x24xf32>) -> tensor<137x13x11x390xf32> {
  %r = einsum.contract "vyl,yiel->yeiv"(%a, %b) : tensor<390x137x24xf32>, tensor<137x11x13x24xf32>
  return %r : tensor<137x13x11x390xf32>
}

// -----

// @staged_short_reduction's contraction over 32 steps: the products, not
// the output's writes, take the time, and the output is written in place.
// CHECK-LABEL: func.func @unstaged_longer_reduction
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
func.func @unstaged_longer_reduction(%a: tensor<3170x7x8x32xf32>, %b: tensor<7x3170x8x32xf32>) -> tensor<3170x8x8x7x7xf32> {
  %r = einsum.contract "hsaw,lhnw->hnasl"(%a, %b) : tensor<3170x7x8x32xf32>, tensor<7x3170x8x32xf32>
  return %r : tensor<3170x8x8x7x7xf32>
}

// -----

// An output of 2.5 MB stays in the caches: written in place.
// CHECK-LABEL: func.func @unstaged_small_output
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
func.func @unstaged_small_output(%a: tensor<200x7x8x8xf32>, %b: tensor<7x200x8x8xf32>) -> tensor<200x8x8x7x7xf32> {
  %r = einsum.contract "hsaw,lhnw->hnasl"(%a, %b) : tensor<200x7x8x8xf32>, tensor<7x200x8x8xf32>
  return %r : tensor<200x8x8x7x7xf32>
}

// -----

// An outer product into a 64 MB output: rows of 16 KiB, each staged on the
// stack and streamed out (cache tile 1 for i, `stage = 1`).
// CHECK-LABEL: func.func @staged_outer_product
// CHECK: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [1, 0], register = [1, 64], stage = 1>
func.func @staged_outer_product(%a: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %r = einsum.contract "i,j->ij"(%a, %b) : tensor<4096xf32>, tensor<4096xf32>
  return %r : tensor<4096x4096xf32>
}

// -----

// Rows of 1001 f32: 4 of them per 16 KiB block (17000 = 4 x 4250).
// CHECK-LABEL: func.func @staged_row_blocks
// CHECK: einsum.strategy = #einsum.strategy<elementwise, order = [0, 1], cache = [4, 0], register = [1, 64], stage = 1>
func.func @staged_row_blocks(%a: tensor<17000xf32>, %b: tensor<1001xf32>) -> tensor<17000x1001xf32> {
  %r = einsum.contract "i,j->ij"(%a, %b) : tensor<17000xf32>, tensor<1001xf32>
  return %r : tensor<17000x1001xf32>
}

// -----

// A row scaling reads as much as it writes: written in place (streamed, it
// ran 0.63-0.69x).
// CHECK-LABEL: func.func @unstaged_row_scaling
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
func.func @unstaged_row_scaling(%a: tensor<5000x4001xf32>, %b: tensor<4001xf32>) -> tensor<5000x4001xf32> {
  %r = einsum.contract "ij,j->ij"(%a, %b) : tensor<5000x4001xf32>, tensor<4001xf32>
  return %r : tensor<5000x4001xf32>
}

// -----

// A transpose keeps its blocked loops and writes in place; so does an outer
// product of 4 MB (it stays in the last-level cache).
// CHECK-LABEL: func.func @unstaged_transpose
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
func.func @unstaged_transpose(%a: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %r = einsum.contract "ij->ji"(%a) : tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}
// CHECK-LABEL: func.func @unstaged_small_outer_product
// CHECK: linalg.generic
// CHECK-NOT: stage =
// CHECK: return
func.func @unstaged_small_outer_product(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %r = einsum.contract "i,j->ij"(%a, %b) : tensor<1024xf32>, tensor<1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// B (d, f) is transposed into [f, d] panels for its contiguous N (d), and
// the batch labels e, w, adjacent everywhere, are collapsed into one loop.
// The transpose is collapsed with them (its input read through the view),
// so that the contraction reads it directly, not through a collapse_shape:
// einsum-vectorize can then make it slice by slice in the cache tiles.
// CHECK-LABEL: func.func @collapsed_batch_pack
// CHECK: %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<19x19x260x16xf32> into tensor<361x260x16xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<361x16x260xf32>
// CHECK: %[[PACKED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[B]] : tensor<361x260x16xf32>) outs(%[[EMPTY]] : tensor<361x16x260xf32>)
// CHECK-SAME: #einsum.strategy<elementwise
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<115x19x19x16xf32> into tensor<115x361x16xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[PACKED]] : tensor<115x361x16xf32>, tensor<361x16x260xf32>)
// CHECK-SAME: #einsum.strategy<contract
// CHECK-NOT: tensor<19x19x16x260xf32>
func.func @collapsed_batch_pack(%a: tensor<115x19x19x16xf32>, %b: tensor<19x19x260x16xf32>) -> tensor<115x19x19x260xf32> {
  %r = einsum.contract "aewf,ewdf->aewd"(%a, %b) : tensor<115x19x19x16xf32>, tensor<19x19x260x16xf32>
  return %r : tensor<115x19x19x260xf32>
}

// -----

// A transpose into a destination that moves the contiguous dimension
// (ijk->ikj), of 8 MiB or more (32 MiB or more with its operand), is staged
// per step of i: 184 x 197 contiguous elements of the output.
// CHECK-LABEL: func.func @transpose_staged
// CHECK: #einsum.strategy<elementwise, {{.*}}, stage = 1>
#transposed = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#identity = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @transpose_staged(%a: tensor<167x197x184xf32>, %out: tensor<167x184x197xf32>) -> tensor<167x184x197xf32> {
  %r = linalg.generic {indexing_maps = [#transposed, #identity], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<167x197x184xf32>) outs(%out : tensor<167x184x197xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<167x184x197xf32>
  return %r : tensor<167x184x197xf32>
}

// -----

// Not one that keeps it (ijk->jik: each row is copied whole), nor a packing
// copy (into a tensor.empty, for a contraction to read).
// CHECK-LABEL: func.func @transpose_rows_in_place
// CHECK-NOT: stage =
// CHECK-LABEL: func.func @packing_copy_in_place
// CHECK-NOT: stage =
// CHECK: return
#rows = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#identity3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @transpose_rows_in_place(%a: tensor<197x167x184xf32>, %out: tensor<167x197x184xf32>) -> tensor<167x197x184xf32> {
  %r = linalg.generic {indexing_maps = [#rows, #identity3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<197x167x184xf32>) outs(%out : tensor<167x197x184xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<167x197x184xf32>
  return %r : tensor<167x197x184xf32>
}
#transposed2 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
func.func @packing_copy_in_place(%a: tensor<167x197x184xf32>) -> tensor<167x184x197xf32> {
  %e = tensor.empty() : tensor<167x184x197xf32>
  %r = linalg.generic {indexing_maps = [#transposed2, #identity3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<167x197x184xf32>) outs(%e : tensor<167x184x197xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<167x184x197xf32>
  return %r : tensor<167x184x197xf32>
}
