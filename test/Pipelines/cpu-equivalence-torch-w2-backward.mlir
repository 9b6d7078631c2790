// REQUIRES: mlir-runner
// W2's backward as fuser.torch.compile(training=True) imports it
// (Inputs/torch_w2_small_backward.mlir: nn.Linear(40, 24), * 2.0,
// leaky_relu(0.1), batch 7), run on the CPU unfused and fused. Fused, the
// mask g = where(y > 0, dy, 0.1 dy) * 2 is dX's prologue (N = 40), which the
// CPU reference computes as a pointwise group before the product: dW, db and
// dX must be identical (the same scalar ops in the same order).
// RUN: sed -e 's/@main(/@w2_backward(/' -e 's/#map/#bw_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_w2_small_backward.mlir > %t.mlir
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
// The fused program has the prologue.
// RUN: fuser-opt %t.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// dW (24 x 40), db (24), dX (7 x 40), each with entries of both signs.
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [24, 40] strides = [40, 1] data =
// OUT-NEXT: {{\[\[}}{{.*}}-{{.*}}]
// OUT: Unranked Memref rank = 1 offset = 0 sizes = [24] strides = [1] data =
// OUT-NEXT: [{{.*}}-{{.*}}]
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [7, 40] strides = [40, 1] data =
// OUT-NEXT: {{\[\[}}{{.*}}-{{.*}}]

// FUSED-LABEL: func.func @w2_backward
// FUSED: fuser.matmul %{{.+}}, %{{.+}} prologue_inputs(%{{.+}} : tensor<7x24xf32>)
// FUSED-SAME: prologue {

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

func.func @main() {
  %c7 = arith.constant 7 : index
  %c24 = arith.constant 24 : index
  %c40 = arith.constant 40 : index
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.16 : f32
  %s0 = arith.constant 0.25 : f32
  %s1 = arith.constant 3.5 : f32
  %s2 = arith.constant 7.5 : f32
  %s3 = arith.constant 11.5 : f32
  %xd = func.call @random(%c7, %c40, %s0, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<7x40xf32>
  %yd = func.call @random(%c7, %c24, %s1, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %y = tensor.cast %yd : tensor<?x?xf32> to tensor<7x24xf32>
  %wd = func.call @random(%c24, %c40, %s2, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<24x40xf32>
  %gd = func.call @random(%c7, %c24, %s3, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %g = tensor.cast %gd : tensor<?x?xf32> to tensor<7x24xf32>
  %dw, %db, %dx = func.call @w2_backward(%x, %y, %w, %g) : (tensor<7x40xf32>, tensor<7x24xf32>, tensor<24x40xf32>, tensor<7x24xf32>) -> (tensor<24x40xf32>, tensor<24xf32>, tensor<7x40xf32>)
  %dwu = tensor.cast %dw : tensor<24x40xf32> to tensor<?x?xf32>
  func.call @print(%dwu) : (tensor<?x?xf32>) -> ()
  %dbm = bufferization.to_buffer %db : tensor<24xf32> to memref<24xf32>
  %dbu = memref.cast %dbm : memref<24xf32> to memref<*xf32>
  func.call @printMemrefF32(%dbu) : (memref<*xf32>) -> ()
  %dxu = tensor.cast %dx : tensor<7x40xf32> to tensor<?x?xf32>
  func.call @print(%dxu) : (tensor<?x?xf32>) -> ()
  return
}
