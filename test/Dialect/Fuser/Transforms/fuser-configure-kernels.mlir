// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="block-size=128 vector-width=2 max-grid=0 fp32-kernel=ffma" | FileCheck %s --check-prefix=OVERRIDE
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="vectors-per-thread=4" | FileCheck %s --check-prefix=UNROLL
// RUN: not fuser-opt %s -split-input-file --fuser-configure-kernels="vector-width=3" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="l2-prefetch=128" | FileCheck %s --check-prefix=PREFETCH128
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="l2-prefetch=256" | FileCheck %s --check-prefix=PREFETCH256
// RUN: not fuser-opt %s -split-input-file --fuser-configure-kernels="l2-prefetch=32" 2>&1 | FileCheck %s --check-prefix=BADPREFETCH
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="tile-sizes=64,64,8 fp32-kernel=ffma" | FileCheck %s --check-prefix=TILE
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="tile-sizes=64,64 fp32-kernel=ffma" -verify-diagnostics
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="chip=sm_100 fp32-kernel=fp64" | FileCheck %s --check-prefix=FORCED
// RUN: not fuser-opt %s --fuser-configure-kernels="fp32-kernel=dmma" 2>&1 | FileCheck %s --check-prefix=BADKERNEL
// BADKERNEL: error: fp32-kernel must be auto, 3xtf32, tf32_2xbf16, fp64 or ffma, got 'dmma'
// RUN: not fuser-opt %s --fuser-configure-kernels="chip=sm_80 fp32-kernel=3xtf32" 2>&1 | FileCheck %s --check-prefix=NOSPLIT
// NOSPLIT: error: fp32-kernel=3xtf32 needs wgmma.mma_async and TMA, which only sm_90a has; sm_80 gets fp32-kernel=auto, fp64 or ffma
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="fp32-kernel=fp64" | FileCheck %s --check-prefix=FP64
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="promote-every=0" | FileCheck %s --check-prefix=NOPROMOTE

// f32: four lanes make a 128-bit access. Threads per block: the chip's
// measured choice (sm_90a: 256), else 1024 (sm_80: not measured).
// CHECK-LABEL: func.func @f32_chain
// CHECK: config = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 1048576>
// SM80-LABEL: func.func @f32_chain
// SM80: config = #fuser.config<strategy = "pointwise", block = [1024, 1, 1], vector_width = 4, max_grid = 1048576>
// OVERRIDE-LABEL: func.func @f32_chain
// OVERRIDE: config = #fuser.config<strategy = "pointwise", block = [128, 1, 1], vector_width = 2>
// PREFETCH128-LABEL: func.func @f32_chain
// PREFETCH128: config = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 1048576, l2_prefetch = 128>
// PREFETCH256-LABEL: func.func @f32_chain
// PREFETCH256: l2_prefetch = 256>
// BADPREFETCH: error: kernel config l2_prefetch must be 0, 64, 128 or 256 (bytes), got 32
// BAD: error: kernel config vector_width must be 1, 2 or 4, got 3
// UNROLL-LABEL: func.func @f32_chain
// UNROLL: config = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 1048576, tile = [4]>
func.func @f32_chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<?xf32> {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    fuser.yield %e : f32
  }
  return %r : tensor<?xf32>
}

// -----

// f64: two lanes make a 128-bit access.
// CHECK-LABEL: func.func @f64_chain
// CHECK: vector_width = 2
func.func @f64_chain(%x: tensor<?xf64>) -> tensor<?xf64> {
  %r = fuser.pointwise ins(%x : tensor<?xf64>) maps [affine_map<(d0) -> (d0)>] -> tensor<?xf64> {
  ^bb0(%a: f64):
    fuser.yield %a : f64
  }
  return %r : tensor<?xf64>
}

// -----

// A config chosen earlier (by a user, say) is kept.
// CHECK-LABEL: func.func @preset
// CHECK: config = #fuser.config<strategy = "pointwise", block = [64, 1, 1]>
func.func @preset(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>]
         {config = #fuser.config<strategy = "pointwise", block = [64, 1, 1]>} -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?xf32>
}

// -----

