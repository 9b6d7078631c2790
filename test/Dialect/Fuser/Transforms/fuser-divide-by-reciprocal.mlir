// RUN: fuser-opt %s -fuser-divide-by-reciprocal -split-input-file | FileCheck %s

// torch-mlir's gelu: erf(x / sqrt(2)) divides by the constant; PyTorch
// multiplies by M_SQRT1_2, as the rewrite does.
// CHECK-LABEL: func.func @gelu_argument
// CHECK-DAG:     %[[R:.*]] = arith.constant 0.707106769 : f32
// CHECK:         linalg.generic
// CHECK:           %[[Y:.*]] = arith.mulf %{{.*}}, %[[R]] : f32
// CHECK-NEXT:      math.erf %[[Y]]
// CHECK-NOT:     arith.divf
func.func @gelu_argument(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = arith.constant 1.41421354 : f32
  %init = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %sqrt2 : f32
    %e = math.erf %d : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// f64, a splat divisor, and the fastmath flags carried over.
// CHECK-LABEL: func.func @splat_f64
// CHECK:         %[[R:.*]] = arith.constant dense<2.500000e-01> : tensor<3xf64>
// CHECK:         arith.mulf %arg0, %[[R]] fastmath<contract> : tensor<3xf64>
func.func @splat_f64(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = arith.constant dense<4.0> : tensor<3xf64>
  %y = arith.divf %x, %c fastmath<contract> : tensor<3xf64>
  return %y : tensor<3xf64>
}

// -----

// Left as divisions: 16-bit types (PyTorch's reciprocal is f32 there), a
// zero divisor, an infinite one, one whose reciprocal is subnormal, a
// divisor that is not constant, and a constant dividend.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: arith.divf
// CHECK-NOT:     arith.mulf
func.func @kept(%x: f32, %h: bf16, %v: f32) -> (bf16, f32, f32, f32, f32, f32) {
  %two_bf16 = arith.constant 2.0 : bf16
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %huge = arith.constant 3.0e+38 : f32
  %c = arith.constant 3.0 : f32
  %0 = arith.divf %h, %two_bf16 : bf16
  %1 = arith.divf %x, %zero : f32
  %2 = arith.divf %x, %inf : f32
  %3 = arith.divf %x, %huge : f32
  %4 = arith.divf %x, %v : f32
  %5 = arith.divf %c, %x : f32
  return %0, %1, %2, %3, %4, %5 : bf16, f32, f32, f32, f32, f32
}
