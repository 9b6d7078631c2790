// GPU test input: group norms whose groups are smaller than a warp's work,
// several per block (fuser-configure-kernels' tile = [threads per group]):
// W3's GroupNorm(512) groups of 16, groups of 4 with an epilogue, and groups
// of 36 in 3-D (dynamic N in each).
func.func @groups_of_16(%x: tensor<?x8192xf32>, %gamma: tensor<8192xf32>, %beta: tensor<8192xf32>) -> tensor<?x8192xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 512 eps = 1.0e-05 epilogue_maps []
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x8192xf32>
}

func.func @groups_of_4_leaky(%x: tensor<?x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 16 eps = 1.0e-05 epilogue_maps []
         : tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64xf32> {
  ^bb0(%v: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.constant 0.01 : f32
    %p = arith.cmpf ogt, %v, %z : f32
    %m = arith.mulf %v, %s : f32
    %r = arith.select %p, %v, %m : f32
    fuser.yield %r : f32
  }
  return %y : tensor<?x64xf32>
}

func.func @groups_of_36(%x: tensor<?x96x3xf32>, %gamma: tensor<96xf32>, %beta: tensor<96xf32>) -> tensor<?x96x3xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 8 eps = 1.0e-05 epilogue_maps []
         : tensor<?x96x3xf32>, tensor<96xf32>, tensor<96xf32> -> tensor<?x96x3xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x96x3xf32>
}
