// REQUIRES: ptxas
// The two-stage reduction kernels of test/gpu/test_reductions.py assemble
// for sm_90a without spills: f32, f64 and i64 sums, maxima, consecutive and
// block-row-apart threads, shared-memory and shuffle combines.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/reductions_two_stage.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL

// CHECK: .entry total_sum_reduction(
// CHECK: .entry total_sum_reduction_combine(
// CHECK: .entry total_sum_f64_reduction(
// CHECK: add.rn.f64
// CHECK: st.global.b64
// CHECK: .entry total_sum_f64_reduction_combine(
// CHECK: .entry cols3_max_i32_reduction(
// CHECK: max.s32
// CHECK: .entry cols3_max_i32_reduction_combine(

// NOSPILL-COUNT-18: 0 bytes spill stores, 0 bytes spill loads
