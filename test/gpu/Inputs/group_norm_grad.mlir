// GPU test input: fuser.group_norm_grad (GroupNorm's input gradient) written
// directly, each function with a dynamic N and returning (dx, mean, rstd),
// for test/gpu/test_group_norm_grad.py:
//   w3:     W3's GroupNorm(512) on N x 8192 (groups of 16, several per block)
//           with its LeakyReLU mask as a two-input prologue,
//           dy = select(z > 0, dout, 0.01 * dout);
//   odd:    N x 6 x 5 x 7 in 2 groups of 105 (odd: scalar accesses, groups
//           starting mid-vector);
//   span:   N x 6 x 5 x 7 in 3 groups of 70 (2-wide accesses whose lanes
//           span two channels) with dy = exp(dout);
//   tiny:   N x 6 in 2 groups of 3;
//   wide:   N x 1024, one group of 1024 (4 warps);
//   large:  N x 64 x 32 x 32 in 4 groups of 16384 (16 warps, cross-warp
//           sums) with dy = (dout * s[n] + t[c]) * u[h, w].
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#n4 = affine_map<(d0, d1, d2, d3) -> (d0)>
#c4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#hw4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

func.func @w3(%x: tensor<?x8192xf32>, %gamma: tensor<8192xf32>, %dout: tensor<?x8192xf32>,
              %z: tensor<?x8192xf32>) -> (tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 512 eps = 1.0e-05
      prologue_inputs(%dout, %z : tensor<?x8192xf32>, tensor<?x8192xf32>) prologue_maps [#id2, #id2]
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

func.func @odd(%x: tensor<?x6x5x7xf32>, %gamma: tensor<6xf32>, %dout: tensor<?x6x5x7xf32>)
    -> (tensor<?x6x5x7xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 2 eps = 1.0e-05
      prologue_inputs(%dout : tensor<?x6x5x7xf32>) prologue_maps [#id4]
      : tensor<?x6x5x7xf32>, tensor<6xf32> -> tensor<?x6x5x7xf32>, tensor<?x2xf32>, tensor<?x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %mean, %rstd : tensor<?x6x5x7xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

func.func @span(%x: tensor<?x6x5x7xf32>, %gamma: tensor<6xf32>, %dout: tensor<?x6x5x7xf32>)
    -> (tensor<?x6x5x7xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 3 eps = 1.0e-05
      prologue_inputs(%dout : tensor<?x6x5x7xf32>) prologue_maps [#id4]
      : tensor<?x6x5x7xf32>, tensor<6xf32> -> tensor<?x6x5x7xf32>, tensor<?x3xf32>, tensor<?x3xf32> {
  ^bb0(%d: f32):
    %e = math.exp %d : f32
    fuser.yield %e : f32
  }
  return %dx, %mean, %rstd : tensor<?x6x5x7xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

func.func @tiny(%x: tensor<?x6xf32>, %gamma: tensor<6xf32>, %dout: tensor<?x6xf32>)
    -> (tensor<?x6xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 2 eps = 1.0e-05
      prologue_inputs(%dout : tensor<?x6xf32>) prologue_maps [#id2]
      : tensor<?x6xf32>, tensor<6xf32> -> tensor<?x6xf32>, tensor<?x2xf32>, tensor<?x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %mean, %rstd : tensor<?x6xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

func.func @wide(%x: tensor<?x1024xf32>, %gamma: tensor<1024xf32>, %dout: tensor<?x1024xf32>)
    -> (tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 1 eps = 1.0e-05
      prologue_inputs(%dout : tensor<?x1024xf32>) prologue_maps [#id2]
      : tensor<?x1024xf32>, tensor<1024xf32> -> tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %mean, %rstd : tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

func.func @large(%x: tensor<?x64x32x32xf32>, %gamma: tensor<64xf32>, %dout: tensor<?x64x32x32xf32>,
                 %s: tensor<?xf32>, %t: tensor<64xf32>, %u: tensor<32x32xf32>)
    -> (tensor<?x64x32x32xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 4 eps = 1.0e-05
      prologue_inputs(%dout, %s, %t, %u : tensor<?x64x32x32xf32>, tensor<?xf32>, tensor<64xf32>, tensor<32x32xf32>)
      prologue_maps [#id4, #n4, #c4, #hw4]
      : tensor<?x64x32x32xf32>, tensor<64xf32> -> tensor<?x64x32x32xf32>, tensor<?x4xf32>, tensor<?x4xf32> {
  ^bb0(%d: f32, %si: f32, %ti: f32, %ui: f32):
    %a = arith.mulf %d, %si : f32
    %b = arith.addf %a, %ti : f32
    %c = arith.mulf %b, %ui : f32
    fuser.yield %c : f32
  }
  return %dx, %mean, %rstd : tensor<?x64x32x32xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}
