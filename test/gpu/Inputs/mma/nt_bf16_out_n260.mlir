// GPU test input for wgmma_tma with a bf16 result: x * W^T with dynamic M,
// N = 260, K = 200, and an epilogue reading a bf16 row vector and a bf16
// matrix: y = max(acc + b[n], 0) + r[m, n]. N is not a multiple of 8: a row's
// bytes are no multiple of 16, so the results are stored from registers.
func.func @forward(%x: tensor<?x200xbf16>, %w: tensor<260x200xbf16>, %b: tensor<260xbf16>,
                   %r: tensor<?x260xbf16>) -> tensor<?x260xbf16> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b, %r : tensor<260xbf16>, tensor<?x260xbf16>)
         epilogue_maps [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
         : tensor<?x200xbf16>, tensor<260x200xbf16> -> tensor<?x260xbf16> {
  ^bb0(%acc: bf16, %bi: bf16, %ri: bf16):
    %z = arith.constant 0.0 : bf16
    %a = arith.addf %acc, %bi : bf16
    %m = arith.maximumf %a, %z : bf16
    %o = arith.addf %m, %ri : bf16
    fuser.yield %o : bf16
  }
  return %y : tensor<?x260xbf16>
}
