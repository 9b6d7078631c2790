// Split K: a wgmma_tma matmul with static sizes whose output tiles fill at
// most half of one wave (132 blocks), and whose K holds two slices of 128
// or more, gets split_k = S, S slices with tiles x S about one wave.
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" | FileCheck %s --check-prefix=TF32
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="split-k=1" | FileCheck %s --check-prefix=OFF
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="split-k=8" 2>&1 | FileCheck %s --check-prefix=FORCE
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="split-k=8 fp32-kernel=fp64" 2>&1 | FileCheck %s --check-prefix=FP64
// RUN: not fuser-opt %s --fuser-configure-kernels="split-k=-1" 2>&1 | FileCheck %s --check-prefix=NEG

// NEG: split-k must be >= 0 (0: heuristic, 1: never split), got -1

// Remarks (stderr) come first.
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K, K split 33 ways (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); 4 output tiles for 132 blocks: K = 131072 in slices of 4000, added by a second kernel)
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K, K split 22 ways ({{.*}}; 6 output tiles for 132 blocks: K = 70004 in slices of 3200, added by a second kernel)
// Then w2, short_k (K = 200: promoted every 64), dynamic_m and
// group_norm, unsplit; batched; small_layer split.
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak)){{$}}
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak)){{$}}
// REPORT-COUNT-2: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak)){{$}}
// REPORT-NOT: K split
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); every batch's tiles in one persistent grid){{$}}
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K, K split 8 ways ({{.*}}; 4 output tiles for 132 blocks: K = 1024 in slices of 128, added by a second kernel)
// FORCE: remark: split-k=8 not applied: a group norm needs each row's whole sums in the GEMM kernel
// FORCE: remark: split-k=8 not applied: a batched product does not split K

// 256 x 256 x 131072 (issue #17): 4 tiles of 128 x 128; 132 / 4 = 33
// slices of 125 K tiles (4000 K; the last 96).
// CHECK-LABEL: func.func @large_k
// CHECK: precision = "3xtf32", promote_every = 128, split_k = 33>
// TF32-LABEL: func.func @large_k
// TF32: tile = [128, 256, 32, 16, 256, 4], min_blocks_per_sm = 1, precision = "tf32", split_k = 66>
// OFF-LABEL: func.func @large_k
// OFF-NOT: split_k
// FORCE-LABEL: func.func @large_k
// FORCE: split_k = 8>
// FP64: remark: split-k=8 not applied: the mma kernel does not split K ('wgmma_tma' does)
// FP64-LABEL: func.func @large_k
// FP64-NOT: split_k
func.func @large_k(%x: tensor<256x131072xf32>, %w: tensor<256x131072xf32>) -> tensor<256x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<256x131072xf32>, tensor<256x131072xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<256x256xf32>
}

// -----

// Not tile multiples, with a bias and an activation: 2 x 3 tiles, 22
// slices of 100 K tiles (the last 88, with a partial one: K = 70004).
// CHECK-LABEL: func.func @odd
// CHECK: promote_every = 128, split_k = 22>
func.func @odd(%x: tensor<200x70004xf32>, %w: tensor<328x70004xf32>, %b: tensor<328xf32>) -> tensor<200x328xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<328xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] : tensor<200x70004xf32>, tensor<328x70004xf32> -> tensor<200x328xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    %t = math.tanh %s : f32
    fuser.yield %t : f32
  }
  return %y : tensor<200x328xf32>
}

// -----

// W2 (1024 x 8192 x 8192): 512 tiles fill the GPU; its config is unchanged.
// CHECK-LABEL: func.func @w2
// CHECK: {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 3], min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 128>}
func.func @w2(%x: tensor<1024x8192xf32>, %w: tensor<8192x8192xf32>) -> tensor<1024x8192xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1024x8192xf32>, tensor<8192x8192xf32> -> tensor<1024x8192xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1024x8192xf32>
}

// -----

// Few tiles but a short K (2 slices of 128 need 256), and a dynamic M
// (its tiles are known at run time only): not split. split-k=8 forces it
// where the kernel can split.
// CHECK-LABEL: func.func @short_k
// CHECK-NOT: split_k
// CHECK-LABEL: func.func @dynamic_m
// CHECK-NOT: split_k
// FORCE-LABEL: func.func @dynamic_m
// FORCE: split_k = 8>
func.func @short_k(%x: tensor<256x200xf32>, %w: tensor<256x200xf32>) -> tensor<256x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<256x200xf32>, tensor<256x200xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<256x256xf32>
}
func.func @dynamic_m(%x: tensor<?x131072xf32>, %w: tensor<256x131072xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x131072xf32>, tensor<256x131072xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

// A group norm in the epilogue needs each row's whole sums: never split,
// and split-k=8 says so (checked above).
// CHECK-LABEL: func.func @group_norm
// CHECK-NOT: split_k
func.func @group_norm(%x: tensor<256x131072xf32>, %w: tensor<256x131072xf32>) -> tensor<256x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps []
         group_norm(size = 16, eps = 1.0e-05) : tensor<256x131072xf32>, tensor<256x131072xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<256x256xf32>
}

// -----

// A batched product on wgmma_tma (2 x 256 x 256 x 131072: 8 tiles) is not
// split: the kernel's (tile, slice) loop and the reduction are 2-D.
// CHECK-LABEL: func.func @batched
// CHECK: strategy = "wgmma_tma"
// CHECK-NOT: split_k
// FORCE-LABEL: func.func @batched
// FORCE-NOT: split_k
func.func @batched(%x: tensor<2x256x131072xf32>, %w: tensor<2x256x131072xf32>) -> tensor<2x256x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<2x256x131072xf32>, tensor<2x256x131072xf32> -> tensor<2x256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<2x256x256xf32>
}

// -----

// A small layer (Linear 1024 -> 512 at batch 128): 4 tiles, 8 slices of
// 128 (4 K tiles each).
// CHECK-LABEL: func.func @small_layer
// FORCE-LABEL: func.func @small_layer
// CHECK: split_k = 8>
func.func @small_layer(%x: tensor<128x1024xf32>, %w: tensor<512x1024xf32>) -> tensor<128x512xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<128x1024xf32>, tensor<512x1024xf32> -> tensor<128x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<128x512xf32>
}
