// RUN: einsum-opt %s | einsum-opt | FileCheck %s
// RUN: einsum-opt %s -mlir-print-op-generic | einsum-opt | FileCheck %s
// RUN: einsum-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trips of einsum.contract. The result type is inferred and never
// written; the generic form shows it, and `return` checks it.

// Seed examples (torch.einsum documentation).

// CHECK-LABEL: func.func @seed_trace
// CHECK: einsum.contract "ii"(%{{.*}}) : tensor<4x4xf32>
// GENERIC-LABEL: sym_name = "seed_trace"
// GENERIC: "einsum.contract"(%{{.*}}) <{equation = "ii"}> : (tensor<4x4xf32>) -> tensor<f32>
func.func @seed_trace(%a: tensor<4x4xf32>) -> tensor<f32> {
  %0 = einsum.contract "ii"(%a) : tensor<4x4xf32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @seed_diagonal
// GENERIC-LABEL: sym_name = "seed_diagonal"
// GENERIC: (tensor<4x4xf32>) -> tensor<4xf32>
func.func @seed_diagonal(%a: tensor<4x4xf32>) -> tensor<4xf32> {
  // CHECK: einsum.contract "ii->i"
  %0 = einsum.contract "ii->i"(%a) : tensor<4x4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @seed_outer
// GENERIC-LABEL: sym_name = "seed_outer"
// GENERIC: (tensor<5xf32>, tensor<4xf32>) -> tensor<5x4xf32>
func.func @seed_outer(%x: tensor<5xf32>, %y: tensor<4xf32>) -> tensor<5x4xf32> {
  // CHECK: einsum.contract "i,j->ij"(%{{.*}}, %{{.*}}) : tensor<5xf32>, tensor<4xf32>
  %0 = einsum.contract "i,j->ij"(%x, %y) : tensor<5xf32>, tensor<4xf32>
  return %0 : tensor<5x4xf32>
}

// CHECK-LABEL: func.func @seed_bmm
// GENERIC-LABEL: sym_name = "seed_bmm"
// GENERIC: (tensor<3x2x5xf32>, tensor<3x5x4xf32>) -> tensor<3x2x4xf32>
func.func @seed_bmm(%a: tensor<3x2x5xf32>, %b: tensor<3x5x4xf32>) -> tensor<3x2x4xf32> {
  // CHECK: einsum.contract "bij,bjk->bik"
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<3x2x5xf32>, tensor<3x5x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// The sublist form [..., 0, 1], [..., 1, 2] -> [..., 0, 2] is this equation.
// CHECK-LABEL: func.func @seed_sublist_ellipsis
// GENERIC-LABEL: sym_name = "seed_sublist_ellipsis"
// GENERIC: (tensor<3x2x5xf32>, tensor<3x5x4xf32>) -> tensor<3x2x4xf32>
func.func @seed_sublist_ellipsis(%a: tensor<3x2x5xf32>, %b: tensor<3x5x4xf32>) -> tensor<3x2x4xf32> {
  // CHECK: einsum.contract "...AB,...BC->...AC"
  %0 = einsum.contract "...AB,...BC->...AC"(%a, %b) : tensor<3x2x5xf32>, tensor<3x5x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// CHECK-LABEL: func.func @seed_batch_permute
// GENERIC-LABEL: sym_name = "seed_batch_permute"
// GENERIC: (tensor<2x3x4x5xf32>) -> tensor<2x3x5x4xf32>
func.func @seed_batch_permute(%a: tensor<2x3x4x5xf32>) -> tensor<2x3x5x4xf32> {
  // CHECK: einsum.contract "...ij->...ji"
  %0 = einsum.contract "...ij->...ji"(%a) : tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x5x4xf32>
}

// CHECK-LABEL: func.func @seed_bilinear
// GENERIC-LABEL: sym_name = "seed_bilinear"
// GENERIC: (tensor<2x5xf32>, tensor<3x5x4xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
func.func @seed_bilinear(%l: tensor<2x5xf32>, %a: tensor<3x5x4xf32>, %r: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // CHECK: einsum.contract "bn,anm,bm->ba"(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<2x5xf32>, tensor<3x5x4xf32>, tensor<2x4xf32>
  %0 = einsum.contract "bn,anm,bm->ba"(%l, %a, %r) : tensor<2x5xf32>, tensor<3x5x4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x3xf32>
}

// Implicit output: ASCII order, upper case first (E8).
// CHECK-LABEL: func.func @implicit_upper_first
// GENERIC-LABEL: sym_name = "implicit_upper_first"
// GENERIC: (tensor<2x3xf64>) -> tensor<3x2xf64>
func.func @implicit_upper_first(%a: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %0 = einsum.contract "aB"(%a) : tensor<2x3xf64>
  return %0 : tensor<3x2xf64>
}

// Dynamic dims.
// CHECK-LABEL: func.func @dynamic
// GENERIC-LABEL: sym_name = "dynamic"
// GENERIC: (tensor<?x3xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
func.func @dynamic(%a: tensor<?x3xf32>, %b: tensor<3x?xf32>) -> tensor<?x?xf32> {
  // CHECK: einsum.contract "ij,jk->ik"(%{{.*}}, %{{.*}}) : tensor<?x3xf32>, tensor<3x?xf32>
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<?x3xf32>, tensor<3x?xf32>
  return %0 : tensor<?x?xf32>
}

// A dynamic dim against a static one takes the static size.
// CHECK-LABEL: func.func @dynamic_meets_static
// GENERIC-LABEL: sym_name = "dynamic_meets_static"
// GENERIC: (tensor<?x3xf32>, tensor<4x?xf32>) -> tensor<4x3xf32>
func.func @dynamic_meets_static(%a: tensor<?x3xf32>, %b: tensor<4x?xf32>) -> tensor<4x3xf32> {
  %0 = einsum.contract "ij,ij->ij"(%a, %b) : tensor<?x3xf32>, tensor<4x?xf32>
  return %0 : tensor<4x3xf32>
}

// Scalars (E12).
// CHECK-LABEL: func.func @scalars
// GENERIC-LABEL: sym_name = "scalars"
// GENERIC: (tensor<i32>) -> tensor<i32>
// GENERIC: (tensor<i32>, tensor<i32>) -> tensor<i32>
// GENERIC: (tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
func.func @scalars(%s: tensor<i32>, %v: tensor<3xi32>) -> (tensor<i32>, tensor<i32>, tensor<3xi32>) {
  // CHECK: einsum.contract ""(%{{.*}}) : tensor<i32>
  %0 = einsum.contract ""(%s) : tensor<i32>
  // CHECK: einsum.contract ",->"
  %1 = einsum.contract ",->"(%s, %s) : tensor<i32>, tensor<i32>
  // CHECK: einsum.contract ",i->i"
  %2 = einsum.contract ",i->i"(%s, %v) : tensor<i32>, tensor<3xi32>
  return %0, %1, %2 : tensor<i32>, tensor<i32>, tensor<3xi32>
}

// All 52 labels (E1).
// CHECK-LABEL: func.func @fifty_two_labels
// CHECK: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz->zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
// GENERIC-LABEL: sym_name = "fifty_two_labels"
// GENERIC: -> tensor<3x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xi64>
func.func @fifty_two_labels(%a: tensor<2x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xi64>) -> tensor<3x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xi64> {
  %0 = einsum.contract "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz->zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"(%a) : tensor<2x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x3xi64>
  return %0 : tensor<3x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xi64>
}

// Whitespace between elements (E2) is kept verbatim; canonicalization
// removes it.
// CHECK-LABEL: func.func @whitespace
// CHECK: einsum.contract " i j , j k -> i k "
// GENERIC-LABEL: sym_name = "whitespace"
// GENERIC: (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
func.func @whitespace(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = einsum.contract " i j , j k -> i k "(%a, %b) : tensor<2x3xf16>, tensor<3x4xf16>
  return %0 : tensor<2x4xf16>
}

// Broadcast of size-1 dims (E6), of ellipses (E7), a summed ellipsis (E9),
// diagonals with several repeats (E5), zero-size dims (E11), bf16 (E13).
// CHECK-LABEL: func.func @broadcasts
// GENERIC-LABEL: sym_name = "broadcasts"
// GENERIC: (tensor<1x3xbf16>, tensor<2x1xbf16>) -> tensor<2x3xbf16>
// GENERIC: (tensor<7x1x2x5xbf16>, tensor<3x5x4xbf16>) -> tensor<7x3x2x4xbf16>
// GENERIC: (tensor<6x2x3xbf16>) -> tensor<2x3xbf16>
// GENERIC: (tensor<2x2x2x3x3xbf16>) -> tensor<3x2xbf16>
// GENERIC: (tensor<0x3xbf16>, tensor<3x4xbf16>) -> tensor<0x4xbf16>
func.func @broadcasts(%a: tensor<1x3xbf16>, %b: tensor<2x1xbf16>, %c: tensor<7x1x2x5xbf16>,
                      %d: tensor<3x5x4xbf16>, %e: tensor<6x2x3xbf16>, %f: tensor<2x2x2x3x3xbf16>,
                      %g: tensor<0x3xbf16>, %h: tensor<3x4xbf16>) {
  %0 = einsum.contract "ij,ij->ij"(%a, %b) : tensor<1x3xbf16>, tensor<2x1xbf16>
  %1 = einsum.contract "...ij,...jk->...ik"(%c, %d) : tensor<7x1x2x5xbf16>, tensor<3x5x4xbf16>
  %2 = einsum.contract "...ij->ij"(%e) : tensor<6x2x3xbf16>
  %3 = einsum.contract "iiijj->ji"(%f) : tensor<2x2x2x3x3xbf16>
  %4 = einsum.contract "ij,jk"(%g, %h) : tensor<0x3xbf16>, tensor<3x4xbf16>
  return
}
