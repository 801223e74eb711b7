func.func @dynamicindex.min(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = einsum.contract "ij,hk->ij"(%a, %b) : tensor<?x?xf32>, tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
