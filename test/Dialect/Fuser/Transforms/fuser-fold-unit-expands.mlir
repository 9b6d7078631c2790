// RUN: fuser-opt %s -split-input-file --fuser-fold-unit-expands | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-fold-unit-expands --fuser-fuse-pointwise | FileCheck %s --check-prefix=FUSED

// BatchNorm in eval mode as torch-mlir writes it: rsqrt(var + eps) over the
// channels, expanded to C x 1 x 1 and read by the per-element op. The rsqrt
// is computed in the expanded shape (its input read through (d0)); the add
// before it is still a vector, read by the rsqrt. Pointwise fusion then
// takes all three into one group.
// CHECK-DAG: #[[$VEC:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_norm_scale
// CHECK-SAME: (%[[X:.+]]: tensor<8x16x4x4xf32>, %[[V:.+]]: tensor<16xf32>)
// CHECK: %[[E:.+]] = linalg.generic {{.*}} ins(%[[V]] : tensor<16xf32>) outs(%{{.+}} : tensor<16xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$VEC]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[E]] : tensor<16xf32>) outs(%{{.+}} : tensor<16x1x1xf32>)
// CHECK: math.rsqrt
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[R]] : tensor<8x16x4x4xf32>, tensor<16x1x1xf32>)
// FUSED-LABEL: func.func @batch_norm_scale
// FUSED: fuser.pointwise
// FUSED-NOT: fuser.pointwise
// FUSED: return
#vec = affine_map<(d0) -> (d0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @batch_norm_scale(%x: tensor<8x16x4x4xf32>, %var: tensor<16xf32>) -> tensor<8x16x4x4xf32> {
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%var : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %eps : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %1 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%0 : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.rsqrt %in : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %s = tensor.expand_shape %1 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
  %big = tensor.empty() : tensor<8x16x4x4xf32>
  %2 = linalg.generic {indexing_maps = [#id4, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<8x16x4x4xf32>, tensor<16x1x1xf32>) outs(%big : tensor<8x16x4x4xf32>) {
  ^bb0(%in: f32, %in_s: f32, %out: f32):
    %m = arith.mulf %in, %in_s : f32
    linalg.yield %m : f32
  } -> tensor<8x16x4x4xf32>
  return %2 : tensor<8x16x4x4xf32>
}

// -----

// A dynamic vector (a row statistic of ? rows) expanded to ? x 1: the
// expanded op's output has the expand's sizes.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: (%[[X:.+]]: tensor<?x64xf32>, %[[V:.+]]: tensor<?xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[V]], %{{.+}} : tensor<?xf32>
// CHECK: %[[INIT:.+]] = tensor.empty(%[[N]]) : tensor<?x1xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[V]] : tensor<?xf32>) outs(%[[INIT]] : tensor<?x1xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[R]] : tensor<?x64xf32>, tensor<?x1xf32>)
#vec = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
func.func @dynamic_rows(%x: tensor<?x64xf32>, %v: tensor<?xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%v : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.rsqrt %in : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %s = tensor.expand_shape %0 [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
  %big = tensor.empty(%n) : tensor<?x64xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<?x64xf32>, tensor<?x1xf32>) outs(%big : tensor<?x64xf32>) {
  ^bb0(%in: f32, %in_s: f32, %out: f32):
    %m = arith.mulf %in, %in_s : f32
    linalg.yield %m : f32
  } -> tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}

// -----

// Left as they are: a producer with another use (the vector is returned
// too), and an expand that splits a dimension (16 into 4 x 4).
// CHECK-LABEL: func.func @not_folded
// CHECK: %[[P:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<16xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[}}[0, 1, 2]] output_shape [16, 1, 1]
// CHECK: %[[Q:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<16xf32>)
// CHECK: tensor.expand_shape %[[Q]] {{\[}}[0, 1]] output_shape [4, 4]
#vec = affine_map<(d0) -> (d0)>
func.func @not_folded(%v: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x1x1xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%v : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.rsqrt %in : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %s = tensor.expand_shape %0 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
  %1 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%v : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.sqrt %in : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %t = tensor.expand_shape %1 [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  return %0, %s, %t : tensor<16xf32>, tensor<16x1x1xf32>, tensor<4x4xf32>
}
