// REQUIRES: ptxas
// Blackwell data-center parts (FFMA for fp32, mma.sync for tf32/bf16): the three seed examples compile for each chip with no
// `features` (the PTX ISA version follows from the chip) and ptxas accepts
// the PTX. README.md's chip table says which kernels each chip gets.
// RUN: sh %S/Inputs/compile-examples-for-chips.sh fuser-opt fuser-translate \
// RUN:   %ptxas %fuser_src %t sm_100 sm_100a sm_100f sm_103 sm_103a sm_103f | FileCheck %s
// CHECK: sm_100 w1_leaky_relu_dynamic .version 8.6
// CHECK-NEXT: sm_100 w2_linear_scale_leaky .version 8.6
// CHECK-NEXT: sm_100 w3_linear_groupnorm .version 8.6
// CHECK-NEXT: sm_100a w1_leaky_relu_dynamic .version 8.6
// CHECK-NEXT: sm_100a w2_linear_scale_leaky .version 8.6
// CHECK-NEXT: sm_100a w3_linear_groupnorm .version 8.6
// CHECK-NEXT: sm_100f w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_100f w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_100f w3_linear_groupnorm .version 8.8
// CHECK-NEXT: sm_103 w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_103 w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_103 w3_linear_groupnorm .version 8.8
// CHECK-NEXT: sm_103a w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_103a w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_103a w3_linear_groupnorm .version 8.8
// CHECK-NEXT: sm_103f w1_leaky_relu_dynamic .version 8.8
// CHECK-NEXT: sm_103f w2_linear_scale_leaky .version 8.8
// CHECK-NEXT: sm_103f w3_linear_groupnorm .version 8.8
