// RUN: einsum-opt %s -split-input-file -einsum-optimize-path | FileCheck %s
// RUN: einsum-opt %s -split-input-file -einsum-optimize-path=strategy=left-to-right | FileCheck %s --check-prefix=L2R
// RUN: einsum-opt %s -split-input-file -einsum-optimize-path=strategy=greedy | FileCheck %s --check-prefix=GREEDY
// RUN: einsum-opt %s -split-input-file -einsum-optimize-path=strategy=dp | FileCheck %s --check-prefix=DP

// The textbook matrix chain: the optimal order ((A1 (A2 A3)) ((A4 A5) A6))
// needs 15125 scalar multiplications (30250 FLOPs).
// CHECK-LABEL: func.func @matrix_chain
// CHECK-SAME: (%[[A1:.*]]: tensor<30x35xf64>, %[[A2:.*]]: tensor<35x15xf64>, %[[A3:.*]]: tensor<15x5xf64>, %[[A4:.*]]: tensor<5x10xf64>, %[[A5:.*]]: tensor<10x20xf64>, %[[A6:.*]]: tensor<20x25xf64>)
// CHECK: %[[A23:.*]] = einsum.contract "bc,cd->bd"(%[[A2]], %[[A3]]) : tensor<35x15xf64>, tensor<15x5xf64>
// CHECK: %[[A123:.*]] = einsum.contract "ab,bd->da"(%[[A1]], %[[A23]]) : tensor<30x35xf64>, tensor<35x5xf64>
// CHECK: %[[A45:.*]] = einsum.contract "de,ef->df"(%[[A4]], %[[A5]]) : tensor<5x10xf64>, tensor<10x20xf64>
// CHECK: %[[A456:.*]] = einsum.contract "fg,df->dg"(%[[A6]], %[[A45]]) : tensor<20x25xf64>, tensor<5x20xf64>
// CHECK: %[[R:.*]] = einsum.contract "da,dg->ag"(%[[A123]], %[[A456]]) : tensor<5x30xf64>, tensor<5x25xf64>
// CHECK: return %[[R]]
// DP-LABEL: func.func @matrix_chain
// DP: einsum.contract "bc,cd->bd"
// L2R-LABEL: func.func @matrix_chain
// L2R: einsum.contract "ab,bc->ca"
// L2R: einsum.contract "ca,cd->da"
// L2R: einsum.contract "da,de->ea"
// L2R: einsum.contract "ea,ef->fa"
// L2R: einsum.contract "fa,fg->ag"
func.func @matrix_chain(%a1: tensor<30x35xf64>, %a2: tensor<35x15xf64>, %a3: tensor<15x5xf64>, %a4: tensor<5x10xf64>, %a5: tensor<10x20xf64>, %a6: tensor<20x25xf64>) -> tensor<30x25xf64> {
  %0 = einsum.contract "ab,bc,cd,de,ef,fg->ag"(%a1, %a2, %a3, %a4, %a5, %a6) : tensor<30x35xf64>, tensor<35x15xf64>, tensor<15x5xf64>, tensor<5x10xf64>, tensor<10x20xf64>, tensor<20x25xf64>
  return %0 : tensor<30x25xf64>
}

// -----

