// RUN: fuser-opt %s -split-input-file --fuser-pointwise-to-gpu -verify-diagnostics | FileCheck %s

#cfg = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 1024>

// Contiguous inputs: 128-bit vector loads and stores, 64-bit indices, a
// grid-stride loop, then a scalar tail.
// CHECK-LABEL: func.func @leaky
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>)
// CHECK-DAG: %[[D0:.+]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[D1:.+]] = tensor.dim %[[X]], %c1
// CHECK: %[[N0:.+]] = arith.muli %c1{{.*}}, %[[D0]]
// CHECK: %[[N:.+]] = arith.muli %[[N0]], %[[D1]]
// CHECK: %[[XB:.+]] = bufferization.to_buffer %[[X]] read_only
// CHECK: memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK: %[[OUT:.+]] = memref.alloc(%[[D0]], %[[D1]]) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: %[[VECS:.+]] = arith.ceildivui %[[N]], %c4
// CHECK: %[[BLOCKS:.+]] = arith.ceildivui %[[VECS]], %c256
// CHECK: %[[GRID:.+]] = arith.minui %[[BLOCKS]], %c1024
// CHECK: gpu.launch_func @fuser_kernels::@leaky_pointwise blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256{{.*}}, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64)
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK: gpu.module @fuser_kernels
// CHECK: gpu.func @leaky_pointwise(%[[IN:.+]]: !llvm.ptr<1>, %[[OUTP:.+]]: !llvm.ptr<1>, %[[NN:.+]]: i64) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[NV:.+]] = arith.divui %[[NN]], %c4_i64
// CHECK: scf.for %[[V:.+]] = %{{.+}} to %[[NV]] step %{{.+}} : i64
// CHECK:   %[[BASE:.+]] = arith.muli %[[V]], %c4_i64
// CHECK:   %[[P:.+]] = llvm.getelementptr inbounds %[[IN]][%[[BASE]]]
// CHECK:   llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:   arith.cmpf ugt, %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK:   arith.select %{{.+}} : vector<4xi1>, vector<4xf32>
// CHECK:   llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[NN]] step %{{.+}} : i64
// CHECK:   llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:   llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: gpu.return
func.func @leaky(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] {config = #cfg} -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.constant 0.01 : f32
    %p = arith.cmpf ugt, %a, %z : f32
    %m = arith.mulf %a, %s : f32
    %y = arith.select %p, %a, %m : f32
    fuser.yield %y : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

#cfg = #fuser.config<strategy = "pointwise", block = [128, 1, 1], vector_width = 4, max_grid = 0>

// A broadcast bias: the host checks its size at run time, the kernel gets the
// result sizes and gathers the bias lanes; max_grid = 0 leaves the grid
// uncapped. The scalar operand is passed by value.
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>, %[[B:.+]]: tensor<?xf32>, %[[S:.+]]: f32)
// CHECK: %[[BD:.+]] = tensor.dim %[[B]], %c0
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %[[BD]], %{{.+}} : index
// CHECK: cf.assert %[[EQ]], "fuser.pointwise: input #1 dimension 0 must equal result dimension 1"
// CHECK-NOT: arith.minui
// CHECK: gpu.launch_func @fuser_kernels::@bias_pointwise {{.*}} args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %[[S]] : f32, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: gpu.func @bias_pointwise(%{{.+}}: !llvm.ptr<1>, %[[BP:.+]]: !llvm.ptr<1>, %[[SV:.+]]: f32, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %[[C:.+]]: i64)
// The bias rows stay whole when the row size is a multiple of 4: one
// aligned vector load, else a gather of 4 lanes.
// CHECK: %[[REM:.+]] = arith.remui %[[C]], %c4_i64
// CHECK: %[[ALIGNED:.+]] = arith.cmpi eq, %[[REM]], %c0_i64
// CHECK: scf.for
// CHECK: arith.remui %{{.+}}, %[[C]] : i64
// CHECK: scf.if %[[ALIGNED]] -> (vector<4xf32>)
// CHECK:   llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: vector.from_elements
// CHECK: vector.broadcast %[[SV]] : f32 to vector<4xf32>
func.func @bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>, %s: f32) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x, %b, %s : tensor<?x?xf32>, tensor<?xf32>, f32)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>]
         {config = #cfg} -> tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f32, %k: f32):
    %t = arith.addf %a, %c : f32
    %u = arith.mulf %t, %k : f32
    fuser.yield %u : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

#cfg = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 0>

// The same bias on static shapes (a softmax's row statistics are read this
// way): the kernel still takes the sizes but uses constants, so that the
// row alignment test folds (96 is a multiple of 4: one aligned vector load,
// no gather), a vector's row comes from a division by a constant, and the
// loops' bounds are constants (48 x 96 = 4608).
// CHECK-LABEL: gpu.func @static_bias_pointwise
// CHECK-SAME: (%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK-DAG: %[[N:.+]] = arith.constant 4608 : i64
// CHECK-DAG: %[[C:.+]] = arith.constant 96 : i64
// CHECK: arith.remui %[[C]], %c4_i64
// CHECK: %[[NV:.+]] = arith.divui %[[N]], %c4_i64
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[NV]]
// CHECK: arith.remui %{{.+}}, %[[C]] : i64
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[N]]
// CHECK: gpu.return
func.func @static_bias(%x: tensor<48x96xf32>, %b: tensor<96xf32>) -> tensor<48x96xf32> {
  %r = fuser.pointwise ins(%x, %b : tensor<48x96xf32>, tensor<96xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]
         {config = #cfg} -> tensor<48x96xf32> {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    fuser.yield %t : f32
  }
  return %r : tensor<48x96xf32>
}

