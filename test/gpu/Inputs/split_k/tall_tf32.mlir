// GPU test input for split K with bands (test/gpu/test_split_k.py), in
// tf32: 2200 x 300 x 16384, the bare x * W^T. 18 M tiles by 2 N tiles (the
// second mostly past N) are 36 tiles for 132 SMs: K split 3 ways, and the
// blocks walk the (tile, slice) pairs in bands of 8 M tiles (8, 8, 2).
func.func @forward(%x: tensor<2200x16384xf32>, %w: tensor<300x16384xf32>) -> tensor<2200x300xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<2200x16384xf32>, tensor<300x16384xf32> -> tensor<2200x300xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<2200x300xf32>
}
