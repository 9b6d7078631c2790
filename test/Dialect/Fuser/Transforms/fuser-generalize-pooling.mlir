// RUN: fuser-opt %s -fuser-generalize-pooling | FileCheck %s

// torch-mlir's avg_pool2d(3, stride=2): the named op becomes a generic
// reducing over the window, the input read through 2 * i + k.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @avg_pool_sum
// CHECK-NOT:   linalg.pooling_nchw_sum
// CHECK:       linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK:         arith.addf
func.func @avg_pool_sum(%x: tensor<2x3x9x9xf32>) -> tensor<2x3x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<2x3x9x9xf32>, tensor<3x3xf32>) outs(%init : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %r : tensor<2x3x4x4xf32>
}

// max_pool1d: the maximum over the window.
// CHECK-LABEL: func.func @max_pool_1d
// CHECK:       linalg.generic
// CHECK:         arith.maximumf
func.func @max_pool_1d(%x: tensor<2x5x16xf32>) -> tensor<2x5x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x5x8xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %w = tensor.empty() : tensor<2xf32>
  %r = linalg.pooling_ncw_max {dilations = dense<1> : vector<1xi64>, strides = dense<2> : vector<1xi64>}
      ins(%x, %w : tensor<2x5x16xf32>, tensor<2xf32>) outs(%init : tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return %r : tensor<2x5x8xf32>
}
