// REQUIRES: mlir-runner
// torch-mlir's normalisation decompositions (Inputs/torch_*.mlir, from
// scripts/export-torch-inputs.py: the variance in f64, the mean in f32,
// statistics read through (d0, d1, 0, 0) maps) run on the CPU unfused and
// fused (fuser.group_norm, and for the Linear -> GroupNorm -> LeakyReLU ->
// y + y chain one fuser.matmul with group_norm, through their CPU reference
// lowerings, whose statistics are two-pass fp32 sums). The outputs agree
// to fp32 rounding (1e-5, the printout has 6 digits).
//   @w3_small:     Linear(64, 64) -> GroupNorm(4, 64) -> LeakyReLU -> y + y,
//                  batch 8 (W3's chain in small, groups of 16)
//   @gn_4d:        GroupNorm(4, 8) on a dynamic batch of 3 x 8 x 5 x 7
//   @layer_norm:   LayerNorm(64) on a dynamic batch of 5 x 64
//   @layer_norm3d: LayerNorm(64) on a dynamic batch of 2 x 8 x 64 (weight
//                  over the last dimension)
//   @instance_norm: InstanceNorm2d(6, affine=True) on 2 x 6 x 5 x 7
//   @no_affine:    Linear(64, 64) -> GroupNorm(4, 64, affine=False) ->
//                  LeakyReLU -> y + y, dynamic batch of 8
// Inputs are pseudo-random with means of 3 to 30 against spreads of about
// 1, so a wrong statistic shows.
// RUN: sed -e 's/@main(/@w3_small(/' -e 's/#map/#w3_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_linear_group_norm_small.mlir > %t.mlir
// RUN: sed -e 's/@main(/@gn_4d(/' -e 's/#map/#gn_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_group_norm_4d_dynamic.mlir >> %t.mlir
// RUN: sed -e 's/@main(/@layer_norm(/' -e 's/#map/#ln_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_layer_norm.mlir >> %t.mlir
// RUN: sed -e 's/@main(/@layer_norm3d(/' -e 's/#map/#ln3_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_layer_norm_3d_dynamic.mlir >> %t.mlir
// RUN: sed -e 's/@main(/@instance_norm(/' -e 's/#map/#in_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_instance_norm.mlir >> %t.mlir
// RUN: sed -e 's/@main(/@no_affine(/' -e 's/#map/#na_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_linear_group_norm_no_affine.mlir >> %t.mlir
// RUN: cat %s >> %t.mlir
// RUN: fuser-opt %t.mlir --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %t.mlir --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.fused
// RUN: %PYTHON %fuser_src/test/Pipelines/Inputs/compare_floats.py %t.unfused %t.fused 1e-5 1e-5
// RUN: FileCheck %s --check-prefix=OUT < %t.fused
// The fused program really is fused: no linalg op is left in the exports.
// RUN: fuser-opt %t.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// OUT: sizes = [8, 64] strides = [64, 1] data =
// OUT: sizes = [3, 8, 5, 7] strides = [280, 35, 7, 1] data =
// OUT: sizes = [5, 64] strides = [64, 1] data =
// OUT: sizes = [2, 8, 64] strides = [512, 64, 1] data =
// OUT: sizes = [2, 6, 5, 7] strides = [210, 35, 7, 1] data =
// OUT: sizes = [8, 64] strides = [64, 1] data =

// FUSED-LABEL: func.func @w3_small
// FUSED-NOT: linalg.
// FUSED: fuser.matmul {{.+}} transpose_b {{.+}} group_norm(size = 16, eps = 1.000000e-05)
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @gn_4d
// FUSED-NOT: linalg.
// FUSED: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 4 eps = 1.000000e-05
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @layer_norm
// FUSED-NOT: linalg.
// FUSED: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 1 eps = 1.000000e-05
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @layer_norm3d
// FUSED-NOT: linalg.
// FUSED: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 1 eps = 1.000000e-05 {{.+}} : tensor<?x64xf32>
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @instance_norm
// FUSED: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 6 eps = 1.000000e-05 {{.+}} : tensor<2x6x5x7xf32>
// FUSED-LABEL: func.func @no_affine
// FUSED-NOT: linalg.
// FUSED: fuser.matmul {{.+}} transpose_b {{.+}} group_norm(size = 16, eps = 1.000000e-05)
// FUSED-NOT: linalg.
// FUSED-LABEL: func.func @random

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

