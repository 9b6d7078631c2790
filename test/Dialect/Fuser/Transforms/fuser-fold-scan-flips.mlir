// RUN: fuser-opt %s -split-input-file --fuser-fold-scan-flips | FileCheck %s

// torch-mlir's reversed cumsum (x.flip(1).cumsum(1).flip(1)), dynamic: the
// flips' `last` is dim(source, 1) - 1 of the input and of the scan's result.
// CHECK-LABEL: func.func @reverse_cumsum_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x3xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[R:[^,]+]], %{{.+}} = fuser.scan dimension(1) inclusive(true) ins(%[[X]] : tensor<?x?x3xf32>)
// CHECK: } {reverse} -> tensor<?x?x3xf32>, tensor<?x3xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @reverse_cumsum_dynamic(%arg0: tensor<?x?x3xf32>) -> tensor<?x?x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg0, %c1 : tensor<?x?x3xf32>
  %0 = arith.subi %dim, %c1 : index
  %dim_0 = tensor.dim %arg0, %c0 : tensor<?x?x3xf32>
  %1 = tensor.empty(%dim_0, %dim) : tensor<?x?x3xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<?x?x3xf32>) outs(%2 : tensor<?x?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %13 = linalg.index 0 : index
    %14 = linalg.index 1 : index
    %15 = linalg.index 2 : index
    %16 = arith.subi %0, %14 : index
    %extracted = tensor.extract %arg0[%13, %16, %15] : tensor<?x?x3xf32>
    linalg.yield %extracted : f32
  } -> tensor<?x?x3xf32>
  %6 = tensor.empty(%dim_0) : tensor<?x3xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<?x3xf32>) -> tensor<?x3xf32>
  %8:2 = fuser.scan dimension(1) inclusive(true) ins(%3 : tensor<?x?x3xf32>) outs(%2, %7 : tensor<?x?x3xf32>, tensor<?x3xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %13 = arith.addf %arg1, %arg2 : f32
    fuser.yield %13 : f32
  } -> tensor<?x?x3xf32>, tensor<?x3xf32>
  %dim_3 = tensor.dim %8#0, %c1 : tensor<?x?x3xf32>
  %9 = arith.subi %dim_3, %c1 : index
  %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8#0 : tensor<?x?x3xf32>) outs(%2 : tensor<?x?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %13 = linalg.index 0 : index
    %14 = linalg.index 1 : index
    %15 = linalg.index 2 : index
    %16 = arith.subi %9, %14 : index
    %extracted = tensor.extract %8#0[%13, %16, %15] : tensor<?x?x3xf32>
    linalg.yield %extracted : f32
  } -> tensor<?x?x3xf32>
  return %12 : tensor<?x?x3xf32>
}

// -----

// Static: `last` is the constant 9. A flip along another dimension, or a
// scan result read by something else too, stays as it is.
// CHECK-LABEL: func.func @static_and_not
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x10xf32>
// CHECK: %[[F:.+]] = linalg.generic
// CHECK: %[[R:[^,]+]], %{{.+}} = fuser.scan dimension(1) inclusive(true) ins(%[[X]] : tensor<4x10xf32>)
// CHECK: } {reverse} -> tensor<4x10xf32>, tensor<4xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[U:[^,]+]], %{{.+}} = fuser.scan dimension(0) inclusive(true) ins(%[[F]] : tensor<4x10xf32>)
// CHECK-NOT: reverse
// CHECK: return %[[R]], %[[U]], %[[F]]
#map2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @static_and_not(%x: tensor<4x10xf32>, %acc: tensor<4xf32>, %acc0: tensor<10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>) {
  %c9 = arith.constant 9 : index
  %e = tensor.empty() : tensor<4x10xf32>
  %f = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x10xf32>) outs(%e : tensor<4x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %r = arith.subi %c9, %j : index
    %v = tensor.extract %x[%i, %r] : tensor<4x10xf32>
    linalg.yield %v : f32
  } -> tensor<4x10xf32>
  %s:2 = fuser.scan dimension(1) inclusive(true) ins(%f : tensor<4x10xf32>) outs(%e, %acc : tensor<4x10xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    fuser.yield %t : f32
  } -> tensor<4x10xf32>, tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%s#0 : tensor<4x10xf32>) outs(%e : tensor<4x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %r = arith.subi %c9, %j : index
    %v = tensor.extract %s#0[%i, %r] : tensor<4x10xf32>
    linalg.yield %v : f32
  } -> tensor<4x10xf32>
  // Flipped along dimension 1, scanned along 0.
  %u:2 = fuser.scan dimension(0) inclusive(true) ins(%f : tensor<4x10xf32>) outs(%e, %acc0 : tensor<4x10xf32>, tensor<10xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    fuser.yield %t : f32
  } -> tensor<4x10xf32>, tensor<10xf32>
  return %g, %u#0, %f : tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>
}
