// GPU test input: a group with two results (the shared pre-activation is
// also returned) and a 1-D dynamic shape.
//   h = x * x - 1 ; y = sigmoid(h) ; returns (y, h)
#id = affine_map<(d0) -> (d0)>
func.func @forward(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %d = arith.subf %sq, %one : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%h : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n1 = arith.negf %a : f32
    %ex = math.exp %n1 : f32
    %den = arith.addf %ex, %one : f32
    %r = arith.divf %one, %den : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %y, %h : tensor<?xf32>, tensor<?xf32>
}
