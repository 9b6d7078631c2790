// W3: y = gn(linear(x)); y = F.leaky_relu(y, 0.01); y = y + y, with
// linear = nn.Linear(8192, 8192) and gn = nn.GroupNorm(512, 8192, eps=1e-5)
// on x: 1024 x 8192, decomposed in linalg on tensors the way torch-mlir
// decomposes native_group_norm: view (N, C) as (N, G, C/G) = (1024, 512, 16),
// mean and biased variance over the 16 contiguous channels of each group,
// (x - mean) * rsqrt(var + eps), view back, then * gamma[c] + beta[c].
// fuser-fuse-matmul fuses the linear layer (transpose_b + bias epilogue);
// its epilogue stops at the reshape that starts the group norm.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @forward(%x: tensor<1024x8192xf32>, %w: tensor<8192x8192xf32>,
                   %b: tensor<8192xf32>, %gamma: tensor<8192xf32>,
                   %beta: tensor<8192xf32>) -> tensor<1024x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %inv16 = arith.constant 0.0625 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32

  // Linear: x . W^T + b.
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

  // GroupNorm(512, 8192): statistics per (row, group of 16 channels).
  %g = tensor.expand_shape %lin [[0], [1, 2]] output_shape [1024, 512, 16]
      : tensor<1024x8192xf32> into tensor<1024x512x16xf32>
  %es = tensor.empty() : tensor<1024x512xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<1024x512x16xf32>) outs(%zs : tensor<1024x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<1024x512xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1024x512xf32>) outs(%es : tensor<1024x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv16 : f32
    linalg.yield %m : f32
  } -> tensor<1024x512xf32>
  %zq = linalg.fill ins(%zero : f32) outs(%es : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<1024x512x16xf32>, tensor<1024x512xf32>)
      outs(%zq : tensor<1024x512xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<1024x512xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<1024x512xf32>) outs(%es : tensor<1024x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv16 : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<1024x512xf32>
  %eg = tensor.empty() : tensor<1024x512x16xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<1024x512x16xf32>, tensor<1024x512xf32>, tensor<1024x512xf32>)
      outs(%eg : tensor<1024x512x16xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %n = arith.mulf %d, %rs : f32
    linalg.yield %n : f32
  } -> tensor<1024x512x16xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]]
      : tensor<1024x512x16xf32> into tensor<1024x8192xf32>
  %affine = linalg.generic {indexing_maps = [#id, #row, #row, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<1024x8192xf32>, tensor<8192xf32>, tensor<8192xf32>)
      outs(%e : tensor<1024x8192xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<1024x8192xf32>

  // LeakyReLU(0.01), then y + y.
  %act = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%affine : tensor<1024x8192xf32>) outs(%e : tensor<1024x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<1024x8192xf32>
  %y = linalg.add ins(%act, %act : tensor<1024x8192xf32>, tensor<1024x8192xf32>)
                  outs(%e : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  return %y : tensor<1024x8192xf32>
}
