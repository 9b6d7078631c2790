// RUN: fuser-opt %s -split-input-file --fuser-reduction-to-gpu -verify-diagnostics | FileCheck %s

// Row sums, 64 consecutive threads per row (tile = [64, 1]): each thread
// starts at its lane with the identity and steps by 64, four elements per
// iteration (loaded, then each folded into its own accumulator), the four
// accumulators combined pairwise, the rest one at a time; the 64 partials
// halve through shared memory; lane 0 adds the init element and stores.
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>, %[[INIT:.+]]: tensor<?xf32>)
// CHECK: %[[OUT:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[GRID:.+]] = arith.ceildivui %{{.+}}, %c4
// CHECK: gpu.launch_func @fuser_kernels::@row_sum_reduction blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256{{.*}}, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: gpu.func @row_sum_reduction(%[[IN:.+]]: !llvm.ptr<1>, %[[I:.+]]: !llvm.ptr<1>, %[[O:.+]]: !llvm.ptr<1>, %[[E0:.+]]: i64, %[[E1:.+]]: i64) workgroup(%[[SMEM:.+]] : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[LANE:.+]] = arith.remui %[[TID:.+]], %c64_i64
// CHECK: %[[LOCAL:.+]] = arith.divui %[[TID]], %c64_i64
// CHECK: %[[N:.+]] = arith.ceildivui %{{.+}}, %c64_i64
// CHECK: %[[MAINEND:.+]] = arith.addi %[[LANE]], %{{.+}}
// CHECK: %[[STEP4:.+]] = arith.muli %c64_i64, %c4_i64
// CHECK: %[[MAIN:.+]]:4 = scf.for %[[R:.+]] = %[[LANE]] to %[[MAINEND]] step %[[STEP4]] iter_args(%[[A0:.+]] = %cst, %[[A1:.+]] = %cst, %[[A2:.+]] = %cst, %[[A3:.+]] = %cst) -> (f32, f32, f32, f32)
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   %[[S0:.+]] = arith.addf %{{.+}}, %[[A0]]
// CHECK:   %[[S1:.+]] = arith.addf %{{.+}}, %[[A1]]
// CHECK:   %[[S2:.+]] = arith.addf %{{.+}}, %[[A2]]
// CHECK:   %[[S3:.+]] = arith.addf %{{.+}}, %[[A3]]
// CHECK:   scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]]
// CHECK: %[[P01:.+]] = arith.addf %[[MAIN]]#1, %[[MAIN]]#0
// CHECK: %[[P23:.+]] = arith.addf %[[MAIN]]#3, %[[MAIN]]#2
// CHECK: %[[P:.+]] = arith.addf %[[P23]], %[[P01]]
// CHECK: %[[ACC:.+]] = scf.for %{{.+}} = %[[MAINEND]] to %{{.+}} step %c64_i64 iter_args(%{{.+}} = %[[P]]) -> (f32)
// CHECK:   llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   arith.addf
// CHECK: memref.store %[[ACC]], %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[LANE]], %c32_i64
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[LANE]], %c1_i64
// CHECK: scf.if
// CHECK:   llvm.getelementptr inbounds %[[I]]
// CHECK:   llvm.load
// CHECK:   arith.addf
// CHECK:   llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @row_sum(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [64, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// One thread per output (tile = [1, 256]): no shared memory, no barrier. A
// static extent is a constant in the kernel; the max starts at -inf.
// CHECK-LABEL: gpu.func @col_max_reduction
// CHECK-NOT: workgroup
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %cst, %{{.+}} = %cst, %{{.+}} = %cst, %{{.+}} = %cst) -> (f32, f32, f32, f32)
// CHECK-COUNT-7: arith.maximumf
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c1_i64 iter_args
// CHECK:   arith.maximumf
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @col_max(%x: tensor<128x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @bad_tile(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{needs a reduction config with block = [B, 1, 1] and tile = [S, D], [S, D, P], [1, D, 1, U] or [1, D, 1, U, V]: S a power of two dividing B, D 1 or B / S, P at most 1024}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [48, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A 3 x 3, stride-1 pool, 4 outputs per thread down the output rows (tile =
// [1, D, 1, 4]): the 253 rows make 64 groups (the last one starting at row
// 249), all four folded before the first store.
// CHECK-LABEL: func.func @pool_rows
// 2 x 3 x 64 x 255 threads' outputs (64 groups of the 253 rows), 256 per
// block:
// CHECK: %[[GROUPS:.+]] = arith.constant 64 : index
// CHECK: %[[N:.+]] = arith.muli %{{.+}}, %[[GROUPS]]
// CHECK: %[[NN:.+]] = arith.muli %[[N]], %{{.+}}
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[NN]], %c256
// CHECK: gpu.launch_func @fuser_kernels::@pool_rows_reduction blocks in (%[[GRID]],
// CHECK-LABEL: gpu.func @pool_rows_reduction
// CHECK: arith.minui %{{.+}}, %c249
// Each row's fold: the unrolled loop and the rest's.
// CHECK-COUNT-8: scf.for
// CHECK-NOT: llvm.store
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store
// CHECK-NOT: llvm.store
// CHECK: gpu.return
func.func @pool_rows(%x: tensor<2x3x255x257xf32>, %w: tensor<3x3xf32>, %init: tensor<2x3x253x255xf32>) -> tensor<2x3x253x255xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x255x257xf32>, tensor<3x3xf32>) outs(%init : tensor<2x3x253x255xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x253x255xf32>
  return %r : tensor<2x3x253x255xf32>
}

// -----

// A 1-D window of 4, stride 2: 4 neighbouring outputs per thread along the
// row, whose windows share elements. The 2049 outputs of a row make 513
// groups, the last one starting at 2045; all four folds before the stores.
// CHECK-LABEL: func.func @pool_columns
// CHECK: arith.constant 513 : index
// CHECK: gpu.launch_func @fuser_kernels::@pool_columns_reduction
// CHECK-LABEL: gpu.func @pool_columns_reduction
// CHECK: arith.minui %{{.+}}, %c2045
// CHECK-COUNT-8: scf.for
// CHECK-NOT: llvm.store
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store
// CHECK-NOT: llvm.store
// CHECK: gpu.return
func.func @pool_columns(%x: tensor<2x3x4101xf32>, %w: tensor<4xf32>, %init: tensor<2x3x2049xf32>) -> tensor<2x3x2049xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x4101xf32>, tensor<4xf32>) outs(%init : tensor<2x3x2049xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x2049xf32>
  return %r : tensor<2x3x2049xf32>
}

// -----

// 4 x 4 outputs per thread (tile = [1, D, 1, U, V]): the 10 output columns
// make 3 groups of 4; each thread loads the 6 input rows its windows read
// as two 4-element vectors each (columns c and c + 4, the second from
// column 8 where it would pass the row, or from the next lane); its 16
// results go to shared memory, and after a barrier each lane stores 4
// outputs of each row that neighbouring lanes' stores continue (those past
// column 9 not at all).
// CHECK-LABEL: func.func @pool_tile
// 2 x 3 x 2 x 3 threads' outputs:
// CHECK-DAG: %[[ROWS:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[COLS:.+]] = arith.constant 3 : index
// CHECK: gpu.launch_func @fuser_kernels::@pool_tile_reduction
// CHECK-LABEL: gpu.func @pool_tile_reduction
// CHECK-SAME: workgroup(%{{.+}} : memref<5120xf32, #gpu.address_space<workgroup>>)
// CHECK: arith.minui %{{.+}}, %c3
// The first vector of each of the 6 rows; then each second one's 2 elements
// read by shuffles from the next lane, loaded where that lane does not
// hold them (the warp's last lane, the row's last group).
// CHECK-COUNT-6: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-2: gpu.shuffle  down
// CHECK: scf.if %{{.+}} -> (vector<4xf32>)
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-10: gpu.shuffle  down
// CHECK-COUNT-16: memref.store
// CHECK: gpu.barrier
// CHECK-COUNT-16: llvm.store
// CHECK-NOT: llvm.store
// CHECK: gpu.return
func.func @pool_tile(%x: tensor<2x3x9x12xf32>, %w: tensor<3x3xf32>, %init: tensor<2x3x7x10xf32>) -> tensor<2x3x7x10xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x9x12xf32>, tensor<3x3xf32>) outs(%init : tensor<2x3x7x10xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4, 4]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x7x10xf32>
  return %r : tensor<2x3x7x10xf32>
}

