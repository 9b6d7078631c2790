// Bad input never crashes the tools: each case below gives an error and a
// non-zero exit (`not`, without --crash, also fails on a crash).
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{nocrash} = --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// An empty file has nothing to compile, nor to translate.
// RUN: not fuser-opt %t/empty.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=EMPTY
// RUN: not fuser-translate %t/empty.mlir --fuser-to-ptx 2>&1 | FileCheck %s %{nocrash} --check-prefix=NOTHING
// RUN: not fuser-translate %t/empty.mlir --fuser-to-manifest 2>&1 | FileCheck %s %{nocrash} --check-prefix=NOTHING
// RUN: not fuser-translate %t/empty.mlir --fuser-to-c-header 2>&1 | FileCheck %s %{nocrash} --check-prefix=NOTHING
// EMPTY: error: nothing to compile: the module has no public function with a body
// NOTHING: error: nothing to translate: the module has no compiled kernels or entry functions

// Malformed IR: the parser's diagnostic.
// RUN: not fuser-opt %t/malformed.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=PARSE
// PARSE: malformed.mlir:1:35: error: expected non-function type

// Entry functions must take and return tensors.
// RUN: not fuser-opt %t/signature.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=SIG
// SIG: signature.mlir:1:1: error: entry function argument #0 has type 'tensor<*xf32>'
// SIG: signature.mlir:1:1: error: entry function argument #1 has type 'index'

// A broadcast operand of the wrong static size fails the linalg verifier.
// RUN: not fuser-opt %t/broadcast.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=BCAST
// BCAST: broadcast.mlir:4:8: error: 'linalg.generic' op inferred input/output operand #1 has shape's dimension #0 to be 8, but found 7

// Ops that no lowering turns into a kernel are named at their source line.
// RUN: not fuser-opt %t/softmax.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=SOFTMAX
// SOFTMAX: softmax.mlir:3:8: error: 'linalg.softmax' is not supported: no fuser lowering turns it into a GPU kernel
// A pad whose value depends on the indices is no gather
// (fuser-slices-to-gathers): it would be a strided view.
// RUN: not fuser-opt %t/pad.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=PAD
// PAD: pad.mlir:3:8: error: this op bufferizes to a strided view of a buffer ('memref.subview'), which the runtime cannot pass to kernels yet

// Ops the generic fallback does handle compile to kernels and a manifest.
// RUN: fuser-opt %t/fallback.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=FALLBACK
// FALLBACK: "kernel": "conv_kernel"
// FALLBACK: "name": "conv"
// FALLBACK: "kernel": "row_sum_kernel"
// FALLBACK: "name": "row_sum"

// Entry functions without kernels (sizes only) are no error: empty PTX.
// RUN: fuser-opt %t/nokernels.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx | count 0
// RUN: fuser-opt %t/nokernels.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=NOKERNELS
// NOKERNELS: "launches": []
// NOKERNELS-NEXT: "name": "empty_like"

//--- empty.mlir
//--- malformed.mlir
func.func @f(%x: tensor<?xf32>) ->
//--- signature.mlir
func.func @f(%x: tensor<*xf32>, %n: index) -> tensor<4xf32> {
  %n2 = arith.addi %n, %n : index
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}
//--- broadcast.mlir
func.func @bias(%x: tensor<4x8xf32>, %b: tensor<7xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // %b should have 8 elements, one per column.
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<7xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
//--- softmax.mlir
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
//--- pad.mlir
func.func @pad(%x: tensor<4x8xf32>) -> tensor<6x10xf32> {
  %z = arith.constant 0.0 : f32
  %r = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    %k = arith.index_cast %i : index to i32
    %v = arith.sitofp %k : i32 to f32
    tensor.yield %v : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  return %r : tensor<6x10xf32>
}
//--- fallback.mlir
func.func @conv(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}
func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
//--- nokernels.mlir
func.func @empty_like(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}
