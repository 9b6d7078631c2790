// RUN: fuser-opt %s -fuser-fold-broadcast-extracts -split-input-file | FileCheck %s

// torch-mlir's expand_as of row norms over a dynamic batch (F.normalize):
// the size compared with 1 is the output's own size along loop 0, so the
// select is loop 0's index, and the extract an input read through
// (d0, d1) -> (d0, 0).
// CHECK-DAG: #[[$BCAST:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @expand_rows
// CHECK-SAME:    (%[[X:.+]]: tensor<?x64xf32>, %[[S:.+]]: tensor<?x1xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$BCAST]], #[[$ID]]]
// CHECK-SAME:      ins(%[[S]] : tensor<?x1xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @expand_rows(%x: tensor<?x64xf32>, %s: tensor<?x1xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %one = arith.cmpi eq, %n, %c1 : index
    %r = arith.select %one, %c0, %i : index
    %v = tensor.extract %s[%r, %c0] : tensor<?x1xf32>
    linalg.yield %v : f32
  } -> tensor<?x64xf32>
  return %b : tensor<?x64xf32>
}

// -----

// The size is a tensor.dim of an input along the dimension loop 1 indexes;
// the new input goes after the existing one and the body's other ops stay.
// CHECK-LABEL: func.func @dim_of_input
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xf32>, %[[S:.+]]: tensor<?xf32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[COL:.+]], #{{.+}}]
// CHECK-SAME:      ins(%[[X]], %[[S]] : tensor<4x?xf32>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[D]] : f32
func.func @dim_of_input(%x: tensor<4x?xf32>, %s: tensor<?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xf32>
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x?xf32>) outs(%e : tensor<4x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %one = arith.cmpi eq, %c1, %n : index
    %r = arith.select %one, %c0, %j : index
    %v = tensor.extract %s[%r] : tensor<?xf32>
    %d = arith.subf %in, %v : f32
    linalg.yield %d : f32
  } -> tensor<4x?xf32>
  return %b : tensor<4x?xf32>
}

// -----

// A size that is not the loop's own (another tensor's) could be 1 while the
// loop runs longer: the select stays, and so does the extract. So does an
// extract at a computed index.
// CHECK-LABEL: func.func @left_alone
// CHECK:         arith.select
// CHECK-COUNT-2: tensor.extract
// CHECK-NOT:     tensor.extract
func.func @left_alone(%x: tensor<?x8xf32>, %s: tensor<?x1xf32>, %m: index) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %one = arith.cmpi eq, %m, %c1 : index
    %r = arith.select %one, %c0, %i : index
    %v = tensor.extract %s[%r, %c0] : tensor<?x1xf32>
    %k = arith.addi %i, %c1 : index
    %w = tensor.extract %s[%k, %c0] : tensor<?x1xf32>
    %a = arith.addf %v, %w : f32
    linalg.yield %a : f32
  } -> tensor<?x8xf32>
  return %b : tensor<?x8xf32>
}

// -----

// Constant indices read through constant map results; a static size equal
// to the loop's extent also proves the select.
// CHECK-DAG: #[[$CONST:.+]] = affine_map<(d0, d1) -> (2, d1)>
// CHECK-LABEL: func.func @static_extent
// CHECK:         linalg.generic {indexing_maps = [#[[$CONST]], #{{.+}}]
// CHECK-NOT:     tensor.extract
func.func @static_extent(%s: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %e = tensor.empty() : tensor<4x5xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) {
  ^bb0(%out: f32):
    %j = linalg.index 1 : index
    %one = arith.cmpi eq, %c5, %c1 : index
    %r = arith.select %one, %c0, %j : index
    %v = tensor.extract %s[%c2, %r] : tensor<3x5xf32>
    linalg.yield %v : f32
  } -> tensor<4x5xf32>
  return %b : tensor<4x5xf32>
}
