// RUN: einsum-opt %s -split-input-file --einsum-lower-vectors | FileCheck %s

// A register tile's contraction step: one broadcast and one 1-D FMA per row.
// CHECK-LABEL: func.func @contract(
// CHECK-SAME:      %[[A:.*]]: vector<4x1xf32>, %[[B:.*]]: vector<1x4xf32>, %[[ACC:.*]]: vector<4x4xf32>
// CHECK-NOT:     vector.contract
// CHECK-COUNT-4: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT:     vector.fma
// CHECK:         return
func.func @contract(%a: vector<4x1xf32>, %b: vector<1x4xf32>, %acc: vector<4x4xf32>) -> vector<4x4xf32> {
  %0 = vector.contract {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %acc : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
  return %0 : vector<4x4xf32>
}

// -----

// 1-D transfers of workgroup memory become loads and stores (which the NVVM
// conversion maps to the shared address space).
// CHECK-LABEL: func.func @transfers(
// CHECK-SAME:      %[[M:.*]]: memref<8x8xf32, #gpu.address_space<workgroup>>, %[[I:.*]]: index
// CHECK:         %[[V:.*]] = vector.load %[[M]][%[[I]], %[[I]]] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:         vector.store %[[V]], %[[M]][%[[I]], %[[I]]]
func.func @transfers(%m: memref<8x8xf32, #gpu.address_space<workgroup>>, %i: index) -> vector<4xf32> {
  %pad = ub.poison : f32
  %v = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true]} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  vector.transfer_write %v, %m[%i, %i] {in_bounds = [true]} : vector<4xf32>, memref<8x8xf32, #gpu.address_space<workgroup>>
  return %v : vector<4xf32>
}

// -----

// Multi-reductions: one horizontal reduction per row.
// CHECK-LABEL: func.func @reduce(
// CHECK-NOT:     vector.multi_reduction
// CHECK-COUNT-2: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
func.func @reduce(%v: vector<2x8xf32>, %acc: vector<2xf32>) -> vector<2xf32> {
  %0 = vector.multi_reduction <add>, %v, %acc [1] : vector<2x8xf32> to vector<2xf32>
  return %0 : vector<2xf32>
}

// -----

// A contraction whose only reduction has extent 1 and whose operands both
// hold the result's dimensions (`ij,ij->j`, a row at a time) is one
// elementwise FMA, not a dot product per lane.
// CHECK-LABEL: func.func @unit_reduction(
// CHECK-SAME:      %{{.*}}: vector<1x16xf32>, %{{.*}}: vector<1x16xf32>, %[[ACC:.*]]: vector<16xf32>
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.reduction
// CHECK:         %[[FMA:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[ACC]] : vector<16xf32>
// CHECK-NOT:     vector.reduction
// CHECK:         return %[[FMA]]
func.func @unit_reduction(%a: vector<1x16xf32>, %b: vector<1x16xf32>, %acc: vector<16xf32>) -> vector<16xf32> {
  %0 = vector.contract {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (n)>], iterator_types = ["reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %acc : vector<1x16xf32>, vector<1x16xf32> into vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// Integers: a multiply and an add; the unit reduction may sit anywhere in
// an operand.
// CHECK-LABEL: func.func @unit_reduction_i32(
// CHECK-SAME:      %[[ACC:[^:]*]]: vector<2x8xi32>)
// CHECK-NOT:     vector.reduction
// CHECK:         %[[MUL:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<2x8xi32>
// CHECK:         %[[ADD:.*]] = arith.addi %[[MUL]], %[[ACC]] : vector<2x8xi32>
// CHECK:         return %[[ADD]]
func.func @unit_reduction_i32(%a: vector<2x1x8xi32>, %b: vector<2x8x1xi32>, %acc: vector<2x8xi32>) -> vector<2x8xi32> {
  %0 = vector.contract {indexing_maps = [affine_map<(b, k, n) -> (b, k, n)>, affine_map<(b, k, n) -> (b, n, k)>, affine_map<(b, k, n) -> (b, n)>], iterator_types = ["parallel", "reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %acc : vector<2x1x8xi32>, vector<2x8x1xi32> into vector<2x8xi32>
  return %0 : vector<2x8xi32>
}

// -----

// A reduction of extent 2 is a real one: upstream's lowering keeps it
// (a reduction per lane).
// CHECK-LABEL: func.func @reduction_of_two(
// CHECK-COUNT-4: vector.reduction <add>
func.func @reduction_of_two(%a: vector<2x4xf32>, %b: vector<2x4xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %0 = vector.contract {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (n)>], iterator_types = ["reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %acc : vector<2x4xf32>, vector<2x4xf32> into vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

// An operand with the result's dimensions in another order is left to the
// outer-product lowering (a transpose, then an FMA per row).
// CHECK-LABEL: func.func @permuted_operand(
// CHECK:         vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:         vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT:     vector.fma
func.func @permuted_operand(%a: vector<1x4x2xf32>, %b: vector<1x2x4xf32>, %acc: vector<2x4xf32>) -> vector<2x4xf32> {
  %0 = vector.contract {indexing_maps = [affine_map<(k, m, n) -> (k, n, m)>, affine_map<(k, m, n) -> (k, m, n)>, affine_map<(k, m, n) -> (m, n)>], iterator_types = ["reduction", "parallel", "parallel"], kind = #vector.kind<add>} %a, %b, %acc : vector<1x4x2xf32>, vector<1x2x4xf32> into vector<2x4xf32>
  return %0 : vector<2x4xf32>
}

// -----

// An operand broadcast along the unit reduction only (b[k] of `ijk,k->jk`
// read as [1 x 16]) repeats nothing: still one FMA.
// CHECK-LABEL: func.func @unit_broadcast(
// CHECK-SAME:      %[[B:[^:]*]]: vector<16xf32>, %[[ACC:[^:]*]]: vector<16xf32>)
// CHECK-NOT:     vector.reduction
// CHECK:         vector.fma %{{.*}}, %[[B]], %[[ACC]] : vector<16xf32>
func.func @unit_broadcast(%a: vector<1x16xf32>, %b: vector<16xf32>, %acc: vector<16xf32>) -> vector<16xf32> {
  %bb = vector.broadcast %b : vector<16xf32> to vector<1x16xf32>
  %0 = vector.contract {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (n)>], iterator_types = ["reduction", "parallel"], kind = #vector.kind<add>} %a, %bb, %acc : vector<1x16xf32>, vector<1x16xf32> into vector<16xf32>
  return %0 : vector<16xf32>
}
