// RUN: einsum-opt %s -split-input-file -verify-diagnostics

// One case per rule of docs/Dialect/Einsum.md that can be broken, named after
// it. Diagnostics give the operand, the label, the sizes and the column.

func.func @e1_digit_is_not_a_label(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op invalid character '1' (column 2); subscripts are letters [a-zA-Z]}}
  %0 = einsum.contract "i1"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e2_invalid_character(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'einsum.contract' op invalid character '#' (column 5); subscripts are letters [a-zA-Z]}}
  %0 = einsum.contract "ij,j#->i"(%a, %b) : tensor<2x3xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @e2_dot_outside_ellipsis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op '.' is not part of an ellipsis '...' (column 2)}}
  %0 = einsum.contract "i..j"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e2_dash_without_arrow(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op '-' is not followed by '>' (column 3)}}
  %0 = einsum.contract "ij-ji"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e2_two_arrows(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op more than one '->' (column 6)}}
  %0 = einsum.contract "ij->j->i"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e2_comma_in_output(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op ',' in the output (column 6); the output is a single term}}
  %0 = einsum.contract "ij->i,j"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e3_too_few_operands(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op the equation has 2 operand terms, but 1 operand was given}}
  %0 = einsum.contract "ij,jk->ik"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e3_too_many_operands(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op the equation has 1 operand term, but 2 operands were given}}
  %0 = einsum.contract "ij->ji"(%a, %a) : tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @e4_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 1: the term 'jk' has 2 subscripts, but the operand has rank 3 (column 4)}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf32>, tensor<3x4x5xf32>
  return
}

// -----

func.func @e4_rank_below_labels(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 0: the term '...ijk' has 3 subscripts besides the ellipsis, more than the operand's rank 2 (column 1)}}
  %0 = einsum.contract "...ijk"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e4_two_ellipses(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 0: more than one ellipsis (column 5)}}
  %0 = einsum.contract "...i...->i"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e5_diagonal_size_mismatch(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 0: label 'i' is repeated for a diagonal, but its dimensions have sizes 3 and 4 (column 2)}}
  %0 = einsum.contract "ii->i"(%a) : tensor<3x4xf32>
  return
}

// -----

func.func @e6_size_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 1: label 'j' has size 4, but size 3 was seen before in operand 0 (column 4)}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @e7_ellipsis_mismatch(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 1: ellipsis dimension 0 has size 3, but size 2 was seen before in operand 0 (column 6)}}
  %0 = einsum.contract "...i,...i->...i"(%a, %b) : tensor<2x4xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @e9_output_label_not_in_input(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op output: label 'k' does not occur in any input (column 5)}}
  %0 = einsum.contract "ij->k"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e9_output_label_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op output: label 'i' occurs more than once (column 6)}}
  %0 = einsum.contract "ij->ii"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e9_two_ellipses_in_output(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'einsum.contract' op output: more than one ellipsis (column 10)}}
  %0 = einsum.contract "...i->......"(%a) : tensor<2x3xf32>
  return
}

// -----

func.func @e10_result_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'einsum.contract' op failed to infer returned types}}
  // expected-error @+1 {{'einsum.contract' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  %0 = "einsum.contract"(%a, %b) {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @e10_result_element_type_mismatch(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'einsum.contract' op failed to infer returned types}}
  // expected-error @+1 {{'einsum.contract' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf64>'}}
  %0 = "einsum.contract"(%a) {equation = "ji"} : (tensor<2x3xf32>) -> tensor<3x2xf64>
  return
}

// -----

// The result type is the inferred one: a more static type is a mismatch too.
func.func @e10_result_type_refined(%a: tensor<?x3xf32>) {
  // expected-error @+2 {{'einsum.contract' op failed to infer returned types}}
  // expected-error @+1 {{'einsum.contract' op inferred type(s) 'tensor<?x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = "einsum.contract"(%a) {equation = "ij->ij"} : (tensor<?x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @e12_empty_equation_needs_scalar(%a: tensor<3xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand 0: the term '' has 0 subscripts, but the operand has rank 1 (column 1)}}
  %0 = einsum.contract ""(%a) : tensor<3xf32>
  return
}

// -----

func.func @e13_mixed_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{'einsum.contract' op operand 1 has element type f64, but operand 0 has f32; all operands must have one element type}}
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf32>, tensor<3x4xf64>
  return
}

// -----

func.func @e13_unsupported_element_type(%a: tensor<2x3xi8>) {
  // expected-error @+1 {{'einsum.contract' op operand 0: element type i8 is not supported (supported: f32, f64, f16, bf16, i32, i64)}}
  %0 = einsum.contract "ij->ji"(%a) : tensor<2x3xi8>
  return
}

// -----

func.func @e13_unranked_operand(%a: tensor<*xf32>) {
  // expected-error @+1 {{'einsum.contract' op operand #0 must be variadic of ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "einsum.contract"(%a) {equation = "ij"} : (tensor<*xf32>) -> tensor<2x3xf32>
  return
}
