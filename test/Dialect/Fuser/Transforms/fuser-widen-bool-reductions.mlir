// RUN: fuser-opt %s -split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(fuser-widen-bool-reductions{report=true}))" \
// RUN:   | FileCheck %s

// sdpa's check for rows of -inf scores: an `all` of a comparison into a
// fill of true accumulates in i32 from a fill of 1, and is truncated.
// CHECK-LABEL: func.func @all_neg_inf
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ONE]] : i32) outs(%{{.+}} : tensor<4x1xi32>)
// CHECK: %[[W:.+]] = linalg.generic
// CHECK-SAME: ins(%{{.+}} : tensor<4x16xf32>) outs(%[[FILL]] : tensor<4x1xi32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: i32):
// CHECK: %[[C:.+]] = arith.cmpf oeq, %[[IN]]
// CHECK: %[[T:.+]] = arith.extui %[[C]] : i1 to i32
// CHECK: %[[A:.+]] = arith.andi %[[ACC]], %[[T]] : i32
// CHECK: linalg.yield %[[A]] : i32
// CHECK: %[[R:.+]] = linalg.generic
// CHECK-SAME: ins(%[[W]] : tensor<4x1xi32>) outs(%{{.+}} : tensor<4x1xi1>)
// CHECK: arith.trunci %{{.+}} : i32 to i1
// CHECK: return %[[R]]
func.func @all_neg_inf(%s: tensor<4x16xf32>) -> tensor<4x1xi1> {
  %ninf = arith.constant 0xFF800000 : f32
  %true = arith.constant true
  %e = tensor.empty() : tensor<4x1xi1>
  %f = linalg.fill ins(%true : i1) outs(%e : tensor<4x1xi1>) -> tensor<4x1xi1>
  // expected-remark @below {{i1 reduction accumulated in i32 for the reduction kernel}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x16xf32>) outs(%f : tensor<4x1xi1>) {
  ^bb0(%in: f32, %acc: i1):
    %c = arith.cmpf oeq, %in, %ninf : f32
    %a = arith.andi %c, %acc : i1
    linalg.yield %a : i1
  } -> tensor<4x1xi1>
  return %r : tensor<4x1xi1>
}

// -----

// An `any` of a mask into an init that is no fill: the init is extended by
// an elementwise generic.
// CHECK-LABEL: func.func @any_into_init
// CHECK-SAME: (%[[M:.+]]: tensor<4x16xi1>, %[[INIT:.+]]: tensor<4xi1>)
// CHECK: %[[WI:.+]] = linalg.generic
// CHECK-SAME: ins(%[[INIT]] : tensor<4xi1>)
// CHECK: arith.extui %{{.+}} : i1 to i32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[M]] : tensor<4x16xi1>) outs(%[[WI]] : tensor<4xi32>)
// CHECK: arith.ori %{{.+}}, %{{.+}} : i32
func.func @any_into_init(%m: tensor<4x16xi1>, %init: tensor<4xi1>) -> tensor<4xi1> {
  // expected-remark @below {{i1 reduction accumulated in i32}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x16xi1>) outs(%init : tensor<4xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %o = arith.ori %acc, %in : i1
    linalg.yield %o : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// A term defined outside the body (a constant canonicalization hoisted):
// the parity of the row length, extended where it is read.
// CHECK-LABEL: func.func @outside_term
// CHECK-SAME: (%[[M:.+]]: tensor<4x16xf32>, %[[INIT:.+]]: tensor<4xi1>)
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: linalg.generic
// CHECK: arith.extui %[[TRUE]] : i1 to i32
// CHECK: arith.xori %{{.+}}, %{{.+}} : i32
func.func @outside_term(%m: tensor<4x16xf32>, %init: tensor<4xi1>) -> tensor<4xi1> {
  %true = arith.constant true
  // expected-remark @below {{i1 reduction accumulated in i32}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x16xf32>) outs(%init : tensor<4xi1>) {
  ^bb0(%in: f32, %acc: i1):
    %x = arith.xori %acc, %true : i1
    linalg.yield %x : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// Left alone: an accumulator read twice, a combined value read again, and
// a reduction of bytes.
// CHECK-LABEL: func.func @left
// CHECK-NOT: i32
// CHECK: return
func.func @left(%m: tensor<4x16xi1>, %init: tensor<4xi1>, %b: tensor<4x16xi8>,
                %binit: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi8>) {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x16xi1>) outs(%init : tensor<4xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %x = arith.xori %acc, %in : i1
    %o = arith.ori %x, %acc : i1
    linalg.yield %o : i1
  } -> tensor<4xi1>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x16xi1>) outs(%init : tensor<4xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %a = arith.andi %acc, %in : i1
    %dead = arith.xori %a, %in : i1
    linalg.yield %a : i1
  } -> tensor<4xi1>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<4x16xi8>) outs(%binit : tensor<4xi8>) {
  ^bb0(%in: i8, %acc: i8):
    %o = arith.ori %acc, %in : i8
    linalg.yield %o : i8
  } -> tensor<4xi8>
  return %r, %s : tensor<4xi1>, tensor<4xi8>
}
