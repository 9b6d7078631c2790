// RUN: fuser-translate %s -split-input-file --fuser-to-manifest -verify-diagnostics

// Host code the runtime cannot reproduce is reported at the op.
func.func @loop(%x: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %y = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{'scf.for' cannot be described by the kernel manifest: host code may only compute sizes, allocate buffers and launch kernels}}
  scf.for %i = %c0 to %c4 step %c1 {
  }
  return %y : memref<4xf32>
}

// -----

// expected-error @+1 {{argument #0 has type 'memref<4xf32, strided<[2]>>'; entry functions take dense tensors only}}
func.func @strided(%x: memref<4xf32, strided<[2]>>) {
  return
}

// -----

func.func @compare(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @+1 {{host comparisons other than 'eq' cannot be described by the kernel manifest}}
  %lt = arith.cmpi slt, %d, %c4 : index
  %y = memref.alloc(%d) : memref<?xf32>
  return %y : memref<?xf32>
}

// -----

func.func @passthrough(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{result #0 is an argument returned unchanged; fuser entry functions must compute their results}}
  return %x : memref<4xf32>
}

// -----

func.func @twice(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %y = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{result #1 returns the same buffer as an earlier one}}
  return %y, %y : memref<4xf32>, memref<4xf32>
}

// -----

func.func @assert_lt(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  %t = arith.constant true
  // expected-error @+1 {{only assertions of an integer equality can be checked by the runtime}}
  cf.assert %t, "always"
  %y = memref.alloc(%d) : memref<?xf32>
  return %y : memref<?xf32>
}

// -----

// expected-error @+1 {{the module still holds a gpu.module: run it through fuser-opt --fuser-gpu-pipeline before translating}}
module attributes {gpu.container_module} {
  gpu.module @k {
  }
  func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
    %y = memref.alloc() : memref<4xf32>
    return %y : memref<4xf32>
  }
}

// -----

// expected-error @+1 {{expected one gpu.binary, found 2 (run -fuser-merge-gpu-modules)}}
module attributes {gpu.container_module} {
  gpu.binary @a [#gpu.object<#nvvm.target, assembly = "">]
  gpu.binary @b [#gpu.object<#nvvm.target, assembly = "">]
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{expected one object (one target) in the gpu.binary, found 2}}
  gpu.binary @a [#gpu.object<#nvvm.target, assembly = "">, #gpu.object<#nvvm.target<chip = "sm_80">, assembly = "">]
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{unsupported gpu.binary format; use format=ptx or format=cubin}}
  gpu.binary @a [#gpu.object<#nvvm.target, "fatbin-bytes">]
}

// -----

// Found by the pipeline fuzzer (docs/robustness.md, F5): `tensor.dim %x, 1`
// on a rank-1 tensor verifies and survives to the host code; the manifest
// emitter indexed past the shape.
func.func @dim_out_of_range(%x: memref<?xf32>) -> memref<?xf32> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{memref.dim index 1 is out of range for a rank-1 buffer}}
  %d = memref.dim %x, %c1 : memref<?xf32>
  %y = memref.alloc(%d) : memref<?xf32>
  return %y : memref<?xf32>
}

// -----

memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @mutable_global() -> memref<4xf32> {
  // expected-error @+1 {{only constant globals can be described by the kernel manifest; 'state' is not one}}
  %g = memref.get_global @state : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  return %y : memref<4xf32>
}

// -----

memref.global "private" constant @w : memref<2xf32> = dense<[1.0, 2.0]>
func.func @constant_result() -> memref<2xf32> {
  %g = memref.get_global @w : memref<2xf32>
  // expected-error @+1 {{result #0 is a constant returned unchanged; fuser entry functions must compute their results}}
  return %g : memref<2xf32>
}