// The seed's bilinear form.
// CHECK-LABEL: func.func @bilinear
// CHECK-SAME: (%[[L:.*]]: tensor<2x5xf32>, %[[A:.*]]: tensor<3x5x4xf32>, %[[R:.*]]: tensor<2x4xf32>)
// CHECK: %[[LA:.*]] = einsum.contract "bn,anm->mba"(%[[L]], %[[A]])
// CHECK: einsum.contract "bm,mba->ba"(%[[R]], %[[LA]])
// GREEDY-LABEL: func.func @bilinear
// GREEDY-COUNT-2: einsum.contract
// GREEDY-NOT: einsum.contract
func.func @bilinear(%l: tensor<2x5xf32>, %a: tensor<3x5x4xf32>, %r: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %0 = einsum.contract "bn,anm,bm->ba"(%l, %a, %r) : tensor<2x5xf32>, tensor<3x5x4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Diagonals and labels of a single operand are reduced first, on their own.
// GREEDY-LABEL: func.func @unary_steps_first
// CHECK-LABEL: func.func @unary_steps_first
// CHECK-SAME: (%[[A:.*]]: tensor<3x3x4xf32>, %[[B:.*]]: tensor<4x5xf32>, %[[C:.*]]: tensor<5x6xf32>, %[[D:.*]]: tensor<5xf32>)
// CHECK: %[[AD:.*]] = einsum.contract "iij->ji"(%[[A]]) : tensor<3x3x4xf32>
// CHECK: %[[CS:.*]] = einsum.contract "kx->k"(%[[C]]) : tensor<5x6xf32>
// CHECK: %[[CD:.*]] = einsum.contract "k,k->k"(%[[CS]], %[[D]])
// CHECK: %[[BCD:.*]] = einsum.contract "jk,k->j"(%[[B]], %[[CD]])
// CHECK: einsum.contract "ji,j->i"(%[[AD]], %[[BCD]])
func.func @unary_steps_first(%a: tensor<3x3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5x6xf32>, %d: tensor<5xf32>) -> tensor<3xf32> {
  %0 = einsum.contract "iij,jk,kx,k->i"(%a, %b, %c, %d) : tensor<3x3x4xf32>, tensor<4x5xf32>, tensor<5x6xf32>, tensor<5xf32>
  return %0 : tensor<3xf32>
}

// -----

// Ellipsis dims get letters of their own; broadcast ellipses stay broadcast.
// CHECK-LABEL: func.func @ellipsis
// CHECK: %[[AB:.*]] = einsum.contract "Aij,Ajk->kAi"
// CHECK: einsum.contract "kl,kAi->Ail"(%{{.*}}, %[[AB]]) : tensor<5x6xf32>, tensor<5x2x3xf32>
func.func @ellipsis(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<5x6xf32>) -> tensor<2x3x6xf32> {
  %0 = einsum.contract "...ij,...jk,...kl->...il"(%a, %b, %c) : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<5x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// -----

// Dynamic sizes are estimated (128 unless hinted); types stay dynamic.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[BC:.*]] = einsum.contract "jk,kl->jl"(%{{.*}}, %{{.*}}) : tensor<16x?xf32>, tensor<?x16xf32>
// CHECK: einsum.contract "ij,jl->il"(%{{.*}}, %[[BC]]) : tensor<?x16xf32>, tensor<16x16xf32>
func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<16x?xf32>, %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) : tensor<?x16xf32>, tensor<16x?xf32>, tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// One and two operands are left alone.
// CHECK-LABEL: func.func @small
// CHECK: einsum.contract "ij,jk->ik"
// CHECK: einsum.contract "ii->i"
func.func @small(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>) {
  %0 = einsum.contract "ij,jk->ik"(%a, %a) : tensor<3x3xf32>, tensor<3x3xf32>
  %1 = einsum.contract "ii->i"(%a) : tensor<3x3xf32>
  return %0, %1 : tensor<3x3xf32>, tensor<3xf32>
}

// -----

// f16 and bf16 are computed in f32 along the path, rounded once at the end.
// CHECK-LABEL: func.func @half_path
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf16>, %[[B:.*]]: tensor<4x5xf16>, %[[C:.*]]: tensor<5x2xf16>)
// CHECK-DAG: %[[WA:.*]] = arith.extf %[[A]] : tensor<3x4xf16> to tensor<3x4xf32>
// CHECK-DAG: %[[WB:.*]] = arith.extf %[[B]] : tensor<4x5xf16> to tensor<4x5xf32>
// CHECK-DAG: %[[WC:.*]] = arith.extf %[[C]] : tensor<5x2xf16> to tensor<5x2xf32>
// CHECK: einsum.contract
// CHECK-SAME: tensor<{{.*}}xf32>, tensor<{{.*}}xf32>
// CHECK: %[[R:.*]] = einsum.contract
// CHECK-SAME: tensor<{{.*}}xf32>, tensor<{{.*}}xf32>
// CHECK: %[[T:.*]] = arith.truncf %[[R]] : tensor<3x2xf32> to tensor<3x2xf16>
// CHECK: return %[[T]]
func.func @half_path(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>, %c: tensor<5x2xf16>) -> tensor<3x2xf16> {
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) : tensor<3x4xf16>, tensor<4x5xf16>, tensor<5x2xf16>
  return %0 : tensor<3x2xf16>
}