// -----

// Rows of 10 elements: 4-element vectors would straddle them.
func.func @pool_tile_odd_pitch(%x: tensor<2x3x9x10xf32>, %w: tensor<3x3xf32>, %init: tensor<2x3x7x8xf32>) -> tensor<2x3x7x8xf32> {
  // expected-error @+1 {{has a reduction config of 4 outputs per thread along a window's columns, which needs one thread per output, one stage, no consumer, scalar folds, and a window column loop whose inputs load as 4-element 16-byte vectors}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x9x10xf32>, tensor<3x3xf32>) outs(%init : tensor<2x3x7x8xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4, 4]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x7x8xf32>
  return %r : tensor<2x3x7x8xf32>
}

// -----

// Windows that do not overlap (stride 3 = the window) share no rows.
func.func @pool_rows_disjoint(%x: tensor<2x3x255x255xf32>, %w: tensor<3x3xf32>, %init: tensor<2x3x85x85xf32>) -> tensor<2x3x85x85xf32> {
  // expected-error @+1 {{has a reduction config of 4 outputs per thread, which needs one thread per output, one stage, no consumer, static window extents and overlapping windows along an output loop of at least 4 outputs}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 3 + d4, d3 * 3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x255x255xf32>, tensor<3x3xf32>) outs(%init : tensor<2x3x85x85xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x85x85xf32>
  return %r : tensor<2x3x85x85xf32>
}

