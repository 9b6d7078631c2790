// W1: F.leaky_relu(x, 0.01) on a 4096 x 393216 fp32 tensor (6.4 GB; byte
// offsets exceed 2^32), as torch-mlir lowers it to linalg on tensors.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<4096x393216xf32>) -> tensor<4096x393216xf32> {
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.01 : f32
  %init = tensor.empty() : tensor<4096x393216xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4096x393216xf32>) outs(%init : tensor<4096x393216xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<4096x393216xf32>
  return %y : tensor<4096x393216xf32>
}
