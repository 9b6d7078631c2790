// RUN: fuser-opt %s -fuser-fold-broadcast-extracts -split-input-file | FileCheck %s

// torch-mlir's expand_as of row norms over a dynamic batch (F.normalize):
// the size compared with 1 is the output's own size along loop 0, so the
// select is loop 0's index, and the extract an input read through
// (d0, d1) -> (d0, 0).
// CHECK-DAG: #[[$BCAST:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// The norms' tensor is sized from the same dimension (a fill of a
// tensor.empty of it), so it has the loop's extent.
// CHECK-LABEL: func.func @expand_rows
// CHECK:         %[[S:.+]] = linalg.fill
// CHECK:         linalg.generic {indexing_maps = [#[[$BCAST]], #[[$ID]]]
// CHECK-SAME:      ins(%[[S]] : tensor<?x1xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @expand_rows(%x: tensor<?x64xf32>, %norm: f32) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %es = tensor.empty(%n) : tensor<?x1xf32>
  %s = linalg.fill ins(%norm : f32) outs(%es : tensor<?x1xf32>) -> tensor<?x1xf32>
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
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xf32>, %{{.+}}: f32)
// CHECK:         %[[S:.+]] = linalg.fill
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[COL:.+]], #{{.+}}]
// CHECK-SAME:      ins(%[[X]], %[[S]] : tensor<4x?xf32>, tensor<?xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[D]] : f32
func.func @dim_of_input(%x: tensor<4x?xf32>, %fillv: f32) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xf32>
  %es = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.fill ins(%fillv : f32) outs(%es : tensor<?xf32>) -> tensor<?xf32>
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

// -----

// Left alone: a read of a prefix of a larger tensor (as an input it would
// set the loop's extent: 8 instead of 4), and an extract at the index of an
// enclosing generic's loop, which is no loop of the generic it sits in.
// CHECK-LABEL: func.func @prefix_and_nested
// CHECK:         tensor.extract %{{.+}}[%{{.+}}] : tensor<8xf32>
// CHECK:         tensor.extract %{{.+}}[%{{.+}}] : tensor<4xf32>
func.func @prefix_and_nested(%s: tensor<8xf32>, %r: tensor<4xf32>, %t: tensor<8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      outs(%e : tensor<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = tensor.extract %s[%i] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %inner = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
        ins(%t : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %v = tensor.extract %r[%i] : tensor<4xf32>
      %w = arith.addf %a, %v : f32
      linalg.yield %w : f32
    } -> tensor<8xf32>
    %x = tensor.extract %inner[%j] : tensor<8xf32>
    linalg.yield %x : f32
  } -> tensor<4x8xf32>
  return %p, %b : tensor<4xf32>, tensor<4x8xf32>
}
