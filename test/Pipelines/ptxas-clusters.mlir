// REQUIRES: ptxas
// The cluster products of the GPU test (test/gpu/Inputs/clusters/linear.mlir,
// test/gpu/test_clusters.py) with cluster-m=2, in tf32 (2-block clusters
// where wgmma_tma runs: the N-major nn_b takes mma.sync) and in 3xtf32 (the
// K-major and N-major splitters too), declare their cluster dims and
// assemble for sm_90a without spills.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/clusters/linear.mlir --fuser-gpu-pipeline="precision=tf32 cluster-m=2" | fuser-translate --fuser-to-ptx -o %t.tf32.ptx
// RUN: FileCheck %s --check-prefix=TF32 < %t.tf32.ptx
// RUN: %ptxas -arch=sm_90a -v %t.tf32.ptx -o %t.tf32.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL3
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/clusters/linear.mlir --fuser-gpu-pipeline="cluster-m=2" | fuser-translate --fuser-to-ptx -o %t.x3.ptx
// RUN: FileCheck %s --check-prefix=X3 < %t.x3.ptx
// RUN: %ptxas -arch=sm_90a -v %t.x3.ptx -o %t.x3.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL3

// TF32-LABEL: .entry odd_m_matmul(
// TF32: .reqnctapercluster 2, 1, 1
// TF32: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// TF32-LABEL: .entry dyn_m_matmul(
// TF32: .reqnctapercluster 2, 1, 1
// TF32-LABEL: .entry nn_b_matmul(
// TF32-NOT: .reqnctapercluster
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// X3-COUNT-3: .reqnctapercluster 2, 1, 1
// X3-NOT: .reqnctapercluster

// NOSPILL3-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL3-NOT: bytes spill stores
