// REQUIRES: mlir-runner
// Runs W2-like math (nn.Linear as torch-mlir emits it, then * 2.0 and
// LeakyReLU(0.1)) and a W3-like tail (matmul, column bias, LeakyReLU(0.01),
// x + x) on odd shapes (M = 5 dynamic, K = 37, N = 19) unfused and fused on
// the CPU, through the reference lowering of fuser.matmul, and requires
// identical output: the fused product sums K in the same order from +0.0.
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.fused
// RUN: diff %t.unfused %t.fused
// RUN: FileCheck %s --check-prefix=OUT < %t.fused
// The fused program really is fused: each function is one fuser.matmul.
// RUN: fuser-opt %s --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// OUT: Unranked Memref rank = 2 offset = 0 sizes = [5, 19] strides = [19, 1] data =
// OUT-NEXT: [
// OUT-SAME: {{-?[0-9]+\.[0-9]+}}
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [5, 19] strides = [19, 1] data =
// FUSED-LABEL: func.func @linear_scale_leaky
// FUSED-NOT: linalg.
// FUSED: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @matmul_col_leaky_double
// FUSED-NOT: linalg.
// FUSED: fuser.matmul %{{.+}}, %{{.+}} epilogue_inputs
// FUSED: %[[SEL:.+]] = arith.select
// FUSED-NEXT: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// FUSED-NEXT: %[[D:.+]] = arith.mulf %[[SEL]], %[[TWO]] : f32
// FUSED-NEXT: fuser.yield %[[D]]
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @random

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

// W2: leaky_relu((x @ W^T + b) * 2.0, 0.1), W stored (out, in).
func.func @linear_scale_leaky(%x: tensor<?x37xf32>, %w: tensor<19x37xf32>, %b: tensor<19xf32>) -> tensor<?x19xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %slope = arith.constant 0.1 : f32
  %m = tensor.dim %x, %c0 : tensor<?x37xf32>
  %et = tensor.empty() : tensor<37x19xf32>
  %wt = linalg.transpose ins(%w : tensor<19x37xf32>) outs(%et : tensor<37x19xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x19xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x37xf32>, tensor<37x19xf32>) outs(%z : tensor<?x19xf32>) -> tensor<?x19xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x19xf32>, tensor<19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x19xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %two : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h2 : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %n = arith.mulf %a, %slope : f32
    %r = arith.select %p, %a, %n : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  return %y : tensor<?x19xf32>
}

// x @ B + column bias, LeakyReLU(0.01), then x + x (becomes x * 2.0).
func.func @matmul_col_leaky_double(%x: tensor<?x37xf32>, %bm: tensor<37x19xf32>, %c: tensor<?xf32>) -> tensor<?x19xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.01 : f32
  %m = tensor.dim %x, %c0 : tensor<?x37xf32>
  %e = tensor.empty(%m) : tensor<?x19xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  %mm = linalg.matmul ins(%x, %bm : tensor<?x37xf32>, tensor<37x19xf32>) outs(%z : tensor<?x19xf32>) -> tensor<?x19xf32>
  %cb = linalg.broadcast ins(%c : tensor<?xf32>) outs(%e : tensor<?x19xf32>) dimensions = [1]
  %h = linalg.add ins(%mm, %cb : tensor<?x19xf32>, tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%in: f32, %o: f32):
    %p = arith.cmpf ugt, %in, %zero : f32
    %n = arith.mulf %in, %slope : f32
    %r = arith.select %p, %in, %n : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  %y = linalg.add ins(%a, %a : tensor<?x19xf32>, tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  return %y : tensor<?x19xf32>
}

// Pseudo-random values in [-scale, scale): fract(sin(k * 12.9898) * 43758.5).
func.func @random(%rows: index, %cols: index, %seed: f32, %scale: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k0 = arith.muli %i, %cols : index
    %k1 = arith.addi %k0, %j : index
    %ki = arith.index_cast %k1 : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %ks = arith.addf %kf, %seed : f32
    %c1 = arith.constant 12.9898 : f32
    %c2 = arith.constant 43758.5453 : f32
    %m = arith.mulf %ks, %c1 : f32
    %sn = math.sin %m : f32
    %big = arith.mulf %sn, %c2 : f32
    %fl = math.floor %big : f32
    %fr = arith.subf %big, %fl : f32
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %u = arith.mulf %fr, %two : f32
    %v = arith.subf %u, %one : f32
    %w = arith.mulf %v, %scale : f32
    linalg.yield %w : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%y: tensor<?x19xf32>) {
  %m = bufferization.to_buffer %y : tensor<?x19xf32> to memref<?x19xf32>
  %u = memref.cast %m : memref<?x19xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c19 = arith.constant 19 : index
  %c37 = arith.constant 37 : index
  %seed_x = arith.constant 0.25 : f32
  %seed_w = arith.constant 3.5 : f32
  %seed_b = arith.constant 7.5 : f32
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.16 : f32
  %xd = func.call @random(%c5, %c37, %seed_x, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<?x37xf32>
  %wd = func.call @random(%c19, %c37, %seed_w, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<19x37xf32>
  %bd = func.call @random(%c1, %c19, %seed_b, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %bc = tensor.collapse_shape %bd [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %b = tensor.cast %bc : tensor<?xf32> to tensor<19xf32>
  %y = func.call @linear_scale_leaky(%x, %w, %b) : (tensor<?x37xf32>, tensor<19x37xf32>, tensor<19xf32>) -> tensor<?x19xf32>
  func.call @print(%y) : (tensor<?x19xf32>) -> ()

  %bmd = func.call @random(%c37, %c19, %seed_w, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %bm = tensor.cast %bmd : tensor<?x?xf32> to tensor<37x19xf32>
  %cd = func.call @random(%c1, %c5, %seed_b, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %c = tensor.collapse_shape %cd [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %y2 = func.call @matmul_col_leaky_double(%x, %bm, %c) : (tensor<?x37xf32>, tensor<37x19xf32>, tensor<?xf32>) -> tensor<?x19xf32>
  func.call @print(%y2) : (tensor<?x19xf32>) -> ()
  return
}
