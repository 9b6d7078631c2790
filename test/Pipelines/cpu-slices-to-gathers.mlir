// REQUIRES: mlir-runner
// fuser-slices-to-gathers computes what the ops it replaces compute: run
// on the CPU reference lowering, each gather prints the elements of its
// slice, insertion, concatenation or pad. x[a, b, c] = 100a + 10b + c.
// RUN: fuser-opt %s --pass-pipeline="builtin.module(func.func(fuser-slices-to-gathers))" \
// RUN:   | fuser-opt --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s
// RUN: fuser-opt %s --pass-pipeline="builtin.module(func.func(fuser-slices-to-gathers))" \
// RUN:   | FileCheck %s --check-prefix=GATHERS

// Every view became a gather.
// GATHERS-NOT: tensor.extract_slice
// GATHERS-NOT: tensor.insert_slice
// GATHERS-NOT: tensor.concat
// GATHERS-NOT: tensor.pad

// x[1, 2i, 1 + 2j]: rank-reduced, strided.
// CHECK: sizes = [2, 2]
// CHECK-NEXT: [101,   103]
// CHECK-NEXT: [121,   123]
// A chunk of a dynamic tensor: x[0, :, 2:4].
// CHECK: sizes = [3, 2]
// CHECK-NEXT: [2,   3]
// CHECK-NEXT: [12,   13]
// CHECK-NEXT: [22,   23]
// cat([x[0], -1, x[1, :, :1]], dim=1), the middle input of dynamic size.
// CHECK: sizes = [3, 6]
// CHECK-NEXT: [0,   1,   2,   3,   -1,   100]
// CHECK-NEXT: [10,   11,   12,   13,   -1,   110]
// CHECK-NEXT: [20,   21,   22,   23,   -1,   120]
// x[1, :, :2] into columns 0 and 2 of rows 1..3 of a 4x4 of -1.
// CHECK: sizes = [4, 4]
// CHECK-NEXT: [-1,   -1,   -1,   -1]
// CHECK-NEXT: [100,   -1,   101,   -1]
// CHECK-NEXT: [110,   -1,   111,   -1]
// CHECK-NEXT: [120,   -1,   121,   -1]
// x[0, :2, :3] padded by one row above and two columns right with 7.
// CHECK: sizes = [3, 5]
// CHECK-NEXT: [7,   7,   7,   7,   7]
// CHECK-NEXT: [0,   1,   2,   7,   7]
// CHECK-NEXT: [10,   11,   12,   7,   7]
// x[:, 1:, 1:] (rank 3: one loop over the leading dims, delinearized).
// CHECK: sizes = [2, 2, 3]
// CHECK-NEXT: {{\[}}[11,    12,    13],
// CHECK-NEXT: [21,    22,    23]],
// CHECK-NEXT: {{\[}}[111,    112,    113],
// CHECK-NEXT: [121,    122,    123]]

func.func @strided(%x: tensor<2x3x4xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %x[1, 0, 1] [1, 2, 2] [1, 2, 2]
      : tensor<2x3x4xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

func.func @chunk(%x: tensor<?x?x?xf32>) -> tensor<?x2xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %s = tensor.extract_slice %x[0, 0, 2] [1, %n, 2] [1, 1, 1]
      : tensor<?x?x?xf32> to tensor<?x2xf32>
  return %s : tensor<?x2xf32>
}

