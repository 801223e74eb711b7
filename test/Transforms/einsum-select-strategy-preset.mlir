// RUN: einsum-opt %s -einsum-select-strategy=vector-bits=512 | FileCheck %s

// A strategy written by hand is kept.
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @preset
// CHECK: einsum.strategy = #einsum.strategy<loops, order = [0, 1, 2], cache = [0, 0, 0], register = [0, 0, 0]>
func.func @preset(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) attrs = {einsum.strategy = #einsum.strategy<loops, order = [0, 1, 2], cache = [0, 0, 0], register = [0, 0, 0]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
