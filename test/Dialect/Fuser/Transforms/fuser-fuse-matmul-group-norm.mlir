// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul-group-norm{report=true}))" -verify-diagnostics | FileCheck %s
// Constant gamma and beta (GroupNorm(affine=False)) become immediates after
// fuser-simplify-group-bodies.
// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul-group-norm{report=true},fuser-simplify-group-bodies))" -verify-diagnostics | FileCheck %s --check-prefix=SIMPLIFY

#col = affine_map<(d0, d1) -> (d1)>

// W3's shape in small: matmul + bias, then 4 groups of 16 with an epilogue.
// One fuser.matmul: the bias stays in the epilogue, gamma and beta join the
// inputs, and the `then` region applies the affine and then the group norm's
// epilogue (x * 2 here).
// CHECK-LABEL: func.func @fits
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[W:.+]]: tensor<64x8xf32>, %[[B:.+]]: tensor<64xf32>, %[[G:.+]]: tensor<64xf32>, %[[BE:.+]]: tensor<64xf32>)
// CHECK-NOT: fuser.group_norm
// CHECK: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]], %[[G]], %[[BE]] : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) epilogue_maps [#{{.+}}, #{{.+}}, #{{.+}}] group_norm(size = 16, eps = 1.000000e-05) : tensor<?x8xf32>, tensor<64x8xf32> -> tensor<?x64xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
// CHECK-NEXT: fuser.yield %[[S]] : f32
// CHECK-NEXT: } then {
// CHECK-NEXT: ^bb0(%[[XH:.+]]: f32, %{{.+}}: f32, %[[GA:.+]]: f32, %[[BA:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[XH]], %[[GA]] : f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[M]], %[[BA]] : f32
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[D:.+]] = arith.mulf %[[A]], %[[TWO]] : f32
// CHECK-NEXT: fuser.yield %[[D]] : f32
// CHECK: return %[[R]]
func.func @fits(%x: tensor<?x8xf32>, %w: tensor<64x8xf32>, %b: tensor<64xf32>,
                %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<?x64xf32> {
  %h = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<64xf32>)
         epilogue_maps [#col] : tensor<?x8xf32>, tensor<64x8xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  // expected-remark @+1 {{group norm (groups of 16 channels) fused into the GEMM epilogue: one kernel}}
  %y = fuser.group_norm %h, %gamma, %beta groups = 4 eps = 1.0e-05 epilogue_maps []
         : tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64xf32> {
  ^bb0(%v: f32):
    %two = arith.constant 2.0 : f32
    %d = arith.mulf %v, %two : f32
    fuser.yield %d : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

#col = affine_map<(d0, d1) -> (d1)>
#rowv = affine_map<(d0, d1) -> (d0)>

// The group norm's own epilogue inputs (a per-row scale) follow gamma and
// beta; groups of 4 channels (the smallest that fit) with no transpose.
// CHECK-LABEL: func.func @epilogue_inputs_and_groups_of_4
// CHECK-SAME: %[[S:[^:]+]]: tensor<?xf32>)
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_inputs(%{{.+}}, %{{.+}}, %[[S]] : tensor<32xf32>, tensor<32xf32>, tensor<?xf32>) epilogue_maps [#{{.+}}, #{{.+}}, #{{.+}}] group_norm(size = 4, eps = 1.000000e-03)
// CHECK: } then {
// CHECK-NEXT: ^bb0(%[[XH:.+]]: f32, %[[GA:.+]]: f32, %[[BA:.+]]: f32, %[[SC:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[XH]], %[[GA]] : f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[M]], %[[BA]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[A]], %[[SC]] : f32
// CHECK-NEXT: fuser.yield %[[R]] : f32
func.func @epilogue_inputs_and_groups_of_4(%x: tensor<?x8xf32>, %w: tensor<8x32xf32>,
    %gamma: tensor<32xf32>, %beta: tensor<32xf32>, %s: tensor<?xf32>) -> tensor<?x32xf32> {
  %h = fuser.matmul %x, %w epilogue_maps [] : tensor<?x8xf32>, tensor<8x32xf32> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+1 {{group norm (groups of 4 channels) fused into the GEMM epilogue: one kernel}}
  %y = fuser.group_norm %h, %gamma, %beta groups = 8 eps = 1.0e-03
         epilogue_inputs(%s : tensor<?xf32>) epilogue_maps [#rowv]
         : tensor<?x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<?x32xf32> {
  ^bb0(%v: f32, %sc: f32):
    %r = arith.mulf %v, %sc : f32
    fuser.yield %r : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// Near misses: each stays a GEMM kernel and a group-norm kernel.

// CHECK-LABEL: func.func @too_wide
// CHECK: fuser.matmul
// CHECK: fuser.group_norm
func.func @too_wide(%x: tensor<?x8xf32>, %w: tensor<8x128xf32>, %g: tensor<128xf32>,
                    %be: tensor<128xf32>) -> tensor<?x128xf32> {
  %h = fuser.matmul %x, %w epilogue_maps [] : tensor<?x8xf32>, tensor<8x128xf32> -> tensor<?x128xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+1 {{group norm planned as its own kernel after the GEMM: a group of 128 channels does not fit the GEMM epilogue, which holds 64 columns per thread row in 4-wide pieces (the group size must be a multiple of 4 dividing 64)}}
  %y = fuser.group_norm %h, %g, %be groups = 1 eps = 1.0e-05 epilogue_maps []
         : tensor<?x128xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<?x128xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x128xf32>
}

// CHECK-LABEL: func.func @one_channel_groups
// CHECK: fuser.group_norm
func.func @one_channel_groups(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %g: tensor<16xf32>,
                              %be: tensor<16xf32>) -> tensor<?x16xf32> {
  %h = fuser.matmul %x, %w epilogue_maps [] : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<?x16xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+1 {{a group of 1 channels does not fit the GEMM epilogue}}
  %y = fuser.group_norm %h, %g, %be groups = 16 eps = 1.0e-05 epilogue_maps []
         : tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<?x16xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @not_dividing_the_span
// CHECK: fuser.group_norm
func.func @not_dividing_the_span(%x: tensor<?x8xf32>, %w: tensor<8x48xf32>, %g: tensor<48xf32>,
                                 %be: tensor<48xf32>) -> tensor<?x48xf32> {
  %h = fuser.matmul %x, %w epilogue_maps [] : tensor<?x8xf32>, tensor<8x48xf32> -> tensor<?x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+1 {{a group of 12 channels does not fit the GEMM epilogue}}
  %y = fuser.group_norm %h, %g, %be groups = 4 eps = 1.0e-05 epilogue_maps []
         : tensor<?x48xf32>, tensor<48xf32>, tensor<48xf32> -> tensor<?x48xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x48xf32>
}

// The pre-norm values are also returned, so they must be stored anyway.
// CHECK-LABEL: func.func @matmul_has_other_users
// CHECK: %[[H:.+]] = fuser.matmul
// CHECK: fuser.group_norm %[[H]]
func.func @matmul_has_other_users(%x: tensor<?x8xf32>, %w: tensor<8x64xf32>, %g: tensor<64xf32>,
    %be: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %h = fuser.matmul %x, %w epilogue_maps [] : tensor<?x8xf32>, tensor<8x64xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+1 {{the matmul result has other users, so it must be stored}}
  %y = fuser.group_norm %h, %g, %be groups = 4 eps = 1.0e-05 epilogue_maps []
         : tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %h, %y : tensor<?x64xf32>, tensor<?x64xf32>
}

// A group norm of a function argument has no matmul to join: no remark.
// CHECK-LABEL: func.func @no_matmul
// CHECK: fuser.group_norm
func.func @no_matmul(%h: tensor<?x64xf32>, %g: tensor<64xf32>, %be: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = fuser.group_norm %h, %g, %be groups = 4 eps = 1.0e-05 epilogue_maps []
         : tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

#col = affine_map<(d0, d1) -> (d1)>

// GroupNorm(affine=False) as fuser-fuse-group-norm forms it: gamma = 1 and
// beta = 0 as splat constants. They join the epilogue inputs like any
// gamma and beta; fuser-simplify-group-bodies then makes them immediates,
// so the kernel reads only the bias.
// CHECK-LABEL: func.func @constant_affine
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}}, %[[ONE]], %[[ZERO]] : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {{.+}} group_norm(size = 16, eps = 1.000000e-05)
// SIMPLIFY-LABEL: func.func @constant_affine
// SIMPLIFY-SAME: %[[B:[^:]+]]: tensor<64xf32>)
// SIMPLIFY-NOT: dense<
// SIMPLIFY: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%[[B]] : tensor<64xf32>) epilogue_maps [#{{.+}}] group_norm(size = 16, eps = 1.000000e-05)
// SIMPLIFY-NOT: dense<
func.func @constant_affine(%x: tensor<?x8xf32>, %w: tensor<64x8xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %h = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<64xf32>)
         epilogue_maps [#col] : tensor<?x8xf32>, tensor<64x8xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  // expected-remark @+1 {{group norm (groups of 16 channels) fused into the GEMM epilogue: one kernel}}
  %y = fuser.group_norm %h, %one, %zero groups = 4 eps = 1.0e-05 epilogue_maps []
         : tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x64xf32>
}
