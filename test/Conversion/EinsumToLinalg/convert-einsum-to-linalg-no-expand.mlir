// RUN: einsum-opt %s -convert-einsum-to-linalg=expand-dynamic-broadcasts=false | FileCheck %s

// Without expansion (the CUDA host code), a dynamic size 1 that would
// broadcast fails a run-time check; nothing is copied.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK: cf.assert {{.*}}label 'i' has a size at run time that differs
// CHECK: %[[NEEDED:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[OK:.*]] = arith.xori %[[NEEDED]], %{{.*}} : i1
// CHECK: cf.assert %[[OK]], "einsum: operand 0: label 'i' has size 1 at run time where its loop does not; this target does not expand a broadcast decided at run time (give the operand a static size 1)
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] :
func.func @dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = einsum.contract "i,i->i"(%a, %b) : tensor<?xf32>, tensor<?xf32>
  return %0 : tensor<?xf32>
}
