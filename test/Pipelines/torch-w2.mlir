// W2 (examples/torch/w2.py: leaky_relu(nn.Linear(8192, 8192)(x) * 2.0,
// 0.1)) exactly as torch-mlir exports it (Inputs/torch_w2*.mlir, from
// scripts/export-torch-inputs.py, weight and bias as function arguments):
// leaky_relu arrives as max(0, y) + 0.1 * min(0, y), so y has two users.
// The matmul epilogue takes that DAG whole: one fuser.matmul, one kernel,
// no constant buffer. The same for the smaller nn.Linear + leaky_relu(0.2)
// export.

// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-fusion-pipeline="report=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=FUSED --implicit-check-not=fuser.matmul \
// RUN:       --implicit-check-not=linalg. --implicit-check-not=fuser.pointwise --implicit-check-not='dense<'
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=KERNEL --implicit-check-not=gpu.launch_func \
// RUN:       --implicit-check-not=memref.global --implicit-check-not=gpu.func
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=.entry
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST --implicit-check-not='"kernel"'
// The tensor-core precisions take the same epilogue.
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-gpu-pipeline="precision=tf32" \
// RUN:   | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=.entry

// REMARK: torch_w2.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 6 epilogue op(s)
// REMARK: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K
// FUSED-LABEL: func.func @main
// FUSED-SAME: (%[[X:.+]]: tensor<1024x8192xf32>, %[[W:.+]]: tensor<8192x8192xf32>, %[[B:.+]]: tensor<8192xf32>) -> tensor<1024x8192xf32>
// FUSED: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<8192xf32>) epilogue_maps [#{{.+}}]
// FUSED-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BV:.+]]: f32):
// FUSED-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// FUSED-NEXT: %[[L:.+]] = arith.addf %[[ACC]], %[[BV]] : f32
// FUSED-NEXT: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// FUSED-NEXT: %[[Y:.+]] = arith.mulf %[[L]], %[[TWO]] : f32
// FUSED-NEXT: %[[P:.+]] = arith.cmpf ogt, %[[Z]], %[[Y]] : f32
// FUSED-NEXT: %[[MAX:.+]] = arith.select %[[P]], %[[Z]], %[[Y]] : f32
// FUSED-NEXT: %[[Q:.+]] = arith.cmpf olt, %[[Z]], %[[Y]] : f32
// FUSED-NEXT: %[[MIN:.+]] = arith.select %[[Q]], %[[Z]], %[[Y]] : f32
// FUSED-NEXT: %[[SL:.+]] = arith.constant 1.000000e-01 : f64
// FUSED-NEXT: %[[T:.+]] = arith.truncf %[[SL]] : f64 to f32
// FUSED-NEXT: %[[N:.+]] = arith.mulf %[[MIN]], %[[T]] : f32
// FUSED-NEXT: %[[S:.+]] = arith.addf %[[MAX]], %[[N]] : f32
// FUSED-NEXT: fuser.yield %[[S]] : f32
// FUSED-NEXT: }
// FUSED-NEXT: return %[[R]]

// KERNEL-LABEL: func.func @main(%{{.+}}: memref<1024x8192xf32>, %{{.+}}: memref<8192x8192xf32>, %{{.+}}: memref<8192xf32>) -> memref<1024x8192xf32>
// KERNEL: gpu.launch_func @fuser_kernels::@main_matmul
// KERNEL: gpu.func @main_matmul

// The slope is an immediate: 0.1f = 0x3DCCCCCD.
// PTX: .entry main_matmul(
// PTX: mul.rn.f32 {{.+}}, 0f3DCCCCCD;

// MANIFEST: "kernel": "main_matmul"

// Dynamic batch (torch.export.Dim): the same one kernel.
// RUN: fuser-opt %S/Inputs/torch_w2_dynamic.mlir --fuser-fusion-pipeline="report=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DYN-REMARK --implicit-check-not=remark:
// RUN: fuser-opt %S/Inputs/torch_w2_dynamic.mlir --fuser-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=DYN-FUSED --implicit-check-not=fuser.matmul \
// RUN:       --implicit-check-not=linalg. --implicit-check-not=fuser.pointwise --implicit-check-not='dense<'
// RUN: fuser-opt %S/Inputs/torch_w2_dynamic.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=DYN-KERNEL --implicit-check-not=gpu.launch_func \
// RUN:       --implicit-check-not=memref.global --implicit-check-not=gpu.func
// RUN: fuser-opt %S/Inputs/torch_w2_dynamic.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST --implicit-check-not='"kernel"'
// DYN-REMARK: torch_w2_dynamic.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 6 epilogue op(s)
// DYN-REMARK: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K
// DYN-FUSED-LABEL: func.func @main
// DYN-FUSED-SAME: (%[[X:.+]]: tensor<?x8192xf32>, %[[W:.+]]: tensor<8192x8192xf32>, %[[B:.+]]: tensor<8192xf32>) -> tensor<?x8192xf32>
// DYN-FUSED: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<8192xf32>)
// DYN-FUSED: arith.select
// DYN-FUSED: arith.select
// DYN-FUSED: fuser.yield
// DYN-FUSED: return %[[R]]
// DYN-KERNEL-LABEL: func.func @main(%{{.+}}: memref<?x8192xf32>, %{{.+}}: memref<8192x8192xf32>, %{{.+}}: memref<8192xf32>) -> memref<?x8192xf32>
// DYN-KERNEL: gpu.launch_func @fuser_kernels::@main_matmul
// DYN-KERNEL: gpu.func @main_matmul

// nn.Linear(32, 64) then leaky_relu(0.2), dynamic batch: one kernel too.
// RUN: fuser-opt %S/Inputs/torch_linear_leaky_relu.mlir --fuser-fusion-pipeline="report=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LIN-REMARK --implicit-check-not=remark:
// RUN: fuser-opt %S/Inputs/torch_linear_leaky_relu.mlir --fuser-fusion-pipeline \
// RUN:   | FileCheck %s --check-prefix=LIN-FUSED --implicit-check-not=fuser.matmul \
// RUN:       --implicit-check-not=linalg. --implicit-check-not=fuser.pointwise
// RUN: fuser-opt %S/Inputs/torch_linear_leaky_relu.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=LIN-KERNEL --implicit-check-not=gpu.launch_func --implicit-check-not=gpu.func
// LIN-REMARK: torch_linear_leaky_relu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 5 epilogue op(s)
// LIN-REMARK: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K
// LIN-FUSED: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}} : tensor<64xf32>)
// LIN-KERNEL: gpu.launch_func @fuser_kernels::@main_matmul
// LIN-KERNEL: gpu.func @main_matmul
