// A 4-op chain becomes exactly one kernel with 128-bit global accesses, its
// loads asking the L2 for 128 bytes around each.
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
// CHECK: ld.global.L2::128B.v4.b32
// CHECK: st.global.v4.{{f32|b32}}
// The loads' L2 prefetch size needs PTX 7.4: older PTX gets plain loads.
// RUN: fuser-opt %s --fuser-gpu-pipeline="chip=sm_80 features=+ptx73" | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=PTX73
// PTX73: .version 7.3
// PTX73: ld.global.v4.{{f32|b32}}
// PTX73-NOT: L2::128B

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
