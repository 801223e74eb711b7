// RUN: einsum-opt %s -einsum-to-llvm-pipeline | FileCheck %s

// Heap buffers (a path's intermediate, a packed operand, the returned
// result) go through _mlir_memref_to_llvm_alloc/_free, which the engine
// binds to its workspace; the temporaries are freed before the return, the
// result is not.
// CHECK-LABEL: llvm.func @path(
// CHECK:         %[[PACKED:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         %[[STEP:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         %[[RESULT:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK-NOT:     llvm.call @malloc
// CHECK-DAG:     llvm.call @_mlir_memref_to_llvm_free(%[[PACKED]])
// CHECK-DAG:     llvm.call @_mlir_memref_to_llvm_free(%[[STEP]])
// CHECK-NOT:     llvm.call @_mlir_memref_to_llvm_free(%[[RESULT]])
// CHECK:         llvm.return
func.func @path(%a: tensor<16x128xf32>, %b: tensor<128x128x128xf32>, %c: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %r = einsum.contract "bn,anm,bm->ba"(%a, %b, %c) : tensor<16x128xf32>, tensor<128x128x128xf32>, tensor<16x128xf32>
  return %r : tensor<16x128xf32>
}
