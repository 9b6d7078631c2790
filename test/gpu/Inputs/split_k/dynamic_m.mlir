// GPU test input for split K (test/gpu/test_split_k.py), compiled with
// split-k=8 forced (a dynamic M is never split by the heuristic): x * W^T
// + b with N = 256, K = 8192 and a per-row scale. At M = 3000 there are
// 24 x 2 x 8 = 384 (tile, slice) pairs for 132 blocks, so blocks run
// several pairs and carry their k iterations from one to the next.
func.func @forward(%x: tensor<?x8192xf32>, %w: tensor<256x8192xf32>, %b: tensor<256xf32>, %s: tensor<?xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b, %s : tensor<256xf32>, tensor<?xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m)>] : tensor<?x8192xf32>, tensor<256x8192xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32, %bias: f32, %scale: f32):
    %t = arith.addf %acc, %bias : f32
    %u = arith.mulf %t, %scale : f32
    fuser.yield %u : f32
  }
  return %y : tensor<?x256xf32>
}
