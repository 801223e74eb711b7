// RUN: einsum-opt %s -split-input-file -einsum-check-allocations | FileCheck %s

// A static allocation: the message gives its bytes.
// CHECK-LABEL: func.func @static
// CHECK: %[[M:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1024x1024xf32>
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ne, %[[P]], %[[C0]] : index
// CHECK-NEXT: cf.assert %[[OK]], "einsum: cannot allocate 4194304 bytes (memref<1024x1024xf32>)"
func.func @static() -> memref<1024x1024xf32> {
  %m = memref.alloc() {alignment = 64 : i64} : memref<1024x1024xf32>
  return %m : memref<1024x1024xf32>
}

// -----

// A dynamic one, and one inside a loop; empty buffers are not checked.
// CHECK-LABEL: func.func @dynamic
// CHECK: memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: cf.assert %{{.*}}, "einsum: cannot allocate a buffer (memref<?xf64>)"
// CHECK: scf.for
// CHECK:   memref.alloc() : memref<8xi32>
// CHECK:   cf.assert %{{.*}}, "einsum: cannot allocate 32 bytes (memref<8xi32>)"
// CHECK: memref.alloc() : memref<0x4xf32>
// CHECK-NOT: cf.assert
func.func @dynamic(%n: index) {
  %m = memref.alloc(%n) : memref<?xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<8xi32>
    memref.dealloc %t : memref<8xi32>
  }
  %e = memref.alloc() : memref<0x4xf32>
  memref.dealloc %e : memref<0x4xf32>
  memref.dealloc %m : memref<?xf64>
  return
}
