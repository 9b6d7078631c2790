// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" -verify-diagnostics | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="fp32-kernel=ffma" | FileCheck %s --check-prefix=FFMA
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="fp32-kernel=fp64" 2>&1 | FileCheck %s --check-prefix=FORCED

// A matmul with a group-norm epilogue keeps fp32 accuracy under a
// tensor-core precision, with a remark: the group norm divides by each
// group's spread and so amplifies GEMM error. Its groups of 16 fit the
// 3xtf32 wgmma_tma epilogue (whole 8-column pieces of a warpgroup's 128
// columns), so it runs there on sm_90a; a plain matmul beside it gets tf32.
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @mixed
// CHECK: fuser.matmul {{.+}} group_norm(size = 16, eps = 1.000000e-05) {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 3], min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
// CHECK: fuser.matmul {{.+}} {config = #fuser.config<strategy = "wgmma_tma", {{.+}}, precision = "tf32", group_m = 8>}
// FFMA-LABEL: func.func @mixed
// FFMA: fuser.matmul {{.+}} group_norm(size = 16, eps = 1.000000e-05) {config = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [256, 128, 8, 16, 8], min_blocks_per_sm = 1>}
func.func @mixed(%x: tensor<?x32xf32>, %w: tensor<64x32xf32>, %g: tensor<64xf32>,
                 %be: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  // expected-remark @+1 {{precision tf32 not applied: a group-norm epilogue keeps fp32 accuracy}}
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%g, %be : tensor<64xf32>, tensor<64xf32>)
         epilogue_maps [#col, #col] group_norm(size = 16, eps = 1.0e-05)
         : tensor<?x32xf32>, tensor<64x32xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32, %ga: f32, %bb: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32, %ga: f32, %bb: f32):
    %m = arith.mulf %v, %ga : f32
    %a = arith.addf %m, %bb : f32
    fuser.yield %a : f32
  }
  %z = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x32xf32>, tensor<64x32xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

// Groups of 64 columns fit 3xtf32's 128-column warpgroup tiles but are
// wider than an fp64 tensor-core warp's 32: FFMA when fp64 is asked for,
// with a remark.
// CHECK-LABEL: func.func @wide_groups
// CHECK: group_norm(size = 64, eps = 1.000000e-05) {config = #fuser.config<strategy = "wgmma_tma"{{.+}}precision = "3xtf32"
// FORCED: remark: fp32-kernel=fp64 not applied: groups of 64 columns do not fit the tensor-core epilogue (a power of two, a multiple of 8 dividing 32); FFMA instead
// FORCED-LABEL: func.func @wide_groups
// FORCED: strategy = "ffma"
func.func @wide_groups(%x: tensor<?x32xf32>, %w: tensor<128x32xf32>) -> tensor<?x128xf32> {
  // expected-remark @+1 {{precision tf32 not applied: a group-norm epilogue keeps fp32 accuracy}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] group_norm(size = 64, eps = 1.0e-05)
         : tensor<?x32xf32>, tensor<128x32xf32> -> tensor<?x128xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x128xf32>
}

// -----

