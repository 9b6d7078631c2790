// RUN: fuser-opt %s -split-input-file --fuser-merge-gpu-modules | FileCheck %s

// Kernels from two gpu.modules land in one; the clashing name is made unique
// and the launches follow.
// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @fuser_kernels::@k blocks
// CHECK: gpu.launch_func @fuser_kernels::@[[K2:k_[0-9]+]] blocks
// CHECK: gpu.module @fuser_kernels
// CHECK-DAG: gpu.func @k()
// CHECK-DAG: gpu.func @[[K2]]()
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @b::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @a {
    gpu.func @k() kernel { gpu.return }
  }
  gpu.module @b {
    gpu.func @k() kernel { gpu.return }
  }
}

// -----

// Float constants passed to a kernel (the generic fallback captures
// torch-mlir's f64 slopes) become immediates in it: the manifest cannot
// describe an f64 kernel argument. A float that differs between launches,
// or is not a constant, stays an argument.
// CHECK-LABEL: func.func @constants
// CHECK: gpu.launch_func @fuser_kernels::@k blocks in ({{.+}}) threads in ({{.+}}) args(%{{.+}} : memref<4xf32>)
// CHECK: gpu.launch_func @fuser_kernels::@k2 blocks in ({{.+}}) threads in ({{.+}}) args(%{{.+}} : f32)
// CHECK: gpu.launch_func @fuser_kernels::@k2 blocks in ({{.+}}) threads in ({{.+}}) args(%{{.+}} : f32)
// CHECK-LABEL: gpu.func @k
// CHECK-SAME: (%[[M:.+]]: memref<4xf32>) kernel
// CHECK-DAG: %[[S:.+]] = arith.constant 1.000000e-01 : f64
// CHECK-DAG: %[[H:.+]] = arith.constant 2.500000e-01 : f16
// CHECK: arith.truncf %[[S]] : f64 to f32
// CHECK: arith.extf %[[H]] : f16 to f32
// CHECK-LABEL: gpu.func @k2
// CHECK-SAME: (%{{.+}}: f32) kernel
module attributes {gpu.container_module} {
  func.func @constants(%m: memref<4xf32>, %x: f32) {
    %c1 = arith.constant 1 : index
    %s = arith.constant 0.1 : f64
    %h = arith.constant 0.25 : f16
    %a = arith.constant 1.0 : f32
    gpu.launch_func @a::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>, %s : f64, %h : f16)
    gpu.launch_func @a::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : f32)
    gpu.launch_func @a::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)
    return
  }
  gpu.module @a {
    gpu.func @k(%m: memref<4xf32>, %s: f64, %h: f16) kernel {
      %c0 = arith.constant 0 : index
      %t = arith.truncf %s : f64 to f32
      %e = arith.extf %h : f16 to f32
      %v = arith.addf %t, %e : f32
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @k2(%x: f32) kernel { gpu.return }
  }
}
