// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-group-norm{report=true}))" -verify-diagnostics | FileCheck %s
// Normalisations as torch-mlir 20261001 exports them to linalg on tensors
// (from meta tensors, weights as arguments; see
// scripts/export-torch-inputs.py), small, and near misses made from them.

// torch-mlir's GroupNorm(2, 8) on a dynamic batch, then * 3: the view
// (N, 2, 4, 1), the variance in f64 (extf, sums, divf, truncf), the mean in
// f32, statistics read through (d0, d1, 0, d3), the normalisation as two
// generics, gamma and beta as 1x8 views read through (d0, d1) -> (0, d1).
// One fuser.group_norm on the input with gamma and beta themselves.
// CHECK-LABEL: func.func @torch_group_norm
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 2 eps = 1.000000e-05 epilogue_maps [] : tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8xf32> {
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: %[[C:.+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[V]], %[[C]] : f32
// CHECK-NEXT: fuser.yield %[[M]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
func.func @torch_group_norm(%arg0: tensor<?x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 4.000000e+00 : f64
  %cst_3 = arith.constant 4.000000e+00 : f32
  %cst_4 = arith.constant 3.000000e+00 : f32
  %dim = tensor.dim %arg0, %c0 : tensor<?x8xf32>
    // expected-remark @+1 {{fused group norm (2 groups of 4) with 3 consumer op(s), the affine included}}
  %expanded = tensor.expand_shape %arg0 [[0], [1, 2, 3]] output_shape [%dim, 2, 4, 1] : tensor<?x8xf32> into tensor<?x2x4x1xf32>
  %0 = tensor.empty(%dim) : tensor<?x2x4x1xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<?x2x4x1xf32>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f32, %out: f64):
    %24 = arith.extf %in : f32 to f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %2 = tensor.empty(%dim) : tensor<?x2x1x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<?x2x1x1xf64>) -> tensor<?x2x1x1xf64>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%1 : tensor<?x2x4x1xf64>) outs(%3 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.addf %in, %out : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<?x2x1x1xf64>) outs(%2 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.divf %in, %cst_2 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<?x2x4x1xf64>, tensor<?x2x1x1xf64>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f64, %in_7: f64, %out: f64):
    %24 = arith.subf %in, %in_7 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<?x2x4x1xf64>, tensor<?x2x4x1xf64>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f64, %in_7: f64, %out: f64):
    %24 = arith.mulf %in, %in_7 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%7 : tensor<?x2x4x1xf64>) outs(%3 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.addf %in, %out : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<?x2x1x1xf64>) outs(%2 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.divf %in, %cst_2 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %10 = tensor.empty(%dim) : tensor<?x2x1x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<?x2x1x1xf64>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %24 = arith.truncf %in : f64 to f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<?x2x1x1xf32>) -> tensor<?x2x1x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<?x2x4x1xf32>) outs(%12 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.addf %in, %out : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.divf %in, %cst_3 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.truncf %cst_1 : f64 to f32
    %25 = arith.addf %in, %24 : f32
    linalg.yield %25 : f32
  } -> tensor<?x2x1x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = math.rsqrt %in : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %17 = tensor.empty(%dim) : tensor<?x2x4x1xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %14 : tensor<?x2x4x1xf32>, tensor<?x2x1x1xf32>) outs(%17 : tensor<?x2x4x1xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.subf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x4x1xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<?x2x4x1xf32>, tensor<?x2x1x1xf32>) outs(%17 : tensor<?x2x4x1xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.mulf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x4x1xf32>
  %collapsed = tensor.collapse_shape %19 [[0], [1, 2, 3]] : tensor<?x2x4x1xf32> into tensor<?x8xf32>
  %expanded_5 = tensor.expand_shape %arg1 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %20 = tensor.empty(%dim) : tensor<?x8xf32>
  %21 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%collapsed, %expanded_5 : tensor<?x8xf32>, tensor<1x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.mulf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  %expanded_6 = tensor.expand_shape %arg2 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %22 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%21, %expanded_6 : tensor<?x8xf32>, tensor<1x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.addf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<?x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.mulf %in, %cst_4 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  return %23 : tensor<?x8xf32>
}


