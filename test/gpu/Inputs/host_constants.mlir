// Host constants (issue 12): what torch-mlir emits for a model's scalars and
// frozen tensors, in the three forms that must never make a kernel read host
// memory.
// - @leaky_scaled: a 0-d tensor constant (leaky_relu's slope) read through
//   `(d0, d1) -> ()`, an f64 scalar defined outside the body and truncated
//   inside it, and a dense weight vector broadcast over the rows. The scalars
//   fold into the kernel as immediates; the weight is a constant buffer the
//   module carries.
// - @linear_constant_weight: nn.Linear with a frozen 8x16 weight and bias, so
//   the GEMM reads a constant buffer.
// test/gpu/test_host_constants.py checks both on the GPU, from Python and from
// C (the generated header); the values are multiples of 1/64, exact in f32.
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#col = affine_map<(d0, d1) -> (d1)>
func.func @leaky_scaled(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %slope = arith.constant dense<0.01> : tensor<f32>
  %scale = arith.constant 2.5 : f64
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[1.0, -2.0, 0.5, 3.0, -0.25, 4.0, -1.5, 0.125]> : tensor<8xf32>
  %init = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #scalar, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %slope, %w : tensor<?x8xf32>, tensor<f32>, tensor<8xf32>)
      outs(%init : tensor<?x8xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32, %o: f32):
    %t = arith.truncf %scale : f64 to f32
    %m = arith.mulf %a, %b : f32
    %m2 = arith.mulf %m, %t : f32
    %pos = arith.cmpf ugt, %m2, %zero : f32
    %neg = arith.mulf %m2, %s : f32
    %r = arith.select %pos, %m2, %neg : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

#bias = affine_map<(d0, d1) -> (d1)>
func.func @linear_constant_weight(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %weight = arith.constant dense<[[1.78125, 0.140625, 0.796875, -0.859375, 1.046875, -1.921875, 0.984375, 1.859375, 0.1875, 1.671875, -0.1875, -2.0, -0.84375, 1.515625, 0.9375, -0.703125], [0.703125, -0.328125, -1.53125, -0.40625, -1.40625, 0.6875, 1.234375, -1.3125, -1.859375, -1.515625, -0.21875, -1.28125, 1.375, 1.546875, -1.109375, 1.375], [-0.921875, 0.5, -0.703125, -1.59375, -0.640625, -1.34375, 1.203125, 1.34375, 1.75, 1.8125, 1.0625, -1.765625, -1.34375, -0.46875, 0.078125, 0.84375], [0.890625, 1.078125, 0.46875, -1.09375, 0.015625, -0.125, 0.671875, 0.90625, 0.96875, 2.0, -0.578125, -1.78125, 1.046875, 1.4375, -1.75, -1.796875], [-0.234375, 1.40625, -1.65625, 1.09375, -0.375, -1.1875, -0.25, -0.578125, -1.390625, 0.1875, -1.71875, 1.453125, 0.203125, 1.984375, 0.75, -1.59375], [1.671875, 0.9375, -0.34375, 0.703125, 0.25, 1.640625, 1.796875, 1.84375, -0.09375, -0.671875, 1.703125, 0.90625, -0.546875, -0.5, -0.25, -1.953125], [0.140625, 0.71875, -0.578125, -0.078125, -1.9375, 2.0, -1.6875, -0.03125, -1.078125, 0.875, -0.765625, -1.8125, 0.578125, 0.234375, -1.0625, -0.171875], [1.8125, 1.90625, 0.828125, 0.09375, 1.546875, -0.703125, 1.578125, 0.328125, -1.640625, 0.21875, 0.625, 1.546875, -0.296875, 0.265625, 0.03125, -1.78125]]> : tensor<8x16xf32>
  %bias = arith.constant dense<[-2.0, -1.8125, -0.96875, 0.125, 1.34375, -0.90625, -0.09375, -0.40625]> : tensor<8xf32>
  %wt_init = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.transpose ins(%weight : tensor<8x16xf32>) outs(%wt_init : tensor<16x8xf32>) permutation = [1, 0]
  %init = tensor.empty(%n) : tensor<?x8xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x16xf32>, tensor<16x8xf32>) outs(%filled : tensor<?x8xf32>) -> tensor<?x8xf32>
  %out = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x8xf32>, tensor<8xf32>) outs(%out : tensor<?x8xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
