// torch.einsum('bij,bjk->bik', x, y) as torch-mlir prints it in generic form.
func.func @forward(%arg0: !torch.vtensor<[2,8,16],f32>, %arg1: !torch.vtensor<[2,16,4],f32>) -> !torch.vtensor<[2,8,4],f32> {
  %0 = "torch.constant.str"() <{value = "bij,bjk->bik"}> : () -> !torch.str
  %1 = "torch.prim.ListConstruct"(%arg0, %arg1) : (!torch.vtensor<[2,8,16],f32>, !torch.vtensor<[2,16,4],f32>) -> !torch.list<vtensor>
  %2 = "torch.constant.none"() : () -> !torch.none
  %3 = "torch.aten.einsum"(%0, %1, %2) : (!torch.str, !torch.list<vtensor>, !torch.none) -> !torch.vtensor<[2,8,4],f32>
  return %3 : !torch.vtensor<[2,8,4],f32>
}
