// RUN: fuser-opt %s --fuser-merge-gpu-modules | FileCheck %s

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
