// RUN: einsum-opt %s -split-input-file -einsum-fix-openmpi-abi | FileCheck %s

// The reduction op is renamed to OpenMPI's symbol; the communicator that
// MPI_Comm_split writes is loaded as a pointer-sized integer.
// CHECK-NOT: @ompi_mpi_sum
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_sum()
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_float()
// CHECK-LABEL: llvm.func @allreduce
// CHECK: %[[OP:.*]] = llvm.mlir.addressof @ompi_mpi_op_sum : !llvm.ptr
// CHECK: llvm.call @MPI_Comm_split(%{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT:[0-9]+]])
// CHECK-NEXT: %[[COMM:[0-9]+]] = llvm.load %[[SLOT]] : !llvm.ptr -> i64
// CHECK: %[[PTR:[0-9]+]] = llvm.inttoptr %[[COMM]] : i64 to !llvm.ptr
// CHECK-NEXT: llvm.call @MPI_Allreduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OP]], %[[PTR]])
llvm.mlir.global external @ompi_mpi_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
llvm.mlir.global external @ompi_mpi_float() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_datatype_t", opaque>
llvm.mlir.global external @ompi_mpi_comm_world() {addr_space = 0 : i32} : !llvm.struct<"ompi_communicator_t", opaque>
llvm.func @MPI_Comm_split(!llvm.ptr, i32, i32, !llvm.ptr) -> i32
llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
llvm.func @allreduce(%buffer: !llvm.ptr, %color: i32, %key: i32) {
  %one = llvm.mlir.constant(1 : i32) : i32
  %count = llvm.mlir.constant(64 : i32) : i32
  %in_place = llvm.mlir.constant(1 : i64) : i64
  %world = llvm.mlir.addressof @ompi_mpi_comm_world : !llvm.ptr
  %float = llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
  %sum = llvm.mlir.addressof @ompi_mpi_sum : !llvm.ptr
  %slot = llvm.alloca %one x !llvm.ptr : (i32) -> !llvm.ptr
  %0 = llvm.call @MPI_Comm_split(%world, %color, %key, %slot) : (!llvm.ptr, i32, i32, !llvm.ptr) -> i32
  %1 = llvm.load %slot : !llvm.ptr -> i32
  %2 = llvm.sext %1 : i32 to i64
  %3 = llvm.inttoptr %in_place : i64 to !llvm.ptr
  %4 = llvm.inttoptr %2 : i64 to !llvm.ptr
  %5 = llvm.call @MPI_Allreduce(%3, %buffer, %count, %float, %sum, %4) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
  llvm.return
}

// -----

// Declared both ways: the uses go to OpenMPI's name. Other i32 loads (not
// of a split's result) are left alone.
// CHECK-NOT: @ompi_mpi_max()
// CHECK: llvm.mlir.global external @ompi_mpi_op_max()
// CHECK-LABEL: llvm.func @both
// CHECK: llvm.mlir.addressof @ompi_mpi_op_max
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i32
llvm.mlir.global external @ompi_mpi_max() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
llvm.mlir.global external @ompi_mpi_op_max() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
llvm.func @both(%p: !llvm.ptr) -> i64 {
  %max = llvm.mlir.addressof @ompi_mpi_max : !llvm.ptr
  %0 = llvm.load %p : !llvm.ptr -> i32
  %1 = llvm.sext %0 : i32 to i64
  llvm.return %1 : i64
}
