// RUN: fuser-opt %s -split-input-file --fuser-merge-sibling-reductions="report=true" -verify-diagnostics | FileCheck %s

// A triplet loss's distances: two row sums that both read the anchor %a
// become one reduction of three inputs (the anchor once) and two results,
// where the second stood; the mean after it reads both results.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @triplet
// CHECK-SAME: (%[[A:.+]]: tensor<8x16xf32>, %[[P:.+]]: tensor<8x16xf32>, %[[N:.+]]: tensor<8x16xf32>)
// CHECK: %[[R:.+]]:2 = linalg.generic {{.+}} ins(%[[A]], %[[P]], %[[N]] : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%[[Z:.+]], %[[Z]] : tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IA:.+]]: f32, %[[IP:.+]]: f32, %[[IN:.+]]: f32, %[[S1:.+]]: f32, %[[S2:.+]]: f32):
// CHECK-NEXT: %[[D1:.+]] = arith.subf %[[IA]], %[[IP]]
// CHECK-NEXT: %[[Q1:.+]] = arith.mulf %[[D1]], %[[D1]]
// CHECK-NEXT: %[[T1:.+]] = arith.addf %[[Q1]], %[[S1]]
// CHECK-NEXT: %[[D2:.+]] = arith.subf %[[IA]], %[[IN]]
// CHECK-NEXT: %[[Q2:.+]] = arith.mulf %[[D2]], %[[D2]]
// CHECK-NEXT: %[[T2:.+]] = arith.addf %[[Q2]], %[[S2]]
// CHECK-NEXT: linalg.yield %[[T1]], %[[T2]]
// CHECK: linalg.generic {{.+}} ins(%[[R]]#0, %[[R]]#1 : tensor<8xf32>, tensor<8xf32>)
func.func @triplet(%a: tensor<8x16xf32>, %p: tensor<8x16xf32>, %n: tensor<8x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %d1 = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %p : tensor<8x16xf32>, tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %q = arith.mulf %d, %d : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  // expected-remark @+1 {{merged with a sibling reduction that reads the same input: one kernel, one read}}
  %d2 = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %n : tensor<8x16xf32>, tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %q = arith.mulf %d, %d : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%d1, %d2 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Left alone: a sum that reads the other's result, a sum over other loops
// (columns), and a sum sharing no input.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: :2 = linalg.generic
func.func @left_alone(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %e16 = tensor.empty() : tensor<16xf32>
  %z16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %s : tensor<8x16xf32>, tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %m: f32, %acc: f32):
    %d = arith.subf %x, %m : f32
    %r = arith.addf %d, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%z16 : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.mulf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %t, %c, %u : tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>
}

// -----

// A softmax's online statistics take the row sum of the same logits (a
// label-smoothed cross-entropy's, split by fuser-split-shifted-sums): the
// maximum and the sum of exponentials stay results 0 and 1, the attribute
// stays, and the merged op stands where the statistics stood, since their
// users come before the sum: the sum's init fill and the constant its body
// reads move up with it.
// CHECK-LABEL: func.func @statistics_and_row_sum
// CHECK-SAME: (%[[X:.+]]: tensor<8x1000xf32>)
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[Z:.+]] = linalg.fill
// CHECK: %[[R:.+]]:3 = linalg.generic {{.+}} ins(%[[X]] : tensor<8x1000xf32>) outs(%{{.+}}, %{{.+}}, %[[Z]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) attrs =  {fuser.online_softmax}
// CHECK: arith.maximumf
// CHECK: %[[H:.+]] = arith.mulf %{{.+}}, %[[HALF]] : f32
// CHECK-NEXT: %[[SX:.+]] = arith.addf %[[H]], %{{.+}} : f32
// CHECK-NEXT: linalg.yield %{{.+}}, %{{.+}}, %[[SX]]
// CHECK: tensor.expand_shape %[[R]]#0
// CHECK: return %{{.+}}, %[[R]]#2
func.func @statistics_and_row_sum(%x: tensor<8x1000xf32>) -> (tensor<8x1xf32>, tensor<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %stats:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                             iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%mi, %si : tensor<8xf32>, tensor<8xf32>) attrs = {fuser.online_softmax} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %one : f32
    %keep = arith.addf %s, %ex : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    linalg.yield %m2, %s2 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %m = tensor.expand_shape %stats#0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %half = arith.constant 0.5 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{merged with a sibling reduction that reads the same input}}
  %sx = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %h = arith.mulf %in, %half : f32
    %s = arith.addf %h, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %m, %sx : tensor<8x1xf32>, tensor<8xf32>
}

// -----

// A loss's totals over the batch, its sum and its count of targets kept,
// read no common input but are totals of vectors: one reduction, one
// launch.
// CHECK-LABEL: func.func @loss_totals
// CHECK-SAME: (%[[L:.+]]: tensor<1000xf32>, %[[K:.+]]: tensor<1000xi1>)
// CHECK: %[[R:.+]]:2 = linalg.generic {{.+}} ins(%[[L]], %[[K]] : tensor<1000xf32>, tensor<1000xi1>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @loss_totals(%l: tensor<1000xf32>, %k: tensor<1000xi1>) -> (tensor<f32>, tensor<i64>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %ei = tensor.empty() : tensor<i64>
  %zi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<i64>) -> tensor<i64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%l : tensor<1000xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  // expected-remark @+1 {{merged with a sibling total over the same loop: one kernel}}
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%k : tensor<1000xi1>) outs(%zi : tensor<i64>) {
  ^bb0(%in: i1, %acc: i64):
    %w = arith.extui %in : i1 to i64
    %t = arith.addi %w, %acc : i64
    linalg.yield %t : i64
  } -> tensor<i64>
  return %s, %n : tensor<f32>, tensor<i64>
}
