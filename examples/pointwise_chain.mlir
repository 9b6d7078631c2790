// A longer chain, as named linalg ops: scale, broadcast bias add,
// LeakyReLU(0.01), tanh, and a value used twice (the pre-activation `h` feeds
// both the LeakyReLU and the final residual add).
//   h = x * 0.5 + b ; y = tanh(leaky_relu(h)) + h
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<?x1000xf32>, %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x1000xf32>
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.01 : f32
  %e = tensor.empty(%n) : tensor<?x1000xf32>
  %scale = linalg.fill ins(%half : f32) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %xs = linalg.mul ins(%x, %scale : tensor<?x1000xf32>, tensor<?x1000xf32>)
                   outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %bb = linalg.broadcast ins(%b : tensor<1000xf32>) outs(%e : tensor<?x1000xf32>) dimensions = [0]
  %h = linalg.add ins(%xs, %bb : tensor<?x1000xf32>, tensor<?x1000xf32>)
                  outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x1000xf32>) outs(%e : tensor<?x1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<?x1000xf32>
  %t = linalg.tanh ins(%a : tensor<?x1000xf32>) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %y = linalg.add ins(%t, %h : tensor<?x1000xf32>, tensor<?x1000xf32>)
                  outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}