func.func @cat(%a: tensor<3x4xf32>, %b: tensor<3x?xf32>, %c: tensor<3x1xf32>)
    -> tensor<3x?xf32> {
  %r = tensor.concat dim(1) %a, %b, %c
      : (tensor<3x4xf32>, tensor<3x?xf32>, tensor<3x1xf32>) -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

func.func @insert(%src: tensor<3x2xf32>, %dest: tensor<4x4xf32>)
    -> tensor<4x4xf32> {
  %r = tensor.insert_slice %src into %dest[1, 0] [3, 2] [1, 2]
      : tensor<3x2xf32> into tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

func.func @pad(%x: tensor<?x3xf32>) -> tensor<?x5xf32> {
  %c7 = arith.constant 7.0 : f32
  %p = tensor.pad %x low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c7 : f32
  } : tensor<?x3xf32> to tensor<?x5xf32>
  return %p : tensor<?x5xf32>
}

func.func @rank3(%x: tensor<2x3x4xf32>) -> tensor<2x2x3xf32> {
  %s = tensor.extract_slice %x[0, 1, 1] [2, 2, 3] [1, 1, 1]
      : tensor<2x3x4xf32> to tensor<2x2x3xf32>
  return %s : tensor<2x2x3xf32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0],
                              [20.0, 21.0, 22.0, 23.0]],
                             [[100.0, 101.0, 102.0, 103.0],
                              [110.0, 111.0, 112.0, 113.0],
                              [120.0, 121.0, 122.0, 123.0]]]> : tensor<2x3x4xf32>
  %s = func.call @strided(%x) : (tensor<2x3x4xf32>) -> tensor<2x2xf32>
  %sd = tensor.cast %s : tensor<2x2xf32> to tensor<?x?xf32>
  func.call @print(%sd) : (tensor<?x?xf32>) -> ()

  %xd = tensor.cast %x : tensor<2x3x4xf32> to tensor<?x?x?xf32>
  %k = func.call @chunk(%xd) : (tensor<?x?x?xf32>) -> tensor<?x2xf32>
  %kd = tensor.cast %k : tensor<?x2xf32> to tensor<?x?xf32>
  func.call @print(%kd) : (tensor<?x?xf32>) -> ()

  %a = tensor.extract_slice %x[0, 0, 0] [1, 3, 4] [1, 1, 1]
      : tensor<2x3x4xf32> to tensor<3x4xf32>
  %m1 = arith.constant dense<-1.0> : tensor<3x1xf32>
  %b = tensor.cast %m1 : tensor<3x1xf32> to tensor<3x?xf32>
  %c = tensor.extract_slice %x[1, 0, 0] [1, 3, 1] [1, 1, 1]
      : tensor<2x3x4xf32> to tensor<3x1xf32>
  %cat = func.call @cat(%a, %b, %c)
      : (tensor<3x4xf32>, tensor<3x?xf32>, tensor<3x1xf32>) -> tensor<3x?xf32>
  %catd = tensor.cast %cat : tensor<3x?xf32> to tensor<?x?xf32>
  func.call @print(%catd) : (tensor<?x?xf32>) -> ()

  %src = tensor.extract_slice %x[1, 0, 0] [1, 3, 2] [1, 1, 1]
      : tensor<2x3x4xf32> to tensor<3x2xf32>
  %dest = arith.constant dense<-1.0> : tensor<4x4xf32>
  %ins = func.call @insert(%src, %dest)
      : (tensor<3x2xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %insd = tensor.cast %ins : tensor<4x4xf32> to tensor<?x?xf32>
  func.call @print(%insd) : (tensor<?x?xf32>) -> ()

  %top = tensor.extract_slice %x[0, 0, 0] [1, 2, 3] [1, 1, 1]
      : tensor<2x3x4xf32> to tensor<2x3xf32>
  %topd = tensor.cast %top : tensor<2x3xf32> to tensor<?x3xf32>
  %p = func.call @pad(%topd) : (tensor<?x3xf32>) -> tensor<?x5xf32>
  %pd = tensor.cast %p : tensor<?x5xf32> to tensor<?x?xf32>
  func.call @print(%pd) : (tensor<?x?xf32>) -> ()

  %r3 = func.call @rank3(%x) : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  %r3m = bufferization.to_buffer %r3 : tensor<2x2x3xf32> to memref<2x2x3xf32>
  %r3u = memref.cast %r3m : memref<2x2x3xf32> to memref<*xf32>
  func.call @printMemrefF32(%r3u) : (memref<*xf32>) -> ()
  return
}
