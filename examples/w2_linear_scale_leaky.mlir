// W2: y = F.leaky_relu(nn.Linear(8192, 8192)(x) * 2.0, 0.1) on x: 1024 x 8192,
// as torch-mlir lowers it to linalg on tensors. nn.Linear stores W as
// (out_features, in_features), so the product is x . W^T: torch-mlir
// materializes transpose(W), multiplies into a zero fill, and adds the bias
// through a broadcast map. fuser-fuse-matmul turns the whole function into
// one fuser.matmul with transpose_b and a bias / scale / LeakyReLU epilogue.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<1024x8192xf32>, %w: tensor<8192x8192xf32>,
                   %b: tensor<8192xf32>) -> tensor<1024x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %slope = arith.constant 0.1 : f32
  %et = tensor.empty() : tensor<8192x8192xf32>
  %wt = linalg.transpose ins(%w : tensor<8192x8192xf32>)
                         outs(%et : tensor<8192x8192xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1024x8192xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<1024x8192xf32>, tensor<8192x8192xf32>)
                      outs(%acc : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %lin = linalg.generic {indexing_maps = [#id, #row, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<1024x8192xf32>, tensor<8192xf32>) outs(%e : tensor<1024x8192xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1024x8192xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%lin : tensor<1024x8192xf32>) outs(%e : tensor<1024x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  } -> tensor<1024x8192xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%scaled : tensor<1024x8192xf32>) outs(%e : tensor<1024x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<1024x8192xf32>
  return %y : tensor<1024x8192xf32>
}