// -----

// torch-mlir's LayerNorm(16) on 2 x 16: no view, the sums reduce dimension
// 1 of the input into 2 x 1 (keepdim). A group norm with one group per row.
// CHECK-LABEL: func.func @torch_layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x16xf32>, %[[G:.+]]: tensor<16xf32>, %[[B:.+]]: tensor<16xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 1 eps = 1.000000e-05 epilogue_maps []
// CHECK: return %[[R]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
func.func @torch_layer_norm(%arg0: tensor<2x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x16xf32> {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 1.600000e+01 : f64
  %cst_3 = arith.constant 1.600000e+01 : f32
  %0 = tensor.empty() : tensor<2x16xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x16xf32>) outs(%0 : tensor<2x16xf64>) {
  ^bb0(%in: f32, %out: f64):
    %22 = arith.extf %in : f32 to f64
    linalg.yield %22 : f64
  } -> tensor<2x16xf64>
  %2 = tensor.empty() : tensor<2x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<2x1xf64>) -> tensor<2x1xf64>
    // expected-remark @+1 {{fused group norm (1 groups of 16) with 2 consumer op(s), the affine included}}
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<2x16xf64>) outs(%3 : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<2x1xf64>) outs(%2 : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %5 : tensor<2x16xf64>, tensor<2x1xf64>) outs(%0 : tensor<2x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.subf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x16xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<2x16xf64>, tensor<2x16xf64>) outs(%0 : tensor<2x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.mulf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x16xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<2x16xf64>) outs(%3 : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<2x1xf64>) outs(%2 : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x1xf64>
  %10 = tensor.empty() : tensor<2x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<2x1xf64>) outs(%10 : tensor<2x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %22 = arith.truncf %in : f64 to f32
    linalg.yield %22 : f32
  } -> tensor<2x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x16xf32>) outs(%12 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.addf %in, %out : f32
    linalg.yield %22 : f32
  } -> tensor<2x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<2x1xf32>) outs(%10 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.divf %in, %cst_3 : f32
    linalg.yield %22 : f32
  } -> tensor<2x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<2x1xf32>) outs(%10 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.truncf %cst_1 : f64 to f32
    %23 = arith.addf %in, %22 : f32
    linalg.yield %23 : f32
  } -> tensor<2x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<2x1xf32>) outs(%10 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = math.rsqrt %in : f32
    linalg.yield %22 : f32
  } -> tensor<2x1xf32>
  %17 = tensor.empty() : tensor<2x16xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %14 : tensor<2x16xf32>, tensor<2x1xf32>) outs(%17 : tensor<2x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.subf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x16xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %16 : tensor<2x16xf32>, tensor<2x1xf32>) outs(%17 : tensor<2x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x16xf32>
  %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %arg1 : tensor<2x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x16xf32>
  %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %arg2 : tensor<2x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.addf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x16xf32>
  return %21 : tensor<2x16xf32>
}


// -----

