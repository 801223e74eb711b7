// RUN: einsum-opt %s -split-input-file -einsum-grad -verify-diagnostics
// RUN: not einsum-opt %s -einsum-grad="function=nope" 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not einsum-opt %s -split-input-file -einsum-grad="wrt=5" 2>&1 | FileCheck %s --check-prefix=WRT
// NOFUNC: error: einsum-grad: no function named 'nope'
// WRT: error: 'func.func' op einsum-grad: wrt=5 but the function has 2 arguments

// expected-error @+1 {{einsum-grad: argument 0 is not a float tensor ('tensor<3xi32>')}}
func.func @int_argument(%a: tensor<3xi32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = einsum.contract "i->"(%b) : tensor<3xf32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{einsum-grad: needs one block and one tensor result, not '(tensor<3xf32>) -> (tensor<f32>, tensor<f32>)'}}
func.func @two_results(%a: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %0 = einsum.contract "i->"(%a) : tensor<3xf32>
  return %0, %0 : tensor<f32>, tensor<f32>
}

// -----

func.func @log_f16(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  // expected-error @+1 {{einsum-grad: gradients of the log semiring need f32 or f64 operands, not 'f16'}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) {semiring = #einsum.semiring<log>} : tensor<3x4xf16>, tensor<4x5xf16>
  return %0 : tensor<3x5xf16>
}

// -----

func.func @other_op(%a: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{einsum-grad: cannot differentiate this op}}
  %e = math.exp %a : tensor<3xf32>
  %0 = einsum.contract "i->"(%e) : tensor<3xf32>
  return %0 : tensor<f32>
}

// -----

// 52 labels and an ellipsis dim: 53 dims, more than gradient equations can name.
func.func @too_many_dims(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) -> tensor<f32> {
  // expected-error @+1 {{einsum-grad: the gradient needs more than 52 labels (53 dims, ellipsis dims included)}}
  %0 = einsum.contract "...abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ->"(%a) : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  return %0 : tensor<f32>
}

// -----

// A value the result depends on through another op's region (here with two
// results): not differentiated, an error rather than zero gradients.
func.func @region_op(%a: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{einsum-grad: cannot differentiate this op}}
  %r:2 = scf.execute_region -> (tensor<3xf32>, tensor<3xf32>) {
    scf.yield %a, %a : tensor<3xf32>, tensor<3xf32>
  }
  %0 = einsum.contract "i->"(%r#0) : tensor<3xf32>
  return %0 : tensor<f32>
}
