// GPU test input (test/gpu/test_clusters.py): f32 products whose
// wgmma_tma kernel runs in 2-block clusters sharing B by TMA multicast,
// compiled in tf32 and 3xtf32 with cluster-m=2 and without (the control:
// the same sums, so bit-identical results; scripts/build-mma-artifacts.sh):
//   odd_m: leaky_relu(x * W^T + b, 0.1), 1100 x 1000 x 1024 static: 9 M
//          tiles, rounded up to 10, so one block of the last clusters
//          computes a tile past M (zeros, stored nowhere); N = 1000 leaves
//          the second block's half of the last B tile mostly past N.
//   dyn_m: (x * W^T + b) * 2 with a dynamic M (the batch).
//   nn_b:  x @ w, an N-major B (K x N) with a dynamic M: 3xtf32 multicasts
//          its 32-column boxes (tf32 takes mma.sync there, unclustered).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @odd_m(%x: tensor<1100x1024xf32>, %w: tensor<1000x1024xf32>,
                 %b: tensor<1000xf32>) -> tensor<1100x1000xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b : tensor<1000xf32>) epilogue_maps [#row]
         : tensor<1100x1024xf32>, tensor<1000x1024xf32> -> tensor<1100x1000xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %zero = arith.constant 0.0 : f32
    %slope = arith.constant 0.1 : f32
    %s = arith.addf %acc, %bias : f32
    %pos = arith.cmpf ugt, %s, %zero : f32
    %neg = arith.mulf %s, %slope : f32
    %r = arith.select %pos, %s, %neg : f32
    fuser.yield %r : f32
  }
  return %y : tensor<1100x1000xf32>
}

func.func @dyn_m(%x: tensor<?x1024xf32>, %w: tensor<1000x1024xf32>,
                 %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%b : tensor<1000xf32>) epilogue_maps [#row]
         : tensor<?x1024xf32>, tensor<1000x1024xf32> -> tensor<?x1000xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %two = arith.constant 2.0 : f32
    %s = arith.addf %acc, %bias : f32
    %r = arith.mulf %s, %two : f32
    fuser.yield %r : f32
  }
  return %y : tensor<?x1000xf32>
}

func.func @nn_b(%x: tensor<?x1000xf32>, %w: tensor<1000x1036xf32>) -> tensor<?x1036xf32> {
  %y = fuser.matmul %x, %w epilogue_maps []
         : tensor<?x1000xf32>, tensor<1000x1036xf32> -> tensor<?x1036xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x1036xf32>
}
