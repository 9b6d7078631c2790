// GPU test input: a group norm written directly, on N x 64 x 32 x 32
// (dynamic N) with 4 groups of 16384 elements (512 threads per group, 4-wide
// accesses, a cross-warp merge), and an epilogue reading a per-sample scale
// s[n] and a per-channel shift t[c]: y = group_norm(x) * s[n] + t[c].
#col = affine_map<(d0, d1, d2, d3) -> (d0)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @forward(%x: tensor<?x64x32x32xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>,
                   %s: tensor<?xf32>, %t: tensor<64xf32>) -> tensor<?x64x32x32xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 4 eps = 1.0e-05
         epilogue_inputs(%s, %t : tensor<?xf32>, tensor<64xf32>) epilogue_maps [#col, #ch]
         : tensor<?x64x32x32xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64x32x32xf32> {
  ^bb0(%v: f32, %sv: f32, %tv: f32):
    %m = arith.mulf %v, %sv : f32
    %a = arith.addf %m, %tv : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x64x32x32xf32>
}
