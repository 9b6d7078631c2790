// RUN: fuser-opt %s -fuser-unit-parallel-loop -split-input-file | FileCheck %s

// torch.any of a whole mask on buffers: no parallel loop, so a leading one
// of extent 1 indexes a unit view of the 0-d output; the body's
// linalg.index moves up one loop.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @any_of_all
// CHECK-SAME:    (%[[M:.+]]: memref<8x64xi1>, %[[R:.+]]: memref<i1>)
// CHECK:         %[[V:.+]] = memref.expand_shape %[[R]] [] output_shape [1] : memref<i1> into memref<1xi1>
// CHECK:         linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME:      ins(%[[M]] : memref<8x64xi1>) outs(%[[V]] : memref<1xi1>)
// CHECK:           linalg.index 2 : index
func.func @any_of_all(%m: memref<8x64xi1>, %r: memref<i1>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%m : memref<8x64xi1>) outs(%r : memref<i1>) {
  ^bb0(%a: i1, %acc: i1):
    %j = linalg.index 1 : index
    %o = arith.ori %a, %acc : i1
    linalg.yield %o : i1
  }
  return
}

// -----

// A keepdim output (read through constant 0s): the unit dimension goes
// first, the output's own after it.
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0, d1) -> (d0, 0, 0)>
// CHECK-LABEL: func.func @keepdim_total
// CHECK:         memref.expand_shape %{{.+}} {{\[\[}}0, 1], [2]] output_shape [1, 1, 1] : memref<1x1xf32> into memref<1x1x1xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[$KEEP]]], iterator_types = ["parallel", "reduction"]}
func.func @keepdim_total(%x: memref<100xf32>, %r: memref<1x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0, 0)>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<100xf32>) outs(%r : memref<1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An op with a parallel loop, and one on tensors, are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     memref.expand_shape
// CHECK-NOT:     tensor.expand_shape
func.func @left_alone(%x: memref<4x8xf32>, %r: memref<4xf32>, %t: tensor<8xf32>, %i: tensor<f32>) -> tensor<f32> {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%t : tensor<8xf32>) outs(%i : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A named op without parallel loops (a 1-D dot product into a scalar) runs
// as the generic it stands for, with the unit loop.
// CHECK-LABEL: func.func @dot
// CHECK:         memref.expand_shape %{{.+}} [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-NOT:     linalg.dot
func.func @dot(%a: memref<100xf32>, %b: memref<100xf32>, %r: memref<f32>) {
  linalg.dot ins(%a, %b : memref<100xf32>, memref<100xf32>) outs(%r : memref<f32>)
  return
}
