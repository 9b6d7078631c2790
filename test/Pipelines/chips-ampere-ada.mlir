// REQUIRES: ptxas
// Ampere and Ada (FFMA for fp32 matmuls, mma.sync for tf32/bf16): the three seed examples compile for each chip with no
// `features` (the PTX ISA version follows from the chip) and ptxas accepts
// the PTX. README.md's chip table says which kernels each chip gets.
// RUN: sh %S/Inputs/compile-examples-for-chips.sh fuser-opt fuser-translate \
// RUN:   %ptxas %fuser_src %t sm_80 sm_86 sm_87 sm_89 | FileCheck %s
// CHECK: sm_80 w1_leaky_relu_dynamic .version 8.0
// CHECK-NEXT: sm_80 w2_linear_scale_leaky .version 8.0
// CHECK-NEXT: sm_80 w3_linear_groupnorm .version 8.0
// CHECK-NEXT: sm_86 w1_leaky_relu_dynamic .version 8.0
// CHECK-NEXT: sm_86 w2_linear_scale_leaky .version 8.0
// CHECK-NEXT: sm_86 w3_linear_groupnorm .version 8.0
// CHECK-NEXT: sm_87 w1_leaky_relu_dynamic .version 8.0
// CHECK-NEXT: sm_87 w2_linear_scale_leaky .version 8.0
// CHECK-NEXT: sm_87 w3_linear_groupnorm .version 8.0
// CHECK-NEXT: sm_89 w1_leaky_relu_dynamic .version 8.0
// CHECK-NEXT: sm_89 w2_linear_scale_leaky .version 8.0
// CHECK-NEXT: sm_89 w3_linear_groupnorm .version 8.0
