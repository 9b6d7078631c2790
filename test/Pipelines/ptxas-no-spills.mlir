// REQUIRES: ptxas
// The fused GEMM kernels of the torch-mlir corpus and of the odd-shape GPU
// inputs assemble for sm_90a without spills: group and layer norms in the
// epilogue of 3xtf32 on wgmma_tma (224 registers per consumer thread),
// dynamic batch, masks, epilogues reading whole matrices, split K. They
// spilled 8-124 bytes while their static sizes and tile counts were
// computed in registers (a count live across setmaxnreg is always
// spilled) and while a bias was held in registers beside a matrix input.
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/torch_w3_linear_group_norm_dynamic.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.w3.ptx
// RUN: %ptxas -arch=sm_90a -v %t.w3.ptx -o %t.w3.cubin 2>&1 | FileCheck %s
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/torch_linear_layer_norm_relu.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ln.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ln.ptx -o %t.ln.cubin 2>&1 | FileCheck %s
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/torch_linear_group_norm_silu.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.gn.ptx
// RUN: %ptxas -arch=sm_90a -v %t.gn.ptx -o %t.gn.cubin 2>&1 | FileCheck %s
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/torch_linear_silu.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.silu.ptx
// RUN: %ptxas -arch=sm_90a -v %t.silu.ptx -o %t.silu.cubin 2>&1 | FileCheck %s
// RUN: fuser-opt %fuser_src/test/Pipelines/Inputs/torch_matmul_tril.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.tril.ptx
// RUN: %ptxas -arch=sm_90a -v %t.tril.ptx -o %t.tril.cubin 2>&1 | FileCheck %s
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nt_k200.mlir --fuser-gpu-pipeline="precision=3xtf32" | fuser-translate --fuser-to-ptx -o %t.nt.ptx
// RUN: %ptxas -arch=sm_90a -v %t.nt.ptx -o %t.nt.cubin 2>&1 | FileCheck %s
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/split_k/odd_bias_tanh.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.sk.ptx
// RUN: %ptxas -arch=sm_90a -v %t.sk.ptx -o %t.sk.cubin 2>&1 | FileCheck %s

// CHECK-NOT: {{[1-9][0-9]*}} bytes spill
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill
