// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-simplify-group-bodies{fold-scales=true}))" | FileCheck %s
// By default only the always-exact x + x rewrite runs.
// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-simplify-group-bodies))" | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @add_self
// DEFAULT: arith.mulf %{{.+}}, %{{.+}} : f32
// DEFAULT-NOT: arith.addf %[[X:.+]], %[[X]]

// x + x becomes x * 2.0 in a matmul epilogue and in a pointwise body; x + y
// and ops outside fusion groups are left alone.
// CHECK-LABEL: func.func @add_self
// CHECK: %[[OUT:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: fuser.matmul
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[Y:.+]]: f32):
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[D:.+]] = arith.mulf %[[ACC]], %[[TWO]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[D]], %[[Y]] : f32
// CHECK-NEXT: fuser.yield %[[S]]
// CHECK: fuser.pointwise
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32):
// CHECK-NEXT: %[[TWO2:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[D2:.+]] = arith.mulf %[[A]], %[[TWO2]] fastmath<nnan> : f32
// CHECK-NEXT: fuser.yield %[[D2]]
func.func @add_self(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %y: tensor<8xf32>, %s: f32) -> (tensor<4x8xf32>, tensor<4x8xf32>, f32) {
  %out = arith.addf %s, %s : f32
  %r = fuser.matmul %a, %b epilogue_inputs(%y : tensor<8xf32>) epilogue_maps [affine_map<(d0, d1) -> (d1)>]
         : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32> {
  ^bb0(%acc: f32, %v: f32):
    %d = arith.addf %acc, %acc : f32
    %t = arith.addf %d, %v : f32
    fuser.yield %t : f32
  }
  %p = fuser.pointwise ins(%r : tensor<4x8xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4x8xf32> {
  ^bb0(%x: f32):
    %d = arith.addf %x, %x fastmath<nnan> : f32
    fuser.yield %d : f32
  }
  return %r, %p, %out : tensor<4x8xf32>, tensor<4x8xf32>, f32
}

// -----

// A scaling of a scaling folds when one factor is a power of two (up to
// sign) and the product of the constants is exact, in either operand order.
// CHECK-LABEL: func.func @fold_scales
// CHECK: ^bb0(%[[ACC:.+]]: f32):
// CHECK-DAG: %[[C6:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[M6:.+]] = arith.mulf %[[ACC]], %[[C6]] : f32
// CHECK-DAG: %[[CN:.+]] = arith.constant -7.500000e-01 : f32
// CHECK-DAG: %[[MN:.+]] = arith.mulf %[[ACC]], %[[CN]] : f32
// CHECK: %[[S:.+]] = arith.addf %[[M6]], %[[MN]] : f32
// CHECK-NEXT: fuser.yield %[[S]]
// Off by default: the four multiplies stay.
// DEFAULT-LABEL: func.func @fold_scales
// DEFAULT-COUNT-4: arith.mulf
// DEFAULT: arith.addf
func.func @fold_scales(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32> {
  ^bb0(%acc: f32):
    %c3 = arith.constant 3.0 : f32
    %c2 = arith.constant 2.0 : f32
    %m1 = arith.mulf %acc, %c3 : f32
    %m2 = arith.mulf %c2, %m1 : f32
    // 0.75 is not a power of two, but -1.0 is.
    %c075 = arith.constant 0.75 : f32
    %cm1 = arith.constant -1.0 : f32
    %m3 = arith.mulf %acc, %c075 : f32
    %m4 = arith.mulf %m3, %cm1 : f32
    %s = arith.addf %m2, %m4 : f32
    fuser.yield %s : f32
  }
  return %r : tensor<4x8xf32>
}

// -----

// Rewrites that would change results are not applied: neither 3.0 nor 5.0 is
// a power of two ((x * 3) * 5 and x * 15 round differently); 3e38 * 2.0
// overflows; 2^-149 * 0.5 underflows. An inner scaling with another user
// (x * 2.0 below, also read by the cmpf) is kept as it is.
// CHECK-LABEL: func.func @no_fold
// CHECK: ^bb0(%[[X:.+]]: f32):
// CHECK: %[[A:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK-NEXT: %[[B:.+]] = arith.mulf %[[A]], %{{.+}} : f32
// CHECK-NEXT: %[[C:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK-NEXT: %[[D:.+]] = arith.mulf %[[C]], %{{.+}} : f32
// CHECK-NEXT: %[[E:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK-NEXT: %[[F:.+]] = arith.mulf %[[E]], %{{.+}} : f32
// CHECK-NEXT: %[[G:.+]] = arith.addf %[[B]], %[[D]] : f32
// CHECK-NEXT: %[[H:.+]] = arith.addf %[[G]], %[[F]] : f32
// CHECK-NEXT: %[[I:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK-NEXT: %[[J:.+]] = arith.mulf %[[I]], %{{.+}} : f32
// CHECK-NEXT: %[[K:.+]] = arith.cmpf ugt, %[[I]], %{{.+}} : f32
// CHECK-NEXT: %[[L:.+]] = arith.select %[[K]], %[[H]], %[[J]] : f32
// CHECK-NEXT: fuser.yield %[[L]]
func.func @no_fold(%x: tensor<16xf32>) -> tensor<16xf32> {
  %r = fuser.pointwise ins(%x : tensor<16xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<16xf32> {
  ^bb0(%v: f32):
    %c3 = arith.constant 3.0 : f32
    %c5 = arith.constant 5.0 : f32
    %big = arith.constant 3.0e38 : f32
    %c2 = arith.constant 2.0 : f32
    %tiny = arith.constant 1.40129846e-45 : f32
    %half = arith.constant 0.5 : f32
    %p1 = arith.constant 0.1 : f32
    %a = arith.mulf %v, %c3 : f32
    %b = arith.mulf %a, %c5 : f32
    %c = arith.mulf %v, %big : f32
    %d = arith.mulf %c, %c2 : f32
    %e = arith.mulf %v, %tiny : f32
    %f = arith.mulf %e, %half : f32
    %g = arith.addf %b, %d : f32
    %h = arith.addf %g, %f : f32
    %i = arith.mulf %v, %c2 : f32
    %j = arith.mulf %i, %p1 : f32
    %k = arith.cmpf ugt, %i, %p1 : f32
    %l = arith.select %k, %h, %j : f32
    fuser.yield %l : f32
  }
  return %r : tensor<16xf32>
}

// -----

// Constant inputs become immediates: a 0-d constant read through a map with
// no results (torch-mlir's leaky_relu slope), a splat tensor constant read
// through a broadcast, and a scalar constant input leave the inputs and
// their maps; the body gets an arith.constant instead. Real data (a
// non-splat constant, an argument, a 0-d argument) stays an input.
// CHECK-LABEL: func.func @pointwise_constant_inputs
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x3xf32>, %[[S:[^:]+]]: tensor<f32>)
// CHECK-NOT: arith.constant
// CHECK: %[[W:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: fuser.pointwise ins(%[[X]], %[[W]], %[[S]] : tensor<4x3xf32>, tensor<3xf32>, tensor<f32>)
// CHECK-SAME: maps [#{{.+}}, #{{.+}}, #{{.+}}] -> tensor<4x3xf32>
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[WA:.+]]: f32, %[[SA:.+]]: f32):
// CHECK-DAG: %[[SLOPE:.+]] = arith.constant 0.00999999977 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[TWO:.+]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[MAX:.+]] = arith.maximumf %[[A]], %[[ZERO]] : f32
// CHECK: %[[MIN:.+]] = arith.minimumf %[[A]], %[[ZERO]] : f32
// CHECK: %[[NEG:.+]] = arith.mulf %[[MIN]], %[[SLOPE]] : f32
// CHECK: %[[Y:.+]] = arith.addf %[[MAX]], %[[NEG]] : f32
// CHECK: %[[P:.+]] = arith.mulf %[[Y]], %[[TWO]] : f32
// CHECK: %[[Q:.+]] = arith.mulf %[[P]], %[[WA]] : f32
// CHECK: %[[R:.+]] = arith.addf %[[Q]], %[[SA]] : f32
// CHECK: fuser.yield %[[R]]
func.func @pointwise_constant_inputs(%x: tensor<4x3xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %slope = arith.constant dense<0.01> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<4x3xf32>
  %two = arith.constant 2.5 : f32
  %w = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = fuser.pointwise ins(%x, %slope, %zero, %two, %w, %s
                           : tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>, f32, tensor<3xf32>, tensor<f32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>,
               affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>,
               affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>] -> tensor<4x3xf32> {
  ^bb0(%a: f32, %sl: f32, %z: f32, %t: f32, %wa: f32, %sa: f32):
    %max = arith.maximumf %a, %z : f32
    %min = arith.minimumf %a, %z : f32
    %neg = arith.mulf %min, %sl : f32
    %y = arith.addf %max, %neg : f32
    %p = arith.mulf %y, %t : f32
    %q = arith.mulf %p, %wa : f32
    %r = arith.addf %q, %sa : f32
    fuser.yield %r : f32
  }
  return %r : tensor<4x3xf32>
}

