// RUN: fuser-opt %s --fuser-guard-asserts | FileCheck %s

// F.embedding as torch-mlir lowers it: the index checks in the body go
// into the else branch of an scf.if on their condition; the rest of the
// body is unchanged.
// CHECK-LABEL: func.func @embedding
// CHECK: linalg.generic
// CHECK: %[[LT:.+]] = arith.cmpi slt
// CHECK-NEXT: scf.if %[[LT]] {
// CHECK-NEXT: } else {
// CHECK-NEXT: cf.assert %[[LT]], "index must be smaller than dim size"
// CHECK-NEXT: }
// CHECK: %[[GE:.+]] = arith.cmpi sge
// CHECK-NEXT: scf.if %[[GE]] {
// CHECK-NEXT: } else {
// CHECK-NEXT: cf.assert %[[GE]], "index must be larger or equal to 0"
// CHECK: tensor.extract
func.func @embedding(%tokens: tensor<32xi64>, %table: tensor<100x64xf32>) -> tensor<32x64xf32> {
  %c100 = arith.constant 100 : index
  %c0_i64 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%tokens : tensor<32xi64>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%t: i64, %out: f32):
    %i = arith.index_cast %t : i64 to index
    %j = linalg.index 1 : index
    %lt = arith.cmpi slt, %i, %c100 : index
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %t, %c0_i64 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    %v = tensor.extract %table[%i, %j] : tensor<100x64xf32>
    linalg.yield %v : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// An assert outside linalg bodies stays as it is.
// CHECK-LABEL: func.func @host_assert
// CHECK-NOT: scf.if
// CHECK: cf.assert
func.func @host_assert(%ok: i1) {
  cf.assert %ok, "on the host"
  return
}
