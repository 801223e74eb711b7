// RUN: einsum-opt %s -einsum-lower-math -split-input-file | FileCheck %s
// RUN: einsum-opt %s -einsum-lower-math=expand-bf16=false -split-input-file | FileCheck %s --check-prefix=NOBF16

// f32 exp and log, vectors and scalars: polynomials (fma chains) and bit
// manipulation that stay vectors, no math.exp/math.log left for the LLVM
// conversion (which makes a vector exp one libm call per lane).
// CHECK-LABEL: func.func @exp_log
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: math.fma {{.*}} : f32
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: return
func.func @exp_log(%a: vector<16xf32>, %b: f32) -> (vector<16xf32>, f32) {
  %0 = math.exp %a : vector<16xf32>
  %1 = math.log %b : f32
  return %0, %1 : vector<16xf32>, f32
}

// -----

// f64 exp (no approximation upstream), other functions, and maximumf (one
// vmaxps with nnan; arith-expand would make it a compare-and-select chain)
// are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: math.exp %{{.*}} : vector<16xf64>
// CHECK: math.tanh %{{.*}} : vector<16xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<nnan,nsz> : vector<16xf32>
// CHECK-NOT: arith.cmpf
func.func @left_alone(%a: vector<16xf64>, %b: vector<16xf32>, %c: vector<16xf32>) -> (vector<16xf64>, vector<16xf32>, vector<16xf32>) {
  %0 = math.exp %a : vector<16xf64>
  %1 = math.tanh %b : vector<16xf32>
  %2 = arith.maximumf %b, %c fastmath<nnan,nsz> : vector<16xf32>
  return %0, %1, %2 : vector<16xf64>, vector<16xf32>, vector<16xf32>
}

// -----

// bf16 conversions become integer arithmetic (unless expand-bf16=false);
// ceil/floor divisions become divisions and selects.
// CHECK-LABEL: func.func @bf16_and_divisions
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : bf16 to i16
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i16 to i32
// CHECK: %[[SHIFTED:.*]] = arith.shli %[[WIDE]]
// CHECK: arith.bitcast %[[SHIFTED]] : i32 to f32
// CHECK-NOT: arith.ceildivsi
// CHECK: arith.divsi
// CHECK-NOT: arith.ceildivsi
// NOBF16-LABEL: func.func @bf16_and_divisions
// NOBF16: arith.extf %{{.*}} : bf16 to f32
// NOBF16-NOT: arith.ceildivsi
func.func @bf16_and_divisions(%a: bf16, %i: i32, %j: i32) -> (f32, i32) {
  %0 = arith.extf %a : bf16 to f32
  %1 = arith.ceildivsi %i, %j : i32
  return %0, %1 : f32, i32
}