// torch-mlir's LayerNorm(16) on 2 x 4 x 16: the weight is per element of
// the last dimension, not per channel (dimension 1), so the group norm runs
// on the input flattened to 8 x 16 and is viewed back.
// CHECK-LABEL: func.func @torch_layer_norm_3d
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x16xf32>, %[[G:.+]]: tensor<16xf32>, %[[B:.+]]: tensor<16xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK: %[[R:.+]] = fuser.group_norm %[[F]], %[[G]], %[[B]] groups = 1 eps = 1.000000e-05 epilogue_maps [] : tensor<8x16xf32>
// CHECK: %[[E:.+]] = tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
// CHECK: return %[[E]]
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (d2)>
func.func @torch_layer_norm_3d(%arg0: tensor<2x4x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 1.600000e+01 : f64
  %cst_3 = arith.constant 1.600000e+01 : f32
  %0 = tensor.empty() : tensor<2x4x16xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f32, %out: f64):
    %22 = arith.extf %in : f32 to f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %2 = tensor.empty() : tensor<2x4x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
    // expected-remark @+1 {{fused group norm (1 groups of 16) with 2 consumer op(s), the affine over each group's elements included}}
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x4x16xf64>, tensor<2x4x1xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.subf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x4x16xf64>, tensor<2x4x16xf64>) outs(%0 : tensor<2x4x16xf64>) {
  ^bb0(%in: f64, %in_4: f64, %out: f64):
    %22 = arith.mulf %in, %in_4 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x16xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x4x16xf64>) outs(%3 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.addf %in, %out : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x4x1xf64>) outs(%2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %22 = arith.divf %in, %cst_2 : f64
    linalg.yield %22 : f64
  } -> tensor<2x4x1xf64>
  %10 = tensor.empty() : tensor<2x4x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<2x4x1xf64>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %22 = arith.truncf %in : f64 to f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x4x16xf32>) outs(%12 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.addf %in, %out : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.divf %in, %cst_3 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = arith.truncf %cst_1 : f64 to f32
    %23 = arith.addf %in, %22 : f32
    linalg.yield %23 : f32
  } -> tensor<2x4x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<2x4x1xf32>) outs(%10 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %22 = math.rsqrt %in : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x1xf32>
  %17 = tensor.empty() : tensor<2x4x16xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %14 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.subf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %arg1 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.mulf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %arg2 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%17 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %22 = arith.addf %in, %in_4 : f32
    linalg.yield %22 : f32
  } -> tensor<2x4x16xf32>
  return %21 : tensor<2x4x16xf32>
}


// -----

