// GPU test input (test/gpu/test_bmm_tma.py): a batched bf16 product with an
// f32 result on wgmma_tma (bf16's default on sm_90a for K-major operands with
// a static K), batch, M and N dynamic: y[b] = x[b] @ w[b]^T + c[b, n].
func.func @bmm_nt(%x: tensor<?x?x1000xbf16>, %w: tensor<?x?x1000xbf16>,
                  %c: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%c : tensor<?x?xf32>)
         epilogue_maps [affine_map<(b, m, n) -> (b, n)>]
         : tensor<?x?x1000xbf16>, tensor<?x?x1000xbf16> -> tensor<?x?x?xf32> {
  ^bb0(%acc: f32, %ci: f32):
    %a = arith.addf %acc, %ci : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x?x?xf32>
}
