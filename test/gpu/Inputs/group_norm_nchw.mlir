// GPU test input: GroupNorm(3, 6, eps=1e-5) on N x 6 x 5 x 7 (dynamic N) as
// torch-mlir decomposes it, viewing the input as (N, G, C/G, H, W), then
// LeakyReLU(0.01) and a residual add. A group holds 70 elements: no
// multiple of 4, so the kernel uses 2-wide accesses.
//   y = leaky_relu(group_norm(x) * gamma[c] + beta[c], 0.01) + r
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#red5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @forward(%x: tensor<?x6x5x7xf32>, %gamma: tensor<6xf32>, %beta: tensor<6xf32>,
                   %r: tensor<?x6x5x7xf32>) -> tensor<?x6x5x7xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6x5x7xf32>
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 70.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  %g = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [%n, 3, 2, 5, 7]
      : tensor<?x6x5x7xf32> into tensor<?x3x2x5x7xf32>
  %es = tensor.empty(%n) : tensor<?x3xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x3xf32>) -> tensor<?x3xf32>
  %sum = linalg.generic {indexing_maps = [#id5, #red5],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%g : tensor<?x3x2x5x7xf32>) outs(%zs : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x3xf32>) outs(%es : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  } -> tensor<?x3xf32>
  %sq = linalg.generic {indexing_maps = [#id5, #red5, #red5],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%g, %mean : tensor<?x3x2x5x7xf32>, tensor<?x3xf32>) outs(%zs : tensor<?x3xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  %rstd = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<?x3xf32>) outs(%es : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.divf %in, %count : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    linalg.yield %rs : f32
  } -> tensor<?x3xf32>
  %eg = tensor.empty(%n) : tensor<?x3x2x5x7xf32>
  %norm = linalg.generic {indexing_maps = [#id5, #red5, #red5, #id5],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<?x3x2x5x7xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
      outs(%eg : tensor<?x3x2x5x7xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<?x3x2x5x7xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2], [3], [4]]
      : tensor<?x3x2x5x7xf32> into tensor<?x6x5x7xf32>
  %e = tensor.empty(%n) : tensor<?x6x5x7xf32>
  %aff = linalg.generic {indexing_maps = [#id4, #ch4, #ch4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<?x6x5x7xf32>, tensor<6xf32>, tensor<6xf32>)
      outs(%e : tensor<?x6x5x7xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<?x6x5x7xf32>
  %act = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%aff : tensor<?x6x5x7xf32>) outs(%e : tensor<?x6x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %s = arith.select %pos, %in, %neg : f32
    linalg.yield %s : f32
  } -> tensor<?x6x5x7xf32>
  %y = linalg.add ins(%act, %r : tensor<?x6x5x7xf32>, tensor<?x6x5x7xf32>)
                  outs(%e : tensor<?x6x5x7xf32>) -> tensor<?x6x5x7xf32>
  return %y : tensor<?x6x5x7xf32>
}
