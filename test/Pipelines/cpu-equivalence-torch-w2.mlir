// REQUIRES: mlir-runner
// W2's math as torch-mlir exports it (Inputs/torch_w2_small.mlir: nn.Linear
// (37, 19), * 2.0, leaky_relu(0.1), dynamic batch, weights as arguments;
// Inputs/torch_linear_leaky_relu.mlir: nn.Linear(32, 64), leaky_relu(0.2))
// plus hand-written keepdim broadcasts (operands read at 0 along size-1
// dimensions) in a matmul epilogue and in a pointwise group, run on the CPU
// unfused and fused. leaky_relu's max(0, y) + a * min(0, y) reads y twice,
// and fusion takes that DAG whole into one group per function; the outputs
// must be identical (the same scalar ops in the same order, the product
// summed over K in the same order from +0.0).
// RUN: sed -e 's/@main(/@w2_small(/' -e 's/#map/#w2_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_w2_small.mlir > %t.mlir
// RUN: sed -e 's/@main(/@linear_leaky(/' -e 's/#map/#ll_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_linear_leaky_relu.mlir >> %t.mlir
// RUN: cat %s >> %t.mlir
// RUN: fuser-opt %t.mlir --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %t.mlir --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.fused
// RUN: diff %t.unfused %t.fused
// RUN: FileCheck %s --check-prefix=OUT < %t.fused
// The fused program really is fused: one group per function.
// RUN: fuser-opt %t.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// Four results, each with negative entries (leaky_relu's slope applied)
// and positive ones.
// OUT-COUNT-2: Unranked Memref rank = 2 offset = 0 sizes = [5, 19] strides = [19, 1] data =
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [5, 64] strides = [64, 1] data =
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [5, 19] strides = [19, 1] data =
// OUT-NEXT: {{\[\[}}{{.*}}-0.{{.*}}, 0.{{.*}}]

// FUSED-LABEL: func.func @w2_small
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}} : tensor<19xf32>)
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED-LABEL: func.func @linear_leaky
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}} : tensor<64xf32>)
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED-LABEL: func.func @linear_keepdim
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}}, %{{.+}} : tensor<19xf32>, tensor<?xf32>)
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED-LABEL: func.func @keepdim_pointwise
// FUSED-NOT: linalg.
// FUSED: fuser.pointwise ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<?x19xf32>, tensor<?xf32>, tensor<19xf32>)
// FUSED-NOT: linalg.
// FUSED-NOT: fuser.pointwise
// FUSED-LABEL: func.func @random

#id = affine_map<(d0, d1) -> (d0, d1)>
#row1 = affine_map<(d0, d1) -> (0, d1)>
#col1 = affine_map<(d0, d1) -> (d0, 0)>

