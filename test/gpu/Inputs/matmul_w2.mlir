// GPU test input: W2 as a fuser.matmul group, with dynamic M (the batch) and
// the configuration fuser-configure-kernels chooses:
// leaky_relu((x * W^T + b) * 2.0, 0.1), W stored (out, in) like nn.Linear.
func.func @forward(%x: tensor<?x8192xf32>, %w: tensor<8192x8192xf32>, %b: tensor<8192xf32>) -> tensor<?x8192xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<8192xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>]
         : tensor<?x8192xf32>, tensor<8192x8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    %two = arith.constant 2.0 : f32
    %d = arith.mulf %s, %two : f32
    %z = arith.constant 0.0 : f32
    %sl = arith.constant 0.1 : f32
    %p = arith.cmpf ugt, %d, %z : f32
    %ng = arith.mulf %d, %sl : f32
    %r = arith.select %p, %d, %ng : f32
    fuser.yield %r : f32
  }
  return %y : tensor<?x8192xf32>
}
