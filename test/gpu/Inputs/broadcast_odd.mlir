// GPU test input: dynamic sizes that need not be multiples of the vector
// width, a broadcast bias whose size is checked at run time, a rank-0 tensor
// and NaN-propagating min/max.
//   y = maximumf(x * s + b, minimumf(x, 0)) * exp(-|x|)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @forward(%x: tensor<?x?xf32>, %b: tensor<?xf32>, %s: tensor<f32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %c) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #scalar, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %s : tensor<?x?xf32>, tensor<?xf32>, tensor<f32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %bi: f32, %si: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.mulf %xi, %si : f32
    %h = arith.addf %m, %bi : f32
    %lo = arith.minimumf %xi, %zero : f32
    %mx = arith.maximumf %h, %lo : f32
    %ab = math.absf %xi : f32
    %ng = arith.negf %ab : f32
    %ex = math.exp %ng : f32
    %r = arith.mulf %mx, %ex : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
