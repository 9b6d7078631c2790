// REQUIRES: mlir-runner
// Runs the same program unfused and fused on the CPU (through the reference
// lowering of fusion groups) on pseudo-random inputs of both signs, and
// requires identical output.
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
// The fused program really is fused: one group, one result plus the export.
// RUN: fuser-opt %s --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// OUT: Unranked Memref rank = 2 offset = 0 sizes = [3, 37] strides = [37, 1] data =
// OUT-NEXT: [
// OUT-SAME: {{-?[0-9]+\.[0-9]+}}
// FUSED-LABEL: func.func @chain
// FUSED-COUNT-1: fuser.pointwise
// FUSED-NOT: linalg.generic
// FUSED-NOT: fuser.pointwise
// FUSED-LABEL: func.func @random

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// h = x * 0.5 + b; y = tanh(leaky_relu(h)) + exp(-|h|) * h
func.func @chain(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %half = arith.constant 0.5 : f32
  %e = tensor.empty(%n, %c) : tensor<?x?xf32>
  %s = linalg.fill ins(%half : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %xs = linalg.mul ins(%x, %s : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %bb = linalg.broadcast ins(%b : tensor<?xf32>) outs(%e : tensor<?x?xf32>) dimensions = [0]
  %h = linalg.add ins(%xs, %bb : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.01 : f32
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %zero : f32
    %m = arith.mulf %in, %slope : f32
    %r = arith.select %p, %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %t = linalg.tanh ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ab = linalg.abs ins(%h : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ng = linalg.negf ins(%ab : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ex = linalg.exp ins(%ng : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %eh = linalg.mul ins(%ex, %h : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.add ins(%t, %eh : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
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

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c37 = arith.constant 37 : index
  %seed_x = arith.constant 0.25 : f32
  %seed_b = arith.constant 7.5 : f32
  %scale = arith.constant 4.0 : f32
  %x = func.call @random(%c3, %c37, %seed_x, %scale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b2 = func.call @random(%c1, %c37, %seed_b, %scale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b = tensor.collapse_shape %b2 [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %y = func.call @chain(%x, %b) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %m = bufferization.to_buffer %y : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
