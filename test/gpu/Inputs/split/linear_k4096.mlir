// GPU test input for the fp32 default's accuracy (test/gpu/test_split_tf32.py):
// the bare GEMM x * W^T with a dynamic M, N = 256 and K = 4096, so its error
// against float64 can be set beside cuBLAS SGEMM's on the same inputs.
func.func @forward(%x: tensor<?x4096xf32>, %w: tensor<256x4096xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x4096xf32>, tensor<256x4096xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}
