// GPU test input for split K (test/gpu/test_split_k.py): sizes that are not
// tile multiples (200 x 328, 2 x 3 tiles of 128 x 128; K = 70004, a partial
// last K tile and a shorter last slice) and an epilogue, tanh(x * W^T + b),
// which the reduction kernel applies. K is a multiple of 4: TMA rows are
// 16-byte multiples (K = 70001 would take the fp64 tensor-core kernel).
func.func @forward(%x: tensor<200x70004xf32>, %w: tensor<328x70004xf32>, %b: tensor<328xf32>) -> tensor<200x328xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<328xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] : tensor<200x70004xf32>, tensor<328x70004xf32> -> tensor<200x328xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    %t = math.tanh %s : f32
    fuser.yield %t : f32
  }
  return %y : tensor<200x328xf32>
}
