// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul-prologues{report=true}))" -verify-diagnostics | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// nn.Linear's dX as torch-mlir exports the backward of leaky_relu(y * 2,
// 0.1): g = where(y > 0, dy, dy * 0.1) * 2, then g . W. The DAG (an i1
// mask between generics) becomes the prologue, reading y and dy; the
// producers had no other user and go.
// CHECK-LABEL: func.func @masked_gradient
// CHECK-SAME: (%[[Y:.+]]: tensor<?x32xf32>, %[[W:.+]]: tensor<32x48xf32>, %[[DY:.+]]: tensor<?x32xf32>)
// CHECK-NOT: linalg.generic
// CHECK: fuser.matmul %[[Y]], %[[W]] prologue_inputs(%[[DY]] : tensor<?x32xf32>)
// CHECK-SAME: prologue {
// CHECK-NEXT: ^bb0(%[[OUT:.+]]: f32, %[[G:.+]]: f32):
// CHECK-DAG: %[[SLOPE:.+]] = arith.truncf
// CHECK-DAG: %[[LEAK:.+]] = arith.mulf %[[G]], %[[SLOPE]]
// CHECK-DAG: %[[POS:.+]] = arith.cmpf ogt, %[[OUT]]
// CHECK: %[[SEL:.+]] = arith.select %[[POS]], %[[G]], %[[LEAK]]
// CHECK: %[[TWICE:.+]] = arith.mulf %[[SEL]]
// CHECK: fuser.yield %[[TWICE]]
func.func @masked_gradient(%y: tensor<?x32xf32>, %w: tensor<32x48xf32>, %dy: tensor<?x32xf32>) -> tensor<?x48xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %slope = arith.constant 1.000000e-01 : f64
  %two = arith.constant 2.000000e+00 : f32
  %n = tensor.dim %y, %c0 : tensor<?x32xf32>
  %e1 = tensor.empty(%n) : tensor<?x32xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x32xf32>) outs(%e1 : tensor<?x32xi1>) {
  ^bb0(%in: f32, %out: i1):
    %p = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %p : i1
  } -> tensor<?x32xi1>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %leak = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%dy : tensor<?x32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.truncf %slope : f64 to f32
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<?x32xf32>
  %sel = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mask, %dy, %leak : tensor<?x32xi1>, tensor<?x32xf32>, tensor<?x32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%c: i1, %a: f32, %b: f32, %out: f32):
    %v = arith.select %c, %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sel : tensor<?x32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %two : f32
    linalg.yield %v : f32
  } -> tensor<?x32xf32>
  // expected-remark @below {{fused 4 elementwise producer(s) of A into the matmul's prologue: A is computed from 2 tensor(s) as the kernel reads it}}
  %r = fuser.matmul %g, %w epilogue_maps [] : tensor<?x32xf32>, tensor<32x48xf32> -> tensor<?x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x48xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A relu mask whose result something else reads too (dW's x.T): it stays
// for that reader, and the prologue recomputes it.
// CHECK-LABEL: func.func @shared_mask
// CHECK: %[[G:.+]] = linalg.generic
// CHECK: fuser.matmul %{{.+}}, %{{.+}} prologue_inputs
// CHECK: return %{{.+}}, %[[G]]
func.func @shared_mask(%y: tensor<8x32xf32>, %w: tensor<32x48xf32>, %dy: tensor<8x32xf32>) -> (tensor<8x48xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %dy : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    %v = arith.select %p, %b, %zero : f32
    linalg.yield %v : f32
  } -> tensor<8x32xf32>
  // expected-remark @below {{fused 1 elementwise producer(s) of A into the matmul's prologue: A is computed from 2 tensor(s) as the kernel reads it}}
  %r = fuser.matmul %g, %w epilogue_maps [] : tensor<8x32xf32>, tensor<32x48xf32> -> tensor<8x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r, %g : tensor<8x48xf32>, tensor<8x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Three full-size tensors: A's bytes would triple.
// CHECK-LABEL: func.func @three_leaves
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps
// CHECK-NOT: prologue
func.func @three_leaves(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>, %c: tensor<8x32xf32>, %w: tensor<32x48xf32>) -> tensor<8x48xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %t = arith.addf %x, %y : f32
    %u = arith.addf %t, %z : f32
    linalg.yield %u : f32
  } -> tensor<8x32xf32>
  // expected-remark @below {{A's elementwise producers not fused into the matmul: they read 3 tensors; a prologue reads at most 2}}
  %r = fuser.matmul %s, %w epilogue_maps [] : tensor<8x32xf32>, tensor<32x48xf32> -> tensor<8x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<8x48xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// 1 / x is infinite at the zeros the kernels pad A with past K.
// CHECK-LABEL: func.func @not_finite_at_zero
// CHECK-NOT: prologue
func.func @not_finite_at_zero(%a: tensor<8x30xf32>, %w: tensor<30x48xf32>) -> tensor<8x48xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<8x30xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x30xf32>) outs(%e : tensor<8x30xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.divf %one, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x30xf32>
  // expected-remark @below {{A's elementwise producers not fused into the matmul: they are not provably finite at 0 (the kernels pad A with zeros past K)}}
  %r = fuser.matmul %s, %w epilogue_maps [] : tensor<8x30xf32>, tensor<30x48xf32> -> tensor<8x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<8x48xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A scalar argument in the body: the prologue region is isolated.
// CHECK-LABEL: func.func @captured_scalar
// CHECK-NOT: prologue
func.func @captured_scalar(%a: tensor<8x32xf32>, %s: f32, %w: tensor<32x48xf32>) -> tensor<8x48xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.mulf %x, %s : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  // expected-remark @below {{A's elementwise producers not fused into the matmul: their body reads a scalar from outside}}
  %r = fuser.matmul %m, %w epilogue_maps [] : tensor<8x32xf32>, tensor<32x48xf32> -> tensor<8x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<8x48xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An M-major A (x.T) has no prologue: nothing is tried, nothing said.
// CHECK-LABEL: func.func @m_major
// CHECK: linalg.generic
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_a epilogue_maps
func.func @m_major(%a: tensor<32x8xf32>, %w: tensor<32x48xf32>) -> tensor<8x48xf32> {
  %e = tensor.empty() : tensor<32x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<32x8xf32>) outs(%e : tensor<32x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<32x8xf32>
  %r = fuser.matmul %m, %w transpose_a epilogue_maps [] : tensor<32x8xf32>, tensor<32x48xf32> -> tensor<8x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<8x48xf32>
}
