// Input of grad.test.
func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf32>, tensor<3x2xf32>
  return %0 : tensor<2x2xf32>
}
