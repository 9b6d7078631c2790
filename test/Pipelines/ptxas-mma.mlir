// REQUIRES: ptxas
// The tensor-core GEMMs assemble for sm_90a with no spills.
// W2 from linalg with precision=tf32 (the TMA-fed wgmma kernel by default,
// mma.sync on request) and 3xtf32: one kernel each.
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline="precision=tf32" | fuser-translate --fuser-to-ptx -o %t.tf32t.ptx
// RUN: FileCheck %s --check-prefix=TMATF32 < %t.tf32t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.tf32t.ptx -o %t.tf32t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline="precision=tf32 tensor-core-kernel=mma" | fuser-translate --fuser-to-ptx -o %t.tf32.ptx
// RUN: FileCheck %s --check-prefix=TF32PTX < %t.tf32.ptx
// RUN: %ptxas -arch=sm_90a -v %t.tf32.ptx -o %t.tf32.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline="precision=3xtf32 tensor-core-kernel=mma" | fuser-translate --fuser-to-ptx -o %t.3x.ptx
// RUN: FileCheck %s --check-prefix=TF32PTX < %t.3x.ptx
// RUN: %ptxas -arch=sm_90a -v %t.3x.ptx -o %t.3x.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// W2 with bf16 tensors (precision chosen from the element type): the
// TMA-fed wgmma kernel by default on sm_90a, mma.sync on request; the
// cp.async wgmma kernel for a dynamic K, and for tf32 on request.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/w2_bf16.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.bf16.ptx
// RUN: FileCheck %s --check-prefix=TMABF16 < %t.bf16.ptx
// RUN: %ptxas -arch=sm_90a -v %t.bf16.ptx -o %t.bf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/w2_bf16.mlir --fuser-gpu-pipeline="tensor-core-kernel=mma" | fuser-translate --fuser-to-ptx -o %t.bf16m.ptx
// RUN: FileCheck %s --check-prefix=BF16PTX < %t.bf16m.ptx
// RUN: %ptxas -arch=sm_90a -v %t.bf16m.ptx -o %t.bf16m.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-gpu-pipeline="precision=tf32 tensor-core-kernel=wgmma" | fuser-translate --fuser-to-ptx -o %t.tf32w.ptx
// RUN: FileCheck %s --check-prefix=WGMMATF32 < %t.tf32w.ptx
// RUN: %ptxas -arch=sm_90a -v %t.tf32w.ptx -o %t.tf32w.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// The NN kernels (B as K x N, dynamic sizes) at 255 registers: mma.sync in
// tf32 on request (it spilled 4 bytes until its copies kept one row and
// column per thread), and bf16's.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nn_odd.mlir --fuser-gpu-pipeline="precision=tf32" | fuser-translate --fuser-to-ptx -o %t.nntf32.ptx
// RUN: FileCheck %s --check-prefix=TF32PTX < %t.nntf32.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nntf32.ptx -o %t.nntf32.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nn_odd_bf16.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.nnbf16.ptx
// RUN: FileCheck %s --check-prefix=BF16PTX < %t.nnbf16.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nnbf16.ptx -o %t.nnbf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nt_odd_bf16.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ntbf16.ptx
// RUN: FileCheck %s --check-prefix=WGMMABF16 < %t.ntbf16.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ntbf16.ptx -o %t.ntbf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// WGMMABF16-COUNT-1: .entry forward_matmul(
// WGMMABF16: cp.async.cg.shared.global
// WGMMABF16: wgmma.fence.sync.aligned
// WGMMABF16-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// WGMMABF16: wgmma.commit_group.sync.aligned
// WGMMABF16: wgmma.wait_group.sync.aligned{{[[:space:]]+}}1;
// WGMMABF16: fence.proxy.async.shared::cta
// WGMMATF32-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32

// wgmma_tma: the tensor maps are 128-byte parameters read in place; the
// consumers take registers from the producer warpgroup, wait for each
// stage on its mbarrier and run 64 x 256 wgmmas; one producer thread
// expects the stage's bytes and issues the two tensor copies.
// TMABF16-COUNT-1: .entry forward_matmul(
// TMABF16-COUNT-2: .param .align 64 .b8 forward_matmul_param_{{[0-9]+}}[128]
// TMABF16: .maxntid 384, 1, 1
// TMABF16: cvta.param.u64
// TMABF16: mbarrier.init.shared.b64
// TMABF16: setmaxnreg.inc.sync.aligned.u32 232;
// TMABF16: mbarrier.try_wait.parity.shared.b64
// TMABF16-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// TMABF16: wgmma.wait_group.sync.aligned{{[[:space:]]+}}1;
// TMABF16: mbarrier.arrive.shared.b64
// TMABF16: setmaxnreg.dec.sync.aligned.u32 40;
// TMABF16: mbarrier.arrive.expect_tx.shared.b64
// TMABF16-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// TMABF16-NOT: cp.async.cg.shared.global
// TMATF32-COUNT-1: .entry forward_matmul(
// TMATF32: setmaxnreg.inc.sync.aligned.u32 232;
// TMATF32-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// TMATF32: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// The default fp32 kernel (fp64 tensor cores) on every operand layout and
// epilogue read kind, dynamic sizes: nn (B as K x N), nt (nn.Linear's), and
// the group-norm epilogue with odd sizes.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nn_odd.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.nn64.ptx
// RUN: FileCheck %s --check-prefix=F64PTX < %t.nn64.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nn64.ptx -o %t.nn64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nt_odd.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.nt64.ptx
// RUN: FileCheck %s --check-prefix=F64PTX < %t.nt64.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nt64.ptx -o %t.nt64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/linear_group_norm_odd.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.gn64.ptx
// RUN: FileCheck %s --check-prefix=F64PTX < %t.gn64.ptx
// RUN: %ptxas -arch=sm_90a -v %t.gn64.ptx -o %t.gn64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// F64PTX-COUNT-1: .entry forward_matmul(
// F64PTX-NOT: .entry
// F64PTX: cvt.f64.f32
// F64PTX: mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64

// TF32PTX-COUNT-1: .entry forward_matmul(
// TF32PTX-NOT: .entry
// TF32PTX: cp.async.cg.shared.global
// TF32PTX: cvt.rna.tf32.f32
// TF32PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// BF16PTX-COUNT-1: .entry forward_matmul(
// BF16PTX-NOT: .entry
// BF16PTX: cp.async.cg.shared.global
// BF16PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// NOSPILL: Compiling entry function 'forward_matmul' for 'sm_90a'
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
