// Real torch-mlir exports of normalisations (Inputs/torch_*.mlir, from
// scripts/export-torch-inputs.py; weights are function arguments): how many
// kernels each becomes, and the remarks that say why. torch-mlir decomposes
// them with tensor.expand_shape views, statistics read through keepdim maps
// such as (d0, d1, d2, d3) -> (d0, d1, 0, 0), the variance in f64 and the
// mean in f32, the normalisation as two generics and gamma/beta viewed as
// 1xC; fuser-fuse-group-norm recognises all of it as one fuser.group_norm.
// Unfused, each export is 15 to 18 kernels.

// W3 as exported: x . W^T + b, GroupNorm(512, 8192), LeakyReLU(0.01) (torch:
// max(0, y) + 0.01 * min(0, y)), y + y; batch 1024, then a dynamic batch.
// One kernel: the GEMM whose epilogue adds the bias, normalises each group
// of 16 columns and applies the chain.
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=W3 --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm_dynamic.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=W3 --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm.mlir --fuser-fusion-pipeline="report=true" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=W3-REMARKS
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm_dynamic.mlir --fuser-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=W3-FUSED
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=W3-PTX --implicit-check-not=.entry
// W3: gpu.launch_func @fuser_kernels::@main_matmul
// W3-REMARKS: remark: fused group norm (512 groups of 16) with {{[0-9]+}} consumer op(s), the affine included
// W3-REMARKS: remark: fused matmul with 1 epilogue op(s)
// W3-REMARKS: remark: group norm (groups of 16 channels) fused into the GEMM epilogue: one kernel
// W3-REMARKS-NOT: remark: left unfused
// W3-FUSED-LABEL: func.func @main
// W3-FUSED-SAME: (%[[X:.+]]: tensor<?x8192xf32>, %[[W:.+]]: tensor<8192x8192xf32>, %[[B:.+]]: tensor<8192xf32>, %[[G:.+]]: tensor<8192xf32>, %[[BE:.+]]: tensor<8192xf32>)
// W3-FUSED-NOT: linalg.
// W3-FUSED-NOT: tensor.expand_shape
// W3-FUSED: fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]], %[[G]], %[[BE]] : {{.+}}) {{.+}} group_norm(size = 16, eps = 1.000000e-05)
// W3-FUSED: ^bb0(%[[ACC:.+]]: f32, %[[BV:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// W3-FUSED-NEXT: arith.addf %[[ACC]], %[[BV]] : f32
// W3-FUSED: } then {
// W3-FUSED-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32, %[[GV:.+]]: f32, %[[BEV:.+]]: f32):
// W3-FUSED: %[[M:.+]] = arith.mulf %[[V]], %[[GV]] : f32
// W3-FUSED-NEXT: arith.addf %[[M]], %[[BEV]] : f32
// W3-FUSED: fuser.yield
// W3-FUSED-NOT: linalg.
// W3-PTX: .entry main_matmul(

// GroupNorm(4, 8) on a dynamic batch of N x 8 x 5 x 7 (viewed as
// (N, 8, 35), then (N, 4, 2, 35)): one group norm kernel.
// RUN: fuser-opt %S/Inputs/torch_group_norm_4d_dynamic.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=GN4D --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_group_norm_4d_dynamic.mlir --fuser-fusion-pipeline="report=true" \
// RUN:   2>&1 | FileCheck %s --check-prefix=GN4D-FUSED
// GN4D: gpu.launch_func @fuser_kernels::@main_group_norm
// GN4D-FUSED: remark: fused group norm (4 groups of 70) with 2 consumer op(s), the affine included
// GN4D-FUSED-LABEL: func.func @main
// GN4D-FUSED-SAME: (%[[X:.+]]: tensor<?x8x5x7xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// GN4D-FUSED-NOT: linalg.
// GN4D-FUSED: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 4 eps = 1.000000e-05 epilogue_maps []
// GN4D-FUSED-NOT: linalg.
// GN4D-FUSED: return %[[R]]

// LayerNorm(64) on a dynamic batch of N x 64: a group norm with one group
// per row, gamma and beta per column. One kernel.
// RUN: fuser-opt %S/Inputs/torch_layer_norm.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=LN --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_layer_norm.mlir --fuser-fusion-pipeline="report=true" \
// RUN:   2>&1 | FileCheck %s --check-prefix=LN-FUSED
// LN: gpu.launch_func @fuser_kernels::@main_group_norm
// LN-FUSED: remark: fused group norm (1 groups of 64) with 2 consumer op(s), the affine included
// LN-FUSED-LABEL: func.func @main
// LN-FUSED-SAME: (%[[X:.+]]: tensor<?x64xf32>, %[[G:.+]]: tensor<64xf32>, %[[B:.+]]: tensor<64xf32>)
// LN-FUSED-NOT: linalg.
// LN-FUSED: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 1 eps = 1.000000e-05 epilogue_maps []
// LN-FUSED: return %[[R]]