// -----

func.func @not_a_fold(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{is configured as a reduction kernel but the body does not fold one value into the accumulator}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @epilogue_without_consumer(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{is configured to compute its consumer but no fuser.pointwise reads its results}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [256, 1, 1], tile = [32, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @epilogue_two_stages(%x: tensor<4x100000xf32>, %init: tensor<4xf32>) -> tensor<4x100000xf32> {
  // expected-error @+1 {{has a 'reduction_epilogue' config of two stages; its broadcast consumer runs in one}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x100000xf32>) outs(%init : tensor<4xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [256, 1, 1], tile = [256, 1, 8]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %y = fuser.pointwise ins(%x, %r : tensor<4x100000xf32>, tensor<4xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<4x100000xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<4x100000xf32>
}

// -----

func.func @wrong_strategy(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has a 'fuser.config' that is no #fuser.config of strategy 'reduction'}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "pointwise", block = [256, 1, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// An init filled with a constant is that constant in the kernel: no init
// pointer, and the fill (here as fuser-fuse-pointwise leaves it, a group
// that reads none of its inputs) is gone.
// CHECK-LABEL: func.func @filled_init
// CHECK-NOT: fuser.pointwise
// CHECK: gpu.launch_func @fuser_kernels::@filled_init_reduction {{.*}} args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: gpu.func @filled_init_reduction(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64)
// CHECK: scf.if
// CHECK:   %[[C:.+]] = arith.constant 2.500000e+00 : f32
// CHECK:   arith.addf %{{.+}}, %[[C]]
func.func @filled_init(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = fuser.pointwise ins(%e : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<?xf32> {
  ^bb0(%unused: f32):
    %c = arith.constant 2.5 : f32
    fuser.yield %c : f32
  }
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// 16 consecutive threads per output, 64-bit sums: a butterfly of warp
// shuffles (each f64 as two 32-bit halves), no shared memory or barrier.
// CHECK-LABEL: gpu.func @shuffled_f64_reduction
// CHECK-NOT: workgroup
// CHECK: scf.for
// CHECK: gpu.shuffle xor %{{.+}}, %c8_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK: gpu.shuffle xor %{{.+}}, %c8_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK: arith.addf %{{.+}}, %{{.+}} : f64
// CHECK: gpu.shuffle xor %{{.+}}, %c1_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @shuffled_f64(%x: tensor<?x16xf64>, %init: tensor<?xf64>) -> tensor<?xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x16xf64>) outs(%init : tensor<?xf64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [16, 1]>} {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}

// -----

// Two stages (tile = [1024, 1, 256]): kernel 1 runs 256 blocks per output,
// block b reducing slice b % 256 of 39072 elements (ceil(10000019 / 256)
// rounded up to 32) into a 256-element partials buffer the host code
// allocates; kernel 2 reduces the 256 partials with 256 consecutive threads
// (one each, shared memory) and adds the filled init, a constant.
// CHECK-LABEL: func.func @total_two_stage
// CHECK-NOT: fuser.pointwise
// CHECK: %[[OUT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK: %[[PART:.+]] = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[PART]]
// CHECK: %[[PPTR:.+]] = llvm.inttoptr
// CHECK: %[[GRID:.+]] = arith.muli %{{.+}}, %c256
// CHECK: gpu.launch_func @fuser_kernels::@total_two_stage_reduction blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c1024{{.*}}, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %[[PPTR]] : !llvm.ptr<1>, %{{.+}} : i64)
// CHECK: gpu.launch_func @fuser_kernels::@total_two_stage_reduction_combine blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%c256{{.*}}, %{{.+}}, %{{.+}}) args(%[[PPTR]] : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64)
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// Kernel 1: slice and output from the block index, the slice's bounds.
// CHECK: gpu.func @total_two_stage_reduction(%[[IN:.+]]: !llvm.ptr<1>, %[[P:.+]]: !llvm.ptr<1>, %{{.+}}: i64) workgroup(%[[SMEM:.+]] : memref<1024xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[BID:.+]] = arith.index_castui %{{.*}}block_id_x
// CHECK: %[[SLICE:.+]] = arith.remui %[[BID]], %c256_i64
// CHECK: %[[OB:.+]] = arith.divui %[[BID]], %c256_i64
// CHECK: %[[LANE:.+]] = arith.remui %[[TID:.+]], %c1024_i64
// CHECK: arith.ceildivui %[[LEN:.+]], %c256_i64
// CHECK: %[[CHUNK:.+]] = arith.muli %{{.+}}, %c32_i64
// CHECK: %[[FIRST:.+]] = arith.muli %[[SLICE]], %[[CHUNK]]
// CHECK: %[[FROM:.+]] = arith.minui %[[FIRST]], %[[LEN]]
// CHECK: %[[STOP:.+]] = arith.addi %[[FROM]], %[[CHUNK]]
// CHECK: %[[TO:.+]] = arith.minui %[[STOP]], %[[LEN]]
// CHECK: %[[BEGIN:.+]] = arith.addi %[[FROM]], %[[LANE]]
// CHECK: %[[END:.+]] = arith.select %{{.+}}, %[[TO]], %c0_i64
// CHECK: scf.for %{{.+}} = %[[BEGIN]] to %[[MID:.+]] step %{{.+}} iter_args(%{{.+}} = %cst, %{{.+}} = %cst, %{{.+}} = %cst, %{{.+}} = %cst) -> (f32, f32, f32, f32)
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: scf.yield
// CHECK-COUNT-2: arith.addf
// CHECK: %[[MAIN:.+]] = arith.addf
// CHECK: %[[ACC:.+]] = scf.for %{{.+}} = %[[MID]] to %[[END]] step %c1024_i64 iter_args(%{{.+}} = %[[MAIN]]) -> (f32)
// CHECK:   llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   arith.addf
// CHECK: memref.store %[[ACC]], %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[LANE]], %c1_i64
// CHECK: scf.if
// Lane 0 stores the block's partial, no init, at o * 256 + slice.
// CHECK: gpu.barrier
// CHECK: %[[RES:.+]] = memref.load %[[SMEM]]
// CHECK: scf.if
// CHECK:   %[[ROW:.+]] = arith.muli %{{.+}}, %c256_i64
// CHECK:   %[[AT:.+]] = arith.addi %[[ROW]], %[[SLICE]]
// CHECK:   %[[PP:.+]] = llvm.getelementptr inbounds %[[P]][%[[AT]]]
// CHECK:   llvm.store %[[RES]], %[[PP]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NOT: arith.constant 2.5
// CHECK: gpu.return
// Kernel 2: 256 threads per output each take partials lane, lane + 256, ...
// in order; the tree; then the init.
// CHECK: gpu.func @total_two_stage_reduction_combine(%[[P2:.+]]: !llvm.ptr<1>, %[[O2:.+]]: !llvm.ptr<1>, %{{.+}}: i64) workgroup(%[[SMEM2:.+]] : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[LANE2:.+]] = arith.remui %{{.+}}, %c256_i64
// CHECK: %[[END2:.+]] = arith.select %{{.+}}, %c256_i64, %c0_i64
// CHECK: %[[ROW2:.+]] = arith.muli %{{.+}}, %c256_i64
// CHECK: scf.for %{{.+}} = %[[LANE2]] to %[[MID2:.+]] step
// CHECK: scf.yield
// CHECK-COUNT-2: arith.addf
// CHECK: %[[MAIN2:.+]] = arith.addf
// CHECK: scf.for %[[R:.+]] = %[[MID2]] to %[[END2]] step %c256_i64{{.*}} iter_args(%{{.+}} = %[[MAIN2]]) -> (f32)
// CHECK:   %[[AT2:.+]] = arith.addi %[[ROW2]], %[[R]]
// CHECK:   llvm.getelementptr inbounds %[[P2]][%[[AT2]]]
// CHECK:   llvm.load
// CHECK:   arith.addf
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %[[LANE2]], %c128_i64
// CHECK: arith.cmpi ult, %[[LANE2]], %c1_i64
// CHECK: scf.if
// CHECK:   %[[C:.+]] = arith.constant 2.500000e+00 : f32
// CHECK:   arith.addf %{{.+}}, %[[C]]
// CHECK:   llvm.getelementptr inbounds %[[O2]]
// CHECK:   llvm.store
// CHECK: gpu.return
func.func @total_two_stage(%x: tensor<10000019xf32>) -> tensor<f32> {
  %c = arith.constant 2.5 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%init : tensor<f32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [1024, 1, 256]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Two stages with dynamic extents (the lowering takes them; the
// configuration step chooses P from static ones only), f64 sums and the
// init read from memory: the partials buffer has outputs * 8 elements,
// sized at run time; kernel 2's 8 threads per output combine by shuffles
// and add the init element they load.
// CHECK-LABEL: func.func @rows_two_stage_f64
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf64>, %[[INIT:.+]]: tensor<?xf64>)
// CHECK: %[[OUT:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<?xf64>
// CHECK: %[[N:.+]] = arith.muli %{{.+}}, %c8
// CHECK: %[[PART:.+]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?xf64>
// CHECK: gpu.launch_func @fuser_kernels::@rows_two_stage_f64_reduction {{.*}} args(%{{.+}} : !llvm.ptr<1>, %[[PP:.+]] : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: gpu.launch_func @fuser_kernels::@rows_two_stage_f64_reduction_combine {{.*}} threads in (%c256{{.*}}, %{{.+}}, %{{.+}}) args(%[[PP]] : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: gpu.func @rows_two_stage_f64_reduction(
// CHECK: arith.remui %{{.+}}, %c8_i64
// CHECK: arith.ceildivui %{{.+}}, %c8_i64
// CHECK: scf.for
// CHECK:   arith.addf %{{.+}} : f64
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : f64, !llvm.ptr<1>
// CHECK: gpu.func @rows_two_stage_f64_reduction_combine(%[[P2:.+]]: !llvm.ptr<1>, %[[I2:.+]]: !llvm.ptr<1>, %[[O2:.+]]: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64) kernel
// CHECK-NOT: workgroup
// CHECK: scf.for
// CHECK:   llvm.getelementptr inbounds %[[P2]]
// CHECK: gpu.shuffle xor %{{.+}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c1_i32
// CHECK: scf.if
// CHECK:   llvm.getelementptr inbounds %[[I2]]
// CHECK:   llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> f64
// CHECK:   llvm.getelementptr inbounds %[[O2]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @rows_two_stage_f64(%x: tensor<?x?xf64>, %init: tensor<?xf64>) -> tensor<?xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf64>) outs(%init : tensor<?xf64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [1024, 1, 8]>} {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}

// -----

func.func @too_many_slices(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{P at most 1024}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [1024, 1, 2048]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Row sums in clusters of 4 blocks (tile = [B, 1], cluster_m = 4): 4 blocks
// per output in the grid, the kernel's cluster dims fixed at compile time;
// after the block's tree, a cluster barrier, then the 4 blocks' results read
// from their shared memory and combined in rank order, and a second barrier
// (arrive after the reads, wait before the exit).
// CHECK-LABEL: func.func @rows_in_clusters
// CHECK: %[[G:.+]] = arith.muli %{{.+}}, %c4 : index
// CHECK: gpu.launch_func @fuser_kernels::@rows_in_clusters_reduction blocks in (%[[G]],
// CHECK-LABEL: gpu.func @rows_in_clusters_reduction
// CHECK-SAME: nvvm.cluster_dim = array<i32: 4, 1, 1>
// CHECK: gpu.barrier
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-COUNT-4: nvvm.mapa %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
func.func @rows_in_clusters(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [256, 1], cluster_m = 4>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

func.func @cluster_of_warps(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has a reduction config of cluster_m 4, which needs tile = [B, 1] (one output per block, its threads combining in shared memory)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [32, 1, 1], tile = [32, 1], cluster_m = 4>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
