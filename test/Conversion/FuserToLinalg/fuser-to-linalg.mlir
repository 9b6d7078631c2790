// RUN: fuser-opt %s -split-input-file --fuser-to-linalg -verify-diagnostics | FileCheck %s

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: linalg.yield
// CHECK-NOT: fuser.pointwise
// CHECK: return %[[G]]
func.func @bias_relu(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %r = fuser.pointwise ins(%x, %b : tensor<?x8xf32>, tensor<8xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] -> tensor<?x8xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %z : f32
    fuser.yield %m : f32
  }
  return %r : tensor<?x8xf32>
}

// -----

func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fuser.matmul' op has no CPU reference lowering yet}}
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<4x4xf32>
}
