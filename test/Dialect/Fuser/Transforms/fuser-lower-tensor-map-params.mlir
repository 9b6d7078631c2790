// RUN: fuser-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(fuser-lower-tensor-map-params))' -verify-diagnostics | FileCheck %s

// The listed parameters become 128-byte, 64-byte aligned by-value grid
// constants (the CUtensorMap itself); the others keep their attributes, and
// the fuser attribute is gone.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.func @k(
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr<1> {llvm.noalias},
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr,
// CHECK-SAME: %{{[^:]+}}: i64,
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {nvvm.kernel} {
// CHECK-NEXT: llvm.return
// A kernel without the attribute is left alone.
// CHECK: llvm.func @plain(%{{[^:]+}}: !llvm.ptr) attributes {nvvm.kernel} {
// CHECK-NOT: fuser.tensor_map_args
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @k(%out: !llvm.ptr<1> {llvm.noalias}, %mapA: !llvm.ptr, %other: !llvm.ptr,
                 %n: i64, %mapB: !llvm.ptr)
        attributes {fuser.tensor_map_args = array<i64: 1, 4>, nvvm.kernel} {
      llvm.return
    }
    llvm.func @plain(%p: !llvm.ptr) attributes {nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// An empty list only drops the attribute.
// CHECK-LABEL: llvm.func @none(
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr) attributes {nvvm.kernel}
// CHECK-NOT: fuser.tensor_map_args
gpu.module @kernels {
  llvm.func @none(%p: !llvm.ptr) attributes {fuser.tensor_map_args = array<i64>, nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{'fuser.tensor_map_args' on a function that is not a kernel}}
  llvm.func @device_fn(%map: !llvm.ptr) attributes {fuser.tensor_map_args = array<i64: 0>} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{'fuser.tensor_map_args' lists #2, which is not an !llvm.ptr parameter}}
  llvm.func @out_of_range(%map: !llvm.ptr, %n: i64) attributes {fuser.tensor_map_args = array<i64: 0, 2>, nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{'fuser.tensor_map_args' lists #-1, which is not an !llvm.ptr parameter}}
  llvm.func @negative(%map: !llvm.ptr) attributes {fuser.tensor_map_args = array<i64: -1>, nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{'fuser.tensor_map_args' lists #1, which is not an !llvm.ptr parameter}}
  llvm.func @not_a_ptr(%map: !llvm.ptr, %n: i64) attributes {fuser.tensor_map_args = array<i64: 1>, nvvm.kernel} {
    llvm.return
  }
}

// -----

// A kernel that is only declared has no body to read the parameters from;
// its signature is enough.
// CHECK-LABEL: llvm.func @declared
// CHECK-SAME: (!llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
gpu.module @declared_kernel {
  llvm.func @declared(!llvm.ptr) attributes {fuser.tensor_map_args = array<i64: 0>, nvvm.kernel}
}
