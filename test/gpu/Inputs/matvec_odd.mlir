// GPU test input (test/gpu/test_matvec.py): matrix-vector products and a
// few columns (a static N of at most 8), which fuser-configure-kernels puts
// on fp64 tensor cores with an 8-column tile; M and K dynamic.
//   mv:    y = (x * w^T + b[n]) * s[m]     (N = 1, nn.Linear's layout)
//   mv3:   y = max(x * w^T, 0)             (N = 3)
//   mv_nn: y = x * v                        (v is K x 1)
func.func @mv(%x: tensor<?x?xf32>, %w: tensor<1x?xf32>, %b: tensor<1xf32>, %s: tensor<?xf32>) -> tensor<?x1xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b, %s : tensor<1xf32>, tensor<?xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m)>]
         : tensor<?x?xf32>, tensor<1x?xf32> -> tensor<?x1xf32> {
  ^bb0(%acc: f32, %bi: f32, %si: f32):
    %a = arith.addf %acc, %bi : f32
    %o = arith.mulf %a, %si : f32
    fuser.yield %o : f32
  }
  return %y : tensor<?x1xf32>
}

func.func @mv3(%x: tensor<?x?xf32>, %w: tensor<3x?xf32>) -> tensor<?x3xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x?xf32>, tensor<3x?xf32> -> tensor<?x3xf32> {
  ^bb0(%acc: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %z : f32
    fuser.yield %r : f32
  }
  return %y : tensor<?x3xf32>
}

func.func @mv_nn(%x: tensor<?x?xf32>, %v: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %y = fuser.matmul %x, %v epilogue_maps [] : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x1xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x1xf32>
}