// -----

// A group whose every input is constant keeps no input at all (static
// shape); an unused constant input just goes.
// CHECK-LABEL: func.func @pointwise_all_constant
// CHECK-NOT: arith.constant
// CHECK: fuser.pointwise maps [] -> tensor<2x2xf64> {
// CHECK-NEXT: %[[C:.+]] = arith.constant 1.500000e+00 : f64
// CHECK-NEXT: %[[D:.+]] = arith.negf %[[C]] : f64
func.func @pointwise_all_constant() -> tensor<2x2xf64> {
  %c = arith.constant dense<1.5> : tensor<f64>
  %u = arith.constant dense<7.0> : tensor<2x2xf32>
  %r = fuser.pointwise ins(%c, %u : tensor<f64>, tensor<2x2xf32>)
         maps [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>] -> tensor<2x2xf64> {
  ^bb0(%a: f64, %b: f32):
    %d = arith.negf %a : f64
    fuser.yield %d : f64
  }
  return %r : tensor<2x2xf64>
}

// -----

// A 0-d constant scale read by a matmul epilogue becomes an immediate, and
// with fold-scales it then combines with the constant after it.
// CHECK-LABEL: func.func @matmul_constant_inputs
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4x16xf32>, %[[B:[^:]+]]: tensor<16x8xf32>, %[[BIAS:[^:]+]]: tensor<8xf32>)
// CHECK-NOT: arith.constant
// CHECK: fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[BIAS]] : tensor<8xf32>) epilogue_maps [#{{.+}}]
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BA:.+]]: f32):
// CHECK: %[[C6:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[ACC]], %[[C6]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[M]], %[[BA]] : f32
// CHECK-NEXT: fuser.yield %[[S]]
func.func @matmul_constant_inputs(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %three = arith.constant dense<3.0> : tensor<f32>
  %r = fuser.matmul %a, %b epilogue_inputs(%three, %bias : tensor<f32>, tensor<8xf32>)
         epilogue_maps [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d1)>]
         : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32> {
  ^bb0(%acc: f32, %t: f32, %bv: f32):
    %m = arith.mulf %acc, %t : f32
    %two = arith.constant 2.0 : f32
    %m2 = arith.mulf %m, %two : f32
    %s = arith.addf %m2, %bv : f32
    fuser.yield %s : f32
  }
  return %r : tensor<4x8xf32>
}

