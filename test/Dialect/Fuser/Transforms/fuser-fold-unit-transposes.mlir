// RUN: fuser-opt %s -split-input-file --fuser-fold-unit-transposes --canonicalize | FileCheck %s

// torch-mlir's einsum "bijl,lk->bijk": the product's rows expanded with a
// unit dimension, which a transpose moves last, then collapsed. No element
// moves: the result is a reshape of the product.
// CHECK-LABEL: func.func @einsum_output
// CHECK-SAME: (%[[MM:.+]]: tensor<1048576x768xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[R:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1, 2], [3]] output_shape [8, 256, 512, 768] : tensor<1048576x768xf32> into tensor<8x256x512x768xf32>
// CHECK-NEXT: return %[[R]]
func.func @einsum_output(%mm: tensor<1048576x768xf32>) -> tensor<8x256x512x768xf32> {
  %e = tensor.expand_shape %mm [[0, 1, 2], [3, 4]] output_shape [8, 256, 512, 1, 768] : tensor<1048576x768xf32> into tensor<8x256x512x1x768xf32>
  %init = tensor.empty() : tensor<8x256x512x768x1xf32>
  %t = linalg.transpose ins(%e : tensor<8x256x512x1x768xf32>) outs(%init : tensor<8x256x512x768x1xf32>) permutation = [0, 1, 2, 4, 3]
  %c = tensor.collapse_shape %t [[0], [1], [2], [3, 4]] : tensor<8x256x512x768x1xf32> into tensor<8x256x512x768xf32>
  return %c : tensor<8x256x512x768xf32>
}

// -----

// A dynamic dimension keeps its order: a view whatever its size.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NOT: linalg.transpose
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2]] : tensor<?x1x64xf32> into tensor<?x64xf32>
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [%{{.+}}, 64, 1] : tensor<?x64xf32> into tensor<?x64x1xf32>
func.func @dynamic_batch(%x: tensor<?x1x64xf32>) -> tensor<?x64x1xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x1x64xf32>
  %init = tensor.empty(%n) : tensor<?x64x1xf32>
  %t = linalg.transpose ins(%x : tensor<?x1x64xf32>) outs(%init : tensor<?x64x1xf32>) permutation = [0, 2, 1]
  return %t : tensor<?x64x1xf32>
}

// -----

// A transpose that moves dimensions of size other than 1 stays; so does
// one of unit dimensions only.
// CHECK-LABEL: func.func @real_transpose
// CHECK: linalg.transpose
// CHECK-LABEL: func.func @all_units
// CHECK: linalg.transpose
func.func @real_transpose(%x: tensor<4x1x8xf32>) -> tensor<8x1x4xf32> {
  %init = tensor.empty() : tensor<8x1x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x1x8xf32>) outs(%init : tensor<8x1x4xf32>) permutation = [2, 1, 0]
  return %t : tensor<8x1x4xf32>
}
func.func @all_units(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %init = tensor.empty() : tensor<1x1xf32>
  %t = linalg.transpose ins(%x : tensor<1x1xf32>) outs(%init : tensor<1x1xf32>) permutation = [1, 0]
  return %t : tensor<1x1xf32>
}
