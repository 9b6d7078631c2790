// REQUIRES: ptxas
// Batched products on 3xtf32 wgmma_tma (test/gpu/Inputs/bmm_tma.mlir, the
// GPU test's input) assemble for sm_90a with no spills: four per-batch
// epilogue inputs, a dynamic batch, M and N, and torch.bmm's B copied
// K-major first; bf16 operands (128 x 256 tiles); then
// bench/suite.py's 32 x 1024^3 torch.bmm, whose N-major B the kernel
// reads as it is: one copy of A and four 32-column boxes of B per k tile,
// which the splitter transposes (warp-synchronous) in shared memory.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/bmm_tma.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL4
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/bmm_tma_bf16.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.bf16.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ptx
// RUN: %ptxas -arch=sm_90a -v %t.bf16.ptx -o %t.bf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL1
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.bmm.ptx
// RUN: FileCheck %s --check-prefix=BMM < %t.bmm.ptx
// RUN: FileCheck %s --check-prefix=BMMTMA < %t.bmm.ptx
// RUN: %ptxas -arch=sm_90a -v %t.bmm.ptx -o %t.bmm.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL1

// CHECK-LABEL: .entry bmm_nt_odd_matmul(
// CHECK: setmaxnreg.inc.sync.aligned.u32 224;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-LABEL: .entry bmm_nt_dyn_matmul(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-LABEL: .entry bmm_copy_matmul(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK-LABEL: .entry bmm_copy_pointwise(

// BF16: .entry bmm_nt_matmul(
// BF16: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16

// BMM-NOT: .entry forward_pointwise(
// BMM: .entry forward_matmul(
// BMM-DAG: bar.warp.sync
// BMM-DAG: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// BMM-NOT: .entry
// BMMTMA-COUNT-5: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// BMMTMA-NOT: cp.async.bulk.tensor

// Every entry function (4, 1, then 1) without spills.
// NOSPILL1: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL4-COUNT-4: 0 bytes spill stores, 0 bytes spill loads
func.func @forward(%x: tensor<32x1024x1024xf32>, %w: tensor<32x1024x1024xf32>) -> tensor<32x1024x1024xf32> {
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<32x1024x1024xf32>, tensor<32x1024x1024xf32> -> tensor<32x1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<32x1024x1024xf32>
}