// -----

// With a group norm in the epilogue both regions receive every input: a
// splat gamma, beta and a 0-d slope become immediates in the epilogue and in
// the `then` region alike.
// CHECK-LABEL: func.func @matmul_group_norm_constant_inputs
// CHECK-SAME: %[[BIAS:[^:]+]]: tensor<64xf32>)
// CHECK-NOT: arith.constant
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%[[BIAS]] : tensor<64xf32>)
// CHECK-SAME: group_norm(size = 16, eps = 1.000000e-05)
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[B:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK-NEXT: fuser.yield %[[S]]
// CHECK-NEXT: } then {
// CHECK-NEXT: ^bb0(%[[XH:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[SL:.+]] = arith.constant 2.000000e-01 : f32
// CHECK-DAG: %[[BE:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[GA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[M:.+]] = arith.mulf %[[XH]], %[[GA]] : f32
// CHECK-NEXT: %[[AF:.+]] = arith.addf %[[M]], %[[BE]] : f32
// CHECK-NEXT: %[[L:.+]] = arith.mulf %[[AF]], %[[SL]] : f32
// CHECK-NEXT: fuser.yield %[[L]]
func.func @matmul_group_norm_constant_inputs(%x: tensor<?x32xf32>, %w: tensor<64x32xf32>, %bias: tensor<64xf32>) -> tensor<?x64xf32> {
  %gamma = arith.constant dense<1.0> : tensor<64xf32>
  %beta = arith.constant dense<0.5> : tensor<64xf32>
  %slope = arith.constant dense<0.2> : tensor<f32>
  %r = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%bias, %gamma, %beta, %slope : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>)
         epilogue_maps [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>]
         group_norm(size = 16, eps = 1.0e-05)
         : tensor<?x32xf32>, tensor<64x32xf32> -> tensor<?x64xf32> {
  ^bb0(%acc: f32, %b: f32, %g: f32, %be: f32, %sl: f32):
    %s = arith.addf %acc, %b : f32
    fuser.yield %s : f32
  } then {
  ^bb0(%xh: f32, %b: f32, %g: f32, %be: f32, %sl: f32):
    %m = arith.mulf %xh, %g : f32
    %a = arith.addf %m, %be : f32
    %l = arith.mulf %a, %sl : f32
    fuser.yield %l : f32
  }
  return %r : tensor<?x64xf32>
}

