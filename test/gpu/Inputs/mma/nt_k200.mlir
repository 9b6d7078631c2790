// GPU test input for the TMA-fed wgmma kernel (wgmma_tma): f32 x * W^T
// with a static K = 200 (rows 16-byte multiples apart, not a multiple of
// BK, so the last k tile reads zeros past K), dynamic M and N, and an
// epilogue reading a row vector, column vector, full tensor and scalar:
//   y = max(acc + b[n], 0) * s[m] + r[m, n] * k
func.func @forward(%x: tensor<?x200xf32>, %w: tensor<?x200xf32>, %b: tensor<?xf32>,
                   %s: tensor<?xf32>, %r: tensor<?x?xf32>, %k: tensor<f32>) -> tensor<?x?xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b, %s, %r, %k : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<f32>)
         epilogue_maps [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m)>,
                        affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> ()>]
         : tensor<?x200xf32>, tensor<?x200xf32> -> tensor<?x?xf32> {
  ^bb0(%acc: f32, %bi: f32, %si: f32, %ri: f32, %ki: f32):
    %z = arith.constant 0.0 : f32
    %a = arith.addf %acc, %bi : f32
    %m = arith.maximumf %a, %z : f32
    %ms = arith.mulf %m, %si : f32
    %rk = arith.mulf %ri, %ki : f32
    %o = arith.addf %ms, %rk : f32
    fuser.yield %o : f32
  }
  return %y : tensor<?x?xf32>
}
