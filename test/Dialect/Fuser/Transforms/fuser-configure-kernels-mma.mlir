// The tensor-core configurations fuser-configure-kernels chooses: strategy
// "mma", "wgmma" or "wgmma_tma", tile = [BM, BN, BK, WM, WN, STAGES], one
// warp per WM x WN (wgmma_tma: and a producer warpgroup).
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s --check-prefix=FP32
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" | FileCheck %s --check-prefix=TF32
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=3xtf32" | FileCheck %s --check-prefix=X3
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 tensor-core-kernel=mma tile-sizes=128,128,32,64,32,3" | FileCheck %s --check-prefix=TILE6
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 tensor-core-kernel=wgmma tile-sizes=64,64,8" | FileCheck %s --check-prefix=TILE3
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 tile-sizes=128,128,32" | FileCheck %s --check-prefix=TMA3
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="tensor-core-kernel=wgmma-tma" 2>&1 | FileCheck %s --check-prefix=FORCE
// RUN: not fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 tile-sizes=64,64,8,32" 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="tensor-core-kernel=mma" | FileCheck %s --check-prefix=MMA
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="chip=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 tensor-core-kernel=wgmma" | FileCheck %s --check-prefix=WGMMA
// RUN: not fuser-opt %s --fuser-configure-kernels="tensor-core-kernel=tma" 2>&1 | FileCheck %s --check-prefix=BADTC
// BADTC: error: tensor-core-kernel must be auto, mma, wgmma or wgmma-tma, got 'tma'
// The pipeline's precision option reaches the configuration.
// RUN: fuser-opt %s -split-input-file --fuser-fusion-pipeline="precision=tf32" | FileCheck %s --check-prefix=TF32

// f32: 3xtf32 on the TMA-fed wgmma kernel by default on sm_90a
// (fuser-configure-kernels.mlir covers the choice), tf32 when the precision
// option asks; fp64 tensor cores where TMA is excluded; tf32 or 3xtf32
// with a static K-major K take the TMA-fed wgmma kernel.
// FP32-LABEL: func.func @f32
// FP32: config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 3], min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>
// MMA-LABEL: func.func @f32
// MMA: config = #fuser.config<strategy = "mma", block = [256, 1, 1], tile = [128, 128, 32, 64, 32, 4], min_blocks_per_sm = 1, precision = "fp64">
// TF32-LABEL: func.func @f32
// TF32: config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 32, 16, 256, 4], min_blocks_per_sm = 1, precision = "tf32", group_m = 8>
// X3-LABEL: func.func @f32
// X3: config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 3], min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>
// TILE6-LABEL: func.func @f32
// TILE6: config = #fuser.config<strategy = "mma", block = [256, 1, 1], tile = [128, 128, 32, 64, 32, 3], min_blocks_per_sm = 1, precision = "tf32">
// TILE3-LABEL: func.func @f32
// TILE3: config = #fuser.config<strategy = "wgmma", block = [128, 1, 1], tile = [64, 64, 8, 16, 64, 4], min_blocks_per_sm = 1, precision = "tf32">
// TMA3-LABEL: func.func @f32
// TMA3: config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 4], min_blocks_per_sm = 1, precision = "tf32", group_m = 8>
// BADTILE: error: tile-sizes of a tensor-core matmul must list 3 values (M, N, K) or 6 (M, N, K, warp M, warp N, stages), got 4
func.func @f32(%a: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %r = fuser.matmul %a, %w transpose_b epilogue_maps [] : tensor<?x64xf32>, tensor<32x64xf32> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x32xf32>
}

// -----

// bf16 and f16 operands take their own type, whatever the option; K-major
// with a static K on sm_90a, they get wgmma_tma (two warpgroups of
// 64 x 256 and a producer warpgroup), else mma.sync.
// FP32-LABEL: func.func @half
// FP32: config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 64, 16, 256, 4], min_blocks_per_sm = 1, precision = "bf16", group_m = 8>
// FP32: config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 64, 16, 256, 4], min_blocks_per_sm = 1, precision = "f16", group_m = 8>
// TILE3-LABEL: func.func @half
// TILE3: config = #fuser.config<strategy = "wgmma", block = [128, 1, 1], tile = [64, 64, 8, 16, 64, 4], min_blocks_per_sm = 1, precision = "bf16">
// MMA-LABEL: func.func @half
// MMA: config = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 64, 3], min_blocks_per_sm = 1, precision = "bf16">
// MMA: config = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 64, 3], min_blocks_per_sm = 1, precision = "f16">
// SM90-LABEL: func.func @half
// SM90: strategy = "mma"
// WGMMA-LABEL: func.func @f32
// WGMMA: config = #fuser.config<strategy = "wgmma", block = [256, 1, 1], tile = [128, 128, 32, 16, 128, 4], min_blocks_per_sm = 1, precision = "tf32">
// TF32-LABEL: func.func @half
// TF32: precision = "bf16"
// TF32: precision = "f16"
func.func @half(%a: tensor<?x64xbf16>, %w: tensor<32x64xbf16>, %c: tensor<?x64xf16>, %v: tensor<32x64xf16>) -> (tensor<?x32xbf16>, tensor<?x32xf32>) {
  %r = fuser.matmul %a, %w transpose_b epilogue_maps [] : tensor<?x64xbf16>, tensor<32x64xbf16> -> tensor<?x32xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  %s = fuser.matmul %c, %v transpose_b epilogue_maps [] : tensor<?x64xf16>, tensor<32x64xf16> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r, %s : tensor<?x32xbf16>, tensor<?x32xf32>
}

// -----

// A dynamic K cannot be described to the copy engine at compile time: the
// cp.async wgmma kernel runs it, with a remark when wgmma-tma was asked for.
// FP32-LABEL: func.func @dynamic_k
// FP32: strategy = "wgmma", block = [256, 1, 1]
// FORCE: remark: tensor-core-kernel=wgmma-tma not applied: TMA needs K-major operands (3xtf32: or an N-major B) with a static K whose rows are a multiple of 16 bytes apart, and no group norm (3xtf32: groups fitting 64 x 128 tiles)
// FORCE-LABEL: func.func @dynamic_k
// FORCE: strategy = "wgmma", block = [256, 1, 1]
func.func @dynamic_k(%a: tensor<?x?xbf16>, %w: tensor<32x?xbf16>) -> tensor<?x32xbf16> {
  %r = fuser.matmul %a, %w transpose_b epilogue_maps [] : tensor<?x?xbf16>, tensor<32x?xbf16> -> tensor<?x32xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %r : tensor<?x32xbf16>
}
