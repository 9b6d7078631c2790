// fuser.group_norm_grad through the kernel pipeline: configured by
// fuser-configure-kernels (W3's groups of 16 share 256-thread blocks, two
// threads each; a group of 1024 gets 128 threads) and lowered to exactly
// one kernel launch per op, with three outputs.
// RUN: fuser-opt %S/Inputs/group_norm_grad.mlir --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --implicit-check-not=gpu.launch_func

// CHECK-LABEL: func.func @w3_grad
// CHECK-COUNT-3: memref.alloc
// CHECK: gpu.launch_func @fuser_kernels::@w3_grad_group_norm_grad blocks in ({{.+}}) threads in (%c256,
// CHECK: return
// CHECK-LABEL: func.func @wide_grad
// CHECK-COUNT-3: memref.alloc
// CHECK: gpu.launch_func @fuser_kernels::@wide_grad_group_norm_grad blocks in ({{.+}}) threads in (%c128,
// CHECK: return
// CHECK: gpu.func @w3_grad_group_norm_grad
// CHECK: gpu.func @wide_grad_group_norm_grad({{.+}}) workgroup({{.+}} : memref<12xf32, #gpu.address_space<workgroup>>, {{.+}} : memref<8xf32, #gpu.address_space<workgroup>>)
