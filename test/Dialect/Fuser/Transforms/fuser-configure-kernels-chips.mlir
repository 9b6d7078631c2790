// The configuration step refuses chips fuser does not support, and kernels
// the chip cannot run (instead of PTX that ptxas rejects later).
// RUN: fuser-opt %s --fuser-configure-kernels="chip=sm_999" -verify-diagnostics -o /dev/null
// RUN: not fuser-opt %s --fuser-configure-kernels="chip=sm_80 fp32-kernel=fp64" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FP64
// RUN: not fuser-opt %s --fuser-configure-kernels="chip=sm_90 precision=tf32 tensor-core-kernel=wgmma" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WGMMA
// RUN: not fuser-opt %s --fuser-configure-kernels="chip=sm_100a tensor-core-kernel=wgmma-tma" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TMA
// Per chip, the defaults: fp32 matmuls on fp64 tensor cores only on Hopper;
// tf32 on wgmma only on sm_90a (mma.sync elsewhere).
// RUN: fuser-opt %s --fuser-configure-kernels="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: fuser-opt %s --fuser-configure-kernels="chip=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: fuser-opt %s --fuser-configure-kernels="chip=sm_100a precision=tf32" | FileCheck %s --check-prefix=SM100TF32
// RUN: fuser-opt %s --fuser-configure-kernels="chip=sm_90a precision=tf32" | FileCheck %s --check-prefix=SM90ATF32
// FP64: error: fp32-kernel=fp64 needs fp64 tensor cores with mma.sync m16n8k8 (sm_90 or newer); sm_80 has none: use fp32-kernel=auto or ffma
// WGMMA: error: tensor-core-kernel=wgmma needs wgmma.mma_async, which only sm_90a has; sm_90 gets mma.sync with tensor-core-kernel=auto or mma
// TMA: error: tensor-core-kernel=wgmma-tma needs wgmma.mma_async, which only sm_90a has; sm_100a gets mma.sync
// SM80: strategy = "ffma"
// SM90: strategy = "mma"{{.*}}precision = "fp64"
// SM100TF32: strategy = "mma"{{.*}}precision = "tf32"
// SM90ATF32: strategy = "wgmma_tma"{{.*}}precision = "tf32"

// expected-error @+1 {{unsupported chip 'sm_999'; supported: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100}}
module {
  func.func @linear(%x: tensor<256x512xf32>, %w: tensor<128x512xf32>) -> tensor<256x128xf32> {
    %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<256x512xf32>, tensor<128x512xf32> -> tensor<256x128xf32> {
    ^bb0(%acc: f32):
      fuser.yield %acc : f32
    }
    return %y : tensor<256x128xf32>
  }
}
