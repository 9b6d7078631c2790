// GPU test input (test/gpu/test_batched_transposed.py): batched and
// transposed-A fuser.matmul with every size dynamic (no tile or vector
// multiples), epilogues reading per-batch and shared inputs.
//   bmm:    y[b] = (x[b] @ w[b] + bias[b, n]) * s[b] + r[m, n] + f[b, m, n]
//   bmm_nt: y[b] = max(x[b] @ w[b]^T, 0) * 0.5
//   xt_w:   y = x^T @ w + bias[n]            (x is K x M: torch's x.T @ W)
//   bxt_w:  y[b] = x[b]^T @ w[b]^T + r[b, m] (both operands transposed)
func.func @bmm(%x: tensor<?x?x?xf32>, %w: tensor<?x?x?xf32>, %bias: tensor<?x?xf32>,
               %s: tensor<?xf32>, %r: tensor<?x?xf32>, %f: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %y = fuser.matmul %x, %w
         epilogue_inputs(%bias, %s, %r, %f : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>)
         epilogue_maps [affine_map<(b, m, n) -> (b, n)>, affine_map<(b, m, n) -> (b)>,
                        affine_map<(b, m, n) -> (m, n)>, affine_map<(b, m, n) -> (b, m, n)>]
         : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%acc: f32, %bi: f32, %si: f32, %ri: f32, %fi: f32):
    %a = arith.addf %acc, %bi : f32
    %m = arith.mulf %a, %si : f32
    %o = arith.addf %m, %ri : f32
    %p = arith.addf %o, %fi : f32
    fuser.yield %p : f32
  }
  return %y : tensor<?x?x?xf32>
}

func.func @bmm_nt(%x: tensor<?x?x?xf32>, %w: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps []
         : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%acc: f32):
    %z = arith.constant 0.0 : f32
    %h = arith.constant 0.5 : f32
    %m = arith.maximumf %acc, %z : f32
    %o = arith.mulf %m, %h : f32
    fuser.yield %o : f32
  }
  return %y : tensor<?x?x?xf32>
}

func.func @xt_w(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %y = fuser.matmul %x, %w transpose_a
         epilogue_inputs(%bias : tensor<?xf32>) epilogue_maps [affine_map<(m, n) -> (n)>]
         : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%acc: f32, %bi: f32):
    %a = arith.addf %acc, %bi : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x?xf32>
}

func.func @bxt_w(%x: tensor<?x?x?xf32>, %w: tensor<?x?x?xf32>, %r: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %y = fuser.matmul %x, %w transpose_a transpose_b
         epilogue_inputs(%r : tensor<?x?xf32>) epilogue_maps [affine_map<(b, m, n) -> (b, m)>]
         : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%acc: f32, %ri: f32):
    %a = arith.addf %acc, %ri : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x?x?xf32>
}
