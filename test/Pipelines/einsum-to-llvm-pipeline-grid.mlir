// RUN: einsum-opt %s -einsum-to-linalg-pipeline='grid=2,2' | FileCheck %s --check-prefix=RANK
// RUN: einsum-opt %s -einsum-to-llvm-pipeline='grid=2,2' | FileCheck %s --check-prefix=LLVM

// The program of one rank of a 2x2 grid. A long sum over j split over both
// axes: the rank's 8x1024 and 1024x8 blocks in, a partial 8x8 product, one
// all-reduce over the whole grid.
// RANK-LABEL: func.func @long_sum
// RANK-SAME: (%[[A:.*]]: tensor<8x1024xf32>, %[[B:.*]]: tensor<1024x8xf32>) -> tensor<8x8xf32>
// RANK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8x1024xf32>, tensor<1024x8xf32>)
// RANK: %[[S:.*]] = shard.all_reduce %[[P]] on @einsum_grid grid_axes = [0, 1] : tensor<8x8xf32> -> tensor<8x8xf32>
// RANK: return %[[S]]
func.func @long_sum(%a: tensor<8x4096xf32>, %b: tensor<4096x8xf32>) -> tensor<8x8xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<8x4096xf32>, tensor<4096x8xf32>
  return %0 : tensor<8x8xf32>
}

// A three-operand chain along its path: (A B) over axis 1's split of j,
// all-reduced over axis 1; the rank's half of it (a slice, no
// communication) into the second product, all-reduced over axis 0; the
// rank's 8x16 block of the result out.
// RANK-LABEL: func.func @chain
// RANK-SAME: -> tensor<8x16xf32>
// RANK: %[[T:.*]] = linalg.generic
// RANK: %[[TS:.*]] = shard.all_reduce %[[T]] on @einsum_grid grid_axes = [1] : tensor<16x16xf32>
// RANK-NOT: shard.all_slice
// RANK: %[[H:.*]] = tensor.extract_slice %[[TS]][0, %{{.*}}] [16, 8] [1, 1] : tensor<16x16xf32> to tensor<16x8xf32>
// RANK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[H]] : tensor<16x16xf32>, tensor<16x8xf32>)
// RANK: %[[RS:.*]] = shard.all_reduce %[[R]] on @einsum_grid grid_axes = [0] : tensor<8x16xf32>
// RANK: return %[[RS]]
func.func @chain(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>, %c: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %0 = einsum.contract "ij,jk,kl->il"(%a, %b, %c) : tensor<16x64xf32>, tensor<64x32xf32>, tensor<32x16xf32>
  return %0 : tensor<16x16xf32>
}

// To the LLVM dialect: OpenMPI's MPI_Allreduce with its symbols
// (ompi_mpi_op_sum, not ompi_mpi_sum), the split communicator loaded as a
// pointer, no shard ops or grid left.
// LLVM-NOT: shard.
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_op_sum()
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_float()
// LLVM-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// LLVM-LABEL: llvm.func @long_sum
// LLVM: llvm.call @MPI_Comm_split(%{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT:[0-9]+]]) :
// LLVM-NEXT: %[[COMM:[0-9]+]] = llvm.load %[[SLOT]] : !llvm.ptr -> i64
// LLVM: %[[PTR:[0-9]+]] = llvm.inttoptr %[[COMM]] : i64 to !llvm.ptr
// LLVM: llvm.call @MPI_Allreduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PTR]])
// LLVM-LABEL: llvm.func @chain
// LLVM-COUNT-2: llvm.call @MPI_Allreduce
// LLVM-NOT: shard.
