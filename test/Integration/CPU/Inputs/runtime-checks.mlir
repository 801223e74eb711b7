// Functions of dynamic shapes whose sizes are checked at run time.
func.func @dot(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = einsum.contract "i,i->i"(%a, %b) : tensor<?xf32>, tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @diag(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = einsum.contract "ii->i"(%a) : tensor<?x?xf32>
  return %r : tensor<?xf32>
}

func.func @against_static(%a: tensor<4x?xf64>, %b: tensor<?x3xf64>) -> tensor<4x3xf64> {
  %r = einsum.contract "ij,jk->ik"(%a, %b) : tensor<4x?xf64>, tensor<?x3xf64>
  return %r : tensor<4x3xf64>
}

func.func @ellipsis(%a: tensor<?x?x5xf32>, %b: tensor<?x5x2xf32>) -> tensor<?x?x2xf32> {
  %r = einsum.contract "...ij,...jk->...ik"(%a, %b) : tensor<?x?x5xf32>, tensor<?x5x2xf32>
  return %r : tensor<?x?x2xf32>
}

// An einsum of an intermediate result: checked where it runs.
func.func @intermediate(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = einsum.contract "ij->j"(%a) : tensor<?x?xf32>
  %r = einsum.contract "k,k->k"(%s, %b) : tensor<?xf32>, tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @outer(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = einsum.contract "i,j->ij"(%a, %b) : tensor<?xf32>, tensor<?xf32>
  return %r : tensor<?x?xf32>
}
