// REQUIRES: mlir-runner
// W3's chain in small: Linear(37 -> 80) with a dynamic batch of 5, then
// GroupNorm(5 groups of 16) as torch-mlir decomposes it, LeakyReLU(0.01),
// x + x, with a bias that puts every group's mean near 30. Unfused, and fused
// into one fuser.matmul with group_norm (lowered for the CPU as the matmul,
// then the group norm): the same two-pass statistics in another order, so
// the outputs agree to fp32 rounding, not bit for bit.
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.fused
// RUN: %PYTHON %fuser_src/test/Pipelines/Inputs/compare_floats.py %t.unfused %t.fused 1e-4 1e-4
// RUN: FileCheck %s --check-prefix=OUT < %t.fused
// The fused program really is one group: @linear_gn is one fuser.matmul.
// RUN: fuser-opt %s --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// OUT: Unranked Memref rank = 2 offset = 0 sizes = [5, 80] strides = [80, 1] data =
// OUT-NEXT: [
// OUT-SAME: {{-?[0-9]+\.[0-9]+}}
// FUSED-LABEL: func.func @linear_gn
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.group_norm
// FUSED: fuser.matmul {{.+}} group_norm(size = 16, eps = 1.000000e-05)
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.group_norm
// FUSED-LABEL: func.func @random

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linear_gn(%x: tensor<?x37xf32>, %w: tensor<80x37xf32>, %b: tensor<80xf32>,
                   %gamma: tensor<80xf32>, %beta: tensor<80xf32>) -> tensor<?x80xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.0625 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  %m = tensor.dim %x, %c0 : tensor<?x37xf32>
  %et = tensor.empty() : tensor<37x80xf32>
  %wt = linalg.transpose ins(%w : tensor<80x37xf32>) outs(%et : tensor<37x80xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x80xf32>) -> tensor<?x80xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x37xf32>, tensor<37x80xf32>)
                      outs(%acc : tensor<?x80xf32>) -> tensor<?x80xf32>
  %lin = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x80xf32>, tensor<80xf32>) outs(%e : tensor<?x80xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<?x80xf32>
  %g = tensor.expand_shape %lin [[0], [1, 2]] output_shape [%m, 5, 16]
      : tensor<?x80xf32> into tensor<?x5x16xf32>
  %es = tensor.empty(%m) : tensor<?x5xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x5xf32>) -> tensor<?x5xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<?x5x16xf32>) outs(%zs : tensor<?x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?x5xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x5xf32>) outs(%es : tensor<?x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %inv : f32
    linalg.yield %r : f32
  } -> tensor<?x5xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<?x5x16xf32>, tensor<?x5xf32>) outs(%zs : tensor<?x5xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?x5xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<?x5xf32>) outs(%es : tensor<?x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<?x5xf32>
  %eg = tensor.empty(%m) : tensor<?x5x16xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<?x5x16xf32>, tensor<?x5xf32>, tensor<?x5xf32>)
      outs(%eg : tensor<?x5x16xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %n = arith.mulf %d, %rs : f32
    linalg.yield %n : f32
  } -> tensor<?x5x16xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<?x5x16xf32> into tensor<?x80xf32>
  %affine = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<?x80xf32>, tensor<80xf32>, tensor<80xf32>)
      outs(%e : tensor<?x80xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m1 = arith.mulf %in, %ga : f32
    %a = arith.addf %m1, %be : f32
    linalg.yield %a : f32
  } -> tensor<?x80xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%affine : tensor<?x80xf32>) outs(%e : tensor<?x80xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<?x80xf32>
  %y = linalg.add ins(%act, %act : tensor<?x80xf32>, tensor<?x80xf32>)
                  outs(%e : tensor<?x80xf32>) -> tensor<?x80xf32>
  return %y : tensor<?x80xf32>
}

#id2r = affine_map<(d0, d1) -> (d0, d1)>
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

func.func @vector(%n: index, %seed: f32, %scale: f32, %offset: f32) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %m = func.call @random(%c1, %n, %seed, %scale, %offset) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %v = tensor.collapse_shape %m [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  return %v : tensor<?xf32>
}

func.func @main() {
  %c5 = arith.constant 5 : index
  %c37 = arith.constant 37 : index
  %c80 = arith.constant 80 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %thirty = arith.constant 30.0 : f32
  %wscale = arith.constant 0.16 : f32
  %s1 = arith.constant 0.25 : f32
  %s2 = arith.constant 3.5 : f32
  %s3 = arith.constant 7.5 : f32
  %s4 = arith.constant 11.25 : f32
  %s5 = arith.constant 15.75 : f32
  %xd = func.call @random(%c5, %c37, %s1, %one, %zero) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<?x37xf32>
  %wd = func.call @random(%c80, %c37, %s2, %wscale, %zero) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<80x37xf32>
  %bd = func.call @vector(%c80, %s3, %wscale, %thirty) : (index, f32, f32, f32) -> tensor<?xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<80xf32>
  %gd = func.call @vector(%c80, %s4, %one, %zero) : (index, f32, f32, f32) -> tensor<?xf32>
  %gamma = tensor.cast %gd : tensor<?xf32> to tensor<80xf32>
  %ed = func.call @vector(%c80, %s5, %one, %zero) : (index, f32, f32, f32) -> tensor<?xf32>
  %beta = tensor.cast %ed : tensor<?xf32> to tensor<80xf32>
  %y = func.call @linear_gn(%x, %w, %b, %gamma, %beta)
      : (tensor<?x37xf32>, tensor<80x37xf32>, tensor<80xf32>, tensor<80xf32>, tensor<80xf32>) -> tensor<?x80xf32>
  %ym = bufferization.to_buffer %y : tensor<?x80xf32> to memref<?x80xf32>
  %yu = memref.cast %ym : memref<?x80xf32> to memref<*xf32>
  func.call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  return
}
