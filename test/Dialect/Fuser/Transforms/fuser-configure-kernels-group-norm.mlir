// RUN: fuser-opt %s --fuser-configure-kernels="precision=tf32" -verify-diagnostics | FileCheck %s

// A matmul with a group-norm epilogue stays on the fp32 FFMA kernel under a
// tensor-core precision (that kernel alone normalizes in its epilogue), with
// a remark; a plain matmul beside it gets the tensor-core configuration.
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @mixed
// CHECK: fuser.matmul {{.+}} group_norm(size = 16, eps = 1.000000e-05) {config = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [256, 128, 8, 16, 8], min_blocks_per_sm = 1>}
// CHECK: fuser.matmul {{.+}} {config = #fuser.config<strategy = "mma", {{.+}}, precision = "tf32">}
func.func @mixed(%x: tensor<?x32xf32>, %w: tensor<64x32xf32>, %g: tensor<64xf32>,
                 %be: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  // expected-remark @+1 {{precision tf32 not applied: the group-norm epilogue runs on the fp32 FFMA kernel}}
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
