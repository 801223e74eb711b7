// A StableHLO einsum in generic form.
func.func @main(%a: tensor<5x6xf32>, %b: tensor<6x7xf32>) -> tensor<7x5xf32> {
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ca"} : (tensor<5x6xf32>, tensor<6x7xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

