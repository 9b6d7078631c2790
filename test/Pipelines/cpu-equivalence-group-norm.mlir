// REQUIRES: mlir-runner
// GroupNorm(3, 6) as torch-mlir decomposes it, then LeakyReLU and a
// residual add, on N = 3 (dynamic) x 6 x 5 x 7 inputs with a large mean
// (100) and a small spread (0.01), unfused and fused (fuser.group_norm and
// its CPU reference lowering). The fused run divides and orders the sums
// differently, so the outputs agree to fp32 rounding, not bit for bit.
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.fused
// RUN: %PYTHON %fuser_src/test/Pipelines/Inputs/compare_floats.py %t.unfused %t.fused 1e-3 1e-4
// RUN: FileCheck %s --check-prefix=OUT < %t.fused
// The fused program really is fused: @gn is one fuser.group_norm.
// RUN: fuser-opt %s --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// OUT: Unranked Memref rank = 4 offset = 0 sizes = [3, 6, 5, 7] strides = [210, 35, 7, 1] data =
// OUT-NEXT: [
// OUT-SAME: {{-?[0-9]+\.[0-9]+}}
// FUSED-LABEL: func.func @gn
// FUSED-NOT: linalg.
// FUSED: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 3 eps = 1.000000e-05 epilogue_inputs
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @random

#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#red5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @gn(%x: tensor<?x6x5x7xf32>, %gamma: tensor<6xf32>, %beta: tensor<6xf32>,
                   %r: tensor<?x6x5x7xf32>) -> tensor<?x6x5x7xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6x5x7xf32>
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 70.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  %g = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [%n, 3, 2, 5, 7]
      : tensor<?x6x5x7xf32> into tensor<?x3x2x5x7xf32>
  %es = tensor.empty(%n) : tensor<?x3xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x3xf32>) -> tensor<?x3xf32>
  %sum = linalg.generic {indexing_maps = [#id5, #red5],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%g : tensor<?x3x2x5x7xf32>) outs(%zs : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x3xf32>) outs(%es : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  } -> tensor<?x3xf32>
  %sq = linalg.generic {indexing_maps = [#id5, #red5, #red5],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%g, %mean : tensor<?x3x2x5x7xf32>, tensor<?x3xf32>) outs(%zs : tensor<?x3xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  %rstd = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<?x3xf32>) outs(%es : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.divf %in, %count : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    linalg.yield %rs : f32
  } -> tensor<?x3xf32>
  %eg = tensor.empty(%n) : tensor<?x3x2x5x7xf32>
  %norm = linalg.generic {indexing_maps = [#id5, #red5, #red5, #id5],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<?x3x2x5x7xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
      outs(%eg : tensor<?x3x2x5x7xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<?x3x2x5x7xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2], [3], [4]]
      : tensor<?x3x2x5x7xf32> into tensor<?x6x5x7xf32>
  %e = tensor.empty(%n) : tensor<?x6x5x7xf32>
  %aff = linalg.generic {indexing_maps = [#id4, #ch4, #ch4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<?x6x5x7xf32>, tensor<6xf32>, tensor<6xf32>)
      outs(%e : tensor<?x6x5x7xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<?x6x5x7xf32>
  %act = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%aff : tensor<?x6x5x7xf32>) outs(%e : tensor<?x6x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %s = arith.select %pos, %in, %neg : f32
    linalg.yield %s : f32
  } -> tensor<?x6x5x7xf32>
  %y = linalg.add ins(%act, %r : tensor<?x6x5x7xf32>, tensor<?x6x5x7xf32>)
                  outs(%e : tensor<?x6x5x7xf32>) -> tensor<?x6x5x7xf32>
  return %y : tensor<?x6x5x7xf32>
}

#id2r = affine_map<(d0, d1) -> (d0, d1)>

// Pseudo-random values in [offset - scale, offset + scale):
// offset + fract(sin(k * 12.9898) * 43758.5) * 2 * scale - scale.
func.func @random(%rows: index, %cols: index, %seed: f32, %scale: f32, %offset: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id2r], iterator_types = ["parallel", "parallel"]}
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
    %o = arith.addf %w, %offset : f32
    linalg.yield %o : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c90 = arith.constant 90 : index
  %c210 = arith.constant 210 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %hundred = arith.constant 100.0 : f32
  %small = arith.constant 0.01 : f32
  %half = arith.constant 0.5 : f32
  %s1 = arith.constant 0.25 : f32
  %s2 = arith.constant 3.5 : f32
  %s3 = arith.constant 7.5 : f32
  %s4 = arith.constant 11.25 : f32
  %xd = func.call @random(%c90, %c210, %s1, %small, %hundred) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %xs = tensor.cast %xd : tensor<?x?xf32> to tensor<90x210xf32>
  %x4 = tensor.expand_shape %xs [[0, 1], [2, 3, 4]] output_shape [3, 30, 6, 5, 7] : tensor<90x210xf32> into tensor<3x30x6x5x7xf32>
  %x1 = tensor.extract_slice %x4[0, 0, 0, 0, 0] [3, 1, 6, 5, 7] [1, 1, 1, 1, 1] : tensor<3x30x6x5x7xf32> to tensor<3x6x5x7xf32>
  %x = tensor.cast %x1 : tensor<3x6x5x7xf32> to tensor<?x6x5x7xf32>
  %rd = func.call @random(%c90, %c210, %s2, %one, %zero) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %rs = tensor.cast %rd : tensor<?x?xf32> to tensor<90x210xf32>
  %r4 = tensor.expand_shape %rs [[0, 1], [2, 3, 4]] output_shape [3, 30, 6, 5, 7] : tensor<90x210xf32> into tensor<3x30x6x5x7xf32>
  %r1 = tensor.extract_slice %r4[0, 0, 0, 0, 0] [3, 1, 6, 5, 7] [1, 1, 1, 1, 1] : tensor<3x30x6x5x7xf32> to tensor<3x6x5x7xf32>
  %r = tensor.cast %r1 : tensor<3x6x5x7xf32> to tensor<?x6x5x7xf32>
  %gd = func.call @random(%c1, %c6, %s3, %half, %one) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %gc = tensor.collapse_shape %gd [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %gamma = tensor.cast %gc : tensor<?xf32> to tensor<6xf32>
  %bd = func.call @random(%c1, %c6, %s4, %half, %zero) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %bc = tensor.collapse_shape %bd [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %beta = tensor.cast %bc : tensor<?xf32> to tensor<6xf32>
  %y = func.call @gn(%x, %gamma, %beta, %r) : (tensor<?x6x5x7xf32>, tensor<6xf32>, tensor<6xf32>, tensor<?x6x5x7xf32>) -> tensor<?x6x5x7xf32>
  %m = bufferization.to_buffer %y : tensor<?x6x5x7xf32> to memref<?x6x5x7xf32>
  %u = memref.cast %m : memref<?x6x5x7xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
