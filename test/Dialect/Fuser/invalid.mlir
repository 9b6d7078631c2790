// RUN: fuser-opt %s -split-input-file -verify-diagnostics

#id1 = affine_map<(d0) -> (d0)>

func.func @no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{must have at least one result}}
  "fuser.pointwise"(%x) <{indexing_maps = [#id1]}> ({
  ^bb0(%a: f32):
    fuser.yield
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

#id1 = affine_map<(d0) -> (d0)>
func.func @results_differ(%x: tensor<4xf32>) {
  // expected-error @+1 {{all results must have the same shape}}
  %r:2 = fuser.pointwise ins(%x : tensor<4xf32>) maps [#id1] -> tensor<4xf32>, tensor<5xf32> {
  ^bb0(%a: f32):
    fuser.yield %a, %a : f32, f32
  }
  return
}

// -----

#id1 = affine_map<(d0) -> (d0)>
func.func @map_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{has 1 input but 2 indexing maps}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [#id1, #id1] -> tensor<4xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

#id1 = affine_map<(d0) -> (d0)>
func.func @block_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{body has 2 block arguments, expected 1}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [#id1] -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @map_dims(%x: tensor<4xf32>) {
  // expected-error @+1 {{indexing map #0 must have 1 dimensions and no symbols}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0, d1) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @not_projected(%x: tensor<4xf32>) {
  // expected-error @+1 {{indexing map #0 must be a projected permutation}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0 + 1)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @memref_input(%x: memref<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{input #0 must be a ranked tensor or a scalar}}
  %r = fuser.pointwise ins(%x, %y : memref<4xf32>, tensor<4xf32>)
         maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @scalar_map(%s: f32, %y: tensor<4xf32>) {
  // expected-error @+1 {{indexing map #0 of scalar input must have no results}}
  %r = fuser.pointwise ins(%s, %y : f32, tensor<4xf32>)
         maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @rank_mismatch(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{indexing map #0 has 1 results but input #0 has rank 2}}
  %r = fuser.pointwise ins(%x : tensor<4x4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @mismatched_broadcast(%x: tensor<4x8xf32>, %b: tensor<7xf32>) {
  // expected-error @+1 {{input #1 dimension 0 has size 7 but result dimension 1 has size 8 (mismatched broadcast)}}
  %r = fuser.pointwise ins(%x, %b : tensor<4x8xf32>, tensor<7xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] -> tensor<4x8xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    fuser.yield %s : f32
  }
  return
}

// -----

func.func @arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{block argument #0 has type 'f16' but input #0 provides 'f32'}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xf16> {
  ^bb0(%a: f16):
    fuser.yield %a : f16
  }
  return
}

// -----

func.func @uncovered_dynamic_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{dynamic result dimension 0 is not read by any tensor input}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0, d1) -> (d1)>] -> tensor<?x4xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @foreign_op(%x: tensor<4xf32>) {
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{is not allowed in a fusion group body; only scalar arith and math ops are}}
    %t = tensor.empty() : tensor<4xf32>
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @vector_in_body(%x: tensor<4xf32>) {
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{in a fusion group body must produce scalars}}
    %v = arith.constant dense<1.0> : vector<4xf32>
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @wrong_terminator(%x: tensor<4xf32>) {
  // expected-error @+1 {{body must end with fuser.yield}}
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    llvm.unreachable
  }
  return
}

// -----

func.func @yield_count(%x: tensor<4xf32>) {
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xf32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{yields 2 values but the group has 1 results}}
    fuser.yield %a, %a : f32, f32
  }
  return
}

// -----

func.func @yield_type(%x: tensor<4xf32>) {
  %r = fuser.pointwise ins(%x : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<4xi32> {
  ^bb0(%a: f32):
    // expected-error @+1 {{value #0 has type 'f32' but result #0 has element type 'i32'}}
    fuser.yield %a : f32
  }
  return
}

// -----

func.func @yield_outside() {
  // expected-error @+1 {{expects parent op to be one of 'fuser.pointwise, fuser.matmul, fuser.group_norm, fuser.group_norm_grad, fuser.scan'}}
  fuser.yield
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{operands and result must be rank-2 tensors}}
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @matmul_batch_sizes(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{batch sizes differ}}
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @matmul_transpose_a_k(%a: tensor<8x4xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{reduction sizes differ: lhs has K = 8, rhs has K = 16}}
  %r = fuser.matmul %a, %b transpose_a epilogue_maps [] : tensor<8x4xf32>, tensor<16x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @matmul_batch_read_late(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %r: tensor<4x2xf32>) {
  // expected-error @+1 {{epilogue input #0 reads the batch dimension after another one}}
  %y = fuser.matmul %a, %b epilogue_inputs(%r : tensor<4x2xf32>) epilogue_maps [affine_map<(b, m, n) -> (m, b)>]
         : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32> {
  ^bb0(%acc: f32, %x: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @matmul_batched_group_norm(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{a batched matmul has no group_norm}}
  %y = fuser.matmul %a, %b epilogue_maps [] group_norm(size = 8, eps = 1.0e-05)
         : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{reduction sizes differ: lhs has K = 8, rhs has K = 4}}
  %r = fuser.matmul %a, %b transpose_b epilogue_maps [] : tensor<4x8xf32>, tensor<16x4xf32> -> tensor<4x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @matmul_result(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+1 {{result type 'tensor<4x6xf32>' does not match the operand shapes}}
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x6xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @matmul_accumulator(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) {
  // expected-error @+1 {{epilogue's first block argument must be the accumulator, of type 'f32'}}
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32> {
  ^bb0(%acc: f16):
    %c = arith.constant 0.0 : f32
    fuser.yield %c : f32
  }
  return
}

// -----

func.func @gn_rank(%x: tensor<8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{input must have rank >= 2 (N, C, ...)}}
  %r = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_result(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{result shape must equal the input shape}}
  %r = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_affine(%x: tensor<2x8xf32>, %g: tensor<2xf32>) {
  // expected-error @+1 {{gamma and beta must be per-channel vectors of size C = 8, got 'tensor<2xf32>'}}
  %r = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_groups(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{channel count 8 is not divisible by 3 groups}}
  %r = fuser.group_norm %x, %g, %g groups = 3 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_zero_groups(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'num_groups' failed to satisfy constraint}}
  %r = fuser.group_norm %x, %g, %g groups = 0 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_eps(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{epsilon must be positive}}
  %r = fuser.group_norm %x, %g, %g groups = 2 eps = 0.0 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_epilogue_arg(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{epilogue's first block argument must be the normalized value, of type 'f32'}}
  %r = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: i32):
    %c = arith.constant 0.0 : f32
    fuser.yield %c : f32
  }
  return
}

// -----

// expected-error @+1 {{kernel config needs a non-empty strategy}}
func.func @config_strategy() attributes {c = #fuser.config<strategy = "", block = [1, 1, 1]>} { return }

// -----

// expected-error @+1 {{kernel config block must have 3 entries (x, y, z), got 2}}
func.func @config_block_rank() attributes {c = #fuser.config<strategy = "pointwise", block = [1, 1]>} { return }

// -----

// expected-error @+1 {{kernel config block sizes must be positive}}
func.func @config_block_zero() attributes {c = #fuser.config<strategy = "pointwise", block = [0, 1, 1]>} { return }

// -----

// expected-error @+1 {{kernel config block has 2048 threads; the limit is 1024}}
func.func @config_block_big() attributes {c = #fuser.config<strategy = "pointwise", block = [2048, 1, 1]>} { return }

// -----

// expected-error @+1 {{kernel config vector_width must be 1, 2 or 4, got 3}}
func.func @config_width() attributes {c = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 3>} { return }

// -----

// expected-error @+1 {{kernel config l2_prefetch must be 0, 64, 128 or 256 (bytes), got 96}}
func.func @config_l2_prefetch() attributes {c = #fuser.config<strategy = "pointwise", block = [256, 1, 1], l2_prefetch = 96>} { return }

// -----

// expected-error @+1 {{kernel config l2_prefetch applies to the 'pointwise' strategy only, not 'pointwise_transpose'}}
func.func @config_l2_prefetch_transpose() attributes {c = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], tile = [32, 32], l2_prefetch = 128>} { return }

// -----

// expected-error @+1 {{kernel config max_grid must be >= 0 (0: no limit)}}
func.func @config_grid() attributes {c = #fuser.config<strategy = "pointwise", block = [256, 1, 1], max_grid = -1>} { return }

// -----

// expected-error @+1 {{kernel config tile sizes must be positive}}
func.func @config_tile() attributes {c = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [128, 0, 8]>} { return }

// -----

// expected-error @+1 {{kernel config precision must be one of fp32, tf32, 3xtf32, tf32_2xbf16, fp64, bf16, f16; got 'fp8'}}
func.func @config_precision() attributes {c = #fuser.config<strategy = "ffma", block = [256, 1, 1], precision = "fp8">} { return }

// -----

// expected-error @+1 {{kernel config split_k must be >= 1 (1: K not split), got 0}}
func.func @config_split_k_zero() attributes {c = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], split_k = 0>} { return }

// -----

// Only wgmma_tma splits K (GemmStrategy.h's records).
// expected-error @+1 {{kernel config split_k = 4 needs a matmul strategy that splits K ('wgmma_tma'), not 'mma'}}
func.func @config_split_k_mma() attributes {c = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 32, 4], precision = "fp64", split_k = 4>} { return }

// -----

// expected-error @+1 {{kernel config split_k = 2 needs a matmul strategy that splits K ('wgmma_tma'), not 'pointwise'}}
func.func @config_split_k_pointwise() attributes {c = #fuser.config<strategy = "pointwise", block = [256, 1, 1], split_k = 2>} { return }

// -----

// expected-error @+1 {{kernel config cluster_m must be 1 (no cluster) or 2, got 4}}
func.func @config_cluster_four() attributes {c = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], cluster_m = 4>} { return }

// -----

// expected-error @+1 {{kernel config cluster_m of a reduction must be a power of two from 1 (no cluster) to 8, got 16}}
func.func @config_reduction_cluster_sixteen() attributes {c = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [256, 1], cluster_m = 16>} { return }

// -----

// expected-error @+1 {{kernel config cluster_m = 2 needs the 'wgmma_tma' strategy (TMA multicast) or a reduction, not 'mma'}}
func.func @config_cluster_mma() attributes {c = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 32, 4], precision = "tf32", cluster_m = 2>} { return }

// -----

// expected-error @+1 {{kernel config cluster_m = 2 and split_k = 4 do not combine: a cluster's blocks share the K loop of one B tile}}
func.func @config_cluster_split_k() attributes {c = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], split_k = 4, cluster_m = 2>} { return }

// -----

// expected-error @+1 {{kernel config group_m must be >= 0 (0: one band of every M tile), got -8}}
func.func @config_group_negative() attributes {c = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], group_m = -8>} { return }

// -----

// expected-error @+1 {{kernel config group_m = 8 orders the tiles of the 'wgmma_tma' strategy's persistent blocks, not 'mma'}}
func.func @config_group_mma() attributes {c = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 32, 4], precision = "tf32", group_m = 8>} { return }

// -----

// expected-error @+1 {{kernel config group_m = 3 must hold whole clusters of cluster_m = 2 M tiles}}
func.func @config_group_odd_cluster() attributes {c = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], cluster_m = 2, group_m = 3>} { return }

// -----

func.func @matmul_norm_without_then(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{group_norm(size, eps) and the `then` region come together}}
  %y = fuser.matmul %x, %w epilogue_maps [] group_norm(size = 4, eps = 1.0e-05)
         : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x16xf32>
}

// -----

func.func @matmul_then_without_norm(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{group_norm(size, eps) and the `then` region come together}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x16xf32>
}

// -----

func.func @matmul_norm_size_not_dividing(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{group size 12 does not divide the 16 columns}}
  %y = fuser.matmul %x, %w epilogue_maps [] group_norm(size = 12, eps = 1.0e-05)
         : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x16xf32>
}

// -----

func.func @matmul_norm_dynamic_n(%x: tensor<4x8xf32>, %w: tensor<8x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{group_norm needs a static column count}}
  %y = fuser.matmul %x, %w epilogue_maps [] group_norm(size = 4, eps = 1.0e-05)
         : tensor<4x8xf32>, tensor<8x?xf32> -> tensor<4x?xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x?xf32>
}

