// RUN: fuser-opt %s -fuser-sink-into-extracts -split-input-file | FileCheck %s

// cross_entropy's pick of each row's target from log_softmax = (x - max) -
// log(sum): the gather extracts x, the maximum and the log of the sum at
// the row (constant 0 on the keepdim dimensions) and computes its element;
// the full log_softmax and log(sum), no longer read, are gone.
// CHECK-LABEL: func.func @pick_targets
// CHECK-SAME:    (%[[X:.+]]: tensor<8x10xf32>, %[[M:.+]]: tensor<8x1xf32>, %[[S:.+]]: tensor<8x1xf32>, %[[T:.+]]: tensor<8xindex>)
// CHECK-NOT:     linalg.generic
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<8xindex>)
// CHECK:           %[[I:.+]] = linalg.index 0 : index
// CHECK-DAG:       %[[XV:.+]] = tensor.extract %[[X]][%[[I]], %{{.+}}] : tensor<8x10xf32>
// CHECK-DAG:       %[[MV:.+]] = tensor.extract %[[M]][%[[I]], %c0{{.*}}] : tensor<8x1xf32>
// CHECK-DAG:       %[[SV:.+]] = tensor.extract %[[S]][%[[I]], %c0{{.*}}] : tensor<8x1xf32>
// CHECK-DAG:       %[[D:.+]] = arith.subf %[[XV]], %[[MV]] : f32
// CHECK-DAG:       %[[L:.+]] = math.log %[[SV]] : f32
// CHECK:           %[[R:.+]] = arith.subf %[[D]], %[[L]] : f32
// CHECK:           linalg.yield %[[R]] : f32
// CHECK-NOT:     linalg.generic
func.func @pick_targets(%x: tensor<8x10xf32>, %m: tensor<8x1xf32>, %s: tensor<8x1xf32>, %t: tensor<8xindex>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x10xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                             iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<8x10xf32>, tensor<8x1xf32>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x10xf32>
  %e1 = tensor.empty() : tensor<8x1xf32>
  %log = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x1xf32>) outs(%e1 : tensor<8x1xf32>) {
  ^bb0(%a: f32, %out: f32):
    %l = math.log %a : f32
    linalg.yield %l : f32
  } -> tensor<8x1xf32>
  %logp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %log : tensor<8x10xf32>, tensor<8x1xf32>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x10xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %picked = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
      ins(%t : tensor<8xindex>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%j: index, %out: f32):
    %i = linalg.index 0 : index
    %v = tensor.extract %logp[%i, %j] : tensor<8x10xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %picked : tensor<8xf32>
}

// -----

// Left alone: a gather of more elements than the producer computes (a
// lookup of 64 rows into a table of 4), an extract outside any generic, a
// producer that reduces, and one whose body reads its output.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: tensor.extract %{{.+}}[%{{.+}}] : tensor<4xf32>
// CHECK-NOT:     tensor.extract
// CHECK:         tensor.extract %{{.+}}[%{{.+}}] : tensor<1xf32>
func.func @left_alone(%table: tensor<4xf32>, %ids: tensor<64xindex>, %k: index, %x: tensor<4x3xf32>) -> (tensor<64xf32>, f32, f32, f32) {
  %e = tensor.empty() : tensor<4xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
      ins(%table : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %d = arith.mulf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%ids : tensor<64xindex>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%j: index, %out: f32):
    %v = tensor.extract %scaled[%j] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %top = tensor.extract %scaled[%k] : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x3xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %acc = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%table : tensor<4xf32>) outs(%table : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.addf %a, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %picks = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                           iterator_types = ["parallel"]}
      outs(%e1 : tensor<1xf32>) {
  ^bb0(%out: f32):
    %a = tensor.extract %sum[%k] : tensor<4xf32>
    %b = tensor.extract %acc[%k] : tensor<4xf32>
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<1xf32>
  %c0 = arith.constant 0 : index
  %p = tensor.extract %picks[%c0] : tensor<1xf32>
  return %rows, %top, %p, %p : tensor<64xf32>, f32, f32, f32
}

// -----

// A chain of producers that each read their input twice (x * x): the
// inputs' extracts at the same indices are shared, one per level, not
// doubled at every level.
// CHECK-LABEL: func.func @squares
// CHECK:         linalg.generic
// CHECK-COUNT-1:   tensor.extract %arg0
// CHECK-NOT:       tensor.extract
// CHECK-COUNT-3:   arith.mulf
func.func @squares(%x: tensor<1024xf32>, %t: tensor<8xindex>) -> tensor<8xf32> {
  %t1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%x, %x : tensor<1024xf32>, tensor<1024xf32>) outs(%x : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %t2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%t1, %t1 : tensor<1024xf32>, tensor<1024xf32>) outs(%x : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %t3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%t2, %t2 : tensor<1024xf32>, tensor<1024xf32>) outs(%x : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<8xindex>) outs(%e : tensor<8xf32>) {
  ^bb0(%i: index, %o: f32):
    %v = tensor.extract %t3[%i] : tensor<1024xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}
