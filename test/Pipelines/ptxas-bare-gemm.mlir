// REQUIRES: ptxas
// Bare x * W^T on 3xtf32 wgmma_tma assembles for sm_90a with no spills: its
// loop counts are read after setmaxnreg in each role, constants for static
// sizes, else the host's parameters (counted once before setmaxnreg, ptxas
// spilled 8 bytes of them). The 1000 x 3000 x 1000 product takes the
// 128 x 96 wave tile. A biased product assembles without spills too.
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK-LABEL: .entry square_matmul(
// CHECK: setmaxnreg.inc.sync.aligned.u32 224;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-LABEL: .entry linear_odd_matmul(
// CHECK: wgmma.mma_async.sync.aligned.m64n96k8.f32.tf32.tf32
// CHECK-LABEL: .entry biased_matmul(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32

// NOSPILL-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: bytes spill stores

func.func @square(%x: tensor<4096x4096xf32>, %w: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4096x4096xf32>
}

func.func @linear_odd(%x: tensor<1000x1000xf32>, %w: tensor<3000x1000xf32>) -> tensor<1000x3000xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1000x1000xf32>, tensor<3000x1000xf32> -> tensor<1000x3000xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1000x3000xf32>
}

func.func @biased(%x: tensor<?x512xf32>, %w: tensor<256x512xf32>, %b: tensor<256xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<256xf32>) epilogue_maps [affine_map<(d0, d1) -> (d1)>] : tensor<?x512xf32>, tensor<256x512xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x256xf32>
}