// torch-mlir's InstanceNorm2d(3, affine=True) on 2 x 3 x 2 x 2: a batch
// norm of the (1, 6, 2, 2) view, gamma and beta repeated per sample (6
// values, 6x1x1 views read through (d1, 0, 0)) and applied to the view
// before it is reshaped back. Matched on the view (6 groups of one
// channel, gamma and beta repeated), it is then the same group norm as
// GroupNorm(3) on the input with gamma and beta themselves: no copies of
// gamma and beta are left (a kernel each), and the result is viewed back.
// CHECK-LABEL: func.func @torch_instance_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x2x2xf32>, %[[G:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 3 eps = 1.000000e-05 epilogue_maps [] : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x2x2xf32>
// CHECK-NOT: linalg.
// CHECK: tensor.collapse_shape %[[R]]
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @torch_instance_norm(%arg0: tensor<2x3x2x2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> tensor<2x3x2x2xf32> {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 4.000000e+00 : f64
  %cst_3 = arith.constant 4.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x3xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3xf32>) outs(%0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3xf32>
  %collapsed = tensor.collapse_shape %1 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<3xf32>) outs(%0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3xf32>
  %collapsed_4 = tensor.collapse_shape %2 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %collapsed_5 = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<2x3x2x2xf32> into tensor<6x2x2xf32>
    // expected-remark @+1 {{fused group norm (6 groups of 4) with 2 consumer op(s), the affine included}}
  %expanded = tensor.expand_shape %collapsed_5 [[0, 1], [2], [3]] output_shape [1, 6, 2, 2] : tensor<6x2x2xf32> into tensor<1x6x2x2xf32>
  %3 = tensor.empty() : tensor<1x6x2x2xf64>
  %4 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x6x2x2xf32>) outs(%3 : tensor<1x6x2x2xf64>) {
  ^bb0(%in: f32, %out: f64):
    %25 = arith.extf %in : f32 to f64
    linalg.yield %25 : f64
  } -> tensor<1x6x2x2xf64>
  %5 = tensor.empty() : tensor<1x6x1x1xf64>
  %6 = linalg.fill ins(%cst : f64) outs(%5 : tensor<1x6x1x1xf64>) -> tensor<1x6x1x1xf64>
  %7 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%4 : tensor<1x6x2x2xf64>) outs(%6 : tensor<1x6x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %25 = arith.addf %in, %out : f64
    linalg.yield %25 : f64
  } -> tensor<1x6x1x1xf64>
  %8 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<1x6x1x1xf64>) outs(%5 : tensor<1x6x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %25 = arith.divf %in, %cst_2 : f64
    linalg.yield %25 : f64
  } -> tensor<1x6x1x1xf64>
  %9 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4, %8 : tensor<1x6x2x2xf64>, tensor<1x6x1x1xf64>) outs(%3 : tensor<1x6x2x2xf64>) {
  ^bb0(%in: f64, %in_10: f64, %out: f64):
    %25 = arith.subf %in, %in_10 : f64
    linalg.yield %25 : f64
  } -> tensor<1x6x2x2xf64>
  %10 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %9 : tensor<1x6x2x2xf64>, tensor<1x6x2x2xf64>) outs(%3 : tensor<1x6x2x2xf64>) {
  ^bb0(%in: f64, %in_10: f64, %out: f64):
    %25 = arith.mulf %in, %in_10 : f64
    linalg.yield %25 : f64
  } -> tensor<1x6x2x2xf64>
  %11 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%10 : tensor<1x6x2x2xf64>) outs(%6 : tensor<1x6x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %25 = arith.addf %in, %out : f64
    linalg.yield %25 : f64
  } -> tensor<1x6x1x1xf64>
  %12 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x6x1x1xf64>) outs(%5 : tensor<1x6x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %25 = arith.divf %in, %cst_2 : f64
    linalg.yield %25 : f64
  } -> tensor<1x6x1x1xf64>
  %13 = tensor.empty() : tensor<1x6x1x1xf32>
  %14 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x6x1x1xf64>) outs(%13 : tensor<1x6x1x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %25 = arith.truncf %in : f64 to f32
    linalg.yield %25 : f32
  } -> tensor<1x6x1x1xf32>
  %15 = linalg.fill ins(%cst_0 : f32) outs(%13 : tensor<1x6x1x1xf32>) -> tensor<1x6x1x1xf32>
  %16 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<1x6x2x2xf32>) outs(%15 : tensor<1x6x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = arith.addf %in, %out : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x1x1xf32>
  %17 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x6x1x1xf32>) outs(%13 : tensor<1x6x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = arith.divf %in, %cst_3 : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x1x1xf32>
  %18 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x6x1x1xf32>) outs(%13 : tensor<1x6x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = arith.truncf %cst_1 : f64 to f32
    %26 = arith.addf %in, %25 : f32
    linalg.yield %26 : f32
  } -> tensor<1x6x1x1xf32>
  %19 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x6x1x1xf32>) outs(%13 : tensor<1x6x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = math.rsqrt %in : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x1x1xf32>
  %20 = tensor.empty() : tensor<1x6x2x2xf32>
  %21 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %17 : tensor<1x6x2x2xf32>, tensor<1x6x1x1xf32>) outs(%20 : tensor<1x6x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %25 = arith.subf %in, %in_10 : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x2x2xf32>
  // expected-remark @+1 {{InstanceNorm: 6 groups of one channel over the (1, N * C) view are GroupNorm(3) on the input, with gamma and beta as given}}
  %22 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21, %19 : tensor<1x6x2x2xf32>, tensor<1x6x1x1xf32>) outs(%20 : tensor<1x6x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %25 = arith.mulf %in, %in_10 : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x2x2xf32>
  %expanded_6 = tensor.expand_shape %collapsed [[0, 1, 2]] output_shape [6, 1, 1] : tensor<6xf32> into tensor<6x1x1xf32>
  %23 = linalg.generic {indexing_maps = [#map2, #map5, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22, %expanded_6 : tensor<1x6x2x2xf32>, tensor<6x1x1xf32>) outs(%20 : tensor<1x6x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %25 = arith.mulf %in, %in_10 : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x2x2xf32>
  %expanded_7 = tensor.expand_shape %collapsed_4 [[0, 1, 2]] output_shape [6, 1, 1] : tensor<6xf32> into tensor<6x1x1xf32>
  %24 = linalg.generic {indexing_maps = [#map2, #map5, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %expanded_7 : tensor<1x6x2x2xf32>, tensor<6x1x1xf32>) outs(%20 : tensor<1x6x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %25 = arith.addf %in, %in_10 : f32
    linalg.yield %25 : f32
  } -> tensor<1x6x2x2xf32>
  %collapsed_8 = tensor.collapse_shape %24 [[0, 1], [2], [3]] : tensor<1x6x2x2xf32> into tensor<6x2x2xf32>
  %expanded_9 = tensor.expand_shape %collapsed_8 [[0, 1], [2], [3]] output_shape [2, 3, 2, 2] : tensor<6x2x2xf32> into tensor<2x3x2x2xf32>
  return %expanded_9 : tensor<2x3x2x2xf32>
}


// -----

// Near miss: the same with a dynamic batch. The view is (1, N * 3, 2, 2),
// whose channel count is dynamic.
// CHECK-LABEL: func.func @torch_instance_norm_dynamic
// CHECK-NOT: fuser.group_norm
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<()[s0] -> (s0 * 3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @torch_instance_norm_dynamic(%arg0: tensor<?x3x2x2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> tensor<?x3x2x2xf32> {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 4.000000e+00 : f64
  %cst_3 = arith.constant 4.000000e+00 : f32
  %dim = tensor.dim %arg0, %c0 : tensor<?x3x2x2xf32>
  %0 = arith.index_cast %dim : index to i64
  %1 = arith.cmpi slt, %0, %c0_i64 : i64
  %2 = arith.select %1, %c1, %dim : index
  %3 = tensor.empty(%2) : tensor<?x3xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3xf32>) outs(%3 : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x3xf32>
  %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<?x3xf32> into tensor<?xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<3xf32>) outs(%3 : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x3xf32>
  %collapsed_4 = tensor.collapse_shape %5 [[0, 1]] : tensor<?x3xf32> into tensor<?xf32>
  %collapsed_5 = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<?x3x2x2xf32> into tensor<?x2x2xf32>
  %6 = affine.apply #map2()[%dim]
    // expected-remark @+1 {{not fused into fuser.group_norm: only the batch dimension N of tensor<1x?x2x2xf32> may be dynamic}}
  %expanded = tensor.expand_shape %collapsed_5 [[0, 1], [2], [3]] output_shape [1, %6, 2, 2] : tensor<?x2x2xf32> into tensor<1x?x2x2xf32>
  %7 = tensor.empty(%6) : tensor<1x?x2x2xf64>
  %8 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x?x2x2xf32>) outs(%7 : tensor<1x?x2x2xf64>) {
  ^bb0(%in: f32, %out: f64):
    %32 = arith.extf %in : f32 to f64
    linalg.yield %32 : f64
  } -> tensor<1x?x2x2xf64>
  %9 = tensor.empty(%6) : tensor<1x?x1x1xf64>
  %10 = linalg.fill ins(%cst : f64) outs(%9 : tensor<1x?x1x1xf64>) -> tensor<1x?x1x1xf64>
  %11 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%8 : tensor<1x?x2x2xf64>) outs(%10 : tensor<1x?x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %32 = arith.addf %in, %out : f64
    linalg.yield %32 : f64
  } -> tensor<1x?x1x1xf64>
  %12 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x?x1x1xf64>) outs(%9 : tensor<1x?x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %32 = arith.divf %in, %cst_2 : f64
    linalg.yield %32 : f64
  } -> tensor<1x?x1x1xf64>
  %13 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %12 : tensor<1x?x2x2xf64>, tensor<1x?x1x1xf64>) outs(%7 : tensor<1x?x2x2xf64>) {
  ^bb0(%in: f64, %in_10: f64, %out: f64):
    %32 = arith.subf %in, %in_10 : f64
    linalg.yield %32 : f64
  } -> tensor<1x?x2x2xf64>
  %14 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13, %13 : tensor<1x?x2x2xf64>, tensor<1x?x2x2xf64>) outs(%7 : tensor<1x?x2x2xf64>) {
  ^bb0(%in: f64, %in_10: f64, %out: f64):
    %32 = arith.mulf %in, %in_10 : f64
    linalg.yield %32 : f64
  } -> tensor<1x?x2x2xf64>
  %15 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%14 : tensor<1x?x2x2xf64>) outs(%10 : tensor<1x?x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %32 = arith.addf %in, %out : f64
    linalg.yield %32 : f64
  } -> tensor<1x?x1x1xf64>
  %16 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x?x1x1xf64>) outs(%9 : tensor<1x?x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %32 = arith.divf %in, %cst_2 : f64
    linalg.yield %32 : f64
  } -> tensor<1x?x1x1xf64>
  %17 = tensor.empty(%6) : tensor<1x?x1x1xf32>
  %18 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x?x1x1xf64>) outs(%17 : tensor<1x?x1x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %32 = arith.truncf %in : f64 to f32
    linalg.yield %32 : f32
  } -> tensor<1x?x1x1xf32>
  %19 = linalg.fill ins(%cst_0 : f32) outs(%17 : tensor<1x?x1x1xf32>) -> tensor<1x?x1x1xf32>
  %20 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<1x?x2x2xf32>) outs(%19 : tensor<1x?x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %32 = arith.addf %in, %out : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x1x1xf32>
  %21 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20 : tensor<1x?x1x1xf32>) outs(%17 : tensor<1x?x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %32 = arith.divf %in, %cst_3 : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x1x1xf32>
  %22 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x?x1x1xf32>) outs(%17 : tensor<1x?x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %32 = arith.truncf %cst_1 : f64 to f32
    %33 = arith.addf %in, %32 : f32
    linalg.yield %33 : f32
  } -> tensor<1x?x1x1xf32>
  %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22 : tensor<1x?x1x1xf32>) outs(%17 : tensor<1x?x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %32 = math.rsqrt %in : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x1x1xf32>
  %24 = tensor.empty(%6) : tensor<1x?x2x2xf32>
  %25 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %21 : tensor<1x?x2x2xf32>, tensor<1x?x1x1xf32>) outs(%24 : tensor<1x?x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %32 = arith.subf %in, %in_10 : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x2x2xf32>
  %26 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%25, %23 : tensor<1x?x2x2xf32>, tensor<1x?x1x1xf32>) outs(%24 : tensor<1x?x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %32 = arith.mulf %in, %in_10 : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x2x2xf32>
  %27 = affine.apply #map2()[%2]
  %expanded_6 = tensor.expand_shape %collapsed [[0, 1, 2]] output_shape [%27, 1, 1] : tensor<?xf32> into tensor<?x1x1xf32>
  %28 = arith.cmpi eq, %6, %27 : index
  cf.assert %28, "mismatched size for broadcast"
  %29 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %expanded_6 : tensor<1x?x2x2xf32>, tensor<?x1x1xf32>) outs(%24 : tensor<1x?x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %32 = arith.mulf %in, %in_10 : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x2x2xf32>
  %expanded_7 = tensor.expand_shape %collapsed_4 [[0, 1, 2]] output_shape [%27, 1, 1] : tensor<?xf32> into tensor<?x1x1xf32>
  cf.assert %28, "mismatched size for broadcast"
  %30 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %expanded_7 : tensor<1x?x2x2xf32>, tensor<?x1x1xf32>) outs(%24 : tensor<1x?x2x2xf32>) {
  ^bb0(%in: f32, %in_10: f32, %out: f32):
    %32 = arith.addf %in, %in_10 : f32
    linalg.yield %32 : f32
  } -> tensor<1x?x2x2xf32>
  %collapsed_8 = tensor.collapse_shape %30 [[0, 1], [2], [3]] : tensor<1x?x2x2xf32> into tensor<?x2x2xf32>
  %31 = arith.divsi %6, %c3 : index
  %expanded_9 = tensor.expand_shape %collapsed_8 [[0, 1], [2], [3]] output_shape [%31, 3, 2, 2] : tensor<?x2x2xf32> into tensor<?x3x2x2xf32>
  return %expanded_9 : tensor<?x3x2x2xf32>
}


