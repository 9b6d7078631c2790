// REQUIRES: ptxas
// Split K assembles for sm_90a with no spills, in both kernels: the large-K
// inputs of test/gpu/test_split_k.py under the default options (3xtf32,
// split by the configuration step) and in tf32.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/split_k/odd_bias_tanh.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.odd.ptx
// RUN: FileCheck %s < %t.odd.ptx
// RUN: %ptxas -arch=sm_90a -v %t.odd.ptx -o %t.odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/split_k/large_k.mlir --fuser-gpu-pipeline="precision=tf32" | fuser-translate --fuser-to-ptx -o %t.tf32.ptx
// RUN: FileCheck %s --check-prefix=TF32 < %t.tf32.ptx
// RUN: %ptxas -arch=sm_90a -v %t.tf32.ptx -o %t.tf32.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// The GEMM kernel (TMA, 3xtf32, raw sums stored in pairs, no tanh), then
// the reduction kernel (22 slices added in f64, rounded once, the
// epilogue).
// CHECK: .entry forward_matmul(
// CHECK: setmaxnreg.inc.sync.aligned.u32 224;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: st.global.v2.b32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: .entry forward_matmul_reduce(
// CHECK-COUNT-21: add.rn.f64
// CHECK: cvt.rn.f32.f64
// TF32: .entry forward_matmul(
// TF32: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// TF32: .entry forward_matmul_reduce(

// NOSPILL: Compiling entry function 'forward_matmul{{(_reduce)?}}' for 'sm_90a'
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL: Compiling entry function 'forward_matmul{{(_reduce)?}}' for 'sm_90a'
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