// An f32 x * W^T with a static K for sm_90a (the default chip) runs as
// 3xtf32 on the TMA-fed wgmma kernel, its sums promoted every 64 K;
// fp32-kernel=fp64 or sm_90 gives fp64 tensor cores; elsewhere, or with
// fp32-kernel=ffma, it gets the measured FFMA configuration, whose tile
// tile-sizes overrides (tensor-core precisions:
// fuser-configure-kernels-mma.mlir).
// CHECK-LABEL: func.func @matmul
// CHECK: fuser.matmul
// CHECK-SAME: {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 3], min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak))
// FP64-LABEL: func.func @matmul
// FP64: {config = #fuser.config<strategy = "mma", block = [256, 1, 1], tile = [128, 128, 32, 64, 32, 4], min_blocks_per_sm = 1, precision = "fp64">}
// NOPROMOTE-LABEL: func.func @matmul
// NOPROMOTE: precision = "3xtf32">}
// SM80-LABEL: func.func @matmul
// SM80: config = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [256, 128, 8, 16, 8], min_blocks_per_sm = 1>
// FORCED-LABEL: func.func @matmul
// FORCED: precision = "fp64"
// FORCED-LABEL: func.func @f64_matmul
// FORCED: strategy = "ffma"
// OVERRIDE-LABEL: func.func @matmul
// OVERRIDE: config = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [256, 128, 8, 16, 8], min_blocks_per_sm = 1>
// TILE-LABEL: func.func @matmul
// TILE: config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8], min_blocks_per_sm = 1>
func.func @matmul(%a: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {
  // expected-error@below {{tile-sizes must list 3 values (M, N, K) or 5 (M, N, K, thread M, thread N), got 2}}
  %r = fuser.matmul %a, %w transpose_b epilogue_maps [] : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x16xf32>
}

// -----

// B stored K x N (N-major): 3xtf32 on wgmma_tma transposes it in shared
// memory. With N-long rows that TMA cannot copy (not 16-byte multiples):
// fp64 tensor cores, and the remark says why.
// CHECK-LABEL: func.func @matmul_nn
// CHECK: strategy = "wgmma_tma"{{.+}}precision = "3xtf32"
// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory)
// CHECK-LABEL: func.func @matmul_nn_odd_n
// CHECK: strategy = "mma"{{.+}}precision = "fp64"
// REPORT: remark: matmul kernel: mma in fp64 (3xtf32 not applicable: B is N-major (x * W) with N dynamic or not a multiple of 4, or batched with K not a multiple of the k tile and not copied K-major: M, N or K is dynamic; fp64 tensor cores)
func.func @matmul_nn(%a: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {
  // expected-error@below {{tile-sizes must list 3 values (M, N, K) or 5 (M, N, K, thread M, thread N), got 2}}
  %r = fuser.matmul %a, %w epilogue_maps [] : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x16xf32>
}
func.func @matmul_nn_odd_n(%a: tensor<?x16xf32>, %w: tensor<16x18xf32>) -> tensor<?x18xf32> {
  // expected-error@below {{tile-sizes must list 3 values (M, N, K) or 5 (M, N, K, thread M, thread N), got 2}}
  %r = fuser.matmul %a, %w epilogue_maps [] : tensor<?x16xf32>, tensor<16x18xf32> -> tensor<?x18xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x18xf32>
}

// -----

// Only f32 matmuls take the fp64 tensor-core kernel.
// CHECK-LABEL: func.func @f64_matmul
// CHECK: strategy = "ffma"
// REPORT: remark: matmul kernel: ffma in fp32 (precision fp32)
func.func @f64_matmul(%a: tensor<4x16xf64>, %w: tensor<8x16xf64>) -> tensor<4x8xf64> {
  // expected-error@below {{tile-sizes must list 3 values (M, N, K) or 5 (M, N, K, thread M, thread N), got 2}}
  %r = fuser.matmul %a, %w transpose_b epilogue_maps [] : tensor<4x16xf64>, tensor<8x16xf64> -> tensor<4x8xf64> {
  ^bb0(%acc: f64):
    fuser.yield %acc : f64
  }
  return %r : tensor<4x8xf64>
}

// -----

// A matrix-vector product (a static N of at most 8) is memory-bound on A:
// fp64 tensor cores with an 8-column tile, also for fp32-kernel=fp64; FFMA
// where the chip has no fast fp64 tensor cores; a dynamic N keeps the
// default.
// CHECK-LABEL: func.func @matvec
// CHECK: {config = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [64, 8, 64, 16, 8, 4], min_blocks_per_sm = 1, precision = "fp64">}
// CHECK: strategy = "wgmma_tma"
// REPORT: remark: matmul kernel: mma in fp64 (N of at most 8: memory-bound on A, fp64 tensor cores with an 8-column tile)
// FP64-LABEL: func.func @matvec
// FP64: tile = [64, 8, 64, 16, 8, 4]
// SM80-LABEL: func.func @matvec
// SM80: strategy = "ffma"
func.func @matvec(%a: tensor<?x64xf32>, %w: tensor<1x64xf32>, %v: tensor<?x64xf32>) -> (tensor<?x1xf32>, tensor<?x?xf32>) {
  // expected-error@below {{tile-sizes must list 3 values (M, N, K) or 5 (M, N, K, thread M, thread N), got 2}}
  %r = fuser.matmul %a, %w transpose_b epilogue_maps [] : tensor<?x64xf32>, tensor<1x64xf32> -> tensor<?x1xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-error@below {{tile-sizes must list 3 values (M, N, K) or 5 (M, N, K, thread M, thread N), got 2}}
  %s = fuser.matmul %a, %v transpose_b epilogue_maps [] : tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x?xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r, %s : tensor<?x1xf32>, tensor<?x?xf32>
}
