// Inputs that fuzz/PipelineFuzzer.cpp found crashing or asserting, reduced.
// Each must end in a result or a clean error, never a stack dump; most only
// crashed with assertions on, so `make sanitize` (ASan + UBSan + asserts)
// is where these fail without their fix.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{nocrash} = --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit" --implicit-check-not="LLVM ERROR"

// Bufferizing tensor.pad asks for ReifyRankedShapedTypeOpInterface, which
// the tensor dialect only promises: with its external models unregistered,
// a build with assertions aborted ("checking for an interface ... that was
// promised by dialect 'tensor' but never implemented"). Now the pad
// bufferizes to a strided view, which is a clean error.
// RUN: not fuser-opt %t/pad-dynamic.mlir --fuser-gpu-pipeline 2>&1 | FileCheck %s %{nocrash} --check-prefix=PAD
// PAD: pad-dynamic.mlir:3:8: error: this op bufferizes to a strided view of a buffer ('memref.subview')

//--- pad-dynamic.mlir
func.func @pad(%x: tensor<?x8xf32>) -> tensor<?x10xf32> {
  %z = arith.constant 0.0 : f32
  %r = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<?x8xf32> to tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}
