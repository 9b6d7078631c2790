// W3's backward (nn.Linear(8192, 8192) -> GroupNorm(512) -> leaky_relu
// -> y + y, batch 1024) as fuser.torch.compile(training=True) imports it
// from torch-mlir (Inputs/torch_w3_backward.mlir).
//
// GroupNorm's input gradient, with the statistics torch-mlir recomputes
// from y, is one fuser.group_norm_grad kernel (per (sample, group): the
// mask, the statistics, the two group sums, dX_gn); 9 kernels in all:
//   group_norm_grad; g and g * y for the parameter gradients (one pointwise
//   kernel, two results); dgamma and dbeta (column sums); dX; the dX_gn^T
//   and x^T copies and dW; db.
// RUN: fuser-opt %S/Inputs/torch_w3_backward.mlir --fuser-fusion-pipeline="report=true" 2>&1 | FileCheck %s
// CHECK: remark: fused a GroupNorm input gradient into fuser.group_norm_grad (512 groups of 16, dy from 2 prologue inputs)
// CHECK-LABEL: func.func @main
// CHECK: %[[DX:.+]], %{{.+}}, %{{.+}} = fuser.group_norm_grad %arg2, %arg0 groups = 512 eps = 1.000000e-05 prologue_inputs(%arg3, %arg5 : tensor<1024x8192xf32>, tensor<1024x8192xf32>)
// CHECK-SAME: {config = #fuser.config<strategy = "group_norm_grad"
// CHECK: fuser.matmul %[[DX]], %arg4
// CHECK: fuser.pointwise ins(%[[DX]] : {{.+}}) {{.+}}strategy = "pointwise_transpose"
// RUN: fuser-opt %S/Inputs/torch_w3_backward.mlir --fuser-kernel-pipeline | FileCheck %s --check-prefix=KERNELS
// KERNELS-COUNT-9: gpu.launch_func
// KERNELS-NOT: gpu.launch_func
