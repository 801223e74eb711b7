func.func @bmm(%a: tensor<?x2x3xf32>, %b: tensor<?x3x2xf32>) -> tensor<?x2x2xf32> {
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<?x2x3xf32>, tensor<?x3x2xf32>
  return %0 : tensor<?x2x2xf32>
}
func.func @chain(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %c: tensor<4x2xf64>) -> tensor<2x2xf64> {
  %0 = einsum.contract "ij,jk->ik"(%a, %b) : tensor<2x3xf64>, tensor<3x4xf64>
  %1 = einsum.contract "ik,kl->il"(%0, %c) : tensor<2x4xf64>, tensor<4x2xf64>
  return %1 : tensor<2x2xf64>
}
func.func @ident(%a: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %0 = einsum.contract "ij->ij"(%a) : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
