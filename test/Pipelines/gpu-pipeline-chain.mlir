// A 4-op chain becomes exactly one kernel with 128-bit global accesses.
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx | FileCheck %s
// The kernel pipeline stops before NVVM, at the GPU dialect.
// RUN: fuser-opt %s --fuser-kernel-pipeline | FileCheck %s --check-prefix=GPU
// Remarks are off unless asked for.
// RUN: fuser-opt %s --fuser-gpu-pipeline -o /dev/null 2>&1 | count 0
// RUN: fuser-opt %s --fuser-gpu-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// CHECK: .target sm_90a
// CHECK: .address_size 64
// CHECK-COUNT-1: .entry chain4_pointwise(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.{{f32|b32}}
// CHECK: st.global.v4.{{f32|b32}}
// l2-prefetch (a configure-kernels override) asks the L2 for that many bytes
// around each streamed load.
// RUN: fuser-opt %s --fuser-fusion-pipeline | sed "s/max_grid = 1048576>/max_grid = 1048576, l2_prefetch = 256>/" | fuser-opt --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=PREFETCH
// PREFETCH: ld.global.L2::256B.v4.b32
// PREFETCH: st.global.v4.{{f32|b32}}

// GPU: func.func @chain4(%[[X:.+]]: memref<?x?xf32>) -> memref<?x?xf32>
// GPU: %[[OUT:.+]] = memref.alloc
// GPU-COUNT-1: gpu.launch_func @fuser_kernels::@chain4_pointwise
// GPU-NOT: gpu.launch_func
// GPU: return %[[OUT]]
// GPU: gpu.module @fuser_kernels
// GPU-COUNT-1: gpu.func

// REPORT: remark: fused 4 elementwise op(s) into one pointwise group

func.func @chain4(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %m = linalg.mul ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ex = linalg.exp ins(%m : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %a = linalg.add ins(%ex, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.max ins(%a, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
