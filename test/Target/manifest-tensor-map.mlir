// TMA tensor maps (fuser.tensor_map) in the kernel manifest: a launch
// argument of kind "tensor_map" naming the buffer, its shape, the box and
// the swizzle, and 16-byte alignment for every buffer a map reads.
//
// The TMA-fed wgmma kernel that -fuser-gpu-pipeline picks for a bf16
// x * W^T with a static K (200 bf16: rows 400 bytes apart):
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nt_k200_bf16.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=NT
// Host code written by hand (this file): buffers read only through maps.
// RUN: fuser-translate %s --fuser-to-manifest | FileCheck %s
//
// NT: "args": [
// NT-NEXT: {
// NT-NEXT:   "align": 16,
// NT-NEXT:   "dtype": "bf16",
// NT-NEXT:   "name": "arg0",
// NT-NEXT:   "shape": [
// NT-NEXT:     "?",
// NT-NEXT:     200
// NT:        "align": 16,
// NT-NEXT:   "dtype": "bf16",
// NT-NEXT:   "name": "arg1",
// NT:      "launches": [
// NT:        "args": [
// A, B, four epilogue inputs and C by pointer, then M, N, K, the tile
// counts (K tiles, M tiles, tiles per batch, tiles), then the two maps:
// [128, 64] boxes of x (M x 200) and [256, 64] boxes of W (N x 200).
// NT-COUNT-7: "kind": "ptr"
// NT:          "kind": "i64",
// NT-NEXT:     "value": "dim(0,0)"
// NT:          "kind": "i64",
// NT-NEXT:     "value": "dim(1,0)"
// NT:          "kind": "i64",
// NT-NEXT:     "value": 200
// NT-NEXT:   },
// NT-NEXT:   {
// NT-NEXT:     "kind": "i64",
// NT-NEXT:     "value": 4
// NT-NEXT:   },
// NT-NEXT:   {
// NT-NEXT:     "kind": "i64",
// NT-NEXT:     "value": "ceildiv(dim(0,0),128)"
// NT-NEXT:   },
// NT-NEXT:   {
// NT-NEXT:     "kind": "i64",
// NT-NEXT:     "value": "mul(ceildiv(dim(0,0),128),ceildiv(dim(1,0),256))"
// NT-NEXT:   },
// NT-NEXT:   {
// NT-NEXT:     "kind": "i64",
// NT-NEXT:     "value": "mul(ceildiv(dim(0,0),128),ceildiv(dim(1,0),256))"
// NT-NEXT:   },
// NT-NEXT:   {
// NT-NEXT:     "box": [
// NT-NEXT:       128,
// NT-NEXT:       64
// NT-NEXT:     ],
// NT-NEXT:     "buffer": 0,
// NT-NEXT:     "kind": "tensor_map",
// NT-NEXT:     "shape": [
// NT-NEXT:       "dim(0,0)",
// NT-NEXT:       200
// NT-NEXT:     ],
// NT-NEXT:     "swizzle": 128
// NT-NEXT:   },
// NT-NEXT:   {
// NT-NEXT:     "box": [
// NT-NEXT:       256,
// NT-NEXT:       64
// NT-NEXT:     ],
// NT-NEXT:     "buffer": 1,
// NT-NEXT:     "kind": "tensor_map",
// NT-NEXT:     "shape": [
// NT-NEXT:       "dim(1,0)",
// NT-NEXT:       200
// NT-NEXT:     ],
// NT-NEXT:     "swizzle": 128
// NT-NEXT:   }
// NT-NEXT: ],
// 2 consumer warpgroups and the producer; 4 stages of (128 + 256) x 128
// bytes, 1024 bytes of alignment slack and 8 mbarriers.
// NT-NEXT: "block": [
// NT-NEXT:   384,
// NT-NEXT:   1,
// NT-NEXT:   1
// NT-NEXT: ],
// NT:      "kernel": "forward_matmul",
// NT-NEXT: "shared_bytes": 197696
// NT-NOT:  "tensor_map"

// CHECK: "args": [
// CHECK-NEXT: {
// CHECK-NEXT:   "align": 16,
// CHECK-NEXT:   "dtype": "bf16",
// CHECK-NEXT:   "name": "arg0",
// CHECK:      {
// CHECK-NEXT:   "align": 16,
// CHECK-NEXT:   "dtype": "f32",
// CHECK-NEXT:   "name": "arg1",
// An argument no map (and no pointer) reads needs no alignment.
// CHECK:      {
// CHECK-NEXT:   "dtype": "f32",
// CHECK-NEXT:   "name": "arg2",
// CHECK:      "buffers": [
// CHECK:        "align": 16,
// CHECK-NEXT:   "dtype": "f16",
// CHECK-NEXT:   "id": 3,
// CHECK-NEXT:   "kind": "alloc",
// CHECK:      "launches": [
// CHECK:        "args": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "box": [
// CHECK-NEXT:         128,
// CHECK-NEXT:         64
// CHECK-NEXT:       ],
// CHECK-NEXT:       "buffer": 0,
// CHECK-NEXT:       "kind": "tensor_map",
// CHECK-NEXT:       "shape": [
// CHECK-NEXT:         "dim(0,0)",
// CHECK-NEXT:         64
// CHECK-NEXT:       ],
// CHECK-NEXT:       "swizzle": 128
// CHECK:            "box": [
// CHECK-NEXT:         16,
// CHECK-NEXT:         8
// CHECK-NEXT:       ],
// CHECK-NEXT:       "buffer": 1,
// CHECK-NEXT:       "kind": "tensor_map",
// CHECK-NEXT:       "shape": [
// CHECK-NEXT:         32,
// CHECK-NEXT:         64
// CHECK-NEXT:       ],
// CHECK-NEXT:       "swizzle": 0
// A map of a buffer allocated in the function (its shape an expression of
// the argument sizes).
// CHECK:            "box": [
// CHECK-NEXT:         64,
// CHECK-NEXT:         64
// CHECK-NEXT:       ],
// CHECK-NEXT:       "buffer": 3,
// CHECK-NEXT:       "kind": "tensor_map",
// CHECK-NEXT:       "shape": [
// CHECK-NEXT:         "dim(0,0)",
// CHECK-NEXT:         128
// CHECK-NEXT:       ],
// CHECK-NEXT:       "swizzle": 128
// CHECK:          "kernel": "k",
module attributes {gpu.container_module} {
  func.func @maps(%a: memref<?x64xbf16>, %b: memref<32x64xf32>, %c: memref<?xf32>) -> memref<?x128xf16> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?x64xbf16>
    %ma = fuser.tensor_map %a box [128, 64] swizzle 128 : memref<?x64xbf16> -> !llvm.ptr
    %mb = fuser.tensor_map %b box [16, 8] swizzle 0 : memref<32x64xf32> -> !llvm.ptr
    %y = memref.alloc(%n) : memref<?x128xf16>
    %my = fuser.tensor_map %y box [64, 64] swizzle 128 : memref<?x128xf16> -> !llvm.ptr
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%ma : !llvm.ptr, %mb : !llvm.ptr, %my : !llvm.ptr)
    return %y : memref<?x128xf16>
  }
  gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "">]
}
