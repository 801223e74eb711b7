// RUN: einsum-opt %s -einsum-to-llvm-pipeline="vectorize=false" | FileCheck %s
// RUN: einsum-opt %s -einsum-to-llvm-pipeline="vector-bits=512" | FileCheck %s --check-prefix=VEC
// RUN: einsum-opt %s -einsum-to-linalg-pipeline | FileCheck %s --check-prefix=LINALG
// RUN: einsum-opt %s -einsum-to-linalg-pipeline -einsum-bufferize-pipeline | FileCheck %s --check-prefix=BUFFER
// RUN: einsum-opt %s -einsum-to-linalg-pipeline -einsum-bufferize-pipeline \
// RUN:   -einsum-lower-to-llvm-pipeline="expand-bf16=false" | FileCheck %s
// RUN: einsum-opt %s -einsum-to-linalg-pipeline -einsum-parallelize="num-threads=2 min-iterations=0" -einsum-bufferize-pipeline -einsum-lower-to-llvm-pipeline="num-threads=2" | FileCheck %s --check-prefix=OMP

// With threads, the kernel is an OpenMP parallel loop over two chunks.
// OMP-LABEL: llvm.func @kernel
// OMP: omp.parallel num_threads(%{{.*}} : i32)
// OMP: omp.wsloop
// OMP: llvm.fmul
// OMP: omp.yield

// The engine's in-place calling convention: operands and result as memrefs.
// After the whole pipeline only the LLVM dialect is left, and the result is
// computed straight into the destination (no allocation, no copy).

// With a vector schedule (einsum-select-strategy, einsum-vectorize): a 4x16
// accumulator (four vector<16xf32>) starts as zeros (the output's fill,
// fused into the register tile: the output is never read), is carried
// through the reduction loop as an LLVM array, updated with broadcasts and
// FMAs, and stored once.
// VEC-LABEL: llvm.func @kernel
// VEC-NOT: llvm.call @malloc
// VEC: %[[ZERO:.*]] = llvm.mlir.constant(dense<0.000000e+00> : vector<4x16xf32>) : !llvm.array<4 x vector<16xf32>>
// VEC: llvm.br ^[[LOOP:.*]](%{{.*}}, %[[ZERO]] : i64, !llvm.array<4 x vector<16xf32>>)
// VEC: ^[[LOOP]](%{{.*}}: i64, %{{.*}}: !llvm.array<4 x vector<16xf32>>)
// VEC: llvm.shufflevector
// VEC: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// VEC-COUNT-4: llvm.store %{{.*}} : vector<16xf32>, !llvm.ptr
// VEC-NOT: llvm.store
// VEC: llvm.return

// LINALG-LABEL: func.func @kernel
// LINALG-NOT: einsum.contract
// LINALG: linalg.fill
// LINALG: linalg.generic

// BUFFER-LABEL: func.func @kernel
// BUFFER-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// BUFFER-NOT: memref.alloc
// BUFFER-NOT: memref.copy
// BUFFER: linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<4x16xf32>)
// BUFFER: linalg.generic
// BUFFER-SAME: ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<8x16xf32>) outs(%[[C]] : memref<4x16xf32>)
// BUFFER-NOT: memref.alloc
// BUFFER-NOT: memref.copy
// BUFFER: return

// CHECK-LABEL: llvm.func @kernel
// CHECK-NOT: einsum.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.fmul
// CHECK: llvm.fadd
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_kernel
func.func @kernel(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) attributes {llvm.emit_c_interface} {
  %ta = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
  %tb = bufferization.to_tensor %b restrict : memref<8x16xf32> to tensor<8x16xf32>
  %r = einsum.contract "ij,jk->ik"(%ta, %tb) : tensor<4x8xf32>, tensor<8x16xf32>
  bufferization.materialize_in_destination %r in restrict writable %c : (tensor<4x16xf32>, memref<4x16xf32>) -> ()
  return
}
