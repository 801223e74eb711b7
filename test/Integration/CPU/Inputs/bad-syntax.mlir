func.func @f() {
  %0 = einsum.contract "ij"() :
}
