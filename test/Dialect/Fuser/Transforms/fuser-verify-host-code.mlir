// RUN: fuser-opt %s -split-input-file --fuser-verify-host-code -verify-diagnostics | FileCheck %s

// Host code that only sizes, allocates and launches passes unchanged.
// CHECK-LABEL: func.func @launches
// CHECK: gpu.launch_func @kernels::@k
module attributes {gpu.container_module} {
  func.func @launches(%x: memref<?xf32>) -> memref<?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %y = memref.alloc(%n) : memref<?xf32>
    gpu.launch_func @kernels::@k blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?xf32>, %y : memref<?xf32>)
    return %y : memref<?xf32>
  }
  gpu.module @kernels {
    gpu.func @k(%x: memref<?xf32>, %y: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Every leftover op is reported, in private helpers too.
func.func @softmax(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = memref.alloc() : memref<4x8xf32>
  // expected-error @+1 {{'linalg.softmax' is not supported: no fuser lowering turns it into a GPU kernel}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return %y : memref<4x8xf32>
}
func.func private @matmul(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{'linalg.matmul' is not supported}}
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

// A copy is reported at the location of the op that bufferized to it.
func.func @copy(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = memref.alloc() : memref<4x8xf32>
  // expected-error @+1 {{this op bufferizes to a buffer copy ('memref.copy'), which no fuser lowering turns into a GPU kernel}}
  memref.copy %x, %y : memref<4x8xf32> to memref<4x8xf32>
  return %y : memref<4x8xf32>
}

// -----

// So is a strided view (tensor.pad's interior), which kernels cannot take.
func.func @pad(%x: memref<4x8xf32>) -> memref<6x10xf32> {
  %y = memref.alloc() : memref<6x10xf32>
  // expected-error @+1 {{this op bufferizes to a strided view of a buffer ('memref.subview'), which the runtime cannot pass to kernels yet}}
  %v = memref.subview %y[1, 1] [4, 8] [1, 1] : memref<6x10xf32> to memref<4x8xf32, strided<[10, 1], offset: 11>>
  return %y : memref<6x10xf32>
}

// -----

// A constant dim index past the rank verifies in MLIR (undefined at run
// time) but has no size the runtime could give (fuzzer finding F5).
func.func @dim_out_of_range(%x: memref<?xf32>) -> memref<?xf32> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{dimension index 1 is out of range for a rank-1 value}}
  %n = memref.dim %x, %c1 : memref<?xf32>
  %y = memref.alloc(%n) : memref<?xf32>
  return %y : memref<?xf32>
}

// -----

// A loop over a buffer's elements on the host (what the parallel-loop
// fallback leaves of a loop nest it cannot map) is reported at the loop,
// not later by the manifest.
func.func @host_loop(%m: memref<8xi1>) -> memref<i64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = memref.alloc() : memref<i64>
  // expected-error @+1 {{'scf.for' would run on the host: no fuser lowering turned this computation into a GPU kernel}}
  scf.for %i = %c0 to %c8 step %c1 {
    %b = memref.load %m[%i] : memref<8xi1>
    %a = memref.load %acc[] : memref<i64>
    %w = arith.extui %b : i1 to i64
    %s = arith.addi %w, %a : i64
    memref.store %s, %acc[] : memref<i64>
  }
  return %acc : memref<i64>
}
