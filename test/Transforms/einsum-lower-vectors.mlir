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
