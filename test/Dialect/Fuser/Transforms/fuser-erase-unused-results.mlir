// RUN: fuser-opt %s -split-input-file --fuser-erase-unused-results | FileCheck %s

// torch.max(x, dim=1).values (softmax's maximum): the index nobody reads
// goes, with its fill, linalg.index and select; a plain max reduction is
// left.
// CHECK-LABEL: func.func @max_without_index
// CHECK-NOT: i64
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK-NOT: linalg.index
func.func @max_without_index(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<4xi64>
  %i = linalg.fill ins(%c0 : i64) outs(%e0 : tensor<4xi64>) -> tensor<4xi64>
  %e1 = tensor.empty() : tensor<4xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %idx = linalg.index 1 : index
    %ii = arith.index_cast %idx : index to i64
    %mx = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %gt, %ii, %out_i : i64
    linalg.yield %mx, %sel : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0 : tensor<4xf32>
}

// -----

// argmax alone: the index reads the running maximum, which stays.
// CHECK-LABEL: func.func @argmax
// CHECK: %{{.*}}:2 = linalg.generic
// CHECK: } -> (tensor<4xf32>, tensor<4xi64>)
func.func @argmax(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xi64> {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %idx = linalg.index 1 : index
    %ii = arith.index_cast %idx : index to i64
    %mx = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %gt, %ii, %out_i : i64
    linalg.yield %mx, %sel : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}

// -----

// Both results read: nothing changes.
// CHECK-LABEL: func.func @both
// CHECK: -> (tensor<4xf32>, tensor<4xi64>)
func.func @both(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%m, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_i: i64):
    %idx = linalg.index 1 : index
    %ii = arith.index_cast %idx : index to i64
    %mx = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %gt, %ii, %out_i : i64
    linalg.yield %mx, %sel : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi64>
}

// -----

// A sum and a sum of squares (mean and variance in one read): the unused
// one goes, the other keeps its own running value.
// CHECK-LABEL: func.func @two_sums
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[SQ]], %[[OUT]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: -> tensor<4xf32>
func.func @two_sums(%x: tensor<4x8xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%a, %b : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %s: f32, %q: f32):
    %s1 = arith.addf %in, %s : f32
    %sq = arith.mulf %in, %in : f32
    %q1 = arith.addf %sq, %q : f32
    linalg.yield %s1, %q1 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#1 : tensor<4xf32>
}

// -----

// A gather as torch-mlir writes a loss's pick of the target's logit: into
// a fill of zeros that the body never reads. It starts from tensor.empty,
// and the fill goes.
// CHECK-LABEL: func.func @unread_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.+]] = tensor.empty() : tensor<8x1xf32>
// CHECK: linalg.generic {{.+}} outs(%[[E]] : tensor<8x1xf32>)
func.func @unread_fill(%x: tensor<8x10xf32>, %t: tensor<8x1xi64>) -> tensor<8x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %pick = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<8x1xi64>) outs(%fill : tensor<8x1xf32>) {
  ^bb0(%i: i64, %o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%r, %c] : tensor<8x10xf32>
    linalg.yield %v : f32
  } -> tensor<8x1xf32>
  return %pick : tensor<8x1xf32>
}

// -----

// A body that reads its output keeps the fill.
// CHECK-LABEL: func.func @read_fill
// CHECK: %[[F:.+]] = linalg.fill
// CHECK: linalg.generic {{.+}} outs(%[[F]] : tensor<8xf32>)
func.func @read_fill(%x: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %fill = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%fill : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A dynamic size: the empty tensor takes it from what the fill filled,
// and the fill goes.
// CHECK-LABEL: func.func @unread_fill_dynamic
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?xf32>
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.+}} outs(%[[E]] : tensor<?xf32>)
func.func @unread_fill_dynamic(%x: tensor<8x10xf32>, %t: tensor<?xi64>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %pick = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%t : tensor<?xi64>) outs(%fill : tensor<?xf32>) {
  ^bb0(%i: i64, %o: f32):
    %c = arith.index_cast %i : i64 to index
    %v = tensor.extract %x[%c0, %c] : tensor<8x10xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %pick : tensor<?xf32>
}

// -----

// Kept: the body writes only column 0 of its 8 x 4 output; the rest keeps
// the fill.
// CHECK-LABEL: func.func @partial_write
// CHECK: %[[F:.+]] = linalg.fill
// CHECK: linalg.generic {{.+}} outs(%[[F]] : tensor<8x4xf32>)
func.func @partial_write(%x: tensor<8xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, 0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%fill : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
