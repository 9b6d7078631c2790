// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -verify-diagnostics | FileCheck %s

// Rows of 32768 floats: up to 1024 threads per row, 4 consecutive elements
// each, in 16-byte vectors.
// CHECK-LABEL: func.func @cumsum_rows
// CHECK: config = #fuser.config<strategy = "scan_rows", block = [1024, 1, 1], vector_width = 4, tile = [1024, 1, 4]>
func.func @cumsum_rows(%x: tensor<4096x32768xf32>, %e: tensor<4096x32768xf32>, %init: tensor<4096xf32>) -> tensor<4096x32768xf32> {
  // expected-remark @+1 {{scan kernel: 4096 line(s) of 32768 elements, 1024 threads per row, 4 consecutive elements each in 4-element vectors}}
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<4096x32768xf32>) outs(%e, %init : tensor<4096x32768xf32>, tensor<4096xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<4096x32768xf32>, tensor<4096xf32>
  return %out : tensor<4096x32768xf32>
}

// -----

// A masked cumsum, cumsum(x * (m > 0)): the product runs in the scan's
// loads, two tensors read per element, so at most 512 threads per row.
// CHECK-LABEL: func.func @masked_cumsum_rows
// CHECK: config = #fuser.config<strategy = "scan_rows", block = [512, 1, 1], vector_width = 4, tile = [512, 1, 4]>
func.func @masked_cumsum_rows(%x: tensor<4096x32768xf32>, %m: tensor<4096x32768xf32>, %e: tensor<4096x32768xf32>, %init: tensor<4096xf32>) -> tensor<4096x32768xf32> {
  %masked = fuser.pointwise ins(%x, %m : tensor<4096x32768xf32>, tensor<4096x32768xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4096x32768xf32> {
  ^bb0(%a: f32, %b: f32):
    %zero = arith.constant 0.0 : f32
    %keep = arith.cmpf ogt, %b, %zero : f32
    %v = arith.select %keep, %a, %zero : f32
    fuser.yield %v : f32
  }
  // expected-remark @+1 {{scan kernel: 4096 line(s) of 32768 elements, 512 threads per row, 4 consecutive elements each in 4-element vectors (its input's producer runs in the kernel: 2 inputs read per element)}}
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%masked : tensor<4096x32768xf32>) outs(%e, %init : tensor<4096x32768xf32>, tensor<4096xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<4096x32768xf32>, tensor<4096xf32>
  return %out : tensor<4096x32768xf32>
}

// -----

// A producer that something else reads too keeps its own kernel: the scan
// loads its result, one tensor, and takes up to 1024 threads per row.
// CHECK-LABEL: func.func @shared_producer
// CHECK: tile = [1024, 1, 4]>
func.func @shared_producer(%x: tensor<4096x32768xf32>, %m: tensor<4096x32768xf32>, %e: tensor<4096x32768xf32>, %init: tensor<4096xf32>) -> (tensor<4096x32768xf32>, tensor<4096x32768xf32>) {
  %masked = fuser.pointwise ins(%x, %m : tensor<4096x32768xf32>, tensor<4096x32768xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4096x32768xf32> {
  ^bb0(%a: f32, %b: f32):
    %v = arith.mulf %a, %b : f32
    fuser.yield %v : f32
  }
  // expected-remark @+1 {{1024 threads per row, 4 consecutive elements each in 4-element vectors}}
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%masked : tensor<4096x32768xf32>) outs(%e, %init : tensor<4096x32768xf32>, tensor<4096xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<4096x32768xf32>, tensor<4096xf32>
  return %out, %masked : tensor<4096x32768xf32>, tensor<4096x32768xf32>
}
