// RUN: einsum-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(einsum-gpu-map))' -verify-diagnostics

func.func @unmapped_loop(%a: memref<8xf32>) {
  %cst = arith.constant 1.0 : f32
  // expected-error @+1 {{einsum-gpu-map: a loop without a GPU block mapping on the host}}
  scf.forall (%i) in (8) {
    memref.store %cst, %a[%i] : memref<8xf32>
  }
  return
}

// -----

func.func @host_store(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  // expected-error @+1 {{einsum-gpu-map: 'memref.store' cannot run on the host: its buffers live in GPU memory}}
  memref.store %cst, %a[%c0] : memref<8xf32>
  return
}

// -----

func.func @dynamic_workgroup_buffer(%a: memref<8xf32>, %n: index) {
  scf.forall (%i) in (8) {
    // expected-error @+1 {{einsum-gpu-map: workgroup buffers need a static shape}}
    %s = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

func.func @dynamic_thread_count(%a: memref<8xf32>, %n: index) {
  %cst = arith.constant 1.0 : f32
  scf.forall (%i) in (8) {
    // expected-error @+1 {{einsum-gpu-map: a thread loop needs a static number of threads}}
    scf.forall (%t) in (%n) {
      memref.store %cst, %a[%i] : memref<8xf32>
    } {mapping = [#gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

func.func @too_many_threads(%a: memref<8xf32>) {
  %cst = arith.constant 1.0 : f32
  // expected-error @+1 {{einsum-gpu-map: 2048 threads in one block; a GPU block has at most 1024}}
  scf.forall (%i) in (8) {
    scf.forall (%t) in (2048) {
      memref.store %cst, %a[%i] : memref<8xf32>
    } {mapping = [#gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// expected-error @+1 {{einsum-gpu-map: the host function must be a single block}}
func.func @branches(%a: memref<8xf32>, %c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}

// -----

func.func @too_much_shared_memory(%a: memref<8xf32>) {
  // expected-error @+1 {{einsum-gpu-map: 65536 bytes of workgroup memory in one block; statically allocated shared memory is at most 49152 bytes}}
  scf.forall (%i) in (8) {
    %s = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