// -----

#cfg = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 0>

// A dynamic batch and a static row: n and the batch come from the
// arguments, the row length is the constant.
// CHECK-LABEL: gpu.func @batch_bias_pointwise
// CHECK-SAME: (%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %[[N:[^:]+]]: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK: %[[C:.+]] = arith.constant 96 : i64
// CHECK: arith.remui %[[C]], %c4_i64
// CHECK: %[[NV:.+]] = arith.divui %[[N]], %c4_i64
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[NV]]
// CHECK: arith.remui %{{.+}}, %[[C]] : i64
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[N]]
func.func @batch_bias(%x: tensor<?x96xf32>, %b: tensor<96xf32>) -> tensor<?x96xf32> {
  %r = fuser.pointwise ins(%x, %b : tensor<?x96xf32>, tensor<96xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]
         {config = #cfg} -> tensor<?x96xf32> {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    fuser.yield %t : f32
  }
  return %r : tensor<?x96xf32>
}

// -----

// vector_width = 1: only the scalar loop.
// CHECK-LABEL: gpu.func @scalar_only_pointwise
// CHECK-NOT: vector<
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @scalar_only(%x: tensor<7xf32>) -> tensor<7xf32> {
  %r = fuser.pointwise ins(%x : tensor<7xf32>) maps [affine_map<(d0) -> (d0)>]
         {config = #fuser.config<strategy = "pointwise", block = [32, 1, 1]>} -> tensor<7xf32> {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    fuser.yield %e : f32
  }
  return %r : tensor<7xf32>
}

// -----

