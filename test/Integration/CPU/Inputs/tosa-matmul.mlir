// TOSA's batched float matmul in generic form, with its zero points.
func.func @main(%a: tensor<2x6x5xf32>, %b: tensor<2x5x7xf32>) -> tensor<2x6x7xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = "tosa.matmul"(%a, %b, %zp, %zp) : (tensor<2x6x5xf32>, tensor<2x5x7xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x6x7xf32>
  return %0 : tensor<2x6x7xf32>
}
