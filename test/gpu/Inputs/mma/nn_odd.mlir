// GPU test input for the tensor-core kernel (compiled once per precision,
// tf32 and 3xtf32): a plain x * B (B is K x N) with dynamic sizes and a
// transposed (n, m) epilogue read:  y = acc - t[n, m]
func.func @forward(%x: tensor<?x?xf32>, %bm: tensor<?x?xf32>, %t: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = fuser.matmul %x, %bm epilogue_inputs(%t : tensor<?x?xf32>)
         epilogue_maps [affine_map<(m, n) -> (n, m)>]
         : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%acc: f32, %ti: f32):
    %o = arith.subf %acc, %ti : f32
    fuser.yield %o : f32
  }
  return %y : tensor<?x?xf32>
}