// Groups of 256 columns fit no tensor-core epilogue: FFMA.
// CHECK-LABEL: func.func @wider_groups
// CHECK: group_norm(size = 256, eps = 1.000000e-05) {config = #fuser.config<strategy = "ffma"
func.func @wider_groups(%x: tensor<?x32xf32>, %w: tensor<512x32xf32>) -> tensor<?x512xf32> {
  // expected-remark @+1 {{precision tf32 not applied: a group-norm epilogue keeps fp32 accuracy}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] group_norm(size = 256, eps = 1.0e-05)
         : tensor<?x32xf32>, tensor<512x32xf32> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// Standalone group norms: groups of 16 (4 vectors: 2 threads each) share
// 256-thread blocks; groups of 1024 get a block each.
// CHECK-LABEL: func.func @standalone
// CHECK: fuser.group_norm {{.+}} {config = #fuser.config<strategy = "group_norm", block = [256, 1, 1], vector_width = 4, tile = [2],
// CHECK: fuser.group_norm {{.+}} {config = #fuser.config<strategy = "group_norm", block = [128, 1, 1], vector_width = 4, precision
func.func @standalone(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %b: tensor<8192xf32>)
    -> (tensor<?x8192xf32>, tensor<?x8192xf32>) {
  %small = fuser.group_norm %x, %g, %b groups = 512 eps = 1.0e-05 epilogue_maps []
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  %large = fuser.group_norm %x, %g, %b groups = 8 eps = 1.0e-05 epilogue_maps []
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %small, %large : tensor<?x8192xf32>, tensor<?x8192xf32>
}

// -----

// A group larger than 16384 elements (LayerNorm over 64 x 256 x 256) is
// split over blocks of 32768: tile = [block, blocks per group]. Its input
// gradient keeps one block per group.
// CHECK-LABEL: func.func @split_groups
// CHECK: fuser.group_norm {{.+}} {config = #fuser.config<strategy = "group_norm", block = [512, 1, 1], vector_width = 4, tile = [512, 128],
// CHECK: fuser.group_norm_grad {{.+}} {config = #fuser.config<strategy = "group_norm_grad", block = [512, 1, 1], vector_width = 4, precision
func.func @split_groups(%x: tensor<?x64x256x256xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>)
    -> (tensor<?x64x256x256xf32>, tensor<?x64x256x256xf32>) {
  %y = fuser.group_norm %x, %g, %b groups = 1 eps = 1.0e-05 epilogue_maps []
         : tensor<?x64x256x256xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64x256x256xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 1 eps = 1.0e-05
      prologue_inputs(%y : tensor<?x64x256x256xf32>) prologue_maps [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
      : tensor<?x64x256x256xf32>, tensor<64xf32> -> tensor<?x64x256x256xf32>, tensor<?x1xf32>, tensor<?x1xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y, %dx : tensor<?x64x256x256xf32>, tensor<?x64x256x256xf32>
}

// -----

// A group of 20480 elements, past 16384 but under one slice of 32768: two
// blocks per group all the same.
// CHECK-LABEL: func.func @split_in_two
// CHECK: fuser.group_norm {{.+}} {config = #fuser.config<strategy = "group_norm", block = [512, 1, 1], vector_width = 4, tile = [512, 2],
func.func @split_in_two(%x: tensor<?x5x4096xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<?x5x4096xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 1 eps = 1.0e-05 epilogue_maps []
         : tensor<?x5x4096xf32>, tensor<5xf32>, tensor<5xf32> -> tensor<?x5x4096xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x5x4096xf32>
}

// -----

// Input gradients follow the same rule, under their own strategy.
// CHECK-LABEL: func.func @grad
// CHECK: fuser.group_norm_grad {{.+}} {config = #fuser.config<strategy = "group_norm_grad", block = [256, 1, 1], vector_width = 4, tile = [2],
// CHECK: fuser.group_norm_grad {{.+}} {config = #fuser.config<strategy = "group_norm_grad", block = [128, 1, 1], vector_width = 4, precision
func.func @grad(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %d: tensor<?x8192xf32>)
    -> (tensor<?x8192xf32>, tensor<?x8192xf32>) {
  %small, %m0, %r0 = fuser.group_norm_grad %x, %g groups = 512 eps = 1.0e-05
      prologue_inputs(%d : tensor<?x8192xf32>) prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      : tensor<?x8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  %large, %m1, %r1 = fuser.group_norm_grad %x, %g groups = 8 eps = 1.0e-05
      prologue_inputs(%d : tensor<?x8192xf32>) prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      : tensor<?x8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>, tensor<?x8xf32>, tensor<?x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %small, %large : tensor<?x8192xf32>, tensor<?x8192xf32>
}
