// GPU test and benchmark input: nn.GroupNorm(32, 512) on N x 512 x 64 x 64 (dynamic N),
// written directly as fuser.group_norm.
func.func @forward(%x: tensor<?x512x64x64xf32>, %gamma: tensor<512xf32>, %beta: tensor<512xf32>) -> tensor<?x512x64x64xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 32 eps = 1.0e-05 epilogue_maps []
         : tensor<?x512x64x64xf32>, tensor<512xf32>, tensor<512xf32> -> tensor<?x512x64x64xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x512x64x64xf32>
}
