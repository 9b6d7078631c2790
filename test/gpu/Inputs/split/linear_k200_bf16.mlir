// GPU test input for the NaN/Inf pattern of the bf16 GEMM kernels
// (test/gpu/test_edge_cases.py): x * W^T of bf16 operands with fp32 sums and
// result, a dynamic M, N = 256 and K = 200.
func.func @forward(%x: tensor<?x200xbf16>, %w: tensor<256x200xbf16>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x200xbf16>, tensor<256x200xbf16> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}
