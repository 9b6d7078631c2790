// REQUIRES: ptxas
// Hopper (fp64 tensor cores for fp32 matmuls; wgmma and TMA on sm_90a): the three seed examples compile for each chip with no
// `features` (the PTX ISA version follows from the chip) and ptxas accepts
// the PTX. README.md's chip table says which kernels each chip gets.
// RUN: sh %S/Inputs/compile-examples-for-chips.sh fuser-opt fuser-translate \
// RUN:   %ptxas %fuser_src %t sm_90 sm_90a | FileCheck %s
// CHECK: sm_90 w1_leaky_relu_dynamic .version 8.0
// CHECK-NEXT: sm_90 w2_linear_scale_leaky .version 8.0
// CHECK-NEXT: sm_90 w3_linear_groupnorm .version 8.0
// CHECK-NEXT: sm_90a w1_leaky_relu_dynamic .version 8.0
// CHECK-NEXT: sm_90a w2_linear_scale_leaky .version 8.0
// CHECK-NEXT: sm_90a w3_linear_groupnorm .version 8.0
