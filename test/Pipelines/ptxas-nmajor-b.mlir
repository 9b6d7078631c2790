// REQUIRES: ptxas
// The N-major B products of the GPU test (test/gpu/Inputs/matmul_nmajor_b.mlir,
// test/gpu/test_nmajor_b.py) take the kernel path the test means them to:
// B read N-major on 3xtf32 wgmma_tma, the wave tile, split K, a dynamic
// batch, a group-norm epilogue; one kernel each (split K: and its reduction), and every entry
// function assembles for sm_90a without spills.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/matmul_nmajor_b.mlir --fuser-gpu-pipeline="report=true" 2>%t.remarks | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// REMARK-NOT: copied K-major
// REMARK-DAG: matmul_nmajor_b.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory)
// REMARK-DAG: B read N-major and transposed in shared memory; 128 x 96 tiles
// REMARK-DAG: K split 22 ways (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory
// REMARK-DAG: B read N-major and transposed in shared memory; every batch's tiles in one persistent grid

// NOSPILL-COUNT-7: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: bytes spill stores
