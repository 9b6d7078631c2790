// GPU test input for the fp32 default's epilogue (test/gpu/test_split_tf32.py):
// x * W^T with a dynamic M, N = 132 and K = 200. Rows of 132 f32 are 528
// bytes, whole 16-byte chunks: the results leave through shared memory and
// bulk copies of rows, the last column tile 4 wide.
func.func @forward(%x: tensor<?x200xf32>, %w: tensor<132x200xf32>) -> tensor<?x132xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x200xf32>, tensor<132x200xf32> -> tensor<?x132xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x132xf32>
}
