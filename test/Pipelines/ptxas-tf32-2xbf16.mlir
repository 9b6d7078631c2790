// REQUIRES: ptxas
// fp32-kernel=tf32_2xbf16 takes the products 3xtf32 takes, with its cross
// terms as one bf16 product: K-major and N-major B (the splitter transposes
// B's boxes), the wave tile, split K, a dynamic batch, a group-norm
// epilogue (test/gpu/Inputs/matmul_nmajor_b.mlir), and W3's torch-mlir
// export; every entry function assembles for sm_90a without spills.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/matmul_nmajor_b.mlir --fuser-gpu-pipeline="report=true fp32-kernel=tf32_2xbf16" 2>%t.remarks | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/torch_w3_linear_group_norm_dynamic.mlir --fuser-gpu-pipeline="report=true fp32-kernel=tf32_2xbf16" 2>%t.w3.remarks | fuser-translate --fuser-to-ptx -o %t.w3.ptx
// RUN: FileCheck %s --check-prefix=REMARK < %t.w3.remarks
// RUN: %ptxas -arch=sm_90a -v %t.w3.ptx -o %t.w3.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: not fuser-opt %fuser_src/test/gpu/Inputs/matmul_nmajor_b.mlir --fuser-gpu-pipeline="chip=sm_90 fp32-kernel=tf32_2xbf16" 2>&1 | FileCheck %s --check-prefix=NOWGMMA
// precision=tf32_2xbf16 asks for that kernel where it applies, and falls
// back as fp32-kernel=tf32_2xbf16 does elsewhere.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/split/linear_k8193.mlir --fuser-gpu-pipeline="precision=tf32_2xbf16 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FALLBACK

// RUN: fuser-opt %fuser_src/test/gpu/Inputs/split/linear_k200.mlir --fuser-gpu-pipeline="chip=sm_80 precision=tf32_2xbf16 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FFMA
// FALLBACK: remark: precision=tf32_2xbf16 not applied: tf32_2xbf16 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: M, N or K is dynamic; fp64 tensor cores
// FALLBACK: remark: matmul kernel: mma in fp64 (tf32_2xbf16 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: M, N or K is dynamic; fp64 tensor cores)
// REMARK-NOT: wgmma_tma in 3xtf32
// REMARK: remark: matmul kernel: wgmma_tma in tf32_2xbf16, sums promoted to fp32 every 256 K (tf32 hi parts and bf16 cross terms on wgmma_tma with promoted fp32 sums (fp32-class, 2-4x SGEMM's error)
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill
// NOWGMMA: error: fp32-kernel=tf32_2xbf16 needs wgmma.mma_async and TMA, which only sm_90a has; sm_90 gets fp32-kernel=auto, fp64 or ffma
// FFMA: remark: precision=tf32_2xbf16 not applied: tf32_2xbf16 not applicable: no wgmma on this chip; FFMA
// FFMA: remark: matmul kernel: ffma in fp32
