// One LayerNorm-like group of 96 channels: too wide for the GEMM epilogue,
// so the plan is two kernels (the GEMM, then a group-norm kernel).
// Linear(33 -> 96) with a dynamic batch, then GroupNorm(1 groups of 96
// channels, eps 1e-5) as torch-mlir decomposes it, LeakyReLU(0.01), x + x.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @forward(%x: tensor<?x33xf32>, %w: tensor<96x33xf32>, %b: tensor<96xf32>,
                   %gamma: tensor<96xf32>, %beta: tensor<96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.010416666666666666 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  %m = tensor.dim %x, %c0 : tensor<?x33xf32>
  %et = tensor.empty() : tensor<33x96xf32>
  %wt = linalg.transpose ins(%w : tensor<96x33xf32>) outs(%et : tensor<33x96xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x33xf32>, tensor<33x96xf32>)
                      outs(%acc : tensor<?x96xf32>) -> tensor<?x96xf32>
  %lin = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x96xf32>, tensor<96xf32>) outs(%e : tensor<?x96xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<?x96xf32>
  %g = tensor.expand_shape %lin [[0], [1, 2]] output_shape [%m, 1, 96]
      : tensor<?x96xf32> into tensor<?x1x96xf32>
  %es = tensor.empty(%m) : tensor<?x1xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x1xf32>) -> tensor<?x1xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<?x1x96xf32>) outs(%zs : tensor<?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x1xf32>) outs(%es : tensor<?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %inv : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<?x1x96xf32>, tensor<?x1xf32>) outs(%zs : tensor<?x1xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<?x1xf32>) outs(%es : tensor<?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  %eg = tensor.empty(%m) : tensor<?x1x96xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<?x1x96xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
      outs(%eg : tensor<?x1x96xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %n = arith.mulf %d, %rs : f32
    linalg.yield %n : f32
  } -> tensor<?x1x96xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<?x1x96xf32> into tensor<?x96xf32>
  %affine = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<?x96xf32>, tensor<96xf32>, tensor<96xf32>)
      outs(%e : tensor<?x96xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m1 = arith.mulf %in, %ga : f32
    %a = arith.addf %m1, %be : f32
    linalg.yield %a : f32
  } -> tensor<?x96xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%affine : tensor<?x96xf32>) outs(%e : tensor<?x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<?x96xf32>
  %y = linalg.add ins(%act, %act : tensor<?x96xf32>, tensor<?x96xf32>)
                  outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}
