// fuser.group_norm_grad written by hand: W3's backward (groups of 16 of
// tensor<?x8192xf32>, dy = leaky_relu'(z) * dout) and one group of 1024
// per sample (4 warps), with a per-channel prologue input.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @w3_grad(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %dout: tensor<?x8192xf32>, %z: tensor<?x8192xf32>) -> (tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %g groups = 512 eps = 1.0e-05
      prologue_inputs(%dout, %z : tensor<?x8192xf32>, tensor<?x8192xf32>) prologue_maps [#id, #id]
      : tensor<?x8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32> {
  ^bb0(%d: f32, %zi: f32):
    %zero = arith.constant 0.0 : f32
    %slope = arith.constant 0.01 : f32
    %pos = arith.cmpf ogt, %zi, %zero : f32
    %neg = arith.mulf %d, %slope : f32
    %dy = arith.select %pos, %d, %neg : f32
    fuser.yield %dy : f32
  }
  return %dx, %mean, %rstd : tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>
}

func.func @wide_grad(%x: tensor<?x1024xf32>, %g: tensor<1024xf32>, %dout: tensor<?x1024xf32>, %w: tensor<1024xf32>) -> (tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %g groups = 1 eps = 1.0e-05
      prologue_inputs(%dout, %w : tensor<?x1024xf32>, tensor<1024xf32>) prologue_maps [#id, #col]
      : tensor<?x1024xf32>, tensor<1024xf32> -> tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32> {
  ^bb0(%d: f32, %wi: f32):
    %dy = arith.mulf %d, %wi : f32
    fuser.yield %dy : f32
  }
  return %dx, %mean, %rstd : tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}
