// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s

// A transposed copy (x.T, a K-major operand copy): 32 x 32 tiles through
// shared memory, 256 threads.
// CHECK-LABEL: func.func @copy
// CHECK: config = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], max_grid = 1048576, tile = [64, 64]>
func.func @copy(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d1, d0)>] -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

// Batched, with identity, broadcast and scalar inputs beside the transposed
// one.
// CHECK-LABEL: func.func @batched_with_others
// CHECK: strategy = "pointwise_transpose"
func.func @batched_with_others(%x: tensor<4x96x64xf32>, %y: tensor<4x64x96xf32>, %b: tensor<64xf32>, %s: f32) -> tensor<4x64x96xf32> {
  %r = fuser.pointwise ins(%x, %y, %b, %s : tensor<4x96x64xf32>, tensor<4x64x96xf32>, tensor<64xf32>, f32)
         maps [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
               affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> ()>] -> tensor<4x64x96xf32> {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %m = arith.mulf %a, %e : f32
    %t = arith.addf %m, %c : f32
    %u = arith.addf %t, %d : f32
    fuser.yield %u : f32
  }
  return %r : tensor<4x64x96xf32>
}

// -----

// A static size-1 side reads the input contiguously already: the row
// kernel.
// CHECK-LABEL: func.func @one_row
// CHECK: strategy = "pointwise", block = [256, 1, 1]
func.func @one_row(%x: tensor<?x1xf32>) -> tensor<1x?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?x1xf32>) maps [affine_map<(d0, d1) -> (d1, d0)>] -> tensor<1x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<1x?xf32>
}

// -----

// Two transposed inputs of one element type: a staged tile each.
// CHECK-LABEL: func.func @two_transposed
// CHECK: strategy = "pointwise_transpose", block = [256, 1, 1]
func.func @two_transposed(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>)
         maps [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>] -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

// Transposed inputs of two element types (one tile type), or another
// strided read (a rotation of three dimensions): the row kernel.
// CHECK-LABEL: func.func @two_transposed_types
// CHECK: strategy = "pointwise", block = [256, 1, 1]
func.func @two_transposed_types(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x, %m : tensor<?x?xf32>, tensor<?x?xi1>)
         maps [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>] -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: i1):
    %z = arith.constant 0.0 : f32
    %s = arith.select %b, %a, %z : f32
    fuser.yield %s : f32
  }
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @other_strided
// CHECK: strategy = "pointwise", block = [256, 1, 1]
func.func @other_strided(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = fuser.pointwise ins(%x, %y : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
         maps [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d2, d0, d1)>] -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  }
  return %r : tensor<?x?x?xf32>
}

// -----

// Swapping outer dimensions keeps the innermost one contiguous: the row
// kernel.
// CHECK-LABEL: func.func @outer_swap
// CHECK: strategy = "pointwise", block = [256, 1, 1]
func.func @outer_swap(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?x?x?xf32>) maps [affine_map<(d0, d1, d2) -> (d1, d0, d2)>] -> tensor<?x?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?x?xf32>
}
