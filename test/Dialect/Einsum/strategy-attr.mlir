// RUN: einsum-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Round trip.
// CHECK: einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [128, 256, 256], register = [8, 1, 32]>
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @ok(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) attrs = {einsum.strategy = #einsum.strategy<contract, order = [0, 2, 1], cache = [128, 256, 256], register = [8, 1, 32]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A staged strategy round-trips its `stage`; a `stage` of 0 is not printed.
// CHECK-LABEL: func.func private @staged()
// CHECK-SAME: #einsum.strategy<contract, order = [0, 1], cache = [1, 0], register = [1, 8], stage = 1>
// CHECK-LABEL: func.func private @unstaged()
// CHECK-SAME: #einsum.strategy<contract, order = [0, 1], cache = [1, 0], register = [1, 8]>}
func.func private @staged() attributes {s = #einsum.strategy<contract, order = [0, 1], cache = [1, 0], register = [1, 8], stage = 1>}
func.func private @unstaged() attributes {s = #einsum.strategy<contract, order = [0, 1], cache = [1, 0], register = [1, 8], stage = 0>}

// -----

// expected-error @+1 {{strategy 'stage' must be between 0 and the number of loops (2), got 3}}
func.func private @stage_range() attributes {s = #einsum.strategy<contract, order = [0, 1], cache = [0, 0], register = [1, 1], stage = 3>}

// -----

// expected-error @+1 {{strategy 'stage' applies only to 'contract' and 'elementwise'}}
func.func private @stage_kind() attributes {s = #einsum.strategy<reduce, order = [0, 1], cache = [0, 0], register = [1, 1], stage = 1>}

// -----

// expected-error @+1 {{'einsum.stream' must be a unit attribute of a linalg.copy}}
func.func private @stream_not_copy() attributes {einsum.stream}

// -----

// expected-error @+1 {{strategy lists 'order', 'cache' and 'register' must have one entry per loop, got 2, 1 and 2}}
func.func private @lengths() attributes {s = #einsum.strategy<loops, order = [0, 1], cache = [0], register = [1, 1]>}

// -----

// expected-error @+1 {{strategy 'order' must be a permutation of 0..1}}
func.func private @permutation() attributes {s = #einsum.strategy<loops, order = [1, 1], cache = [0, 0], register = [1, 1]>}

// -----

// expected-error @+1 {{strategy 'cache' tile of loop 1 is negative (-4)}}
func.func private @negative_cache() attributes {s = #einsum.strategy<loops, order = [0, 1], cache = [0, -4], register = [1, 1]>}

// -----

// expected-error @+1 {{strategy 'register' tile of loop 0 is negative (-1)}}
func.func private @negative_register() attributes {s = #einsum.strategy<loops, order = [0, 1], cache = [0, 0], register = [-1, 1]>}

// -----

// expected-error @+1 {{strategy 'register' tile of loop 1 (32) must divide its 'cache' tile (48)}}
func.func private @divide() attributes {s = #einsum.strategy<contract, order = [0, 1], cache = [8, 48], register = [8, 32]>}

// -----

// expected-error @+2 {{expected ::mlir::einsum::StrategyKind to be one of: loops, contract, reduce, elementwise}}
// expected-error @+1 {{failed to parse Einsum_StrategyAttr parameter 'kind' which is to be a `::mlir::einsum::StrategyKind`}}
func.func private @kind() attributes {s = #einsum.strategy<tiles, order = [0], cache = [0], register = [1]>}

// -----

// expected-error @+1 {{'einsum.strategy' can only be attached to a linalg op}}
func.func private @not_linalg() attributes {einsum.strategy = #einsum.strategy<loops, order = [0], cache = [0], register = [1]>}

// -----

// expected-error @+1 {{'einsum.strategy' must be an #einsum.strategy attribute}}
func.func private @not_strategy() attributes {einsum.strategy = 3 : i64}

// -----

// expected-error @+1 {{unknown einsum attribute 'einsum.schedule'}}
func.func private @unknown() attributes {einsum.schedule = 3 : i64}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @loop_count(%a: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'einsum.strategy' describes 3 loops but the op has 2}}
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) attrs = {einsum.strategy = #einsum.strategy<loops, order = [0, 1, 2], cache = [0, 0, 0], register = [1, 1, 1]>} {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
