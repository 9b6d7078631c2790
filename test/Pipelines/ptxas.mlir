// REQUIRES: ptxas
// The PTX of every example assembles for sm_90a.
// RUN: fuser-opt %fuser_src/examples/w1_leaky_relu_static.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.w1s.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w1s.ptx -o %t.w1s.cubin 2>&1 | FileCheck %s --check-prefix=W1
// RUN: fuser-opt %fuser_src/examples/w1_leaky_relu_dynamic.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.w1d.ptx
// RUN: %ptxas -arch=sm_90a %t.w1d.ptx -o %t.w1d.cubin
// RUN: fuser-opt %fuser_src/examples/pointwise_chain.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.chain.ptx
// RUN: %ptxas -arch=sm_90a -v %t.chain.ptx -o %t.chain.cubin 2>&1 | FileCheck %s --check-prefix=CHAIN
// Other chips: sm_80 without the sm_90a features.
// RUN: fuser-opt %fuser_src/examples/pointwise_chain.mlir --fuser-gpu-pipeline="chip=sm_80 features=+ptx70" | fuser-translate --fuser-to-ptx -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// W2 from linalg: one GEMM kernel with the epilogue fused, 3xtf32 on the
// TMA-fed wgmma kernel by default (sm_90a), on fp64 tensor cores with
// fp32-kernel=fp64, on FFMA with fp32-kernel=ffma.
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.w2.ptx
// RUN: FileCheck %s --check-prefix=W2SPLIT < %t.w2.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w2.ptx -o %t.w2.cubin 2>&1 | FileCheck %s --check-prefix=W2
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline="fp32-kernel=fp64" | fuser-translate --fuser-to-ptx -o %t.w2d.ptx
// RUN: FileCheck %s --check-prefix=W2DMMA < %t.w2d.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w2d.ptx -o %t.w2d.cubin 2>&1 | FileCheck %s --check-prefix=W2
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline="fp32-kernel=ffma" | fuser-translate --fuser-to-ptx -o %t.w2f.ptx
// RUN: FileCheck %s --check-prefix=W2PTX < %t.w2f.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w2f.ptx -o %t.w2f.cubin 2>&1 | FileCheck %s --check-prefix=W2
// W3 from linalg: the GEMM with the group norm in its epilogue, one kernel
// (group sums by shuffles): 3xtf32 on wgmma_tma by default, and fp64 tensor
// cores; neither spills (the split did, 20-48 bytes, while its static sizes
// and tile counts were computed in registers).
// RUN: fuser-opt %fuser_src/examples/w3_linear_groupnorm.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.w3.ptx
// RUN: FileCheck %s --check-prefix=W3SPLIT < %t.w3.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w3.ptx -o %t.w3.cubin 2>&1 | FileCheck %s --check-prefix=W3
// RUN: fuser-opt %fuser_src/examples/w3_linear_groupnorm.mlir --fuser-gpu-pipeline="fp32-kernel=fp64" | fuser-translate --fuser-to-ptx -o %t.w3d.ptx
// RUN: FileCheck %s --check-prefix=W3PTX < %t.w3d.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w3d.ptx -o %t.w3d.cubin 2>&1 | FileCheck %s --check-prefix=W3
// W3SPLIT-COUNT-1: .entry forward_matmul(
// W3SPLIT-NOT: .entry
// W3SPLIT-DAG: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// W3SPLIT-DAG: shfl.sync.bfly
// W3SPLIT-DAG: rsqrt.approx
// W3PTX-COUNT-1: .entry forward_matmul(
// W3PTX-NOT: .entry
// W3PTX: mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64
// W3PTX: shfl.sync.bfly
// W3PTX: rsqrt.approx
// W3: Compiling entry function 'forward_matmul' for 'sm_90a'
// W3: 0 bytes spill stores, 0 bytes spill loads
// The cubin format runs ptxas inside the pipeline.
// RUN: fuser-opt %fuser_src/examples/w1_leaky_relu_dynamic.mlir --fuser-gpu-pipeline="format=cubin" | fuser-translate --fuser-to-cubin -o %t.direct.cubin
// RUN: test -s %t.direct.cubin
// Asking for the other format is a clear error.
// RUN: fuser-opt %fuser_src/examples/w1_leaky_relu_dynamic.mlir --fuser-gpu-pipeline="format=cubin" | not fuser-translate --fuser-to-ptx 2>&1 | FileCheck %s --check-prefix=WRONGFMT
// WRONGFMT: error: the module holds a cubin; compile with --fuser-gpu-pipeline="format=ptx"
// GroupNorm: the recognized decomposition (one warp, 2-wide accesses) and
// the 512-thread direct form (cross-warp merge, epilogue inputs) are one
// kernel each and assemble without spills.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/group_norm_nchw.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.gn.ptx
// RUN: FileCheck %s --check-prefix=GNPTX < %t.gn.ptx
// RUN: %ptxas -arch=sm_90a -v %t.gn.ptx -o %t.gn.cubin 2>&1 | FileCheck %s --check-prefix=GN
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/group_norm_large.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.gnl.ptx
// RUN: %ptxas -arch=sm_90a -v %t.gnl.ptx -o %t.gnl.cubin 2>&1 | FileCheck %s --check-prefix=GN
// GNPTX-COUNT-1: .entry forward_group_norm(
// GNPTX-NOT: .entry
// GNPTX: shfl.sync.bfly
// GN: Compiling entry function 'forward_group_norm' for 'sm_90a'
// GN: 0 bytes spill stores, 0 bytes spill loads

// No spills in the shipped kernels.
// W1: Compiling entry function 'forward_pointwise' for 'sm_90a'
// W1: 0 bytes spill stores, 0 bytes spill loads
// CHAIN: Compiling entry function 'forward_pointwise' for 'sm_90a'
// CHAIN: 0 bytes spill stores, 0 bytes spill loads
// W2SPLIT-COUNT-1: .entry forward_matmul(
// W2SPLIT-NOT: .entry
// W2SPLIT: setmaxnreg.inc.sync.aligned.u32 224
// W2SPLIT: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// W2SPLIT: cp.async.bulk.tensor.2d.shared::cluster.global
// W2DMMA-COUNT-1: .entry forward_matmul(
// W2DMMA-NOT: .entry
// W2DMMA: cp.async.cg.shared.global
// W2DMMA: ld.shared.v2.b32
// W2DMMA: cvt.f64.f32
// W2DMMA: mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64
// W2DMMA: cvt.rn.f32.f64
// W2PTX-COUNT-1: .entry forward_matmul(
// W2PTX-NOT: .entry
// W2PTX: ld.global.v4
// W2PTX: ld.shared.v4
// W2PTX: fma.rn.f32
// W2PTX: st.global.v4
// W2: Compiling entry function 'forward_matmul' for 'sm_90a'
// W2: 0 bytes spill stores, 0 bytes spill loads
