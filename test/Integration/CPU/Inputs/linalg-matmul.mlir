// A matmul as a linalg frontend writes it: einsum-run raises it to an
// einsum (einsum-raise-linalg) and gives it the einsum schedule.
func.func @matmul(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x80xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<64x80xf32>) -> tensor<64x80xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%fill : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %c : tensor<64x80xf32>
}

// batch_matmul accumulating into its third argument.
func.func @batch_matmul_acc(%a: tensor<3x16x24xf64>, %b: tensor<3x24x8xf64>, %c: tensor<3x16x8xf64>) -> tensor<3x16x8xf64> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x16x24xf64>, tensor<3x24x8xf64>) outs(%c : tensor<3x16x8xf64>) -> tensor<3x16x8xf64>
  return %r : tensor<3x16x8xf64>
}
