// GPU test input (test/gpu/test_clusters.py): a bf16 product with an f32
// result, x * W^T + b, dynamic M, K = 1024, N = 1000: wgmma_tma in 2-block
// clusters (cluster-m=2), and without as the control (the same sums, so
// bit-identical results; scripts/build-mma-artifacts.sh).
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<?x1024xbf16>, %w: tensor<1000x1024xbf16>,
                   %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b : tensor<1000xf32>) epilogue_maps [#row]
         : tensor<?x1024xbf16>, tensor<1000x1024xbf16> -> tensor<?x1000xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x1000xf32>
}
