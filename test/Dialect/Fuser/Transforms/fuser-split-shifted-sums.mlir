// RUN: fuser-opt %s -split-input-file --fuser-split-shifted-sums="report=true" -verify-diagnostics | FileCheck %s

// The row sum of log_softmax(x) (a label-smoothed cross-entropy's), with
// the statistics from fuser-online-softmax: sum(x) into the same init, then
// sum(x) + 1000 * (-m - log s) over the outputs.
// CHECK-LABEL: func.func @log_softmax_row_sums
// CHECK: %[[STATS:.+]]:2 = linalg.generic
// CHECK: %[[M:.+]] = tensor.expand_shape %[[STATS]]#0
// CHECK: %[[L:.+]] = linalg.generic
// CHECK: math.log
// CHECK: %[[SX:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "reduction"]} ins(%[[X:.+]] : tensor<8x1000xf32>) outs(%[[ZERO:.+]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}], iterator_types = ["parallel"]} ins(%[[SX]], %[[M]], %[[L]] : tensor<8xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
// CHECK-NEXT: ^bb0(%[[SUM:.+]]: f32, %[[MAX:.+]]: f32, %[[LOG:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[NM:.+]] = arith.negf %[[MAX]] : f32
// CHECK-NEXT: %[[G:.+]] = arith.subf %[[NM]], %[[LOG]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.constant 1.000000e+03 : f32
// CHECK-NEXT: %[[NG:.+]] = arith.mulf %[[G]], %[[N]] : f32
// CHECK-NEXT: %[[OUT:.+]] = arith.addf %[[SUM]], %[[NG]] : f32
// CHECK-NEXT: linalg.yield %[[OUT]]
// CHECK: return %[[R]]
func.func @log_softmax_row_sums(%x: tensor<8x1000xf32>) -> tensor<8xf32> {
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
  %sx = tensor.expand_shape %stats#1 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %le = tensor.empty() : tensor<8x1xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%sx : tensor<8x1xf32>) outs(%le : tensor<8x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %lg = math.log %v : f32
    linalg.yield %lg : f32
  } -> tensor<8x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{sum of values shifted by their softmax statistics split}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %m, %l : tensor<8x1000xf32>, tensor<8x1xf32>, tensor<8x1xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %max: f32, %logsum: f32, %acc: f32):
    %d = arith.subf %in, %max : f32
    %t = arith.subf %d, %logsum : f32
    %s = arith.addf %t, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A mean subtracted (x - mean: its terms cancel) is no softmax statistic:
// left alone.
// CHECK-LABEL: func.func @centred_sums
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<8x1000xf32>, tensor<8x1xf32>)
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
func.func @centred_sums(%x: tensor<8x1000xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %mean = tensor.expand_shape %sum [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<8x1000xf32>, tensor<8x1xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %mu: f32, %acc: f32):
    %d = arith.subf %in, %mu : f32
    %s = arith.addf %d, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A shift by the maximum alone (x - m, without log s) is no log_softmax:
// left alone.
// CHECK-LABEL: func.func @max_shift_only
// CHECK: %[[STATS:.+]]:2 = linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<8x1000xf32>, tensor<8x1xf32>)
// CHECK-NOT: linalg.generic
func.func @max_shift_only(%x: tensor<8x1000xf32>) -> tensor<8xf32> {
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
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<8x1000xf32>, tensor<8x1xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %max: f32, %acc: f32):
    %d = arith.subf %in, %max : f32
    %s = arith.addf %d, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
