// A matrix product of any sizes (module mode of einsum-run).
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<?x?xf32>, tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
