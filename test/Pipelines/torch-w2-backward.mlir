// nn.Linear's backward through W2's leaky_relu(y * 2, 0.1), as
// fuser.torch.compile(training=True) imports it from torch-mlir
// (Inputs/torch_w2_backward.mlir, 1024 x 8192 -> 8192; ..._params_backward:
// parameter gradients only). g = where(y > 0, dy, 0.1 dy) * 2 feeds dX, dW
// (through gᵀ) and db (its column sums).

// With dX: g is its own kernel. Its mask is not fused into dX: at N = 8192
// the kernel would recompute it 64 times (fuser-fuse-matmul-prologues);
// 6 kernels: g, dX, gᵀ and xᵀ, dW, db.
// RUN: fuser-opt %S/Inputs/torch_w2_backward.mlir --fuser-fusion-pipeline="report=true" 2>&1 | FileCheck %s --check-prefix=DX
// DX: remark: A's elementwise producers not fused into the matmul: the kernel reads A once per tile of N = 8192 columns
// DX-LABEL: func.func @main
// DX: %[[G:.+]]:2 = fuser.pointwise ins(%arg1, %arg3
// DX: fuser.matmul %[[G]]#0, %arg2 epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
// DX: fuser.pointwise ins(%[[G]]#0
// RUN: fuser-opt %S/Inputs/torch_w2_backward.mlir --fuser-kernel-pipeline | FileCheck %s --check-prefix=DX-KERNELS
// DX-KERNELS-COUNT-6: gpu.launch_func
// DX-KERNELS-NOT: gpu.launch_func

// Parameter gradients only: g feeds gᵀ and db alone. The transposing copy
// computes g from dy and y (a staged tile each) and db sums it from them
// too: g's kernel goes; 4 kernels: gᵀ, xᵀ, dW, db.
// RUN: fuser-opt %S/Inputs/torch_w2_params_backward.mlir --fuser-fusion-pipeline | FileCheck %s --check-prefix=PARAMS
// PARAMS-LABEL: func.func @main
// PARAMS-SAME: (%[[X:.+]]: tensor<1024x8192xf32>, %[[Y:.+]]: tensor<1024x8192xf32>, %[[DY:.+]]: tensor<1024x8192xf32>)
// PARAMS: %[[GT:.+]] = fuser.pointwise ins(%[[Y]], %[[DY]] : {{.+}}) maps [#[[T:.+]], #[[T]]] {config = #fuser.config<strategy = "pointwise_transpose"
// PARAMS: %[[XT:.+]] = fuser.pointwise ins(%[[X]] : {{.+}}) maps [#[[T]]] {config = #fuser.config<strategy = "pointwise_transpose"
// PARAMS: fuser.matmul %[[GT]], %[[XT]] transpose_b
// PARAMS: linalg.generic {{.+}} ins(%[[Y]], %[[DY]] : {{.+}}) {{.+}}strategy = "reduction"
// RUN: fuser-opt %S/Inputs/torch_w2_params_backward.mlir --fuser-kernel-pipeline | FileCheck %s --check-prefix=PARAMS-KERNELS
// PARAMS-KERNELS-COUNT-4: gpu.launch_func
// PARAMS-KERNELS-NOT: gpu.launch_func
