// GPU test input: groups too large for one block (over 16384 elements),
// split over blocks of up to 32768 elements, at least two (a statistics
// kernel, then the normalizing one).
// @layer_norm: LayerNorm-like, one group of 3 x 100 x 77 = 23100 elements
// per sample (4-wide, 2 slices, the last one short), with an epilogue
// reading a per-sample scale. @odd_groups: 2 groups of 3 x 999 x 11 =
// 32967 elements (1-wide, 2 slices).
#col = affine_map<(d0, d1, d2, d3) -> (d0)>
func.func @layer_norm(%x: tensor<?x3x100x77xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>,
                      %s: tensor<?xf32>) -> tensor<?x3x100x77xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 1 eps = 1.0e-05
         epilogue_inputs(%s : tensor<?xf32>) epilogue_maps [#col]
         : tensor<?x3x100x77xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<?x3x100x77xf32> {
  ^bb0(%v: f32, %sv: f32):
    %m = arith.mulf %v, %sv : f32
    fuser.yield %m : f32
  }
  return %y : tensor<?x3x100x77xf32>
}

func.func @odd_groups(%x: tensor<?x6x999x11xf32>, %gamma: tensor<6xf32>, %beta: tensor<6xf32>)
    -> tensor<?x6x999x11xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<?x6x999x11xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<?x6x999x11xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x6x999x11xf32>
}

// LayerNorm over rows (one element per channel: gamma, beta and the
// residual read 4-wide) of 1000 (one block) and of 40000 (3 slices).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows_1000(%x: tensor<?x1000xf32>, %gamma: tensor<1000xf32>, %beta: tensor<1000xf32>,
                     %r: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 1 eps = 1.0e-05
         epilogue_inputs(%r : tensor<?x1000xf32>) epilogue_maps [#id]
         : tensor<?x1000xf32>, tensor<1000xf32>, tensor<1000xf32> -> tensor<?x1000xf32> {
  ^bb0(%v: f32, %rv: f32):
    %s = arith.addf %v, %rv : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x1000xf32>
}

func.func @rows_40000(%x: tensor<?x40000xf32>, %gamma: tensor<40000xf32>, %beta: tensor<40000xf32>,
                      %r: tensor<?x40000xf32>) -> tensor<?x40000xf32> {
  %y = fuser.group_norm %x, %gamma, %beta groups = 1 eps = 1.0e-05
         epilogue_inputs(%r : tensor<?x40000xf32>) epilogue_maps [#id]
         : tensor<?x40000xf32>, tensor<40000xf32>, tensor<40000xf32> -> tensor<?x40000xf32> {
  ^bb0(%v: f32, %rv: f32):
    %s = arith.addf %v, %rv : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x40000xf32>
}
