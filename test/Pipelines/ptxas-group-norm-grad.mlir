// REQUIRES: ptxas
// The fuser.group_norm_grad kernels assemble for sm_90a without spills:
// W3's backward (groups of 16, two threads each, 128-bit accesses, one
// shuffle level) and a group of 1024 over four warps (two barriers: the
// statistics, then the sums of dx_hat and dx_hat * x_hat).
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/group_norm_grad.mlir --fuser-gpu-pipeline="chip=sm_90a" | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: .entry w3_grad_group_norm_grad(
// CHECK-NOT: bar.sync
// CHECK: ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: rsqrt.approx.f32
// CHECK: st.global.v4.b32
// CHECK: .entry wide_grad_group_norm_grad(
// CHECK: bar.sync 0;
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: st.global.v4.b32

// PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
