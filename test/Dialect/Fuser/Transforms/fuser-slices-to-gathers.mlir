// RUN: fuser-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(fuser-slices-to-gathers))" \
// RUN:   | FileCheck %s
// RUN: fuser-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(fuser-slices-to-gathers{report=true}))" \
// RUN:   -o /dev/null

// A chunk: source[i, 8 + j], one element per output element.
// CHECK-LABEL: func.func @chunk
// CHECK-SAME: (%[[X:.+]]: tensor<4x16xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[I:.+]] = linalg.index 0
// CHECK: %[[J:.+]] = linalg.index 1
// CHECK: %[[JJ:.+]] = arith.addi %{{.+}}, %[[J]] : index
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[JJ]]]
// CHECK: linalg.yield %[[V]]
func.func @chunk(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // expected-remark @below {{'tensor.extract_slice' is computed by a gather kernel of the generic fallback}}
  %s = tensor.extract_slice %x[0, 8] [4, 8] [1, 1]
      : tensor<4x16xf32> to tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A rank-reducing slice of dynamic offset: the dropped dimension reads at
// its offset; the result's dynamic size comes from the slice's.
// CHECK-LABEL: func.func @dropped
// CHECK-SAME: (%[[X:.+]]: tensor<3x?x8xf32>, %[[K:.+]]: index, %[[N:.+]]: index)
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: linalg.generic
// CHECK: tensor.extract %[[X]][%[[K]], %{{.+}}, %{{.+}}]
func.func @dropped(%x: tensor<3x?x8xf32>, %k: index, %n: index)
    -> tensor<?x8xf32> {
  // expected-remark @below {{computed by a gather kernel}}
  %s = tensor.extract_slice %x[%k, 0, 0] [1, %n, 8] [1, 1, 1]
      : tensor<3x?x8xf32> to tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}

// -----

// A concatenation reads one input per element: the first where the index
// is below its end, the next otherwise.
// CHECK-LABEL: func.func @cat
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x5xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x13xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<4x13xf32>)
// CHECK: %[[J:.+]] = linalg.index 1
// CHECK: %[[LT:.+]] = arith.cmpi ult, %[[J]], %{{.+}} : index
// CHECK: %[[V:.+]] = scf.if %[[LT]] -> (f32) {
// CHECK: tensor.extract %[[A]]
// CHECK: } else {
// CHECK: %[[JB:.+]] = arith.subi %[[J]], %{{.+}} : index
// CHECK: tensor.extract %[[B]][%{{.+}}, %[[JB]]]
// CHECK: linalg.yield %[[V]]
func.func @cat(%a: tensor<4x8xf32>, %b: tensor<4x5xf32>) -> tensor<4x13xf32> {
  // expected-remark @below {{'tensor.concat' is computed by a gather kernel}}
  %r = tensor.concat dim(1) %a, %b
      : (tensor<4x8xf32>, tensor<4x5xf32>) -> tensor<4x13xf32>
  return %r : tensor<4x13xf32>
}

// -----

