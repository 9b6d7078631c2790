// RUN: fuser-opt %s -split-input-file --fuser-pointwise-to-gpu -verify-diagnostics | FileCheck %s

#cfg = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], max_grid = 1024, tile = [32, 32]>

// x.T * 2 + y: one block per 32 x 32 result tile (grid-striding past
// max_grid); each thread loads 4 elements of x along x's rows into a padded
// shared tile (32 rows of 33), then after a barrier computes 4 results along
// the result's rows, y read directly, and stores them where in bounds.
// CHECK-LABEL: func.func @scale_add
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>, %[[Y:.+]]: tensor<?x?xf32>)
// CHECK-DAG: %[[P:.+]] = tensor.dim %[[X]], %c1
// CHECK-DAG: %[[Q:.+]] = tensor.dim %[[X]], %c0
// CHECK: %[[TP:.+]] = arith.ceildivui %[[P]], %c32
// CHECK: %[[TQ:.+]] = arith.ceildivui %[[Q]], %c32
// CHECK: %[[TILES:.+]] = arith.muli %{{.+}}, %[[TQ]] : index
// CHECK: %[[GRID:.+]] = arith.minui %[[TILES]], %c1024
// CHECK: gpu.launch_func @fuser_kernels::@scale_add_pointwise blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: gpu.func @scale_add_pointwise(%[[XP:.+]]: !llvm.ptr<1>, %[[YP:.+]]: !llvm.ptr<1>, %[[OUT:.+]]: !llvm.ptr<1>, %[[PP:.+]]: i64, %[[QQ:.+]]: i64) workgroup(%[[TILE:.+]] : memref<1056xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} : i64 {
// Phase 1: x[j][i] at j * P + i, clamped to the last row and column.
// CHECK:   arith.minui
// CHECK:   %[[JX:.+]] = arith.minui
// CHECK:   arith.muli %[[JX]], %[[PP]] : i64
// CHECK:   llvm.getelementptr inbounds %[[XP]]
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-COUNT-4: memref.store %{{.+}}, %[[TILE]][%{{.+}}] : memref<1056xf32, #gpu.address_space<workgroup>>
// CHECK:   gpu.barrier
// Phase 2: the tile read down its columns, y at i * Q + j.
// CHECK:   arith.cmpi ult, %{{.+}}, %[[QQ]] : i64
// CHECK:   arith.cmpi ult, %{{.+}}, %[[PP]] : i64
// CHECK:   %[[IN:.+]] = arith.andi
// CHECK:   memref.load %[[TILE]]
// CHECK:   llvm.getelementptr inbounds %[[YP]]
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK-COUNT-3: memref.load %[[TILE]]
// CHECK:   scf.if %[[IN]] {
// CHECK:     llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-COUNT-3: scf.if
// CHECK:   gpu.barrier
// CHECK: }
// CHECK: gpu.return
func.func @scale_add(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>)
         maps [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
         {config = #cfg} -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %a, %two : f32
    %t = arith.addf %s, %b : f32
    fuser.yield %t : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

// Batched, a broadcast bias and an i1 result: the batch is a tile
// coordinate, the bias is read at its own stride, the mask is stored as a
// byte. A 64 x 16 tile with 128 threads: 8 elements each, 16 rows of 65.
// CHECK-LABEL: func.func @batched
// CHECK: arith.ceildivui %c65, %c64
// CHECK: arith.ceildivui %c129, %c16
// CHECK: gpu.func @batched_pointwise({{.*}}) workgroup(%[[TILE:.+]] : memref<1040xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK-COUNT-8: llvm.load %{{.+}} : !llvm.ptr<1> -> f32
// CHECK: gpu.barrier
// CHECK: memref.load %[[TILE]]
// CHECK: arith.cmpf ogt
// CHECK: scf.if
// CHECK:   arith.extui %{{.+}} : i1 to i8
// CHECK:   llvm.store %{{.+}}, %{{.+}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
func.func @batched(%x: tensor<3x129x65xf32>, %b: tensor<129xf32>) -> tensor<3x65x129xi1> {
  %r = fuser.pointwise ins(%x, %b : tensor<3x129x65xf32>, tensor<129xf32>)
         maps [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d2)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [128, 1, 1], tile = [64, 16]>} -> tensor<3x65x129xi1> {
  ^bb0(%a: f32, %c: f32):
    %p = arith.cmpf ogt, %a, %c : f32
    fuser.yield %p : i1
  }
  return %r : tensor<3x65x129xi1>
}

// -----

func.func @nothing_transposed(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{has strategy 'pointwise_transpose' but nothing to stage: it needs read inputs (of one element type) whose maps swap the result's two innermost dimensions, and no other input reading the innermost one through another dimension}}
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], tile = [32, 32]>} -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

func.func @one_tile_size(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{has a pointwise_transpose config that is not tile = [TM, TN], block = [B, 1, 1] with B dividing TM * TN, vector_width = 1}}
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d1, d0)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], tile = [32]>} -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

func.func @block_not_dividing(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{has a pointwise_transpose config that is not tile = [TM, TN]}}
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d1, d0)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [96, 1, 1], tile = [32, 32]>} -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

func.func @too_many_per_thread(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{has a pointwise_transpose config with 64 elements per thread (TM * TN / B); at most 32}}
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d1, d0)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [64, 1, 1], tile = [64, 64]>} -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

func.func @tile_too_large(%x: tensor<?x?xf64>) -> tensor<?x?xf64> {
  // expected-error @+1 {{has pointwise_transpose tiles of 66560 bytes of shared memory (TN x (TM + 1) elements per staged input); at most 49152}}
  %r = fuser.pointwise ins(%x : tensor<?x?xf64>) maps [affine_map<(d0, d1) -> (d1, d0)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [1024, 1, 1], tile = [64, 128]>} -> tensor<?x?xf64> {
  ^bb0(%a: f64):
    fuser.yield %a : f64
  }
  return %r : tensor<?x?xf64>
}

// -----

// Two transposed inputs (the masked gradient computed into its transposed
// copy): one padded tile each in one buffer, the second 32 x 33 elements
// on; phase 1 fills both, phase 2 reads both at the same slot.
// CHECK-LABEL: gpu.func @main_pointwise
// CHECK-SAME: workgroup(%[[TILE:.+]] : memref<2112xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-8: memref.store %{{.+}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK-COUNT-2: memref.load %[[TILE]]
// CHECK: arith.cmpf ogt
func.func @main(%dy: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%dy, %y : tensor<?x?xf32>, tensor<?x?xf32>)
         maps [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>]
         {config = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], tile = [32, 32]>} -> tensor<?x?xf32> {
  ^bb0(%g: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %out, %z : f32
    %s = arith.select %pos, %g, %z : f32
    fuser.yield %s : f32
  }
  return %r : tensor<?x?xf32>
}
