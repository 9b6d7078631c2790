// RUN: fuser-opt %s -split-input-file --fuser-parallel-generics-to-gpu | FileCheck %s

// A concatenation's gather (fuser-slices-to-gathers' form) over rows of 8:
// 4 consecutive elements per thread, every load before the stores, the
// linalg.index of each element its own column. The loads under the scf.if
// stay scalar; the 4 results are stored as one 16-byte vector through a
// pointer made on the host (rows of 8 floats keep each group aligned).
// CHECK-LABEL: func.func @concat
// CHECK: %[[ROWS:.+]] = memref.dim %[[OUT:.+]], %{{.+}} : memref<5x8xf32>
// CHECK: %[[COLS:.+]] = memref.dim %[[OUT]], %{{.+}} : memref<5x8xf32>
// CHECK: %[[INTPTR:.+]] = memref.extract_aligned_pointer_as_index %[[OUT]] : memref<5x8xf32> -> index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK: scf.for %[[G:.+]] =
// CHECK: %[[E:.+]] = arith.muli %[[G]], %{{.+}} : index
// CHECK: %[[COL:.+]] = arith.remui %[[E]], %[[COLS]] : index
// CHECK: %[[ROW:.+]] = arith.divui %[[E]], %[[COLS]] : index
// CHECK: arith.cmpi ult, %[[COL]]
// CHECK: %[[V0:.+]] = scf.if
// CHECK: %[[COL1:.+]] = arith.addi %[[COL]], %{{.+}} : index
// CHECK-NEXT: arith.cmpi ult, %[[COL1]]
// CHECK: %[[V1:.+]] = scf.if
// CHECK: memref.load %{{.+}}[%[[ROW]], %[[COL1]]] : memref<5x3xf32>
// CHECK-COUNT-2: %[[V:.+]] = scf.if
// CHECK-NOT: memref.store
// CHECK: %[[VEC:.+]] = vector.from_elements %[[V0]], %[[V1]], %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK: %[[AT:.+]] = llvm.getelementptr inbounds %{{.+}}[%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.store %[[VEC]], %[[AT]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: memref.store
// CHECK-NOT: linalg.generic
func.func @concat(%a: memref<5x3xf32>, %b: memref<5x5xf32>, %out: memref<5x8xf32>) {
  %c3 = arith.constant 3 : index
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<5x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %lt = arith.cmpi ult, %j, %c3 : index
    %v = scf.if %lt -> f32 {
      %x = memref.load %a[%i, %j] : memref<5x3xf32>
      scf.yield %x : f32
    } else {
      %k = arith.subi %j, %c3 : index
      %y = memref.load %b[%i, %k] : memref<5x5xf32>
      scf.yield %y : f32
    }
    linalg.yield %v : f32
  }
  return
}

// -----

// Rows of 6 (not a multiple of 4) and a dynamic row count: one element per
// thread, the inputs loaded through their maps (a broadcast row read at its
// column only).
// CHECK-LABEL: func.func @odd_rows
// CHECK: gpu.launch
// CHECK: scf.for %[[G:.+]] =
// CHECK: %[[COL:.+]] = arith.remui %[[G]], %{{.+}} : index
// CHECK: %[[ROW:.+]] = arith.divui %[[G]], %{{.+}} : index
// CHECK: memref.load %{{.+}}[%[[ROW]], %[[COL]]] : memref<?x6xf32>
// CHECK: memref.load %{{.+}}[%[[COL]]] : memref<6xf32>
// CHECK: arith.addf
// CHECK-NEXT: memref.store %{{.+}}, %{{.+}}[%[[ROW]], %[[COL]]] : memref<?x6xf32>
// CHECK-NOT: memref.store
func.func @odd_rows(%x: memref<?x6xf32>, %bias: memref<6xf32>, %out: memref<?x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : memref<?x6xf32>, memref<6xf32>) outs(%out : memref<?x6xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transposed input, a unit dimension read at 0, a rank-0 scalar, two
// outputs, and linalg.index read inside a nested region: each input loaded
// at its map's coordinates (none along the column in its last dimension:
// scalar loads), the index replaced by the element's column; each output
// stored as one vector.
// CHECK-LABEL: func.func @maps
// CHECK: scf.for %[[G:.+]] =
// CHECK: %[[E:.+]] = arith.muli %[[G]], %{{.+}} : index
// CHECK: %[[COL:.+]] = arith.remui %[[E]], %{{.+}} : index
// CHECK: %[[ROW:.+]] = arith.divui %[[E]], %{{.+}} : index
// CHECK: memref.load %{{.+}}[%[[COL]], %[[ROW]]] : memref<8x4xf32>
// CHECK: memref.load %{{.+}}[%[[ROW]], %[[C0:.+]]] : memref<4x1xf32>
// CHECK: memref.load %{{.+}}[] : memref<f32>
// CHECK: scf.if
// CHECK: arith.index_cast %[[COL]] : index to i32
// CHECK-NOT: linalg.index
// CHECK-COUNT-2: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: memref.store
func.func @maps(%t: memref<8x4xf32>, %u: memref<4x1xf32>, %s: memref<f32>, %flag: i1,
                %o1: memref<4x8xf32>, %o2: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, 0)>,
                                   affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t, %u, %s : memref<8x4xf32>, memref<4x1xf32>, memref<f32>) outs(%o1, %o2 : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %x: f32, %y: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %p, %c : f32
    %j = linalg.index 1 : index
    %r = scf.if %flag -> f32 {
      %ji = arith.index_cast %j : index to i32
      %jf = arith.sitofp %ji : i32 to f32
      scf.yield %jf : f32
    } else {
      scf.yield %q : f32
    }
    linalg.yield %q, %r : f32, f32
  }
  return
}