// An insertion reads the source on the slice, the destination elsewhere.
// CHECK-LABEL: func.func @insert
// CHECK-SAME: (%[[S:.+]]: tensor<2xf32>, %[[D:.+]]: tensor<4x4xf32>)
// CHECK: linalg.generic
// CHECK: scf.if
// CHECK: tensor.extract %[[S]]
// CHECK: } else {
// CHECK: tensor.extract %[[D]]
func.func @insert(%s: tensor<2xf32>, %d: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-remark @below {{'tensor.insert_slice' is computed by a gather kernel}}
  %r = tensor.insert_slice %s into %d[1, 1] [1, 2] [1, 1]
      : tensor<2xf32> into tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A strided, rank-reducing insertion: row 2 of the destination, every
// other column from 1, takes the source; k = (j - 1) / 2 where the
// remainder is 0.
// CHECK-LABEL: func.func @insert_strided
// CHECK-SAME: (%[[S:.+]]: tensor<3xf32>, %[[D:.+]]: tensor<4x8xf32>)
// CHECK: linalg.generic
// CHECK: %[[J:.+]] = linalg.index 1
// CHECK: %[[REL:.+]] = arith.subi %[[J]], %{{.+}} : index
// CHECK: %[[K:.+]] = arith.divsi %[[REL]], %{{.+}} : index
// CHECK: arith.remsi %[[REL]]
// CHECK: scf.if
// CHECK: tensor.extract %[[S]][%[[K]]] : tensor<3xf32>
// CHECK: } else {
// CHECK: tensor.extract %[[D]]
func.func @insert_strided(%s: tensor<3xf32>, %d: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @below {{computed by a gather kernel}}
  %r = tensor.insert_slice %s into %d[2, 1] [1, 3] [1, 2]
      : tensor<3xf32> into tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A rank-3 slice of dynamic sizes: the loop over the leading dims has
// their product's size, and the expansion their sizes.
// CHECK-LABEL: func.func @dynamic_rank3
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x8xf32>, %[[N:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[P:.+]] = arith.muli %{{.+}}, %[[M]] : index
// CHECK: %[[E:.+]] = tensor.empty(%[[P]]) : tensor<?x4xf32>
// CHECK: %[[G:.+]] = linalg.generic
// CHECK: tensor.expand_shape %[[G]] {{\[}}[0, 1], [2]] output_shape [%[[N]], %[[M]], 4]
func.func @dynamic_rank3(%x: tensor<?x?x8xf32>, %n: index, %m: index)
    -> tensor<?x?x4xf32> {
  // expected-remark @below {{computed by a gather kernel}}
  %s = tensor.extract_slice %x[0, 0, 4] [%n, %m, 4] [1, 1, 1]
      : tensor<?x?x8xf32> to tensor<?x?x4xf32>
  return %s : tensor<?x?x4xf32>
}

// -----

// A pad whose constant is defined in its region: the constant is copied
// before the gather.
// CHECK-LABEL: func.func @pad_inner_constant
// CHECK: %[[P:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: linalg.generic
// CHECK: scf.yield %[[P]] : f32
// CHECK-NOT: tensor.pad
func.func @pad_inner_constant(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  // expected-remark @below {{'tensor.pad' is computed by a gather kernel}}
  %p = tensor.pad %x low[0, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 0.5 : f32
    tensor.yield %c : f32
  } : tensor<4x8xf32> to tensor<4x9xf32>
  return %p : tensor<4x9xf32>
}

// -----

// A constant pad reads the source in bounds, the padding value elsewhere.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK: %[[P:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: scf.if
// CHECK: tensor.extract %[[X]]
// CHECK: } else {
// CHECK: scf.yield %[[P]] : f32
func.func @pad(%x: tensor<4x8xf32>) -> tensor<4x11xf32> {
  %cst = arith.constant 0.0 : f32
  // expected-remark @below {{'tensor.pad' is computed by a gather kernel}}
  %p = tensor.pad %x low[0, 1] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<4x8xf32> to tensor<4x11xf32>
  return %p : tensor<4x11xf32>
}

// -----

// Above rank 2 the gather runs over [leading dims, last dim] (the fallback
// gives each element a thread), delinearizes its first index, and its
// result is expanded: q of an unbound qkv.
// CHECK-LABEL: func.func @unbind
// CHECK-SAME: (%[[X:.+]]: tensor<3x2x4x5x8xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<40x8xf32>
// CHECK: %[[G:.+]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%[[E]] : tensor<40x8xf32>)
// CHECK: %[[L:.+]] = linalg.index 1
// CHECK: %[[O:.+]] = linalg.index 0
// CHECK: arith.remui %[[O]]
// CHECK: arith.divui %[[O]]
// CHECK: tensor.extract %[[X]]
// CHECK: tensor.expand_shape %[[G]] {{\[}}[0, 1, 2], [3]] output_shape [2, 4, 5, 8]
func.func @unbind(%x: tensor<3x2x4x5x8xf32>) -> tensor<2x4x5x8xf32> {
  // expected-remark @below {{computed by a gather kernel}}
  %q = tensor.extract_slice %x[1, 0, 0, 0, 0] [1, 2, 4, 5, 8] [1, 1, 1, 1, 1]
      : tensor<3x2x4x5x8xf32> to tensor<2x4x5x8xf32>
  return %q : tensor<2x4x5x8xf32>
}

// -----

// Left alone: a padding computed from the indices, a view nobody uses, and
// an insertion of dynamic stride (the verifier allows 0 and negative ones).
// CHECK-LABEL: func.func @left
// CHECK: tensor.pad
// CHECK: tensor.extract_slice
// CHECK: tensor.insert_slice
// CHECK-NOT: linalg.generic
func.func @left(%x: tensor<4x8xf32>, %s: tensor<2xf32>, %st: index)
    -> (tensor<5x8xf32>, tensor<4x8xf32>) {
  %p = tensor.pad %x low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    %v = arith.index_cast %j : index to i32
    %f = arith.sitofp %v : i32 to f32
    tensor.yield %f : f32
  } : tensor<4x8xf32> to tensor<5x8xf32>
  %unused = tensor.extract_slice %x[0, 0] [2, 8] [1, 1]
      : tensor<4x8xf32> to tensor<2x8xf32>
  %i = tensor.insert_slice %s into %x[1, 0] [1, 2] [1, %st]
      : tensor<2xf32> into tensor<4x8xf32>
  return %p, %i : tensor<5x8xf32>, tensor<4x8xf32>
}