func.func @unconfigured(%x: tensor<7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{has no #fuser.config; run -fuser-configure-kernels first}}
  %r = fuser.pointwise ins(%x : tensor<7xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<7xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<7xf32>
}

// -----

func.func @wrong_strategy(%x: tensor<7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{has strategy 'ffma'; this lowering implements 'pointwise'}}
  %r = fuser.pointwise ins(%x : tensor<7xf32>) maps [affine_map<(d0) -> (d0)>]
         {config = #fuser.config<strategy = "ffma", block = [32, 1, 1]>} -> tensor<7xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<7xf32>
}

// -----

// i1 tensors (masks, PyTorch's bool) are one byte per element in memory:
// loaded as i8 and compared with 0, stored zero-extended.
// CHECK-LABEL: gpu.func @bool_tensor_pointwise
// CHECK: %[[B:.+]] = llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xi8>
// CHECK: %[[M:.+]] = arith.cmpi ne, %[[B]], %{{.+}} : vector<4xi8>
// CHECK: %[[S:.+]] = arith.select %[[M]], %{{.+}}, %{{.+}} : vector<4xi1>, vector<4xf32>
// CHECK: %[[N:.+]] = arith.xori %[[M]], %{{.+}} : vector<4xi1>
// CHECK: %[[W:.+]] = arith.extui %[[N]] : vector<4xi1> to vector<4xi8>
// CHECK: llvm.store %[[W]], %{{.+}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<1>
// CHECK: llvm.load %{{.+}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
func.func @bool_tensor(%x: tensor<7xi1>, %y: tensor<7xf32>) -> (tensor<7xf32>, tensor<7xi1>) {
  %r:2 = fuser.pointwise ins(%x, %y : tensor<7xi1>, tensor<7xf32>) maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
         {config = #fuser.config<strategy = "pointwise", block = [32, 1, 1], vector_width = 4>} -> tensor<7xf32>, tensor<7xi1> {
  ^bb0(%a: i1, %b: f32):
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    %s = arith.select %a, %b, %z : f32
    %n = arith.xori %a, %t : i1
    fuser.yield %s, %n : f32, i1
  }
  return %r#0, %r#1 : tensor<7xf32>, tensor<7xi1>
}

// -----

func.func @bool_scalar(%x: i1, %y: tensor<7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{has element type 'i2', which the GPU lowering does not support (it needs whole-byte ints or floats)}}
  %r = fuser.pointwise ins(%y : tensor<7xf32>) maps [affine_map<(d0) -> (d0)>]
         {config = #fuser.config<strategy = "pointwise", block = [32, 1, 1]>} -> tensor<7xi2> {
  ^bb0(%b: f32):
    %c = arith.constant 1 : i2
    fuser.yield %c : i2
  }
  return %y : tensor<7xf32>
}

// -----

// Group norms are fuser-group-norm-to-gpu's: this pass leaves them alone.
// CHECK-LABEL: func.func @group_norm
// CHECK: fuser.group_norm
// CHECK-NOT: gpu.launch_func
func.func @group_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %r = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %r : tensor<2x8xf32>
}

// -----

// tile = [2]: two vectors per thread per iteration, both loaded before
// either is stored; the grid counts 8 elements per thread. The single-vector
// loop then starts where this thread's unrolled loop stopped.
// CHECK-LABEL: func.func @two_vectors_per_thread
// CHECK: %[[VECS:.+]] = arith.ceildivui %{{.+}}, %c8
// CHECK: arith.ceildivui %[[VECS]], %c256
// CHECK: gpu.func @two_vectors_per_thread_pointwise
// CHECK: %[[NV:.+]] = arith.divui %{{.+}}, %c4_i64
// CHECK: %[[SPAN:.+]] = arith.muli %[[STRIDE:.+]], %c1_i64
// CHECK: %[[STEP:.+]] = arith.addi %[[SPAN]], %[[STRIDE]]
// CHECK: %[[FITS:.+]] = arith.cmpi ugt, %[[NV]], %[[SPAN]]
// CHECK: %[[LAST:.+]] = arith.subi %[[NV]], %[[SPAN]]
// CHECK: %[[BOUND:.+]] = arith.select %[[FITS]], %[[LAST]], %c0_i64
// CHECK: scf.for %[[V:.+]] = %[[START:.+]] to %[[BOUND]] step %[[STEP]] : i64
// CHECK:   llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:   llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: scf.for
// CHECK:   llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:   llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: %[[ITERS:.+]] = arith.ceildivui %{{.+}}, %[[STEP]]
// CHECK: scf.for %{{.+}} = %[[REST:.+]] to %[[NV]] step %[[STRIDE]] : i64
// CHECK:   llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:   llvm.store
// CHECK: scf.for
// CHECK:   llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
func.func @two_vectors_per_thread(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>] {config = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, tile = [2]>} -> tensor<?xf32> {
  ^bb0(%a: f32):
    %y = arith.negf %a : f32
    fuser.yield %y : f32
  }
  return %r : tensor<?xf32>
}

