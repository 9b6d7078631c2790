// The fusion pipeline on the W2 and W3 examples (fusion only: their GPU
// compilation is wired up with the matmul code generation).
// RUN: fuser-opt %fuser_src/examples/w2_linear_scale_leaky.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=W2
// RUN: fuser-opt %fuser_src/examples/w3_linear_groupnorm.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=W3

// W2 is one kernel: x . W^T, then + b, * 2.0 and LeakyReLU(0.1).
// W2-LABEL: func.func @forward
// W2-SAME: (%[[X:.+]]: tensor<1024x8192xf32>, %[[W:.+]]: tensor<8192x8192xf32>, %[[B:.+]]: tensor<8192xf32>)
// W2-NOT: linalg.
// W2: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<8192xf32>)
// W2-SAME: strategy = "wgmma_tma"{{.+}}precision = "3xtf32", promote_every = 128
// W2: arith.addf
// W2: arith.mulf
// W2: arith.cmpf ugt
// W2: arith.select
// W2: fuser.yield
// W2-NOT: linalg.
// W2-NOT: fuser.pointwise
// W2: return %[[R]]

// In W3, the linear layer, its bias, the group norm (groups of 16 fit the
// GEMM epilogue), its affine, LeakyReLU(0.01) and y + y (now y * 2.0) are
// one fuser.matmul: the epilogue adds the bias, the `then` region applies
// gamma and beta and the pointwise tail.
// W3-LABEL: func.func @forward
// W3-SAME: (%[[X:[^:]+]]: tensor<1024x8192xf32>, %[[W:[^:]+]]: tensor<8192x8192xf32>, %[[B:[^:]+]]: tensor<8192xf32>, %[[GA:[^:]+]]: tensor<8192xf32>, %[[BE:[^:]+]]: tensor<8192xf32>)
// W3-NOT: linalg.
// W3: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]], %[[GA]], %[[BE]] : tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>) epilogue_maps [#{{.+}}, #{{.+}}, #{{.+}}] group_norm(size = 16, eps = 1.000000e-05)
// W3-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// W3-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[BIAS]]
// W3-NEXT: fuser.yield %[[S]]
// W3-NEXT: } then {
// W3-NEXT: ^bb0(%[[XH:.+]]: f32, %{{.+}}: f32, %[[G:.+]]: f32, %[[BB:.+]]: f32):
// W3-NEXT: %[[M:.+]] = arith.mulf %[[XH]], %[[G]] : f32
// W3-NEXT: %{{.+}} = arith.addf %[[M]], %[[BB]] : f32
// W3: arith.select
// W3-NEXT: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// W3-NEXT: %[[D:.+]] = arith.mulf %{{.+}}, %[[TWO]] : f32
// W3-NEXT: fuser.yield %[[D]]
// W3-NOT: linalg.
// W3-NOT: fuser.pointwise
// W3-NOT: fuser.group_norm
// W3: return %[[R]]
// W3-NOT: fuser.matmul
