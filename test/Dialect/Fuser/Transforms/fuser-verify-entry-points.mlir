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
