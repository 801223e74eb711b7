// RUN: einsum-opt %s --allow-unregistered-dialect --einsum-import-frontends --split-input-file --verify-diagnostics

// An op the import does not know: the function is refused, named by the op.
func.func @torch_mm(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32> {
  // expected-error @below {{einsum-import-frontends: cannot import 'torch.aten.mm': of torch-mlir's ops, only torch.aten.einsum (with its constants and list) is imported}}
  %0 = "torch.aten.mm"(%a, %b) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

func.func @bad_equation(%a: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3],f32> {
  %0 = "torch.constant.str"() <{value = "ij,jk->ik"}> : () -> !torch.str
  %1 = "torch.prim.ListConstruct"(%a) : (!torch.vtensor<[3,4],f32>) -> !torch.list<vtensor>
  %2 = "torch.constant.none"() : () -> !torch.none
  // expected-error @below {{einsum-import-frontends: the equation has 2 operand terms, but 1 operand was given}}
  %3 = "torch.aten.einsum"(%0, %1, %2) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[3],f32>
  return %3 : !torch.vtensor<[3],f32>
}

// -----

func.func @equation_not_constant(%a: !torch.vtensor<[3,4],f32>, %eq: !torch.str) -> !torch.vtensor<[3],f32> {
  %1 = "torch.prim.ListConstruct"(%a) : (!torch.vtensor<[3,4],f32>) -> !torch.list<vtensor>
  %2 = "torch.constant.none"() : () -> !torch.none
  // expected-error @below {{einsum-import-frontends: the equation of torch.aten.einsum is neither an 'equation' attribute nor a torch.constant.str}}
  %3 = "torch.aten.einsum"(%eq, %1, %2) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[3],f32>
  return %3 : !torch.vtensor<[3],f32>
}

// -----

// expected-error @below {{einsum-import-frontends: cannot import argument 0 of type '!torch.vtensor' (a ranked !torch.vtensor of a supported element type is needed)}}
func.func @unranked(%a: !torch.vtensor) -> !torch.vtensor {
  return %a : !torch.vtensor
}

// -----

func.func @complex(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @below {{einsum-import-frontends: cannot import the type '!torch.vtensor<[2],complex<f32>>' (a ranked !torch.vtensor of a supported element type is needed)}}
  %0 = "torch_c.from_builtin_tensor"(%a) : (tensor<2xcomplex<f32>>) -> !torch.vtensor<[2],complex<f32>>
  %1 = "torch_c.to_builtin_tensor"(%0) : (!torch.vtensor<[2],complex<f32>>) -> tensor<2xcomplex<f32>>
  return %1 : tensor<2xcomplex<f32>>
}

// -----

func.func @wrong_result(%a: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = "torch.constant.str"() <{value = "ij->i"}> : () -> !torch.str
  %1 = "torch.prim.ListConstruct"(%a) : (!torch.vtensor<[3,4],f32>) -> !torch.list<vtensor>
  %2 = "torch.constant.none"() : () -> !torch.none
  // expected-error @below {{einsum-import-frontends: the declared result type 'tensor<4xf32>' contradicts the type 'tensor<3xf32>' of 'ij->i'}}
  %3 = "torch.aten.einsum"(%0, %1, %2) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[4],f32>
  return %3 : !torch.vtensor<[4],f32>
}

// -----

func.func @no_config(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{einsum-import-frontends: stablehlo.einsum has no string 'einsum_config'}}
  %0 = "stablehlo.einsum"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @hlo_arity(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @below {{einsum-import-frontends: stablehlo.einsum takes 2 operands and has one result}}
  %0 = "stablehlo.einsum"(%a) {einsum_config = "ab->a"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @hlo_bad_label(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{einsum-import-frontends: invalid character '1' (column 9); subscripts are letters [a-zA-Z]}}
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->a1"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @tosa_int(%a: tensor<2x3x4xi8>, %b: tensor<2x4x5xi8>, %zp: tensor<1xi8>) -> tensor<2x3x5xi32> {
  // expected-error @below {{einsum-import-frontends: only tosa.matmul of one float type is imported (integer ones subtract zero points and widen)}}
  %0 = "tosa.matmul"(%a, %b, %zp, %zp) : (tensor<2x3x4xi8>, tensor<2x4x5xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3x5xi32>
  return %0 : tensor<2x3x5xi32>
}
