// REQUIRES: mlir-runner
// Real torch-mlir exports (Inputs/torch_*.mlir, from
// scripts/export-torch-inputs.py) whose scalars are 0-d tensor constants
// and f64 constants truncated in bodies run on the CPU unfused (where each
// 0-d constant is a memref.global) and fused (where fusion made them
// immediates), on x[i][j] = (1000 i + j - 2000) * 0.003, which covers both
// sides of every bound. The outputs must be identical.
// The exports' @main become @leaky_relu, ...; their #map aliases get a
// prefix each; the driver below (this file) is appended.
// RUN: sed -e 's/@main(/@leaky_relu(/' -e 's/#map/#lr_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_leaky_relu.mlir > %t.mlir
// RUN: sed -e 's/@main(/@leaky_relu_dynamic(/' -e 's/#map/#lrd_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_leaky_relu_dynamic.mlir >> %t.mlir
// RUN: sed -e 's/@main(/@hardtanh(/' -e 's/#map/#ht_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_hardtanh.mlir >> %t.mlir
// RUN: sed -e 's/@main(/@elu(/' -e 's/#map/#elu_map/g' -e '/^module {$/d' -e '/^}$/d' \
// RUN:   %S/Inputs/torch_elu.mlir >> %t.mlir
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
// The unfused program really reads the 0-d constants from globals; the
// fused one has one group per export and no global left.
// RUN: fuser-opt %t.mlir --fuser-cpu-reference-pipeline="fuse=false" | FileCheck %s --check-prefix=UNFUSED
// RUN: fuser-opt %t.mlir --fuser-cpu-reference-pipeline | FileCheck %s --check-prefix=FUSED-LLVM
// RUN: fuser-opt %t.mlir --fuser-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=FUSED --implicit-check-not='tensor<f32>' --implicit-check-not=fuser.pointwise

// One row per line. leaky_relu(-6) = -0.06, leaky_relu(5.997) = 5.997, in
// both variants.
// OUT: sizes = [4, 1000] strides = [1000, 1] data =
// OUT-NEXT: {{^\[\[}}-0.06, -0.05997,
// OUT: , 5.997]]
// OUT: sizes = [4, 1000] strides = [1000, 1] data =
// OUT-NEXT: {{^\[\[}}-0.06, -0.05997,
// OUT: , 5.997]]
// hardtanh clips -6 to -2 and 5.997 to 3.
// OUT: sizes = [4, 1000] strides = [1000, 1] data =
// OUT-NEXT: {{^\[\[}}-2, -2,
// OUT: {{^}} [3, 3, {{.*}}, 3]]
// elu(-6) = 1.5 * (exp(-6) - 1) = -1.49628; elu(5.997) = 5.997.
// OUT: sizes = [4, 1000] strides = [1000, 1] data =
// OUT-NEXT: {{^\[\[}}-1.49628, -1.49627,
// OUT: , 5.997]]

// UNFUSED-DAG: llvm.mlir.global private constant @{{.+}}(0.000000e+00 : f32)
// UNFUSED-DAG: llvm.mlir.global private constant @{{.+}}(-2.000000e+00 : f32)
// UNFUSED-DAG: llvm.mlir.global private constant @{{.+}}(3.000000e+00 : f32)
// (The driver's input, computed from indices, is evaluated at compile time
// into a global of its own, a dense tensor: not a scalar.)
// FUSED-LLVM-NOT: llvm.mlir.global {{.*}}({{[-+.0-9e]+}} : f32)
// FUSED-LLVM: llvm.func @main()
// FUSED-LLVM-NOT: llvm.mlir.global {{.*}}({{[-+.0-9e]+}} : f32)

// FUSED-LABEL: func.func @leaky_relu
// FUSED: fuser.pointwise ins(%{{.+}} : tensor<4x1000xf32>)
// FUSED-LABEL: func.func @leaky_relu_dynamic
// FUSED: fuser.pointwise ins(%{{.+}} : tensor<?x1000xf32>)
// FUSED-LABEL: func.func @hardtanh
// FUSED: fuser.pointwise ins(%{{.+}} : tensor<4x1000xf32>)
// FUSED-LABEL: func.func @elu
// FUSED: fuser.pointwise ins(%{{.+}} : tensor<4x1000xf32>)

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%y: tensor<4x1000xf32>) {
  %m = bufferization.to_buffer %y : tensor<4x1000xf32> to memref<4x1000xf32>
  %u = memref.cast %m : memref<4x1000xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %e = tensor.empty() : tensor<4x1000xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x1000xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1000 = arith.constant 1000 : index
    %c2000 = arith.constant 2000 : index
    %k0 = arith.muli %i, %c1000 : index
    %k1 = arith.addi %k0, %j : index
    %k2 = arith.subi %k1, %c2000 : index
    %ki = arith.index_cast %k2 : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %step = arith.constant 0.003 : f32
    %v = arith.mulf %kf, %step : f32
    linalg.yield %v : f32
  } -> tensor<4x1000xf32>
  %lr = func.call @leaky_relu(%x) : (tensor<4x1000xf32>) -> tensor<4x1000xf32>
  func.call @print(%lr) : (tensor<4x1000xf32>) -> ()
  %xd = tensor.cast %x : tensor<4x1000xf32> to tensor<?x1000xf32>
  %lrd = func.call @leaky_relu_dynamic(%xd) : (tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %lrs = tensor.cast %lrd : tensor<?x1000xf32> to tensor<4x1000xf32>
  func.call @print(%lrs) : (tensor<4x1000xf32>) -> ()
  %ht = func.call @hardtanh(%x) : (tensor<4x1000xf32>) -> tensor<4x1000xf32>
  func.call @print(%ht) : (tensor<4x1000xf32>) -> ()
  %el = func.call @elu(%x) : (tensor<4x1000xf32>) -> tensor<4x1000xf32>
  func.call @print(%el) : (tensor<4x1000xf32>) -> ()
  return
}
