// Adjacent output loops of dynamic size: the schedule keeps them apart
// (a collapsed pair came back as a memref.expand_shape that MLIR 22's
// expand-strided-metadata crashed on).
func.func @outer_sum(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = einsum.contract "ij,hk->ij"(%a, %b) : tensor<?x?xf32>, tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @batched(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = einsum.contract "bij,bjk->bik"(%a, %b) : tensor<?x?x?xf32>, tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
