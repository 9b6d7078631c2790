// GPU test input (test/gpu/test_matvec.py): matrix-vector products as
// torch-mlir writes them, through the whole pipeline: fuser-fuse-matmul
// leaves them to the reduction kernel (sums over K). M, N and K dynamic.
//   mv:         y = x @ v                  (v is K x 1)
//   linear_one: y = x @ w^T + b            (nn.Linear(K, 1): w is 1 x K)
//   vecmat:     y = u @ a                  (u is 1 x K)
#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mv(%x: tensor<?x?xf32>, %v: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %zf = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m) : tensor<?x1xf32>
  %f = linalg.fill ins(%zf : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = linalg.matmul ins(%x, %v : tensor<?x?xf32>, tensor<?x1xf32>) outs(%f : tensor<?x1xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

func.func @linear_one(%x: tensor<?x?xf32>, %w: tensor<1x?xf32>, %b: tensor<1xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zf = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %k = tensor.dim %w, %c1 : tensor<1x?xf32>
  %et = tensor.empty(%k) : tensor<?x1xf32>
  %wt = linalg.transpose ins(%w : tensor<1x?xf32>) outs(%et : tensor<?x1xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x1xf32>
  %f = linalg.fill ins(%zf : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x?xf32>, tensor<?x1xf32>) outs(%f : tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<?x1xf32>, tensor<1xf32>) outs(%e : tensor<?x1xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

func.func @vecmat(%u: tensor<1x?xf32>, %a: tensor<?x?xf32>) -> tensor<1x?xf32> {
  %c1 = arith.constant 1 : index
  %zf = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<1x?xf32>
  %f = linalg.fill ins(%zf : f32) outs(%e : tensor<1x?xf32>) -> tensor<1x?xf32>
  %y = linalg.matmul ins(%u, %a : tensor<1x?xf32>, tensor<?x?xf32>) outs(%f : tensor<1x?xf32>) -> tensor<1x?xf32>
  return %y : tensor<1x?xf32>
}
