// RUN: fuser-translate %s -split-input-file --fuser-to-manifest -verify-diagnostics
// RUN: fuser-translate %s -split-input-file --fuser-to-c-header -verify-diagnostics

// Tensor maps the copy engine cannot describe, known from static sizes, are
// refused at the op when the manifest or the header is generated, by the
// rules the runtime's reader applies (fuser/Manifest/TensorMapRules.h): the
// compiler never writes a manifest the runtime would refuse.

// A row pitch of 10 bf16 = 20 bytes.
module attributes {gpu.container_module} {
  func.func @pitch(%a: memref<?x10xbf16>) -> memref<?x10xbf16> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?x10xbf16>
    // expected-error @+1 {{the TMA view's columns: 10 bf16 elements make a row pitch of 20 bytes; the row pitch must be a multiple of 16 bytes for TMA}}
    %ma = fuser.tensor_map %a box [128, 8] swizzle 0 : memref<?x10xbf16> -> !llvm.ptr
    %y = memref.alloc(%n) : memref<?x10xbf16>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%ma : !llvm.ptr)
    return %y : memref<?x10xbf16>
  }
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".visible .entry k(\0A.param .align 64 .b8 k_param_0[128]\0A)\0A{\0Aret;\0A}\0A">]
}

// -----

// An empty matrix: TMA sizes start at 1.
module attributes {gpu.container_module} {
  func.func @empty(%a: memref<0x64xf32>) -> memref<4xf32> {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{the TMA view's rows: size 0 is outside TMA's range 1 to 4294967295}}
    %ma = fuser.tensor_map %a box [128, 32] swizzle 128 : memref<0x64xf32> -> !llvm.ptr
    %y = memref.alloc() : memref<4xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%ma : !llvm.ptr)
    return %y : memref<4xf32>
  }
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".visible .entry k(\0A.param .align 64 .b8 k_param_0[128]\0A)\0A{\0Aret;\0A}\0A">]
}
