// GPU test input (test/gpu/test_nmajor_b.py): products whose B is N-major
// (K x N: x @ W, torch.bmm's right operand), which 3xtf32 on wgmma_tma reads
// as it is, its splitter transposing B in shared memory (no copy kernel):
//   mm_nn_dyn:   y = x @ w + bias[n], M dynamic, K = 1000 (a partial last
//                k tile: its rows past K read zeros), N = 1036 (the last
//                32-column box mostly past N)
//   mm_nn_wave:  1000 x 3000 x 1024, static: the 128 x 96 wave tile (three
//                boxes per stage: the splitter's three warps take one each)
//   mm_nn_split: 256 x 260 x 65536: K split among blocks
//   bmm_nn:      y[b] = x[b] @ w[b] + c[b, m], B x 1100 x 1036 x 1024 with
//                a dynamic batch (batched: K a multiple of the k tile)
//   mm_nn_tiny:  x @ w, M dynamic, K = 8, N = 12: one box, mostly past K
//                and N (TMA reads zeros there)
//   mm_nn_gn:    group_norm(x @ w) over groups of 16 columns (eps 1e-5),
//                then * 2: the group-norm epilogue on the N-major path
func.func @mm_nn_dyn(%x: tensor<?x1000xf32>, %w: tensor<1000x1036xf32>,
                     %bias: tensor<1036xf32>) -> tensor<?x1036xf32> {
  %y = fuser.matmul %x, %w
         epilogue_inputs(%bias : tensor<1036xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>]
         : tensor<?x1000xf32>, tensor<1000x1036xf32> -> tensor<?x1036xf32> {
  ^bb0(%acc: f32, %b: f32):
    %a = arith.addf %acc, %b : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x1036xf32>
}

func.func @mm_nn_wave(%x: tensor<1000x1024xf32>, %w: tensor<1024x3000xf32>) -> tensor<1000x3000xf32> {
  %y = fuser.matmul %x, %w epilogue_maps []
         : tensor<1000x1024xf32>, tensor<1024x3000xf32> -> tensor<1000x3000xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1000x3000xf32>
}

func.func @mm_nn_split(%x: tensor<256x65536xf32>, %w: tensor<65536x260xf32>) -> tensor<256x260xf32> {
  %y = fuser.matmul %x, %w epilogue_maps []
         : tensor<256x65536xf32>, tensor<65536x260xf32> -> tensor<256x260xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<256x260xf32>
}

func.func @bmm_nn(%x: tensor<?x1100x1024xf32>, %w: tensor<?x1024x1036xf32>,
                  %c: tensor<?x1100xf32>) -> tensor<?x1100x1036xf32> {
  %y = fuser.matmul %x, %w
         epilogue_inputs(%c : tensor<?x1100xf32>)
         epilogue_maps [affine_map<(b, m, n) -> (b, m)>]
         : tensor<?x1100x1024xf32>, tensor<?x1024x1036xf32> -> tensor<?x1100x1036xf32> {
  ^bb0(%acc: f32, %ci: f32):
    %a = arith.addf %acc, %ci : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x1100x1036xf32>
}

func.func @mm_nn_tiny(%x: tensor<?x8xf32>, %w: tensor<8x12xf32>) -> tensor<?x12xf32> {
  %y = fuser.matmul %x, %w epilogue_maps []
         : tensor<?x8xf32>, tensor<8x12xf32> -> tensor<?x12xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x12xf32>
}

func.func @mm_nn_gn(%x: tensor<?x200xf32>, %w: tensor<200x256xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w epilogue_maps [] group_norm(size = 16, eps = 1.0e-05)
         : tensor<?x200xf32>, tensor<200x256xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    %d = arith.addf %v, %v : f32
    fuser.yield %d : f32
  }
  return %y : tensor<?x256xf32>
}