// -----

func.func @pointwise_tile_of_two_sizes(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has a pointwise tile of 2 sizes; it takes one, [vectors per thread]}}
  %r = fuser.pointwise ins(%x : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>] {config = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, tile = [2, 2]>} -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?xf32>
}

// -----

#cfg = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 4, max_grid = 1024, l2_prefetch = 128>

// l2_prefetch: streamed loads through `ld.global.L2::128B` (inline PTX), as
// 32-bit words bitcast back: f32 x 4 one v4, f16 x 4 a v2, a scalar tail one
// word; i1 (bytes) and the broadcast input keep plain loads.
// CHECK-LABEL: gpu.func @prefetch_pointwise
// CHECK: scf.for
// CHECK-DAG: %[[F:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "ld.global.L2::128B.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" %{{.+}} : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-DAG: %[[H:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "ld.global.L2::128B.v2.b32 {$0, $1}, [$2];", "=r,=r,l" %{{.+}} : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32)>
// CHECK-DAG: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xi8>
// CHECK-DAG: llvm.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-DAG: llvm.bitcast %{{.+}} : vector<2xi32> to vector<4xf16>
// CHECK: scf.for
// CHECK-DAG: llvm.inline_asm has_side_effects asm_dialect = att "ld.global.L2::128B.b32 $0, [$1];", "=r,l" %{{.+}} : (!llvm.ptr<1>) -> i32
// CHECK-DAG: llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr<1> -> f16
// CHECK: gpu.return
func.func @prefetch(%x: tensor<?x?xf32>, %h: tensor<?x?xf16>, %m: tensor<?x?xi1>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x, %h, %m, %b : tensor<?x?xf32>, tensor<?x?xf16>, tensor<?x?xi1>, tensor<?xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] {config = #cfg} -> tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f16, %k: i1, %bb: f32):
    %e = arith.extf %c : f16 to f32
    %s = arith.addf %a, %e : f32
    %t = arith.addf %s, %bb : f32
    %y = arith.select %k, %t, %a : f32
    fuser.yield %y : f32
  }
  return %r : tensor<?x?xf32>
}

// -----

#cfg = #fuser.config<strategy = "pointwise", block = [256, 1, 1], vector_width = 2, l2_prefetch = 128>

// index elements are 64-bit integers in memory (the host's and the kernels'
// index width): loaded as i64 and cast, cast back and stored as i64.
// CHECK-LABEL: gpu.func @index_elements_pointwise
// CHECK: scf.for
// CHECK: %[[L:.+]] = llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<2xi64>
// CHECK: %[[I:.+]] = arith.index_cast %[[L]] : vector<2xi64> to vector<2xindex>
// CHECK: %[[S:.+]] = arith.addi %[[I]], %{{.+}} : vector<2xindex>
// CHECK: %[[B:.+]] = arith.index_cast %[[S]] : vector<2xindex> to vector<2xi64>
// CHECK: llvm.store %[[B]], %{{.+}} {alignment = 16 : i64} : vector<2xi64>, !llvm.ptr<1>
func.func @index_elements(%x: tensor<?xindex>) -> tensor<?xindex> {
  %r = fuser.pointwise ins(%x : tensor<?xindex>) maps [affine_map<(d0) -> (d0)>] {config = #cfg} -> tensor<?xindex> {
  ^bb0(%a: index):
    %c1 = arith.constant 1 : index
    %y = arith.addi %a, %c1 : index
    fuser.yield %y : index
  }
  return %r : tensor<?xindex>
}
