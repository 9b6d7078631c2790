// GPU test input for split K (test/gpu/test_split_k.py): issue #17's large-K
// class, 256 x 256 x 131072, the bare x * W^T. 4 output tiles for 132 SMs:
// the configuration step splits K 33 ways.
func.func @forward(%x: tensor<256x131072xf32>, %w: tensor<256x131072xf32>) -> tensor<256x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<256x131072xf32>, tensor<256x131072xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<256x256xf32>
}
