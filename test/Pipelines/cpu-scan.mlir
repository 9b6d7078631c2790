// REQUIRES: mlir-runner
// fuser.scan's CPU reference lowering (fuser-to-linalg: a loop over the
// scanned dimension) computes the op's definition: an inclusive sum along
// the rows of a dynamic tensor, an exclusive product down its columns from
// a loaded init (the accumulator: the last output row), an empty
// dimension (the accumulator: the init), and a reversed sum along rows.
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s

// CHECK: sizes = [2, 4]
// CHECK-NEXT: [1,   3,   0,   4]
// CHECK-NEXT: [-2,   -2,   3,   -1]
// CHECK: sizes = [2, 4]
// CHECK-NEXT: [10,   20,   30,   40]
// CHECK-NEXT: [10,   40,   -90,   160]
// CHECK: sizes = [4]
// CHECK-NEXT: [10,  40,  -90,  160]
// CHECK: sizes = [2]
// CHECK-NEXT: [7,  8]
// CHECK: sizes = [2, 4]
// CHECK-NEXT: [4,   3,   1,   4]
// CHECK-NEXT: [-1,   1,   1,   -4]

func.func @cumsum(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%z : f32) outs(%ea : tensor<?xf32>) -> tensor<?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x?xf32>) outs(%e, %init : tensor<?x?xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?xf32>, tensor<?xf32>
  return %out : tensor<?x?xf32>
}

func.func @exclusive_cumprod(%x: tensor<2x4xf32>, %init: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %out, %acc = fuser.scan dimension(0) inclusive(false)
      ins(%x : tensor<2x4xf32>) outs(%e, %init : tensor<2x4xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<2x4xf32>, tensor<4xf32>
  return %out, %acc : tensor<2x4xf32>, tensor<4xf32>
}

func.func @empty(%x: tensor<2x0xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2x0xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<2x0xf32>) outs(%e, %init : tensor<2x0xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<2x0xf32>, tensor<2xf32>
  return %acc : tensor<2xf32>
}

func.func @reverse_cumsum(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%z : f32) outs(%ea : tensor<2xf32>) -> tensor<2xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<2x4xf32>) outs(%e, %init : tensor<2x4xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {reverse} -> tensor<2x4xf32>, tensor<2xf32>
  return %out : tensor<2x4xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @print2(%t: tensor<2x4xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x4xf32> to memref<2x4xf32>
  %u = memref.cast %m : memref<2x4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, -3.0, 4.0], [-2.0, 0.0, 5.0, -4.0]]> : tensor<2x4xf32>
  %xd = tensor.cast %x : tensor<2x4xf32> to tensor<?x?xf32>
  %s = func.call @cumsum(%xd) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %ss = tensor.cast %s : tensor<?x?xf32> to tensor<2x4xf32>
  func.call @print2(%ss) : (tensor<2x4xf32>) -> ()
  %init = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %p, %acc = func.call @exclusive_cumprod(%x, %init) : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>)
  func.call @print2(%p) : (tensor<2x4xf32>) -> ()
  %am = bufferization.to_buffer %acc : tensor<4xf32> to memref<4xf32>
  %au = memref.cast %am : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%au) : (memref<*xf32>) -> ()
  %ex = arith.constant dense<> : tensor<2x0xf32>
  %ei = arith.constant dense<[7.0, 8.0]> : tensor<2xf32>
  %ea = func.call @empty(%ex, %ei) : (tensor<2x0xf32>, tensor<2xf32>) -> tensor<2xf32>
  %em = bufferization.to_buffer %ea : tensor<2xf32> to memref<2xf32>
  %eu = memref.cast %em : memref<2xf32> to memref<*xf32>
  func.call @printMemrefF32(%eu) : (memref<*xf32>) -> ()
  %r = func.call @reverse_cumsum(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.call @print2(%r) : (tensor<2x4xf32>) -> ()
  return
}
