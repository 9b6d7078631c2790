// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest | FileCheck %s

// The manifest of a dynamic broadcast: arguments, the output buffer, the
// runtime check of the broadcast size, and the launch with its grid as an
// expression of the argument sizes.
// CHECK: "chip": "sm_90a"
// CHECK: "format": "fuser-manifest"
// CHECK: "args": [
// CHECK:   "align": 16
// CHECK:   "dtype": "f32"
// CHECK:   "name": "arg0"
// CHECK:   "shape": [
// CHECK-NEXT: "?",
// CHECK-NEXT: "?"
// CHECK:   "name": "arg1"
// CHECK: "buffers": [
// CHECK:   "arg": 0,
// CHECK:   "kind": "arg"
// CHECK:   "align": 16,
// CHECK-NEXT: "dtype": "f32",
// CHECK-NEXT: "id": 2,
// CHECK-NEXT: "kind": "alloc",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: "dim(0,0)",
// CHECK-NEXT: "dim(0,1)"
// CHECK: "checks": [
// CHECK:   "lhs": "dim(1,0)",
// CHECK-NEXT: "message": "fuser.pointwise: input #1 dimension 0 must equal result dimension 1",
// CHECK-NEXT: "rhs": "dim(0,1)"
// CHECK: "launches": [
// CHECK:   "kind": "ptr"
// CHECK:   "kind": "i64",
// CHECK-NEXT: "value": "mul(dim(0,0),dim(0,1))"
// CHECK:   "block": [
// CHECK-NEXT: 256,
// CHECK:   "grid": [
// CHECK-NEXT: "min(ceildiv(ceildiv(mul(dim(0,0),dim(0,1)),4),256),1048576)",
// CHECK:   "kernel": "bias_pointwise",
// CHECK:   "shared_bytes": 0
// CHECK: "name": "bias",
// CHECK: "results": [
// CHECK-NEXT: {
// CHECK-NEXT: "buffer": 2
// CHECK: "version": 2
func.func @bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %c) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