// LayerNorm(64) on N x 8 x 64 (dynamic N): its weight is per element of the
// last dimension, so the group norm runs on the input flattened to
// (N * 8) x 64 (one group per row) and its result is viewed back. One
// kernel.
// RUN: fuser-opt %S/Inputs/torch_layer_norm_3d_dynamic.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=LN3D --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_layer_norm_3d_dynamic.mlir --fuser-fusion-pipeline="report=true" \
// RUN:   2>&1 | FileCheck %s --check-prefix=LN3D-FUSED
// LN3D: gpu.launch_func @fuser_kernels::@main_group_norm
// LN3D-FUSED: remark: fused group norm (1 groups of 64) with 2 consumer op(s), the affine over each group's elements included
// LN3D-FUSED-LABEL: func.func @main
// LN3D-FUSED-SAME: (%[[X:.+]]: tensor<?x8x64xf32>, %[[G:.+]]: tensor<64xf32>, %[[B:.+]]: tensor<64xf32>)
// LN3D-FUSED-NOT: linalg.
// LN3D-FUSED: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x8x64xf32> into tensor<?x64xf32>
// LN3D-FUSED: %[[R:.+]] = fuser.group_norm %[[F]], %[[G]], %[[B]] groups = 1 eps = 1.000000e-05 epilogue_maps []
// LN3D-FUSED: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x8x64xf32>
// LN3D-FUSED: %[[E:.+]] = tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [%[[N]], 8, 64]
// LN3D-FUSED: return %[[E]]

// InstanceNorm2d(6, affine=True) on 2 x 6 x 5 x 7: torch-mlir runs it as a
// batch norm of the (1, 12, 5, 7) view, with gamma and beta repeated per
// sample (12 values) and applied to the view. Matched on the view (12
// groups of one channel), it is GroupNorm(6) on the input with gamma and
// beta themselves: one kernel, no copies of gamma and beta.
// RUN: fuser-opt %S/Inputs/torch_instance_norm.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=IN --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_instance_norm.mlir --fuser-fusion-pipeline="report=true" \
// RUN:   2>&1 | FileCheck %s --check-prefix=IN-FUSED
// IN: gpu.launch_func @fuser_kernels::@main_group_norm
// IN-FUSED: remark: fused group norm (12 groups of 35) with 2 consumer op(s), the affine included
// IN-FUSED: remark: InstanceNorm: 12 groups of one channel over the (1, N * C) view are GroupNorm(6) on the input, with gamma and beta as given
// IN-FUSED-LABEL: func.func @main
// IN-FUSED-SAME: (%[[X:.+]]: tensor<2x6x5x7xf32>, %[[G:.+]]: tensor<6xf32>, %[[B:.+]]: tensor<6xf32>)
// IN-FUSED: fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 6 eps = 1.000000e-05 epilogue_maps [] {{.*}}: tensor<2x6x5x7xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x7xf32>

// Linear(64, 64) -> GroupNorm(4, 64, affine=False) -> LeakyReLU -> y + y on
// a dynamic batch: the group norm gets gamma = 1 and beta = 0, which the
// GEMM epilogue folds away. One kernel, whose only epilogue input is the
// bias.
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_no_affine.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=NOAFF --implicit-check-not=gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_no_affine.mlir --fuser-fusion-pipeline="report=true" \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOAFF-FUSED
// NOAFF: gpu.launch_func @fuser_kernels::@main_matmul
// NOAFF-FUSED: remark: fused group norm (4 groups of 16) with {{[0-9]+}} consumer op(s), no affine (gamma 1, beta 0)
// NOAFF-FUSED: remark: group norm (groups of 16 channels) fused into the GEMM epilogue: one kernel
// NOAFF-FUSED-LABEL: func.func @main
// NOAFF-FUSED-SAME: (%[[X:.+]]: tensor<?x64xf32>, %[[W:.+]]: tensor<64x64xf32>, %[[B:.+]]: tensor<64xf32>)
// NOAFF-FUSED-NOT: dense<
// NOAFF-FUSED: fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<64xf32>) {{.+}} group_norm(size = 16, eps = 1.000000e-05)
// NOAFF-FUSED-NOT: linalg.