func.func @print(%t: tensor<*xf32>) {
  %m = bufferization.to_buffer %t : tensor<*xf32> to memref<*xf32>
  func.call @printMemrefF32(%m) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c35 = arith.constant 35 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  %thirty = arith.constant 30.0 : f32
  %wscale = arith.constant 0.125 : f32
  %s1 = arith.constant 0.25 : f32
  %s2 = arith.constant 3.5 : f32
  %s3 = arith.constant 7.5 : f32
  %s4 = arith.constant 11.25 : f32
  %s5 = arith.constant 15.75 : f32

  // Linear(64, 64) -> GroupNorm(4, 64) -> LeakyReLU -> y + y; the bias puts
  // every group's mean near 30.
  %xa = func.call @random(%c8, %c64, %s1, %one, %zero) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xa : tensor<?x?xf32> to tensor<8x64xf32>
  %wa = func.call @random(%c64, %c64, %s2, %wscale, %zero) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wa : tensor<?x?xf32> to tensor<64x64xf32>
  %ba = func.call @vector(%c64, %s3, %wscale, %thirty) : (index, f32, f32, f32) -> tensor<?xf32>
  %b = tensor.cast %ba : tensor<?xf32> to tensor<64xf32>
  %ga = func.call @vector(%c64, %s4, %half, %one) : (index, f32, f32, f32) -> tensor<?xf32>
  %g64 = tensor.cast %ga : tensor<?xf32> to tensor<64xf32>
  %ea = func.call @vector(%c64, %s5, %one, %zero) : (index, f32, f32, f32) -> tensor<?xf32>
  %e64 = tensor.cast %ea : tensor<?xf32> to tensor<64xf32>
  %y1 = func.call @w3_small(%x, %w, %b, %g64, %e64)
      : (tensor<8x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %u1 = tensor.cast %y1 : tensor<8x64xf32> to tensor<*xf32>
  func.call @print(%u1) : (tensor<*xf32>) -> ()

  // GroupNorm(4, 8) on 3 x 8 x 5 x 7.
  %x4a = func.call @random(%c24, %c35, %s2, %one, %three) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %x4s = tensor.cast %x4a : tensor<?x?xf32> to tensor<24x35xf32>
  %x4e = tensor.expand_shape %x4s [[0, 1], [2, 3]] output_shape [3, 8, 5, 7] : tensor<24x35xf32> into tensor<3x8x5x7xf32>
  %x4 = tensor.cast %x4e : tensor<3x8x5x7xf32> to tensor<?x8x5x7xf32>
  %g8a = func.call @vector(%c8, %s4, %half, %one) : (index, f32, f32, f32) -> tensor<?xf32>
  %g8 = tensor.cast %g8a : tensor<?xf32> to tensor<8xf32>
  %e8a = func.call @vector(%c8, %s5, %one, %zero) : (index, f32, f32, f32) -> tensor<?xf32>
  %e8 = tensor.cast %e8a : tensor<?xf32> to tensor<8xf32>
  %y2 = func.call @gn_4d(%x4, %g8, %e8)
      : (tensor<?x8x5x7xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x5x7xf32>
  %u2 = tensor.cast %y2 : tensor<?x8x5x7xf32> to tensor<*xf32>
  func.call @print(%u2) : (tensor<*xf32>) -> ()

  // LayerNorm(64) on 5 x 64.
  %xla = func.call @random(%c5, %c64, %s3, %one, %three) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %xl = tensor.cast %xla : tensor<?x?xf32> to tensor<?x64xf32>
  %y3 = func.call @layer_norm(%xl, %g64, %e64)
      : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %u3 = tensor.cast %y3 : tensor<?x64xf32> to tensor<*xf32>
  func.call @print(%u3) : (tensor<*xf32>) -> ()

  // LayerNorm(64) on 2 x 8 x 64.
  %xma = func.call @random(%c16, %c64, %s4, %one, %thirty) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %xms = tensor.cast %xma : tensor<?x?xf32> to tensor<16x64xf32>
  %xme = tensor.expand_shape %xms [[0, 1], [2]] output_shape [2, 8, 64] : tensor<16x64xf32> into tensor<2x8x64xf32>
  %xm = tensor.cast %xme : tensor<2x8x64xf32> to tensor<?x8x64xf32>
  %y4 = func.call @layer_norm3d(%xm, %g64, %e64)
      : (tensor<?x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32>
  %u4 = tensor.cast %y4 : tensor<?x8x64xf32> to tensor<*xf32>
  func.call @print(%u4) : (tensor<*xf32>) -> ()

  // InstanceNorm2d(6, affine=True) on 2 x 6 x 5 x 7.
  %xia = func.call @random(%c12, %c35, %s5, %one, %three) : (index, index, f32, f32, f32) -> tensor<?x?xf32>
  %xis = tensor.cast %xia : tensor<?x?xf32> to tensor<12x35xf32>
  %xi = tensor.expand_shape %xis [[0, 1], [2, 3]] output_shape [2, 6, 5, 7] : tensor<12x35xf32> into tensor<2x6x5x7xf32>
  %g6a = func.call @vector(%c6, %s4, %half, %one) : (index, f32, f32, f32) -> tensor<?xf32>
  %g6 = tensor.cast %g6a : tensor<?xf32> to tensor<6xf32>
  %e6a = func.call @vector(%c6, %s5, %one, %zero) : (index, f32, f32, f32) -> tensor<?xf32>
  %e6 = tensor.cast %e6a : tensor<?xf32> to tensor<6xf32>
  %y5 = func.call @instance_norm(%xi, %g6, %e6)
      : (tensor<2x6x5x7xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5x7xf32>
  %u5 = tensor.cast %y5 : tensor<2x6x5x7xf32> to tensor<*xf32>
  func.call @print(%u5) : (tensor<*xf32>) -> ()

  // The Linear -> GroupNorm(affine=False) chain on the first inputs.
  %xd = tensor.cast %x : tensor<8x64xf32> to tensor<?x64xf32>
  %y6 = func.call @no_affine(%xd, %w, %b)
      : (tensor<?x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %u6 = tensor.cast %y6 : tensor<?x64xf32> to tensor<*xf32>
  func.call @print(%u6) : (tensor<*xf32>) -> ()
  return
}
