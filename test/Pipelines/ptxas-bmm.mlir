// REQUIRES: ptxas
// Batched products on 3xtf32 wgmma_tma (test/gpu/Inputs/bmm_tma.mlir, the
// GPU test's input) assemble for sm_90a with no spills: four per-batch
// epilogue inputs, a dynamic batch, M and N, and torch.bmm's B copied
// K-major first; then bench/gemm_shapes.py's 32 x 1024^3 torch.bmm.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/bmm_tma.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL4
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.bmm.ptx
// RUN: FileCheck %s --check-prefix=BMM < %t.bmm.ptx
// RUN: %ptxas -arch=sm_90a -v %t.bmm.ptx -o %t.bmm.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL2

// CHECK-LABEL: .entry bmm_nt_odd_matmul(
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-LABEL: .entry bmm_nt_dyn_matmul(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-LABEL: .entry bmm_copy_matmul(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-LABEL: .entry bmm_copy_pointwise(

// BMM: .entry forward_matmul(
// BMM: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// BMM: .entry forward_pointwise(

// Every entry function (4, then 2) without spills.
// NOSPILL4-COUNT-4: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL2-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
func.func @forward(%x: tensor<32x1024x1024xf32>, %w: tensor<32x1024x1024xf32>) -> tensor<32x1024x1024xf32> {
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<32x1024x1024xf32>, tensor<32x1024x1024xf32> -> tensor<32x1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<32x1024x1024xf32>
}
