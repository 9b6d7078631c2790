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