// -----

// Left to the fallback: a reduction, and an output that the body reads.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.launch
// CHECK-COUNT-2: linalg.generic
func.func @left_alone(%x: memref<8x16xf32>, %sums: memref<8xf32>, %acc: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%sums : memref<8xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %v, %s : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%acc : memref<8x16xf32>) {
  ^bb0(%v: f32, %a: f32):
    %t = arith.addf %v, %a : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Left to the fallback: an output written transposed, and an input read
// at a stride (no loop or constant).
// CHECK-LABEL: func.func @other_maps
// CHECK-NOT: gpu.launch
// CHECK-COUNT-2: linalg.generic
func.func @other_maps(%x: memref<8x16xf32>, %y: memref<16x8xf32>, %w: memref<8x32xf32>, %z: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<16x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 * 2)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<8x32xf32>) outs(%z : memref<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// An embedding lookup (fuser-guard-asserts' form of its index check): the
// token, its cast and its check do not depend on the column, so the other
// 3 elements reuse element 0's; the table's 4 elements of the token's row
// are one vector load (its last index the column's linalg.index, the
// other the token's), the results one vector store.
// CHECK-LABEL: func.func @lookup
// CHECK: memref.extract_aligned_pointer_as_index %{{.+}} : memref<100x64xf32> -> index
// CHECK: scf.for
// CHECK: %[[COL:.+]] = arith.remui
// CHECK: %[[TOK:.+]] = memref.load %{{.+}}[%{{.+}}] : memref<32xi64>
// CHECK-NOT: memref<32xi64>
// CHECK: %[[I:.+]] = arith.index_cast %[[TOK]]
// CHECK: scf.if
// CHECK: cf.assert
// CHECK-NOT: scf.if
// CHECK: %[[ROWSTART:.+]] = arith.muli %[[I]], %{{.+}} : index
// CHECK: %[[AT:.+]] = arith.addi %[[ROWSTART]], %[[COL]] : index
// CHECK: %[[AT64:.+]] = arith.index_castui %[[AT]] : index to i64
// CHECK: %[[P:.+]] = llvm.getelementptr inbounds %{{.+}}[%[[AT64]]]
// CHECK: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: memref.load
// CHECK-NOT: scf.if
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: memref.store
func.func @lookup(%tokens: memref<32xi64>, %table: memref<100x64xf32>, %out: memref<32x64xf32>) {
  %c100 = arith.constant 100 : index
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%tokens : memref<32xi64>) outs(%out : memref<32x64xf32>) {
  ^bb0(%t: i64, %o: f32):
    %i = arith.index_cast %t : i64 to index
    %j = linalg.index 1 : index
    %lt = arith.cmpi slt, %i, %c100 : index
    scf.if %lt {
    } else {
      cf.assert %lt, "index must be smaller than dim size"
    }
    %v = memref.load %table[%i, %j] : memref<100x64xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// Layouts that do not keep a group aligned: an output view at an offset of
// 2 floats, an input whose rows are 10 floats apart (40 bytes). Groups of
// 4 still, with scalar loads and stores.
// CHECK-LABEL: func.func @unaligned_views
// CHECK: scf.for
// CHECK-COUNT-4: memref.load %{{.+}} : memref<4x8xf32, strided<[10, 1]>>
// CHECK-COUNT-4: memref.store %{{.+}} : memref<4x8xf32, strided<[8, 1], offset: 2>>
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
func.func @unaligned_views(%x: memref<4x8xf32, strided<[10, 1]>>, %out: memref<4x8xf32, strided<[8, 1], offset: 2>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32, strided<[10, 1]>>) outs(%out : memref<4x8xf32, strided<[8, 1], offset: 2>>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }
  return
}
