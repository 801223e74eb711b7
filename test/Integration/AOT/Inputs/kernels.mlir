// Module kernels for aot.test: a chain of two einsums over a dynamic size,
// and a static trace.
func.func @chain(%a: tensor<?x4xf32>, %b: tensor<4x3xf32>,
                 %c: tensor<3x2xf32>) -> tensor<?x2xf32> {
  %ab = einsum.contract "ij,jk->ik"(%a, %b) : tensor<?x4xf32>, tensor<4x3xf32>
  %abc = einsum.contract "ik,kl->il"(%ab, %c) : tensor<?x3xf32>, tensor<3x2xf32>
  return %abc : tensor<?x2xf32>
}

func.func @trace(%a: tensor<5x5xf64>) -> tensor<f64> {
  %t = einsum.contract "ii->"(%a) : tensor<5x5xf64>
  return %t : tensor<f64>
}
