// REQUIRES: ptxas
// Blackwell Thor, consumer and DGX Spark parts (FFMA for fp32, mma.sync for tf32/bf16): the three seed examples compile for each chip with no
// `features` (the PTX ISA version follows from the chip) and ptxas accepts
// the PTX. README.md's chip table says which kernels each chip gets.
// RUN: sh %S/Inputs/compile-examples-for-chips.sh fuser-opt fuser-translate \
// RUN:   %ptxas %fuser_src %t sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f | FileCheck %s
// CHECK: sm_110 w1_leaky_relu_dynamic .version 9.0
// CHECK-NEXT: sm_110 w2_linear_scale_leaky .version 9.0
// CHECK-NEXT: sm_110 w3_linear_groupnorm .version 9.0
// CHECK-NEXT: sm_110a w1_leaky_relu_dynamic .version 9.0
// CHECK-NEXT: sm_110a w2_linear_scale_leaky .version 9.0
// CHECK-NEXT: sm_110a w3_linear_groupnorm .version 9.0
// CHECK-NEXT: sm_110f w1_leaky_relu_dynamic .version 9.0
// CHECK-NEXT: sm_110f w2_linear_scale_leaky .version 9.0
// CHECK-NEXT: sm_110f w3_linear_groupnorm .version 9.0
// CHECK-NEXT: sm_120 w1_leaky_relu_dynamic .version 8.7
// CHECK-NEXT: sm_120 w2_linear_scale_leaky .version 8.7
// CHECK-NEXT: sm_120 w3_linear_groupnorm .version 8.7
// CHECK-NEXT: sm_120a w1_leaky_relu_dynamic .version 8.7
// CHECK-NEXT: sm_120a w2_linear_scale_leaky .version 8.7
// CHECK-NEXT: sm_120a w3_linear_groupnorm .version 8.7
// CHECK-NEXT: sm_120f w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_120f w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_120f w3_linear_groupnorm .version 8.8
// CHECK-NEXT: sm_121 w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_121 w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_121 w3_linear_groupnorm .version 8.8
// CHECK-NEXT: sm_121a w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_121a w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_121a w3_linear_groupnorm .version 8.8
// CHECK-NEXT: sm_121f w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_121f w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_121f w3_linear_groupnorm .version 8.8
