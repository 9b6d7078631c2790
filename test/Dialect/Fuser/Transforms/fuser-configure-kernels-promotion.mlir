// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="promote-every=32" | FileCheck %s --check-prefix=FORCED

// 3xtf32's promotion interval follows K (GemmStrategy.cpp's
// wgmmaTmaPromoteEvery): cuBLAS SGEMM's error, the bar, grows with K and
// the promoted sums' does not, so from K = 4096 the tensor-core sums are
// promoted every 128 K, below it every 64. promote-every overrides both.

// CHECK-LABEL: func.func @k2048
// CHECK: precision = "3xtf32", promote_every = 64>
// FORCED-LABEL: func.func @k2048
// FORCED: promote_every = 32>
func.func @k2048(%x: tensor<?x2048xf32>, %w: tensor<256x2048xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x2048xf32>, tensor<256x2048xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

// CHECK-LABEL: func.func @k4096
// CHECK: precision = "3xtf32", promote_every = 128>
// FORCED-LABEL: func.func @k4096
// FORCED: promote_every = 32>
func.func @k4096(%x: tensor<?x4096xf32>, %w: tensor<256x4096xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x4096xf32>, tensor<256x4096xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

// A batched product: K is the per-batch K (torch.bmm 32 x 1024^3).
// CHECK-LABEL: func.func @bmm
// CHECK: precision = "3xtf32", promote_every = 64>
func.func @bmm(%x: tensor<32x1024x1024xf32>, %w: tensor<32x1024x1024xf32>) -> tensor<32x1024x1024xf32> {
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<32x1024x1024xf32>, tensor<32x1024x1024xf32> -> tensor<32x1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<32x1024x1024xf32>
}
