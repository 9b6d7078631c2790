// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu="chip=sm_120" -verify-diagnostics
// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=HOPPER
// RUN: not fuser-opt %s --fuser-matmul-to-gpu="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=BADCHIP

// The tensor-core kernels' stages must fit the chip's shared memory (the
// chip table's per-block limit): the fp64 tile of 128 x 128 x 32 in 4
// stages takes 160 KiB, which an H100 has (227 KiB) and an RTX 50xx (99
// KiB) does not.
// HOPPER-LABEL: func.func @fp64_tile
// HOPPER: gpu.launch_func
// BADCHIP: error: unsupported chip 'sm_75'; supported: sm_80,
func.func @fp64_tile(%a: tensor<256x64xf32>, %b: tensor<256x64xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{mma tile [128, 128, 32, 64, 32, 4] needs 163840 bytes of shared memory; a block may have 101376}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [256, 1, 1], tile = [128, 128, 32, 64, 32, 4], precision = "fp64">}
         : tensor<256x64xf32>, tensor<256x64xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<256x256xf32>
}
