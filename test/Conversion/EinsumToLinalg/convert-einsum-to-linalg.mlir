// RUN: einsum-opt %s -split-input-file -convert-einsum-to-linalg | FileCheck %s

// Matrix product: loops (i, j, k) with the output's contiguous k innermost
// and the summed j in between.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[LHS:.*]]: tensor<4x8xf32>, %[[RHS:.*]]: tensor<8x16xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>)
// CHECK: %[[RES:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[LHS]], %[[RHS]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[MUL:.*]] = arith.mulf %[[X]], %[[Y]] fastmath<contract> : f32
// CHECK: %[[ADD:.*]] = arith.addf %[[ACC]], %[[MUL]] fastmath<contract> : f32
// CHECK: linalg.yield %[[ADD]] : f32
// CHECK: return %[[RES]]
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x8xf32>, tensor<8x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Batched product: the batch loop outermost.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
func.func @batch_matmul(%a: tensor<3x2x5xf32>, %b: tensor<3x5x4xf32>) -> tensor<3x2x4xf32> {
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<3x2x5xf32>, tensor<3x5x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

// Transposed output: the loop of the output's last label (i) is innermost.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @transposed_output
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @transposed_output(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<16x4xf32> {
  %0 = einsum.contract "ij,jk->ki"(%a, %b) : tensor<4x8xf32>, tensor<8x16xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// A diagonal repeats its loop dim; the trace has no parallel loop.
// CHECK-DAG: #[[$DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @trace_and_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[$DIAG]], #[[$SCALAR]]], iterator_types = ["reduction"]}
// CHECK: ^bb0(%[[X:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<contract> : f64
// CHECK: linalg.generic {indexing_maps = [#[[$DIAG]], #[[$OUT]]], iterator_types = ["parallel"]}
func.func @trace_and_diagonal(%a: tensor<4x4xf64>) -> (tensor<f64>, tensor<4xf64>) {
  %0 = einsum.contract "ii"(%a) : tensor<4x4xf64>
  %1 = einsum.contract "ii->i"(%a) : tensor<4x4xf64>
  return %0, %1 : tensor<f64>, tensor<4xf64>
}

// -----

// Size-1 dims that broadcast are indexed with 0; integers multiply with
// muli. Without a summed label each element is one term, written into an
// empty tensor as it is: no fill to add it to.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK-NOT: linalg.fill
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: outs(%[[EMPTY]] : tensor<2x3xi32>)
// CHECK: %[[PRODUCT:.*]] = arith.muli
// CHECK-NEXT: linalg.yield %[[PRODUCT]] : i32
func.func @broadcast(%a: tensor<1x3xi32>, %b: tensor<2x1xi32>) -> tensor<2x3xi32> {
  %0 = einsum.contract "ij,ij->ij"(%a, %b) : tensor<1x3xi32>, tensor<2x1xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A transpose yields its input element: the output is not filled, read or
// added to.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transpose
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
func.func @transpose(%a: tensor<3x5xf32>) -> tensor<5x3xf32> {
  %0 = einsum.contract "ij->ji"(%a) : tensor<3x5xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// A summed label of size 1 against a larger one broadcasts too.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @broadcast_summed
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], {{.*}}], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x1xi64>, tensor<5x4xi64>)
func.func @broadcast_summed(%a: tensor<2x1xi64>, %b: tensor<5x4xi64>) -> tensor<2x4xi64> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x1xi64>, tensor<5x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

// Ellipsis dims broadcast right-aligned; the missing leading one of the
// second operand is simply absent from its map.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func.func @ellipsis_broadcast
// CHECK: tensor.empty() : tensor<7x3x2x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
func.func @ellipsis_broadcast(%a: tensor<7x1x2x5xf32>, %b: tensor<3x5x4xf32>) -> tensor<7x3x2x4xf32> {
  %0 = einsum.contract "...ij,...jk->...ik"(%a, %b) : tensor<7x1x2x5xf32>, tensor<3x5x4xf32>
  return %0 : tensor<7x3x2x4xf32>
}

// -----

// An ellipsis missing from the output is summed (torch's rule).
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @summed_ellipsis
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @summed_ellipsis(%a: tensor<5x2x3xf32>) -> tensor<3x2xf32> {
  %0 = einsum.contract "...ij->ji"(%a) : tensor<5x2x3xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Scalars: a generic without loops.
// CHECK-DAG: #[[$S:.*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @scalars
// CHECK: linalg.generic {indexing_maps = [#[[$S]], #[[$S]], #[[$S]]], iterator_types = []}
func.func @scalars(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = einsum.contract ",->"(%a, %b) : tensor<f32>, tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Zero-size dims lower like any other size.
// CHECK-LABEL: func.func @zero_size
// CHECK: tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x0xf32>, tensor<0x3xf32>)
func.func @zero_size(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x0xf32>, tensor<0x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Any number of operands in one generic (the path pass splits them first).
// CHECK-DAG: #[[$L:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>
// CHECK-DAG: #[[$R:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[$O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @three_operands
// CHECK: linalg.generic {indexing_maps = [#[[$L]], #[[$A]], #[[$R]], #[[$O]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[XY:.*]] = arith.mulf %[[X]], %[[Y]] fastmath<contract> : f32
// CHECK: %[[XYZ:.*]] = arith.mulf %[[XY]], %[[Z]] fastmath<contract> : f32
// CHECK: arith.addf %[[ACC]], %[[XYZ]] fastmath<contract> : f32
func.func @three_operands(%l: tensor<2x5xf32>, %a: tensor<3x5x4xf32>, %r: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %0 = einsum.contract "bn,anm,bm->ba"(%l, %a, %r) : tensor<2x5xf32>, tensor<3x5x4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// f16 and bf16 accumulate in f32, then a second generic truncates.
// CHECK-LABEL: func.func @half_accumulates_in_f32
// CHECK: %[[ACCINIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[ACC:.*]] = linalg.generic
// CHECK-SAME: outs(%[[ACCINIT]] : tensor<2x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[OUT:.*]]: f32):
// CHECK-DAG: %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG: %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: arith.mulf %[[XE]], %[[YE]] fastmath<contract> : f32
// CHECK: %[[TRUNC:.*]] = linalg.generic
// CHECK-SAME: ins(%[[ACC]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[TRUNC]]
func.func @half_accumulates_in_f32(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf16>, tensor<3x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// CHECK-LABEL: func.func @bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16(%a: tensor<2x3xbf16>) -> tensor<3xbf16> {
  %0 = einsum.contract "ij->j"(%a) : tensor<2x3xbf16>
  return %0 : tensor<3xbf16>
}

// -----

// Dynamic sizes: the output's come from the operands that carry them; a
// label that two operands carry is checked at run time (equal, or one of
// them 1: E6) at the start of the function, and an operand whose size is 1
// where the loop's is not is expanded first.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[JA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[JB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[JB]], %[[JA]] : index
// CHECK: %[[OK:.*]] = arith.ori %{{.*}}, %[[SAME]] : i1
// CHECK: cf.assert %[[OK]], "einsum: operand 1: label 'j' has a size at run time that differs from its size in operand 0, and neither is 1 ('ij,jk->ik' at {{.*}}convert-einsum-to-linalg.mlir:[[@LINE+14]]:8)"
// CHECK: %[[A2:.*]] = scf.if %{{.*}} -> (tensor<?x?xf32>) {
// CHECK:   %[[EXPANDED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]] : tensor<?x?xf32>)
// CHECK-SAME: einsum.runtime_broadcast
// CHECK:   scf.yield %[[EXPANDED]]
// CHECK: } else {
// CHECK:   scf.yield %[[A]]
// CHECK: }
// CHECK: %[[B2:.*]] = scf.if
// CHECK: tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A2]], %[[B2]] :
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<?x?xf32>, tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A dynamic dim is not taken from an operand that broadcasts it statically;
// that operand needs no check.
// CHECK-LABEL: func.func @dynamic_with_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<1xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK-NOT: cf.assert
// CHECK: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?xf32>
// CHECK-NOT: cf.assert
// CHECK: tensor.empty(%[[N]]) : tensor<?xf32>
func.func @dynamic_with_broadcast(%a: tensor<1xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = einsum.contract "i,i->i"(%a, %b) : tensor<1xf32>, tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A static size in one operand: the dynamic one must equal it or be 1.
// CHECK-LABEL: func.func @dynamic_against_static
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[NB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?xf32>
// CHECK: arith.cmpi eq, %[[NB]], %[[C4]] : index
// CHECK: cf.assert
// CHECK: scf.if
// CHECK: tensor.empty() : tensor<4xf32>
func.func @dynamic_against_static(%a: tensor<4xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %0 = einsum.contract "i,i->i"(%a, %b) : tensor<4xf32>, tensor<?xf32>
  return %0 : tensor<4xf32>
}

// -----

// A repeated label of dynamic sizes (E5): equal at run time.
// CHECK-LABEL: func.func @dynamic_diagonal
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[D0:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[D1:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[D0]], %[[D1]] : index
// CHECK: cf.assert %[[EQ]], "einsum: operand 0: label 'i' is repeated for a diagonal, but its dimensions have different sizes at run time
// CHECK-NOT: scf.if
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
func.func @dynamic_diagonal(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = einsum.contract "ii->i"(%a) : tensor<?x?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The checks of an einsum of intermediate results sit at the einsum.
// CHECK-LABEL: func.func @dynamic_intermediate
// CHECK: linalg.generic
// CHECK: cf.assert {{.*}}label 'k'
// CHECK: linalg.generic
func.func @dynamic_intermediate(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = einsum.contract "ij->j"(%a) : tensor<?x?xf32>
  %1 = einsum.contract "k,k->k"(%0, %b) : tensor<?xf32>, tensor<?xf32>
  return %1 : tensor<?xf32>
}
