// RUN: einsum-opt %s -einsum-lower-shard-slices -canonicalize | FileCheck %s

// A rank's block of a tensor replicated over grid axis 1: its index along
// the axis times the block size is the offset; no communication.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[T:.*]]: tensor<16x16xf32>)
// CHECK-NOT: shard.all_slice
// CHECK: %[[INDEX:.*]] = shard.process_multi_index on @grid axes = [1] : index
// CHECK: %[[OFFSET:.*]] = arith.muli %[[INDEX]], %{{.*}} : index
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %[[T]][0, %[[OFFSET]]] [16, 8] [1, 1] : tensor<16x16xf32> to tensor<16x8xf32>
// CHECK: return %[[BLOCK]]
shard.grid @grid(shape = 2x2)
func.func @slice(%t: tensor<16x16xf32>) -> tensor<16x8xf32> {
  %0 = shard.all_slice %t on @grid grid_axes = [1] slice_axis = 1 : tensor<16x16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
