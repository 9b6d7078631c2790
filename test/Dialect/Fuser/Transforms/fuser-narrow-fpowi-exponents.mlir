// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(fuser-narrow-fpowi-exponents))" -verify-diagnostics | FileCheck %s
// The GPU pipeline runs it before convert-gpu-to-nvvm: torch-mlir's x ** 3
// (GELU's tanh form) then calls __nv_powif with an i32, not 64 bits.
// RUN: fuser-opt %S/../../../Pipelines/Inputs/torch_linear_gelu_tanh.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=PTX
// PTX-NOT: .param .b64 _);

// Constant exponents that fit become i32 constants (scalars and the
// epilogues' vector<2> alike); i32 exponents stay.
// CHECK-LABEL: gpu.func @constants
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[V3:.+]] = arith.constant dense<3> : vector<2xi32>
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i32
// CHECK-DAG: math.fpowi %{{.+}}, %[[C3]] : f32, i32
// CHECK-DAG: math.fpowi %{{.+}}, %[[V3]] : vector<2xf32>, vector<2xi32>
// CHECK-DAG: math.fpowi %{{.+}}, %[[C2]] : f32, i32
gpu.module @k {
  gpu.func @constants(%x: f32, %v: vector<2xf32>) kernel {
    %c3 = arith.constant 3 : i64
    %a = math.fpowi %x, %c3 : f32, i64
    %c3v = arith.constant dense<3> : vector<2xi64>
    %b = math.fpowi %v, %c3v : vector<2xf32>, vector<2xi64>
    %c2 = arith.constant 2 : i32
    %c = math.fpowi %x, %c2 : f32, i32
    gpu.return
  }
}

// -----

// A dynamic (or too wide) f32 exponent saturates to the i32 of its parity.
// CHECK-LABEL: gpu.func @dynamic
// CHECK-SAME: (%[[X:.+]]: f32, %[[N:.+]]: i64)
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[MAXM1:.+]] = arith.constant 2147483646 : i64
// CHECK-DAG: %[[MIN:.+]] = arith.constant -2147483648 : i64
// CHECK-DAG: %[[ODD:.+]] = arith.andi %[[N]], %[[ONE]]
// CHECK-DAG: %[[HI:.+]] = arith.addi %[[MAXM1]], %[[ODD]]
// CHECK-DAG: %[[LO:.+]] = arith.addi %[[MIN]], %[[ODD]]
// CHECK: %[[T:.+]] = arith.trunci %{{.+}} : i64 to i32
// CHECK: math.fpowi %[[X]], %[[T]] : f32, i32
gpu.module @k {
  gpu.func @dynamic(%x: f32, %n: i64) kernel {
    %a = math.fpowi %x, %n : f32, i64
    gpu.return
  }
}

// -----

// Narrower exponents are sign-extended; f16 saturates as f32 does.
// CHECK-LABEL: gpu.func @narrow_and_half
// CHECK: %[[E:.+]] = arith.extsi %{{.+}} : i16 to i32
// CHECK: math.fpowi %{{.+}}, %[[E]] : f32, i32
// CHECK: %[[T:.+]] = arith.trunci %{{.+}} : i64 to i32
// CHECK: math.fpowi %{{.+}}, %[[T]] : f16, i32
gpu.module @k {
  gpu.func @narrow_and_half(%x: f32, %n: i16, %h: f16, %m: i64) kernel {
    %a = math.fpowi %x, %n : f32, i16
    %b = math.fpowi %h, %m : f16, i64
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @f64_dynamic(%x: f64, %n: i64) kernel {
    // expected-error @+1 {{math.fpowi of 'f64' with an exponent that may not fit in 32 bits: libdevice's powi takes an i32}}
    %a = math.fpowi %x, %n : f64, i64
    gpu.return
  }
}