// -----

// Near miss: GroupNorm(2, 8) whose f64 variance divides its sum by 8, but
// a group holds 4 elements.
// CHECK-LABEL: func.func @torch_variance_wrong_count
// CHECK-NOT: fuser.group_norm
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
func.func @torch_variance_wrong_count(%arg0: tensor<?x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 4.000000e+00 : f64
  %cst_3 = arith.constant 4.000000e+00 : f32
  %cst_4 = arith.constant 3.000000e+00 : f32
  %cst_8 = arith.constant 8.000000e+00 : f64
  %dim = tensor.dim %arg0, %c0 : tensor<?x8xf32>
    // expected-remark @+1 {{not fused into fuser.group_norm: the variance divides the group sum by 8, not by the group size 4}}
  %expanded = tensor.expand_shape %arg0 [[0], [1, 2, 3]] output_shape [%dim, 2, 4, 1] : tensor<?x8xf32> into tensor<?x2x4x1xf32>
  %0 = tensor.empty(%dim) : tensor<?x2x4x1xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<?x2x4x1xf32>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f32, %out: f64):
    %24 = arith.extf %in : f32 to f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %2 = tensor.empty(%dim) : tensor<?x2x1x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<?x2x1x1xf64>) -> tensor<?x2x1x1xf64>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%1 : tensor<?x2x4x1xf64>) outs(%3 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.addf %in, %out : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<?x2x1x1xf64>) outs(%2 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.divf %in, %cst_2 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<?x2x4x1xf64>, tensor<?x2x1x1xf64>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f64, %in_7: f64, %out: f64):
    %24 = arith.subf %in, %in_7 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<?x2x4x1xf64>, tensor<?x2x4x1xf64>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f64, %in_7: f64, %out: f64):
    %24 = arith.mulf %in, %in_7 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%7 : tensor<?x2x4x1xf64>) outs(%3 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.addf %in, %out : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<?x2x1x1xf64>) outs(%2 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.divf %in, %cst_8 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %10 = tensor.empty(%dim) : tensor<?x2x1x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<?x2x1x1xf64>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %24 = arith.truncf %in : f64 to f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<?x2x1x1xf32>) -> tensor<?x2x1x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<?x2x4x1xf32>) outs(%12 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.addf %in, %out : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.divf %in, %cst_3 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.truncf %cst_1 : f64 to f32
    %25 = arith.addf %in, %24 : f32
    linalg.yield %25 : f32
  } -> tensor<?x2x1x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = math.rsqrt %in : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %17 = tensor.empty(%dim) : tensor<?x2x4x1xf32>
  %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %14 : tensor<?x2x4x1xf32>, tensor<?x2x1x1xf32>) outs(%17 : tensor<?x2x4x1xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.subf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x4x1xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<?x2x4x1xf32>, tensor<?x2x1x1xf32>) outs(%17 : tensor<?x2x4x1xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.mulf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x4x1xf32>
  %collapsed = tensor.collapse_shape %19 [[0], [1, 2, 3]] : tensor<?x2x4x1xf32> into tensor<?x8xf32>
  %expanded_5 = tensor.expand_shape %arg1 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %20 = tensor.empty(%dim) : tensor<?x8xf32>
  %21 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%collapsed, %expanded_5 : tensor<?x8xf32>, tensor<1x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.mulf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  %expanded_6 = tensor.expand_shape %arg2 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %22 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%21, %expanded_6 : tensor<?x8xf32>, tensor<1x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.addf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<?x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.mulf %in, %cst_4 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  return %23 : tensor<?x8xf32>
}


