// RUN: einsum-opt %s -split-input-file -einsum-lower-runtime-checks | FileCheck %s

// An assertion at the function's level: a branch to a block that reports the
// message and returns poison.
// CHECK: llvm.mlir.global internal constant @[[$MSG:.*]]("einsum: sizes\00")
// CHECK: llvm.func @einsum_runtime_error(!llvm.ptr)
// CHECK-LABEL: func.func @check
// CHECK-SAME: (%[[OK:.*]]: i1, %[[M:.*]]: memref<4xf32>)
// CHECK: cf.cond_br %[[OK]], ^[[CONT:.*]], ^[[FAIL:.*]]
// CHECK: ^[[FAIL]]:
// CHECK:   %[[ADDR:.*]] = llvm.mlir.addressof @[[$MSG]] : !llvm.ptr
// CHECK:   %[[TEXT:.*]] = llvm.getelementptr %[[ADDR]]
// CHECK:   llvm.call @einsum_runtime_error(%[[TEXT]]) : (!llvm.ptr) -> ()
// CHECK:   %[[POISON:.*]] = ub.poison : memref<4xf32>
// CHECK:   return %[[POISON]] : memref<4xf32>
// CHECK: ^[[CONT]]:
// CHECK:   return %[[M]] : memref<4xf32>
func.func @check(%ok: i1, %m: memref<4xf32>) -> memref<4xf32> {
  cf.assert %ok, "einsum: sizes"
  return %m : memref<4xf32>
}

// -----

// One global per distinct message; a void function just returns. An
// assertion inside another op's region (an OpenMP loop) stays for
// convert-cf-to-llvm.
// CHECK-COUNT-2: llvm.mlir.global internal constant
// CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: func.func @void
// CHECK: cf.cond_br
// CHECK: llvm.call @einsum_runtime_error
// CHECK-NEXT: return
// CHECK: cf.cond_br
// CHECK: cf.cond_br
// CHECK: scf.execute_region
// CHECK-NEXT: cf.assert %{{.*}}, "inner"
func.func @void(%a: i1, %b: i1) {
  cf.assert %a, "first"
  cf.assert %b, "second"
  cf.assert %a, "first"
  scf.execute_region {
    cf.assert %b, "inner"
    scf.yield
  }
  return
}
