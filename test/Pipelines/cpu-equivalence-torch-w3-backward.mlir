// REQUIRES: mlir-runner
// W3's backward as fuser.torch.compile(training=True) imports it
// (Inputs/torch_w3_small_backward.mlir: nn.Linear(64, 64), GroupNorm(4, 64),
// leaky_relu(0.01), y + y, batch 8), run on the CPU unfused and fused.
// Fused, GroupNorm's input gradient and the statistics torch-mlir recomputes
// (its variance in f64) are one fuser.group_norm_grad, whose CPU reference
// computes them in f32 with two-pass sums: every output (dW, db, dgamma,
// dbeta, dX) must agree to fp32 rounding. @w3_na_backward is the same with
// GroupNorm(affine=False) (Inputs/torch_w3_small_no_affine_backward.mlir):
// no gamma, so the op's gamma is a constant 1.
// RUN: sed -e 's/@main(/@w3_backward(/' -e 's/#map/#bw_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_w3_small_backward.mlir > %t.mlir
// RUN: sed -e 's/@main(/@w3_na_backward(/' -e 's/#map/#na_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_w3_small_no_affine_backward.mlir >> %t.mlir
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
// RUN: fuser-opt %t.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// dW (64 x 64), db, dgamma, dbeta (64 each), dX (8 x 64), with entries of
// both signs.
// OUT: sizes = [64, 64] strides = [64, 1] data =
// OUT-NEXT: {{\[\[}}{{.*}}-{{.*}}]
// OUT-COUNT-3: sizes = [64] strides = [1] data =
// OUT: sizes = [8, 64] strides = [64, 1] data =
// OUT-NEXT: {{\[\[}}{{.*}}-{{.*}}]
// Without affine: dW, db, dX.
// OUT: sizes = [64, 64] strides = [64, 1] data =
// OUT: sizes = [64] strides = [1] data =
// OUT: sizes = [8, 64] strides = [64, 1] data =
// OUT-NEXT: {{\[\[}}{{.*}}-{{.*}}]

// FUSED-LABEL: func.func @w3_backward
// FUSED: fuser.group_norm_grad %{{.+}}, %{{.+}} groups = 4 eps = 1.000000e-05 prologue_inputs(
// FUSED-LABEL: func.func @w3_na_backward
// FUSED: %[[ONES:.+]] = arith.constant dense<1.000000e+00> : tensor<64xf32>
// FUSED: fuser.group_norm_grad %{{.+}}, %[[ONES]] groups = 4 eps = 1.000000e-05 prologue_inputs(

#id = affine_map<(d0, d1) -> (d0, d1)>

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

func.func @print1(%v: tensor<64xf32>) {
  %m = bufferization.to_buffer %v : tensor<64xf32> to memref<64xf32>
  %u = memref.cast %m : memref<64xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  %wscale = arith.constant 0.125 : f32
  %s0 = arith.constant 0.25 : f32
  %s1 = arith.constant 3.5 : f32
  %s2 = arith.constant 7.5 : f32
  %s3 = arith.constant 11.5 : f32
  %s4 = arith.constant 15.5 : f32
  %s5 = arith.constant 19.5 : f32
  %gd = func.call @random(%c1, %c64, %s0, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %gamma2 = tensor.cast %gd : tensor<?x?xf32> to tensor<1x64xf32>
  %gamma = tensor.collapse_shape %gamma2 [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
  %xd = func.call @random(%c8, %c64, %s1, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<8x64xf32>
  // The GroupNorm's input, with a spread of 3 around group means.
  %yd = func.call @random(%c8, %c64, %s2, %three) : (index, index, f32, f32) -> tensor<?x?xf32>
  %y = tensor.cast %yd : tensor<?x?xf32> to tensor<8x64xf32>
  %zd = func.call @random(%c8, %c64, %s3, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %z = tensor.cast %zd : tensor<?x?xf32> to tensor<8x64xf32>
  %wd = func.call @random(%c64, %c64, %s4, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<64x64xf32>
  %dod = func.call @random(%c8, %c64, %s5, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %dout = tensor.cast %dod : tensor<?x?xf32> to tensor<8x64xf32>
  %dw, %db, %dgamma, %dbeta, %dx = func.call @w3_backward(%gamma, %x, %y, %z, %w, %dout) : (tensor<64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<64x64xf32>, tensor<8x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x64xf32>)
  %dwu = tensor.cast %dw : tensor<64x64xf32> to tensor<?x?xf32>
  func.call @print(%dwu) : (tensor<?x?xf32>) -> ()
  func.call @print1(%db) : (tensor<64xf32>) -> ()
  func.call @print1(%dgamma) : (tensor<64xf32>) -> ()
  func.call @print1(%dbeta) : (tensor<64xf32>) -> ()
  %dxu = tensor.cast %dx : tensor<8x64xf32> to tensor<?x?xf32>
  func.call @print(%dxu) : (tensor<?x?xf32>) -> ()
  %dw2, %db2, %dx2 = func.call @w3_na_backward(%x, %y, %z, %w, %dout) : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<64x64xf32>, tensor<8x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<8x64xf32>)
  %dw2u = tensor.cast %dw2 : tensor<64x64xf32> to tensor<?x?xf32>
  func.call @print(%dw2u) : (tensor<?x?xf32>) -> ()
  func.call @print1(%db2) : (tensor<64xf32>) -> ()
  %dx2u = tensor.cast %dx2 : tensor<8x64xf32> to tensor<?x?xf32>
  func.call @print(%dx2u) : (tensor<?x?xf32>) -> ()
  return
}
