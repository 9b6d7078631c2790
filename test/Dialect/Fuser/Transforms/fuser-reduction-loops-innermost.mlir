// RUN: fuser-opt %s --fuser-reduction-loops-innermost | FileCheck %s

// torch.max(x, dim=1) of a 3-D tensor, as torch-mlir writes it (values and
// indices): the reduction loop d1 moves innermost, the maps follow, the
// body is untouched.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$K:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @max_over_dim1
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[D2:.+]] = linalg.index 2 : index
// CHECK: affine.apply #[[$K]](%{{.+}}, %{{.+}}, %[[D2]])
// CHECK: arith.cmpf ogt
func.func @max_over_dim1(%x: memref<4x6x5xf32>, %v: memref<4x5xf32>,
                         %i: memref<4x5xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<4x6x5xf32>) outs(%v, %i : memref<4x5xf32>, memref<4x5xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %nv = arith.select %gt, %in, %best : f32
    %ni = arith.select %gt, %ki, %at : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}

// Parallel loops already first: unchanged.
// CHECK-LABEL: func.func @row_sum
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @row_sum(%x: memref<4x6xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x6xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}
