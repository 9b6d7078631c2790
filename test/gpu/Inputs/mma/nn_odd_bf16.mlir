// GPU test input for the bf16 tensor-core kernel: a plain bf16 x * B (B is
// K x N) with a bf16 result, dynamic sizes and a transposed (n, m) bf16
// epilogue read:  y = acc - t[n, m]
func.func @forward(%x: tensor<?x?xbf16>, %bm: tensor<?x?xbf16>, %t: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %y = fuser.matmul %x, %bm epilogue_inputs(%t : tensor<?x?xbf16>)
         epilogue_maps [affine_map<(m, n) -> (n, m)>]
         : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xbf16> {
  ^bb0(%acc: bf16, %ti: bf16):
    %o = arith.subf %acc, %ti : bf16
    fuser.yield %o : bf16
  }
  return %y : tensor<?x?xbf16>
}
