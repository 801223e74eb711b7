// RUN: einsum-opt %s -split-input-file -verify-diagnostics

// The semirings' element types.

func.func @log_of_integers(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) {
  // expected-error @+1 {{'einsum.contract' op semiring 'log' needs floating-point operands, not 'i32'}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<2x3xi32>, tensor<3x4xi32>
  return
}

// -----

func.func @bool_of_floats(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op semiring 'bool' needs integer operands, not 'f32'}}
  %0 = einsum.contract "ij->i"(%a) {semiring = #einsum.semiring<bool>} : tensor<2x3xf32>
  return
}

// -----

func.func @unknown(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{expected ::mlir::einsum::Semiring to be one of: plus_times, log, max, min, max_times, bool}}
  // expected-error @+1 {{failed to parse Einsum_SemiringAttr parameter 'value'}}
  %0 = einsum.contract "ij->i"(%a) {semiring = #einsum.semiring<tropical>} : tensor<2x3xf32>
  return
}