// leaky_relu(x . W^T + b[1, N], 0.1) * s[M, 1]: the bias and the per-row
// scale keep their unit dimension (keepdim), read at 0 along it; leaky_relu
// as max + slope * min.
func.func @linear_keepdim(%x: tensor<?x37xf32>, %w: tensor<19x37xf32>, %b: tensor<1x19xf32>, %s: tensor<?x1xf32>) -> tensor<?x19xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.1 : f32
  %m = tensor.dim %x, %c0 : tensor<?x37xf32>
  %et = tensor.empty() : tensor<37x19xf32>
  %wt = linalg.transpose ins(%w : tensor<19x37xf32>) outs(%et : tensor<37x19xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x19xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x37xf32>, tensor<37x19xf32>) outs(%z : tensor<?x19xf32>) -> tensor<?x19xf32>
  %y = linalg.generic {indexing_maps = [#id, #row1, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x19xf32>, tensor<1x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  %mx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  %mn = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.minimumf %a, %zero : f32
    %t = arith.mulf %r, %slope : f32
    linalg.yield %t : f32
  } -> tensor<?x19xf32>
  %l = linalg.generic {indexing_maps = [#id, #id, #col1, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mx, %mn, %s : tensor<?x19xf32>, tensor<?x19xf32>, tensor<?x1xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %c: f32, %k: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    %t = arith.mulf %r, %k : f32
    linalg.yield %t : f32
  } -> tensor<?x19xf32>
  return %l : tensor<?x19xf32>
}

// (x - mean[M, 1]) * g[1, N], then leaky_relu(0.2) as max + slope * min.
func.func @keepdim_pointwise(%x: tensor<?x19xf32>, %mean: tensor<?x1xf32>, %g: tensor<1x19xf32>) -> tensor<?x19xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.2 : f32
  %m = tensor.dim %x, %c0 : tensor<?x19xf32>
  %e = tensor.empty(%m) : tensor<?x19xf32>
  %y = linalg.generic {indexing_maps = [#id, #col1, #row1, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %g : tensor<?x19xf32>, tensor<?x1xf32>, tensor<1x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %mu: f32, %gg: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %r = arith.mulf %d, %gg : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  %mx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x19xf32>
  %mn = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.minimumf %a, %zero : f32
    %t = arith.mulf %r, %slope : f32
    linalg.yield %t : f32
  } -> tensor<?x19xf32>
  %l = linalg.add ins(%mx, %mn : tensor<?x19xf32>, tensor<?x19xf32>) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  return %l : tensor<?x19xf32>
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

func.func @print(%y: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %y : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c19 = arith.constant 19 : index
  %c32 = arith.constant 32 : index
  %c37 = arith.constant 37 : index
  %c64 = arith.constant 64 : index
  %seed_x = arith.constant 0.25 : f32
  %seed_w = arith.constant 3.5 : f32
  %seed_b = arith.constant 7.5 : f32
  %seed_s = arith.constant 11.5 : f32
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.16 : f32

  // W2 (export): x 5 x 37, W 19 x 37, b 19.
  %xd = func.call @random(%c5, %c37, %seed_x, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<?x37xf32>
  %wd = func.call @random(%c19, %c37, %seed_w, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<19x37xf32>
  %bd = func.call @random(%c1, %c19, %seed_b, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b1 = tensor.cast %bd : tensor<?x?xf32> to tensor<1x19xf32>
  %b = tensor.collapse_shape %b1 [[0, 1]] : tensor<1x19xf32> into tensor<19xf32>
  %y = func.call @w2_small(%x, %w, %b) : (tensor<?x37xf32>, tensor<19x37xf32>, tensor<19xf32>) -> tensor<?x19xf32>
  %yu = tensor.cast %y : tensor<?x19xf32> to tensor<?x?xf32>
  func.call @print(%yu) : (tensor<?x?xf32>) -> ()

  // The same with keepdim operands.
  %sd = func.call @random(%c5, %c1, %seed_s, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %s = tensor.cast %sd : tensor<?x?xf32> to tensor<?x1xf32>
  %k = func.call @linear_keepdim(%x, %w, %b1, %s) : (tensor<?x37xf32>, tensor<19x37xf32>, tensor<1x19xf32>, tensor<?x1xf32>) -> tensor<?x19xf32>
  %ku = tensor.cast %k : tensor<?x19xf32> to tensor<?x?xf32>
  func.call @print(%ku) : (tensor<?x?xf32>) -> ()

  // nn.Linear(32, 64) + leaky_relu(0.2) (export): x 5 x 32.
  %x2d = func.call @random(%c5, %c32, %seed_x, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %x2 = tensor.cast %x2d : tensor<?x?xf32> to tensor<?x32xf32>
  %w2d = func.call @random(%c64, %c32, %seed_w, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<64x32xf32>
  %b2d = func.call @random(%c1, %c64, %seed_b, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b2c = tensor.collapse_shape %b2d [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %b2 = tensor.cast %b2c : tensor<?xf32> to tensor<64xf32>
  %l = func.call @linear_leaky(%x2, %w2, %b2) : (tensor<?x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %lu = tensor.cast %l : tensor<?x64xf32> to tensor<?x?xf32>
  func.call @print(%lu) : (tensor<?x?xf32>) -> ()

  // Pointwise with keepdim operands: x 5 x 19, mean 5 x 1, g 1 x 19.
  %pxd = func.call @random(%c5, %c19, %seed_s, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %pxs = tensor.cast %pxd : tensor<?x?xf32> to tensor<?x19xf32>
  %gd = func.call @random(%c1, %c19, %seed_w, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %g = tensor.cast %gd : tensor<?x?xf32> to tensor<1x19xf32>
  %md = func.call @random(%c5, %c1, %seed_b, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %mean = tensor.cast %md : tensor<?x?xf32> to tensor<?x1xf32>
  %p = func.call @keepdim_pointwise(%pxs, %mean, %g) : (tensor<?x19xf32>, tensor<?x1xf32>, tensor<1x19xf32>) -> tensor<?x19xf32>
  %pu = tensor.cast %p : tensor<?x19xf32> to tensor<?x?xf32>
  func.call @print(%pu) : (tensor<?x?xf32>) -> ()
  return
}
