// RUN: einsum-opt %s --allow-unregistered-dialect --einsum-import-frontends --split-input-file | FileCheck %s

// torch-mlir's einsum in generic form (torch-mlir prints the equation
// constant's value as a property): the function's !torch.vtensor types
// become builtin tensors, the constants and the list go away.
// CHECK-LABEL: func.func @torch_matmul
//  CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x5xf32>) -> tensor<3x5xf32>
//  CHECK-NEXT:   %[[C:.*]] = einsum.contract "ij,jk->ik"(%[[A]], %[[B]]) : tensor<3x4xf32>, tensor<4x5xf32>
//  CHECK-NEXT:   return %[[C]] : tensor<3x5xf32>
func.func @torch_matmul(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32> {
  %0 = "torch.constant.str"() <{value = "ij,jk->ik"}> : () -> !torch.str
  %1 = "torch.prim.ListConstruct"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f32>) -> !torch.list<vtensor>
  %2 = "torch.constant.none"() : () -> !torch.none
  %3 = "torch.aten.einsum"(%0, %1, %2) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[3,5],f32>
  return %3 : !torch.vtensor<[3,5],f32>
}

// -----

// The equation as an attribute, dynamic sizes, torch's si64, an explicit
// path (ignored), and the backend boundary's torch_c casts.
// CHECK-LABEL: func.func @torch_boundary
//  CHECK-SAME: (%[[X:.*]]: tensor<?x4xi64>, %[[Y:.*]]: tensor<4x?xi64>, %[[Z:.*]]: tensor<?xi64>) -> tensor<?xi64>
//  CHECK-NEXT:   %[[R:.*]] = einsum.contract "bi,ij,j->b"(%[[X]], %[[Y]], %[[Z]]) : tensor<?x4xi64>, tensor<4x?xi64>, tensor<?xi64>
//  CHECK-NEXT:   return %[[R]] : tensor<?xi64>
func.func @torch_boundary(%x: tensor<?x4xi64>, %y: !torch.vtensor<[4,?],si64>, %z: !torch.vtensor<[?],si64>) -> tensor<?xi64> {
  %tx = "torch_c.from_builtin_tensor"(%x) : (tensor<?x4xi64>) -> !torch.vtensor<[?,4],si64>
  %eq = "torch.constant.str"() {value = "bi,ij,j->b"} : () -> !torch.str
  %l = "torch.prim.ListConstruct"(%tx, %y, %z) : (!torch.vtensor<[?,4],si64>, !torch.vtensor<[4,?],si64>, !torch.vtensor<[?],si64>) -> !torch.list<vtensor>
  %i0 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  %i1 = "torch.constant.int"() <{value = 2 : i64}> : () -> !torch.int
  %step = "torch.prim.ListConstruct"(%i0, %i1) : (!torch.int, !torch.int) -> !torch.list<int>
  %r = "torch.aten.einsum"(%eq, %l, %step) : (!torch.str, !torch.list<vtensor>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %b = "torch_c.to_builtin_tensor"(%r) : (!torch.vtensor<[?],si64>) -> tensor<?xi64>
  return %b : tensor<?xi64>
}

// -----

// A declared result less static than the equation's: a cast.
// CHECK-LABEL: func.func @torch_cast
//       CHECK:   %[[C:.*]] = einsum.contract "ii->i"(%{{.*}}) : tensor<3x3xf64>
//       CHECK:   %[[D:.*]] = tensor.cast %[[C]] : tensor<3xf64> to tensor<?xf64>
//       CHECK:   return %[[D]] : tensor<?xf64>
func.func @torch_cast(%a: !torch.vtensor<[3,3],f64>) -> !torch.vtensor<[?],f64> {
  %0 = "torch.constant.str"() <{value = "ii->i"}> : () -> !torch.str
  %1 = "torch.prim.ListConstruct"(%a) : (!torch.vtensor<[3,3],f64>) -> !torch.list<vtensor>
  %2 = "torch.constant.none"() : () -> !torch.none
  %3 = "torch.aten.einsum"(%0, %1, %2) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[?],f64>
  return %3 : !torch.vtensor<[?],f64>
}

// -----

// StableHLO's einsum and unary_einsum, attribute or property.
// CHECK-LABEL: func.func @stablehlo
//       CHECK:   %[[E:.*]] = einsum.contract "ab,bc->ac"(%{{.*}}, %{{.*}}) : tensor<2x3xbf16>, tensor<3x4xbf16>
//       CHECK:   %[[U:.*]] = einsum.contract "ab->a"(%[[E]]) : tensor<2x4xbf16>
//       CHECK:   return %[[U]]
func.func @stablehlo(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2xbf16> {
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
  %1 = "stablehlo.unary_einsum"(%0) <{einsum_config = "ab->a"}> : (tensor<2x4xbf16>) -> tensor<2xbf16>
  return %1 : tensor<2xbf16>
}

// -----

// TOSA's float matmul, zero points dropped.
// CHECK-LABEL: func.func @tosa
//   CHECK-NOT:   tosa.const
//       CHECK:   %[[E:.*]] = einsum.contract "bij,bjk->bik"(%{{.*}}, %{{.*}}) : tensor<2x3x4xf32>, tensor<2x4x5xf32>
//       CHECK:   return %[[E]]
func.func @tosa(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = "tosa.matmul"(%a, %b, %zp, %zp) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Nothing to import: left as it is.
// CHECK-LABEL: func.func @plain
//       CHECK:   "other.op"
func.func @plain(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "other.op"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
