// Inputs that fuzz/PipelineFuzzer.cpp flagged, reduced (docs/robustness.md
// lists the findings). Each must end in a result or a clean error, never a
// stack dump; some only crashed with assertions on, so `make sanitize`
// (ASan + UBSan + asserts) is where those fail without their fix.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{nocrash} = --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit" --implicit-check-not="LLVM ERROR"

// Bufferizing tensor.pad asks for ReifyRankedShapedTypeOpInterface, which
// the tensor dialect only promises: with its external models unregistered,
// a build with assertions aborted ("checking for an interface ... that was
// promised by dialect 'tensor' but never implemented"). Now the pad
// bufferizes to a strided view, which is a clean error.
// RUN: not fuser-opt %t/pad-dynamic.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=PAD
// PAD: pad-dynamic.mlir:3:8: error: this op bufferizes to a strided view of a buffer ('memref.subview')

// The tensor verifier accepts an expand_shape whose static output_shape
// contradicts its result type; one-shot-bufferize turns it into a
// memref.expand_shape that the memref verifier rejects. Upstream, and an
// error at the source line, not a crash.
// RUN: not fuser-opt %t/expand-shape.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=EXPAND
// EXPAND: expand-shape.mlir:2:8: error: 'memref.expand_shape' op invalid output shape provided at pos 0

//--- pad-dynamic.mlir
func.func @pad(%x: tensor<?x8xf32>) -> tensor<?x10xf32> {
  %z = arith.constant 0.0 : f32
  %r = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<?x8xf32> to tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}
//--- expand-shape.mlir
func.func @expand(%x: tensor<2x8xf32>) -> tensor<2x2x4xf32> {
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
  return %g : tensor<2x2x4xf32>
}
