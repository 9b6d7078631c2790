// REQUIRES: ptxas
// The transposed-tile pointwise kernels of test/gpu/test_transpose.py
// assemble for sm_90a with no spills: a 16640-byte shared tile (64 rows of
// 65 floats), one barrier; a static 1 x 1 copy keeps the row kernel.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/transpose.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: .entry copy_pointwise(
// CHECK: .shared .align 4 .b8 __wg_copy_pointwise_0[16640];
// CHECK: ld.global.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: st.global.b32
// CHECK: .entry copy_1x1_pointwise(
// CHECK-NOT: bar.sync
// CHECK: .entry

// PTXAS-COUNT-9: 0 bytes spill stores, 0 bytes spill loads
