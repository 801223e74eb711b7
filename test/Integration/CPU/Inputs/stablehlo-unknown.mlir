// An op of another dialect that einsum-mlir does not import.
func.func @main(%a: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %0 = "stablehlo.abs"(%a) : (tensor<5x6xf32>) -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}
