// RUN: fuser-opt %s -split-input-file --fuser-verify-entry-points -verify-diagnostics | FileCheck %s

// Dense ranked tensors of every manifest dtype, static, dynamic or 0-d, pass
// unchanged; private helpers may take anything.
// CHECK-LABEL: func.func @all_dtypes
// CHECK-LABEL: func.func private @helper
func.func @all_dtypes(%a: tensor<?x4xf32>, %b: tensor<2xf16>, %c: tensor<bf16>,
                      %d: tensor<?xf64>, %e: tensor<?xi1>, %f: tensor<?xi8>,
                      %g: tensor<?xi32>, %h: tensor<?xi64>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
func.func private @helper(%n: index, %m: memref<?xf32>) -> index {
  return %n : index
}

// -----

// expected-error @+1 {{nothing to compile: the module has no public function with a body (entry functions are public func.func ops on tensors)}}
module {
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
  func.func private @declared(%x: tensor<4xf32>) -> tensor<4xf32>
}

// -----

// expected-error @+1 {{entry function argument #0 has type 'tensor<*xf32>'; fuser entry functions take dense ranked tensors of f32, f16, bf16, f64, i1, i8, i32 or i64}}
func.func @unranked(%x: tensor<*xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// Every bad argument and result is reported, not just the first.
// expected-error @+3 {{entry function argument #0 has type 'memref<?xf32>'}}
// expected-error @+2 {{entry function argument #1 has type 'index'}}
// expected-error @+1 {{entry function result #0 has type 'f32'}}
func.func @scalars(%m: memref<?xf32>, %n: index, %x: tensor<4xf32>) -> f32 {
  %n2 = arith.addi %n, %n : index
  %c = arith.constant 0.0 : f32
  return %c : f32
}

// -----

// expected-error @+1 {{entry function argument #0 has type 'tensor<4xui8>'}}
func.func @unsigned(%x: tensor<4xui8>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{entry function result #0 has type 'tensor<4xcomplex<f32>>'}}
func.func @complex(%x: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  %e = tensor.empty() : tensor<4xcomplex<f32>>
  return %e : tensor<4xcomplex<f32>>
}

// -----

// expected-error @+1 {{entry function argument #0 has type 'tensor<4xf32, "sparse">'}}
func.func @encoded(%x: tensor<4xf32, "sparse">) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// A scalar argument nothing reads (torch.export leaves a Python float it
// specialised into the body as an unused f64 argument) is dropped, with a
// remark: the compiled function takes its tensors only.
// CHECK-LABEL: func.func @unused_scalars
// CHECK-SAME: (%{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xf32>) -> tensor<4xf32>
// expected-remark @+2 {{entry function argument #1 ('f64') is never read and is dropped: the compiled function takes its tensor arguments only}}
// expected-remark @+1 {{entry function argument #3 ('i64') is never read and is dropped}}
func.func @unused_scalars(%x: tensor<4xf32>, %s: f64, %y: tensor<4xf32>, %k: i64) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A scalar argument that is read stays an error; so does an unused one of
// a function something in the module calls (its call sites would change).
// expected-error @+1 {{entry function argument #1 has type 'f64'}}
func.func @used_scalar(%x: tensor<4xf32>, %s: f64) -> tensor<4xf32> {
  %t = arith.truncf %s : f64 to f32
  return %x : tensor<4xf32>
}
// expected-error @+1 {{entry function argument #1 has type 'f64'}}
func.func @called(%x: tensor<4xf32>, %s: f64) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @caller(%x: tensor<4xf32>, %s: f64) -> tensor<4xf32> {
  %r = func.call @called(%x, %s) : (tensor<4xf32>, f64) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