// -----

// A group norm's epilogue inputs fold too; gamma and beta, operands of the
// op itself, stay.
// CHECK-LABEL: func.func @group_norm_constant_inputs
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8x4xf32>, %[[G:[^:]+]]: tensor<8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK-NOT: arith.constant
// CHECK: fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 2 eps = 1.000000e-05 epilogue_maps []
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[C:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[LO:.+]] = arith.maximumf %[[V]], %[[Z]] : f32
// CHECK-NEXT: %[[HI:.+]] = arith.minimumf %[[LO]], %[[C]] : f32
// CHECK-NEXT: fuser.yield %[[HI]]
func.func @group_norm_constant_inputs(%x: tensor<?x8x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8x4xf32> {
  %lo = arith.constant dense<0.0> : tensor<f32>
  %hi = arith.constant dense<6.0> : tensor<f32>
  %r = fuser.group_norm %x, %g, %b groups = 2 eps = 1.0e-05
         epilogue_inputs(%lo, %hi : tensor<f32>, tensor<f32>)
         epilogue_maps [affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> ()>]
         : tensor<?x8x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x4xf32> {
  ^bb0(%v: f32, %l: f32, %h: f32):
    %a = arith.maximumf %v, %l : f32
    %c = arith.minimumf %a, %h : f32
    fuser.yield %c : f32
  }
  return %r : tensor<?x8x4xf32>
}

// -----

// So do a group norm gradient's prologue inputs (its first block argument
// is prologue input #0).
// CHECK-LABEL: func.func @group_norm_grad_constant_inputs
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8xf32>, %[[G:[^:]+]]: tensor<8xf32>, %[[D:[^:]+]]: tensor<?x8xf32>)
// CHECK-NOT: arith.constant
// CHECK: fuser.group_norm_grad %[[X]], %[[G]] groups = 2 eps = 1.000000e-05 prologue_inputs(%[[D]] : tensor<?x8xf32>) prologue_maps [#{{.+}}]
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[V]], %[[S]] : f32
// CHECK-NEXT: fuser.yield %[[M]]
func.func @group_norm_grad_constant_inputs(%x: tensor<?x8xf32>, %g: tensor<8xf32>, %d: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%d, %s : tensor<?x8xf32>, tensor<f32>)
      prologue_maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>]
      : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>, tensor<?x2xf32>, tensor<?x2xf32> {
  ^bb0(%v: f32, %sv: f32):
    %p = arith.mulf %v, %sv : f32
    fuser.yield %p : f32
  }
  return %dx : tensor<?x8xf32>
}

// -----

