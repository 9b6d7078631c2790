// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

#cfg = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [256, 128, 8, 16, 8], min_blocks_per_sm = 1>
#col = affine_map<(d0, d1) -> (d1)>

// Groups of 16 columns: 4 lanes hold a group, so each of a thread's 32
// four-wide pieces takes two butterfly sums of 2 shuffles (xor 1, xor 2):
// the mean, then the squared deviations. One rsqrt per piece, then the
// `then` region, then the single store.
// CHECK-LABEL: gpu.func @linear_group_norm_matmul
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: arith.constant 6.250000e-02 : f32
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: vector.reduction <add>
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.rsqrt %{{.+}} : f32
// CHECK: gpu.return
func.func @linear_group_norm(%x: tensor<?x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>,
                             %g: tensor<64xf32>, %be: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b, %g, %be : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
         epilogue_maps [#col, #col, #col] group_norm(size = 16, eps = 1.0e-05) {config = #cfg}
         : tensor<?x32xf32>, tensor<64x32xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32, %bias: f32, %ga: f32, %bb: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  } then {
  ^bb0(%v: f32, %bias: f32, %ga: f32, %bb: f32):
    %m = arith.mulf %v, %ga : f32
    %a = arith.addf %m, %bb : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

// A thread row of this tile holds 32 columns per piece group (8 threads of
// 4): a group of 64 would span two thread rows.
#cfg = #fuser.config<strategy = "ffma", block = [128, 1, 1], tile = [128, 64, 8, 8, 8], min_blocks_per_sm = 1>
func.func @group_wider_than_the_tile(%x: tensor<?x32xf32>, %w: tensor<32x128xf32>) -> tensor<?x128xf32> {
  // expected-error @+1 {{group_norm(size = 64) does not fit tile [128, 64, 8, 8, 8]: a group must be whole 4-wide pieces of one thread row's 32 columns}}
  %y = fuser.matmul %x, %w epilogue_maps [] group_norm(size = 64, eps = 1.0e-05) {config = #cfg}
         : tensor<?x32xf32>, tensor<32x128xf32> -> tensor<?x128xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x128xf32>
}