// -----

// Near miss: GroupNorm(2, 8) whose normalisation reads the mean of the
// first group for both groups, through (d0, d1, d2, d3) -> (d0, 0, 0, d3).
// CHECK-LABEL: func.func @torch_mean_not_per_group
// CHECK-NOT: fuser.group_norm
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
#first = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
func.func @torch_mean_not_per_group(%arg0: tensor<?x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 4.000000e+00 : f64
  %cst_3 = arith.constant 4.000000e+00 : f32
  %cst_4 = arith.constant 3.000000e+00 : f32
  %dim = tensor.dim %arg0, %c0 : tensor<?x8xf32>
    // expected-remark @+1 {{not fused into fuser.group_norm: the mean is not read per (sample, group)}}
  %expanded = tensor.expand_shape %arg0 [[0], [1, 2, 3]] output_shape [%dim, 2, 4, 1] : tensor<?x8xf32> into tensor<?x2x4x1xf32>
  %0 = tensor.empty(%dim) : tensor<?x2x4x1xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<?x2x4x1xf32>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f32, %out: f64):
    %24 = arith.extf %in : f32 to f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %2 = tensor.empty(%dim) : tensor<?x2x1x1xf64>
  %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<?x2x1x1xf64>) -> tensor<?x2x1x1xf64>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%1 : tensor<?x2x4x1xf64>) outs(%3 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.addf %in, %out : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<?x2x1x1xf64>) outs(%2 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.divf %in, %cst_2 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<?x2x4x1xf64>, tensor<?x2x1x1xf64>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f64, %in_7: f64, %out: f64):
    %24 = arith.subf %in, %in_7 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<?x2x4x1xf64>, tensor<?x2x4x1xf64>) outs(%0 : tensor<?x2x4x1xf64>) {
  ^bb0(%in: f64, %in_7: f64, %out: f64):
    %24 = arith.mulf %in, %in_7 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x4x1xf64>
  %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%7 : tensor<?x2x4x1xf64>) outs(%3 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.addf %in, %out : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<?x2x1x1xf64>) outs(%2 : tensor<?x2x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %24 = arith.divf %in, %cst_2 : f64
    linalg.yield %24 : f64
  } -> tensor<?x2x1x1xf64>
  %10 = tensor.empty(%dim) : tensor<?x2x1x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<?x2x1x1xf64>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %24 = arith.truncf %in : f64 to f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<?x2x1x1xf32>) -> tensor<?x2x1x1xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<?x2x4x1xf32>) outs(%12 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.addf %in, %out : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.divf %in, %cst_3 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.truncf %cst_1 : f64 to f32
    %25 = arith.addf %in, %24 : f32
    linalg.yield %25 : f32
  } -> tensor<?x2x1x1xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<?x2x1x1xf32>) outs(%10 : tensor<?x2x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = math.rsqrt %in : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x1x1xf32>
  %17 = tensor.empty(%dim) : tensor<?x2x4x1xf32>
  %18 = linalg.generic {indexing_maps = [#map, #first, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %14 : tensor<?x2x4x1xf32>, tensor<?x2x1x1xf32>) outs(%17 : tensor<?x2x4x1xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.subf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x4x1xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<?x2x4x1xf32>, tensor<?x2x1x1xf32>) outs(%17 : tensor<?x2x4x1xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.mulf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x2x4x1xf32>
  %collapsed = tensor.collapse_shape %19 [[0], [1, 2, 3]] : tensor<?x2x4x1xf32> into tensor<?x8xf32>
  %expanded_5 = tensor.expand_shape %arg1 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %20 = tensor.empty(%dim) : tensor<?x8xf32>
  %21 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%collapsed, %expanded_5 : tensor<?x8xf32>, tensor<1x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.mulf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  %expanded_6 = tensor.expand_shape %arg2 [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %22 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%21, %expanded_6 : tensor<?x8xf32>, tensor<1x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %24 = arith.addf %in, %in_7 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<?x8xf32>) outs(%20 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %24 = arith.mulf %in, %cst_4 : f32
    linalg.yield %24 : f32
  } -> tensor<?x8xf32>
  return %23 : tensor<?x8xf32>
}