// -----

func.func @matmul_norm_bad_eps(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{group_norm epsilon must be positive}}
  %y = fuser.matmul %x, %w epilogue_maps [] group_norm(size = 4, eps = 0.0)
         : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x16xf32>
}

// -----

#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_norm_then_args(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{the `then` region must take the same arguments as the epilogue: the normalized value, then one per epilogue input}}
  %y = fuser.matmul %x, %w epilogue_inputs(%g : tensor<16xf32>) epilogue_maps [#col]
         group_norm(size = 4, eps = 1.0e-05) : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32> {
  ^bb0(%acc: f32, %ga: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x16xf32>
}

// -----

func.func @tensor_map_result_type(%a: memref<?x64xbf16>) -> !llvm.ptr<1> {
  // expected-error @+1 {{result must be a generic '!llvm.ptr' (the kernel parameter holding the map), got '!llvm.ptr<1>'}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<?x64xbf16> -> !llvm.ptr<1>
  return %m : !llvm.ptr<1>
}

// -----

func.func @tensor_map_result_not_ptr(%a: memref<?x64xbf16>) -> i64 {
  // expected-error @+1 {{result must be a generic '!llvm.ptr' (the kernel parameter holding the map), got 'i64'}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<?x64xbf16> -> i64
  return %m : i64
}

// -----

func.func @tensor_map_box_rank(%a: memref<?x64xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{box must be [rows, columns], got 3 entries}}
  %m = fuser.tensor_map %a box [2, 128, 64] swizzle 128 : memref<?x64xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @tensor_map_box_too_big(%a: memref<?x64xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{box[0] must be 1 to 256, found 512}}
  %m = fuser.tensor_map %a box [512, 64] swizzle 128 : memref<?x64xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @tensor_map_box_zero(%a: memref<?x64xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{box[0] must be 1 to 256, found 0}}
  %m = fuser.tensor_map %a box [0, 64] swizzle 128 : memref<?x64xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @tensor_map_swizzle(%a: memref<?x64xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{unsupported swizzle 256 (expected 0, 32, 64 or 128 bytes)}}
  %m = fuser.tensor_map %a box [128, 128] swizzle 256 : memref<?x64xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// A 128-byte swizzle takes rows of exactly 128 bytes: 64 f32 are 256.
func.func @tensor_map_swizzle_span(%a: memref<?x64xf32>) -> !llvm.ptr {
  // expected-error @+1 {{box[1] = 64 f32 elements is 256 bytes, but swizzle 128 needs box rows of exactly 128 bytes}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<?x64xf32> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @tensor_map_unswizzled_row(%a: memref<?x64xf16>) -> !llvm.ptr {
  // expected-error @+1 {{box[1] = 10 f16 elements is 20 bytes, but TMA needs box rows of a multiple of 16 bytes}}
  %m = fuser.tensor_map %a box [128, 10] swizzle 0 : memref<?x64xf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// 32- and 64-byte swizzles take rows up to their span (as the runtime and the
// C header do); wider rows are refused.
func.func @tensor_map_swizzle_64_wide_row(%a: memref<?x64xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{box[1] = 64 bf16 elements is 128 bytes, more than the swizzle span of 64 bytes}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 64 : memref<?x64xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// Only f32, bf16 and f16 buffers of rank 2 (the operand constraint).
func.func @tensor_map_rank(%a: memref<4x8x64xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{operand #0 must be 2D memref of 32-bit float or bfloat16 type or 16-bit float values}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<4x8x64xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

// The copy engine reads dense row-major rows from global memory.
func.func @tensor_map_strided(%a: memref<?x64xbf16, strided<[128, 1]>>) -> !llvm.ptr {
  // expected-error @+1 {{source must be a dense row-major buffer in the default memory space}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<?x64xbf16, strided<[128, 1]>> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @tensor_map_shared(%a: memref<?x64xbf16, 3>) -> !llvm.ptr {
  // expected-error @+1 {{source must be a dense row-major buffer in the default memory space}}
  %m = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<?x64xbf16, 3> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @prologue_inputs_without_prologue(%a: tensor<4x8xf32>, %p: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{has prologue_inputs but no prologue region}}
  %r = fuser.matmul %a, %b prologue_inputs(%p : tensor<4x8xf32>) epilogue_maps [] : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @prologue_m_major(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{a prologue needs a K-major A (no transpose_a) and an unbatched product}}
  %r = fuser.matmul %a, %b transpose_a epilogue_maps [] : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32> prologue {
  ^bb0(%x: f32):
    fuser.yield %x : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @prologue_input_shape(%a: tensor<4x8xf32>, %p: tensor<4x9xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{prologue input #0 has type 'tensor<4x9xf32>'; prologue inputs have lhs's shape 'tensor<4x8xf32>'}}
  %r = fuser.matmul %a, %b prologue_inputs(%p : tensor<4x9xf32>) epilogue_maps [] : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32> prologue {
  ^bb0(%x: f32, %y: f32):
    fuser.yield %x : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @prologue_arguments(%a: tensor<4x8xf32>, %p: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{prologue's block arguments must be lhs's element, then one per prologue input, of types 'f32', 'f32'}}
  %r = fuser.matmul %a, %b prologue_inputs(%p : tensor<4x8xf32>) epilogue_maps [] : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32> prologue {
  ^bb0(%x: f32):
    fuser.yield %x : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return
}

// -----

func.func @gn_grad_stats(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{mean and rstd must be (N, groups) tensors of the input's element type, 'tensor<2x2xf32>', got 'tensor<2x4xf32>'}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05 prologue_inputs(%x : tensor<2x8xf32>)
      prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x2xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_grad_gamma(%x: tensor<2x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{gamma must be a per-channel vector of size C = 8, got 'tensor<4xf32>'}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05 prologue_inputs(%x : tensor<2x8xf32>)
      prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      : tensor<2x8xf32>, tensor<4xf32> -> tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @gn_grad_prologue(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{body has 2 block arguments, expected 1}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05 prologue_inputs(%x : tensor<2x8xf32>)
      prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%v: f32, %w: f32):
    fuser.yield %v : f32
  }
  return
}

// -----

func.func @scan_dimension(%x: tensor<4x5xf32>, %acc: tensor<4xf32>) {
  // expected-error @+1 {{dimension 2 is not a dimension of 'tensor<4x5xf32>'}}
  %o, %a = fuser.scan dimension(2) inclusive(true) ins(%x : tensor<4x5xf32>) outs(%x, %acc : tensor<4x5xf32>, tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    fuser.yield %s : f32
  } -> tensor<4x5xf32>, tensor<4xf32>
  return
}

// -----

func.func @scan_output_type(%x: tensor<4x5xf32>, %e: tensor<4x6xf32>, %acc: tensor<4xf32>) {
  // expected-error @+1 {{output and output_init must have the type of the input}}
  %o, %a = fuser.scan dimension(1) inclusive(true) ins(%x : tensor<4x5xf32>) outs(%e, %acc : tensor<4x6xf32>, tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    fuser.yield %s : f32
  } -> tensor<4x6xf32>, tensor<4xf32>
  return
}

// -----

func.func @scan_accumulator_shape(%x: tensor<4x5xf32>, %acc: tensor<5xf32>) {
  // expected-error @+1 {{accumulator and accumulator_init must have the input's shape without dimension 1}}
  %o, %a = fuser.scan dimension(1) inclusive(true) ins(%x : tensor<4x5xf32>) outs(%x, %acc : tensor<4x5xf32>, tensor<5xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    fuser.yield %s : f32
  } -> tensor<4x5xf32>, tensor<5xf32>
  return
}

// -----

func.func @scan_body_arguments(%x: tensor<4x5xf32>, %acc: tensor<4xf32>) {
  // expected-error @+1 {{body must take two 'f32' arguments}}
  %o, %a = fuser.scan dimension(1) inclusive(true) ins(%x : tensor<4x5xf32>) outs(%x, %acc : tensor<4x5xf32>, tensor<4xf32>) {
  ^bb0(%p: f32):
    fuser.yield %p : f32
  } -> tensor<4x5xf32>, tensor<4xf32>
  return
}

// -----

func.func @scan_body_yield(%x: tensor<4x5xf32>, %acc: tensor<4xf32>) {
  %o, %a = fuser.scan dimension(1) inclusive(true) ins(%x : tensor<4x5xf32>) outs(%x, %acc : tensor<4x5xf32>, tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.cmpf olt, %p, %q : f32
    // expected-error @+1 {{value #0 has type 'i1' but result #0 has element type 'f32'}}
    fuser.yield %s : i1
  } -> tensor<4x5xf32>, tensor<4xf32>
  return
}
