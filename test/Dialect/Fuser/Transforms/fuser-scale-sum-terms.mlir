// RUN: fuser-opt %s -split-input-file --fuser-scale-sum-terms="report=true" -verify-diagnostics | FileCheck %s

// torch.mean(x, dim=1) after fuser-divide-by-reciprocal: the product by
// 1/64 moves into the sum's body; the product's op goes.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[X:.+]]: tensor<8x64xf32>)
// CHECK: %[[FILL:.+]] = linalg.fill
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<8x64xf32>) outs(%[[FILL]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[C:.+]] = arith.constant 1.562500e-02 : f32
// CHECK-NEXT: %[[T:.+]] = arith.mulf %[[IN]], %[[C]] : f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[T]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[A]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[SUM]]
func.func @mean(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 1.562500e-02 : f32
  %e = tensor.empty() : tensor<8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%fill : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  // expected-remark @+1 {{scale folded into the terms of the sum it scales: one reduction kernel}}
  %m = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %c, %in : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Left alone: a sum another op also reads, a max, a sum into a nonzero
// init, and a product by a tensor.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-8: linalg.generic
func.func @left_alone(%x: tensor<8x64xf32>, %y: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %lows = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%fill : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %m0 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %c : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%lows : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.maximumf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %m1 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%mx : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %c : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%ones : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %m2 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%s1 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %c : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%fill : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %m3 = linalg.generic {indexing_maps = [#vec, #vec, #vec], iterator_types = ["parallel"]}
      ins(%s2, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %p = arith.mulf %in, %in2 : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %s, %m0, %m1, %m2, %m3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