// A splat input that alone reads a dynamic result dimension gives its size,
// so it stays; when another input reads that dimension too, it folds.
// CHECK-LABEL: func.func @constant_gives_dynamic_size
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?xf32>)
// CHECK: %[[C:.+]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: fuser.pointwise ins(%[[C]] : tensor<4xf32>) maps [#{{.+}}] -> tensor<?xf32>
// CHECK: fuser.pointwise ins(%[[X]] : tensor<?xf32>) maps [#{{.+}}] -> tensor<?xf32>
// CHECK-NEXT: ^bb0(%[[XA:.+]]: f32):
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.subf %[[XA]], %[[ONE]] : f32
func.func @constant_gives_dynamic_size(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %a = fuser.pointwise ins(%c : tensor<4xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<?xf32> {
  ^bb0(%v: f32):
    %n = arith.negf %v : f32
    fuser.yield %n : f32
  }
  %b = fuser.pointwise ins(%x, %c : tensor<?xf32>, tensor<4xf32>)
         maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] -> tensor<?xf32> {
  ^bb0(%v: f32, %w: f32):
    %s = arith.subf %v, %w : f32
    fuser.yield %s : f32
  }
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// -----

// torch-mlir's leaky_relu(x, 0.1): max(0, x) + min(0, x) * truncf(0.1 : f64)
// becomes one select (by default too). A negative slope (-0.5) is left
// alone: there x = -0.0 gives -0 + +0 = +0 where the select would give -0.
// DEFAULT-LABEL: func.func @leaky_relu_torch_form
// DEFAULT: arith.cmpf olt
// DEFAULT-LABEL: func.func @leaky_relu_negative_slope
// CHECK-LABEL: func.func @leaky_relu_torch_form
// CHECK: fuser.pointwise
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32):
// CHECK-DAG: %[[S64:.+]] = arith.constant 1.000000e-01 : f64
// CHECK-DAG: %[[S:.+]] = arith.truncf %[[S64]] : f64 to f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[NEG:.+]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK: %[[XS:.+]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK: %[[KEPT:.+]] = arith.addf %[[XS]], %[[ZERO]] : f32
// CHECK: %[[R:.+]] = arith.select %[[NEG]], %[[KEPT]], %[[X]] : f32
// CHECK-NEXT: fuser.yield %[[R]]
func.func @leaky_relu_torch_form(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = fuser.pointwise ins(%x : tensor<4x8xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %z = arith.constant 0.0 : f32
    %s64 = arith.constant 0.1 : f64
    %s = arith.truncf %s64 : f64 to f32
    %gt = arith.cmpf ogt, %z, %v : f32
    %max = arith.select %gt, %z, %v : f32
    %lt = arith.cmpf olt, %z, %v : f32
    %min = arith.select %lt, %z, %v : f32
    %neg = arith.mulf %min, %s : f32
    %sum = arith.addf %max, %neg : f32
    fuser.yield %sum : f32
  }
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @leaky_relu_negative_slope
// CHECK: arith.select
// CHECK: arith.select
// CHECK: arith.addf
// A slope truncated with its own rounding mode is not folded: left alone.
// CHECK-LABEL: func.func @leaky_relu_rounded_slope
// CHECK: arith.truncf %{{.+}} upward
// CHECK: arith.select
// CHECK: arith.select
func.func @leaky_relu_negative_slope(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = fuser.pointwise ins(%x : tensor<4x8xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.constant -0.5 : f32
    %gt = arith.cmpf ogt, %z, %v : f32
    %max = arith.select %gt, %z, %v : f32
    %lt = arith.cmpf olt, %z, %v : f32
    %min = arith.select %lt, %z, %v : f32
    %neg = arith.mulf %min, %s : f32
    %sum = arith.addf %max, %neg : f32
    fuser.yield %sum : f32
  }
  return %r : tensor<4x8xf32>
}

func.func @leaky_relu_rounded_slope(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = fuser.pointwise ins(%x : tensor<4x8xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    %z = arith.constant 0.0 : f32
    %s64 = arith.constant 0.1 : f64
    %s = arith.truncf %s64 upward : f64 to f32
    %gt = arith.cmpf ogt, %z, %v : f32
    %max = arith.select %gt, %z, %v : f32
    %lt = arith.cmpf olt, %z, %v : f32
    %min = arith.select %lt, %z, %v : f32
    %neg = arith.mulf %min, %s : f32
    %sum = arith.addf %max, %neg : f32
    fuser.yield %sum : f32
  }
  return %r : tensor<4x8xf32>
}
