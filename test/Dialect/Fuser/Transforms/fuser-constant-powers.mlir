// RUN: fuser-opt %s -fuser-constant-powers -split-input-file | FileCheck %s

// torch.norm(x, dim=1) as torch-mlir lowers it: |x|^2 summed, then ^0.5.
// PyTorch sums x * x and takes sqrt; so does the rewrite.
// CHECK-LABEL: func.func @row_norm
// CHECK:         linalg.generic
// CHECK:           %[[A:.*]] = math.absf
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      arith.addf %[[S]]
// CHECK:         linalg.generic
// CHECK:           math.sqrt %{{.*}} : f32
// CHECK-NOT:     math.powf
func.func @row_norm(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = math.absf %in : f32
    %p = math.powf %a, %two : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.powf %in, %half : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// 3, -1 and -2 on f64, the exponent a splat tensor; 2.5 and -0.5 stay.
// CHECK-LABEL: func.func @exponents
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>)
// CHECK-DAG:     %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf64>
// CHECK:         %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : tensor<4xf64>
// CHECK-NEXT:    %[[CUBE:.*]] = arith.mulf %[[X2]], %[[X]] : tensor<4xf64>
// CHECK-NEXT:    %[[INV:.*]] = arith.divf %[[ONE]], %[[X]] : tensor<4xf64>
// CHECK-NEXT:    %[[Y2:.*]] = arith.mulf %[[X]], %[[X]] : tensor<4xf64>
// CHECK-NEXT:    %[[INV2:.*]] = arith.divf %[[ONE]], %[[Y2]] : tensor<4xf64>
// CHECK-NEXT:    math.powf %[[X]], %{{.*}} : tensor<4xf64>
// CHECK-NEXT:    math.powf %[[X]], %{{.*}} : tensor<4xf64>
func.func @exponents(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %c3 = arith.constant dense<3.0> : tensor<4xf64>
  %cm1 = arith.constant dense<-1.0> : tensor<4xf64>
  %cm2 = arith.constant dense<-2.0> : tensor<4xf64>
  %c25 = arith.constant dense<2.5> : tensor<4xf64>
  %cmh = arith.constant dense<-0.5> : tensor<4xf64>
  %a = math.powf %x, %c3 : tensor<4xf64>
  %b = math.powf %x, %cm1 : tensor<4xf64>
  %c = math.powf %x, %cm2 : tensor<4xf64>
  %d = math.powf %x, %c25 : tensor<4xf64>
  %f = math.powf %x, %cmh : tensor<4xf64>
  return %a, %b, %c, %d, %f : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}
