// RUN: fuser-opt %s -split-input-file --fuser-fuse-gather-producers="report=true" -verify-diagnostics | FileCheck %s

// nll_loss's pick of each row's target, as torch-mlir lowers it: the index
// is the target, or 0 where it is ignore_index (7), computed by a compare
// and a select (rebuilt as 8 x 1 by fuser-fold-unit-expands). Both fold
// into the gather, which reads the targets.
// CHECK-LABEL: func.func @pick_target
// CHECK-SAME: (%[[X:.+]]: tensor<8x10xf32>, %[[T:.+]]: tensor<8xi64>)
// CHECK-NOT: linalg.generic
// CHECK: linalg.generic {{.+}} ins(%[[T]] : tensor<8xi64>)
// CHECK: arith.cmpi ne
// CHECK: arith.select
// CHECK: tensor.extract %[[X]]
// CHECK-NOT: linalg.generic
func.func @pick_target(%x: tensor<8x10xf32>, %t: tensor<8xi64>) -> tensor<8x1xf32> {
  %c7 = arith.constant 7 : i64
  %c0 = arith.constant 0 : i64
  %eb = tensor.empty() : tensor<8xi1>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%t : tensor<8xi64>) outs(%eb : tensor<8xi1>) {
  ^bb0(%a: i64, %o: i1):
    %s = arith.cmpi ne, %a, %c7 : i64
    linalg.yield %s : i1
  } -> tensor<8xi1>
  %ei = tensor.empty() : tensor<8x1xi64>
  %idx = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%mask, %t : tensor<8xi1>, tensor<8xi64>) outs(%ei : tensor<8x1xi64>) {
  ^bb0(%m: i1, %a: i64, %o: i64):
    %s = arith.select %m, %a, %c0 : i64
    linalg.yield %s : i64
  } -> tensor<8x1xi64>
  %ef = tensor.empty() : tensor<8x1xf32>
  // expected-remark @+1 {{fused 2 elementwise producer(s) of its indices into this gather}}
  %pick = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<8x1xi64>) outs(%ef : tensor<8x1xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%r, %c] : tensor<8x10xf32>
    linalg.yield %v : f32
  } -> tensor<8x1xf32>
  return %pick : tensor<8x1xf32>
}

// -----

// Kept: an index producer with another reader (it is computed once, for
// both), and an elementwise generic with no extract (fuser-fuse-pointwise's).
// CHECK-LABEL: func.func @kept
// CHECK: %[[IDX:.+]] = linalg.generic
// CHECK: linalg.generic {{.+}} ins(%[[IDX]] : tensor<8xi64>)
// CHECK: tensor.extract
// CHECK: linalg.generic {{.+}} ins(%[[IDX]] : tensor<8xi64>)
func.func @kept(%x: tensor<8x10xf32>, %t: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c1 = arith.constant 1 : i64
  %ei = tensor.empty() : tensor<8xi64>
  %idx = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%t : tensor<8xi64>) outs(%ei : tensor<8xi64>) {
  ^bb0(%a: i64, %o: i64):
    %s = arith.addi %a, %c1 : i64
    linalg.yield %s : i64
  } -> tensor<8xi64>
  %ef = tensor.empty() : tensor<8xf32>
  %pick = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%idx : tensor<8xi64>) outs(%ef : tensor<8xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%r, %c] : tensor<8x10xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%idx : tensor<8xi64>) outs(%ef : tensor<8xf32>) {
  ^bb0(%i: i64, %o: f32):
    %v = arith.sitofp %i : i64 to f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %pick, %wide : tensor<8xf32>, tensor<8xf32>
}

// -----

// Kept: an embedding's lookup reads each token's index for all 16 of its
// row's elements (through (d0, d1) -> (d0)): fused, the producer would run
// once per element gathered.
// CHECK-LABEL: func.func @broadcast_index
// CHECK: %[[IDX:.+]] = linalg.generic
// CHECK: linalg.generic {{.+}} ins(%[[IDX]] : tensor<8xi64>)
// CHECK: tensor.extract
func.func @broadcast_index(%table: tensor<100x16xf32>, %t: tensor<8xi64>) -> tensor<8x16xf32> {
  %c1 = arith.constant 1 : i64
  %ei = tensor.empty() : tensor<8xi64>
  %idx = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%t : tensor<8xi64>) outs(%ei : tensor<8xi64>) {
  ^bb0(%a: i64, %o: i64):
    %s = arith.addi %a, %c1 : i64
    linalg.yield %s : i64
  } -> tensor<8xi64>
  %ef = tensor.empty() : tensor<8x16xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<8xi64>) outs(%ef : tensor<8x16xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = arith.index_cast %i : i64 to index
    %c = linalg.index 1 : index
    %v = tensor.extract %table[%r, %c] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %rows : tensor<8x16xf32>
}
