// W3's backward as fuser.torch.compile(training=True) imports it from
// torch-mlir (GroupNorm(4, 64) after nn.Linear(64, 64), leaky_relu(0.01),
// y + y; batch 8). torch-mlir recomputes the statistics from the saved
// input y (%arg2), the variance in f64, and writes the input gradient as
// dy * rstd * gamma + y * c2 + c3 with per-group c2, c3.
// RUN: fuser-opt %S/../../../Pipelines/Inputs/torch_w3_small_backward.mlir \
// RUN:   --pass-pipeline='builtin.module(canonicalize,func.func(fuser-fuse-group-norm-grad{report=true}))' 2>&1 \
// RUN:   | FileCheck %s

// CHECK: remark: fused a GroupNorm input gradient into fuser.group_norm_grad (4 groups of 16, dy from 2 prologue inputs)
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[GAMMA:[^:]+]]: tensor<64xf32>, %[[X:[^:]+]]: tensor<8x64xf32>, %[[Y:[^:]+]]: tensor<8x64xf32>, %[[Z:[^:]+]]: tensor<8x64xf32>, %[[W:[^:]+]]: tensor<64x64xf32>, %[[DOUT:[^:]+]]: tensor<8x64xf32>)
// dy = where(z > 0, 2 dout, 0.01 * 2 dout): leaky_relu's mask of y + y,
// inlined from torch-mlir's four generics.
// CHECK: %[[DX:.+]], %[[MEAN:.+]], %[[RSTD:.+]] = fuser.group_norm_grad %[[Y]], %[[GAMMA]] groups = 4 eps = 1.000000e-05
// CHECK-SAME: prologue_inputs(%[[Z]], %[[DOUT]] : tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK-SAME: -> tensor<8x64xf32>, tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: ^bb0(%[[ZI:.+]]: f32, %[[DI:.+]]: f32):
// CHECK: %[[POS:.+]] = arith.cmpf ogt, %[[ZI]]
// CHECK: %[[TWO:.+]] = arith.addf %[[DI]], %[[DI]]
// CHECK: %[[NEG:.+]] = arith.mulf %[[TWO]]
// CHECK: %[[DY:.+]] = arith.select %[[POS]], %[[TWO]], %[[NEG]]
// CHECK: fuser.yield %[[DY]] : f32
// The parameter gradients read the op's statistics in torch-mlir's shape.
// CHECK-DAG: tensor.expand_shape %[[MEAN]] {{\[\[}}0], [1, 2, 3]] output_shape [8, 4, 1, 1]
// CHECK-DAG: tensor.expand_shape %[[RSTD]] {{\[\[}}0], [1, 2, 3]] output_shape [8, 4, 1, 1]
// The recomputed statistics are gone (no rsqrt, no f64), dX and dW read
// the op's gradient.
// CHECK-NOT: math.rsqrt
// CHECK-NOT: f64>
// CHECK: linalg.matmul ins(%[[DX]], %[[W]]
// CHECK: linalg.transpose ins(%[[DX]]

// A near miss: the per-group terms scaled by 1/8 instead of 1/K = 1/16.
// The probe finds no input gradient; nothing changes.
// RUN: sed -e 's/6.250000e-02/1.250000e-01/' %S/../../../Pipelines/Inputs/torch_w3_small_backward.mlir \
// RUN:   | fuser-opt --pass-pipeline='builtin.module(canonicalize,func.func(fuser-fuse-group-norm-grad{report=true}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISS
// MISS: remark: GroupNorm statistics recomputed here are not fused into fuser.group_norm_grad: no tensor of the input's type computed from rstd evaluates to the input gradient
// MISS-NOT: fuser.group_norm_grad
// MISS: math.rsqrt
