// GPU test input for wgmma_tma with a bf16 result: x * W^T with dynamic M,
// N = 264, K = 200, and an epilogue reading a bf16 row vector and a bf16
// matrix: y = max(acc + b[n], 0) + r[m, n]. N is a multiple of 8: the
// results leave through shared memory and bulk copies of whole rows, the
// last column tile 8 columns wide.
func.func @forward(%x: tensor<?x200xbf16>, %w: tensor<264x200xbf16>, %b: tensor<264xbf16>,
                   %r: tensor<?x264xbf16>) -> tensor<?x264xbf16> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b, %r : tensor<264xbf16>, tensor<?x264xbf16>)
         epilogue_maps [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
         : tensor<?x200xbf16>, tensor<264x200xbf16> -> tensor<?x264xbf16> {
  ^bb0(%acc: bf16, %bi: bf16, %ri: bf16):
    %z = arith.constant 0.0 : bf16
    %a = arith.addf %acc, %bi : bf16
    %m = arith.maximumf %a, %z : bf16
    %o = arith.addf %m, %ri : bf16
    fuser.yield %o : bf16
  }
  return %y : tensor<?x264xbf16>
}
