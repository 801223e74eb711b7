// RUN: einsum-opt %s -split-input-file -convert-einsum-to-linalg -einsum-parallelize="num-threads=2 min-iterations=0" -canonicalize | FileCheck %s
// RUN: einsum-opt %s -split-input-file -einsum-parallelize=num-threads=1 | FileCheck %s --check-prefix=ONE
// RUN: einsum-opt %s -split-input-file -einsum-parallelize=num-threads=2 | FileCheck %s --check-prefix=SMALL

// By default, ops this small stay serial.
// SMALL-NOT: scf.forall

// The generic is split along its output's first dimension into two chunks,
// and the fill of the accumulator is fused into each chunk.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[RES:.*]] = scf.forall (%[[T:.*]]) in (2) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<4x16xf32>)
// CHECK-DAG: %[[ASLICE:.*]] = tensor.extract_slice %[[A]][%{{.*}}, 0] [2, 8] [1, 1]
// CHECK-DAG: %[[OSLICE:.*]] = tensor.extract_slice %[[OUT]][%{{.*}}, 0] [2, 16] [1, 1]
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[OSLICE]] : tensor<2x16xf32>)
// CHECK: %[[TILE:.*]] = linalg.generic
// CHECK-SAME: outs(%[[FILL]] : tensor<2x16xf32>)
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[TILE]] into %[[OUT]][%{{.*}}, 0] [2, 16] [1, 1]
// CHECK: return %[[RES]]
// ONE-LABEL: func.func @matmul
// ONE-NOT: scf.forall
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// The loop of the output's first dimension is the one distributed, also when
// it is not the outermost loop; an odd size gives uneven chunks.
// CHECK-LABEL: func.func @first_output_dim_innermost
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<3x?xf32>)
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
func.func @first_output_dim_innermost(%a: tensor<3x5xf32>) -> tensor<5xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<3x5xf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// Nothing to distribute: a full reduction (rank-0 output), a first output
// dimension of size 1, a dynamic one, an empty iteration space.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.forall
#v = affine_map<(d0) -> (d0)>
#s = affine_map<(d0) -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @left_alone(%a: tensor<8xf32>, %b: tensor<1x8xf32>, %c: tensor<?x8xf32>, %s0: tensor<f32>,
                      %z: tensor<4x0xf32>) -> (tensor<f32>, tensor<1x8xf32>, tensor<?x8xf32>, tensor<4x0xf32>) {
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%a : tensor<8xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %acc, %x : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<1x8xf32>
  %q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<1x8xf32>) outs(%e : tensor<1x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<1x8xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %c, %c0 : tensor<?x8xf32>
  %e2 = tensor.empty(%d) : tensor<?x8xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<?x8xf32>) outs(%e2 : tensor<?x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<?x8xf32>
  %e3 = tensor.empty() : tensor<4x0xf32>
  %zz = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<4x0xf32>) outs(%e3 : tensor<4x0xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x0xf32>
  return %r, %q, %w, %zz : tensor<f32>, tensor<1x8xf32>, tensor<?x8xf32>, tensor<4x0xf32>
}

// -----

// f16: the accumulating generic and the truncating one get a loop each; the
// fill is fused into the first.
// CHECK-LABEL: func.func @half
// CHECK: %[[ACC:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic
// CHECK: arith.extf
// CHECK: scf.forall.in_parallel
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: tensor.extract_slice %[[ACC]]
// CHECK: linalg.generic
// CHECK: arith.truncf
// CHECK: scf.forall.in_parallel
// CHECK: return
func.func @half(%a: tensor<4x3xf16>, %b: tensor<3x4xf16>) -> tensor<4x4xf16> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x3xf16>, tensor<3x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

// The outermost output loop that splits evenly is distributed: 3 rows in
// two chunks would leave a thread idle a third of the time, so the 64 is
// split instead (32 each). The contiguous loop would only come last.
// CHECK-LABEL: func.func @even_split
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [3, 32, 64] [1, 1, 1]
#e3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @even_split(%a: tensor<3x64x64xf32>) -> tensor<3x64x64xf32> {
  %e = tensor.empty() : tensor<3x64x64xf32>
  %r = linalg.generic {indexing_maps = [#e3, #e3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<3x64x64xf32>) outs(%e : tensor<3x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<3x64x64xf32>
  return %r : tensor<3x64x64xf32>
}

// -----

// Nothing splits evenly: the most even split is taken (5 in 3 + 2).
// CHECK-LABEL: func.func @least_uneven
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [%{{.*}}, 3, 16] [1, 1, 1]
#u3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @least_uneven(%a: tensor<5x3x16xf32>) -> tensor<5x3x16xf32> {
  %e = tensor.empty() : tensor<5x3x16xf32>
  %r = linalg.generic {indexing_maps = [#u3, #u3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<5x3x16xf32>) outs(%e : tensor<5x3x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<5x3x16xf32>
  return %r : tensor<5x3x16xf32>
}

// -----

// A batch loop (used by every input) is split before the others, even when
// an outer output loop splits evenly too: each thread then reads half of
// every operand (rzny = znjr x njy: n, not z).
// CHECK-LABEL: func.func @batch_first
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK-DAG: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [6, 2, 2, 3]
// CHECK-DAG: tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [2, 2, 16]
#bf_a = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4, d0)>
#bf_b = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4, d3)>
#bf_c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @batch_first(%a: tensor<6x4x2x3xf32>, %b: tensor<4x2x16xf32>) -> tensor<3x6x4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x6x4x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<3x6x4x16xf32>) -> tensor<3x6x4x16xf32>
  %r = linalg.generic {indexing_maps = [#bf_a, #bf_b, #bf_c],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<6x4x2x3xf32>, tensor<4x2x16xf32>) outs(%f : tensor<3x6x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x6x4x16xf32>
  return %r : tensor<3x6x4x16xf32>
}
