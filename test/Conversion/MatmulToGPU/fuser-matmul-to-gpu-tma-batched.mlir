// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

// A batched matmul (torch.bmm with a K-major B) on 3xtf32 wgmma_tma, the
// config -fuser-configure-kernels gives it. The host views each operand as
// its batches' rows stacked (B * M and B * N rows of K) for 2-D tensor maps
// and passes the batch count after K, then the tile counts; the grid is every batch's tiles, at
// most 132 blocks.
#split = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>

// CHECK-LABEL: func.func @bmm
// CHECK-SAME: (%[[X:.+]]: tensor<?x200x1000xf32>, %[[W:.+]]: tensor<?x129x1000xf32>, %[[F:.+]]: tensor<?x200x129xf32>)
// CHECK: %[[BATCH:.+]] = tensor.dim %[[X]], %c0
// CHECK: %[[MT:.+]] = arith.ceildivui %c200, %c128
// CHECK: %[[NT:.+]] = arith.ceildivui %c129, %c128
// CHECK: %[[PERH:.+]] = arith.muli %[[MT]], %[[NT]]
// CHECK: %[[ALLH:.+]] = arith.muli %[[PERH]], %[[BATCH]]
// CHECK: %[[KT:.+]] = arith.ceildivui %c1000, %c32
// CHECK: %[[B64:.+]] = arith.index_castui %[[BATCH]] : index to i64
// CHECK: %[[ALL64:.+]] = arith.index_castui %[[ALLH]] : index to i64
// CHECK: %[[XB:.+]] = bufferization.to_buffer %[[X]]
// CHECK: %[[XV:.+]] = memref.collapse_shape %[[XB]] {{\[}}[0, 1], [2]] : memref<?x200x1000xf32> into memref<?x1000xf32>
// CHECK: %[[MAPA:.+]] = fuser.tensor_map %[[XV]] box [128, 32] swizzle 128 : memref<?x1000xf32> -> !llvm.ptr
// CHECK: %[[WB:.+]] = bufferization.to_buffer %[[W]]
// CHECK: %[[WV:.+]] = memref.collapse_shape %[[WB]] {{\[}}[0, 1], [2]] : memref<?x129x1000xf32> into memref<?x1000xf32>
// CHECK: %[[MAPB:.+]] = fuser.tensor_map %[[WV]] box [128, 32] swizzle 128 : memref<?x1000xf32> -> !llvm.ptr
// The grid: every batch's tiles (the count passed above), at most 132.
// CHECK: %[[GRID:.+]] = arith.minui %[[ALLH]], %c132
// CHECK: gpu.launch_func{{ +}}@fuser_kernels::@bmm_matmul blocks in (%[[GRID]], %c1{{[^,]*}}, %c1{{[^)]*}}) threads in (%c384
// CHECK-SAME: %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %[[B64]] : i64, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %[[ALL64]] : i64, %[[MAPA]] : !llvm.ptr, %[[MAPB]] : !llvm.ptr)
// The kernel: (A, B, F, C, M, N, K, batch, K tiles, M tiles, tiles per
// batch, tiles, map A, map B). M, N and K are static: constants inside,
// and so are the counts but the tiles of all batches.
// CHECK: gpu.func @bmm_matmul(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %[[FP:.+]]: !llvm.ptr<1>, %[[C:.+]]: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %[[NB:.+]]: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %[[ALL:.+]]: i64, %[[TA:.+]]: !llvm.ptr, %[[TB:.+]]: !llvm.ptr) kernel attributes {fuser.tensor_map_args = array<i64: 12, 13>
// CHECK-DAG: %[[M:.+]] = arith.constant 200 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 129 : i64
// Consumers: the tiles of every batch, counted after setmaxnreg; the batch
// and the tile's place in it decoded again after the main loop, for the
// epilogue's C and per-batch input of batch z.
// CHECK: nvvm.setmaxregister increase 224
// CHECK: %[[MTILES:.+]] = arith.ceildivui %[[M]], %c128_i64
// CHECK: %[[NTILES:.+]] = arith.ceildivui %[[N]], %c128_i64
// CHECK: %[[PER:.+]] = arith.muli %[[MTILES]], %[[NTILES]] : i64
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %[[ALL]] step
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[Z:.+]] = arith.divui %[[T]], %[[PER]] : i64
// CHECK: arith.remui %[[T]], %[[PER]] : i64
// CHECK: %[[MN:.+]] = arith.muli %[[M]], %[[N]] : i64
// CHECK: %[[OC:.+]] = arith.muli %[[Z]], %[[MN]] : i64
// CHECK: %[[CB:.+]] = llvm.getelementptr inbounds %[[C]][%[[OC]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[FB:.+]] = llvm.getelementptr inbounds %[[FP]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.getelementptr inbounds %[[FB]]
// CHECK: llvm.getelementptr inbounds %[[CB]]
// CHECK: llvm.store
// The producer: batch z's rows of the stacked views start at z * M + m0
// (A) and z * N + n0 (B).
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: %[[PMTILES:.+]] = arith.ceildivui %[[M]], %c128_i64
// CHECK: %[[PNTILES:.+]] = arith.ceildivui %[[N]], %c128_i64
// CHECK: %[[PPER:.+]] = arith.muli %[[PMTILES]], %[[PNTILES]] : i64
// CHECK: scf.for %[[TP:.+]] = %{{.+}} to %[[ALL]] step
// CHECK: %[[ZP:.+]] = arith.divui %[[TP]], %[[PPER]] : i64
// CHECK: %[[IN:.+]] = arith.remui %[[TP]], %[[PPER]] : i64
// CHECK: %[[MI:.+]] = arith.remui %[[IN]], %[[PMTILES]] : i64
// CHECK: %[[M0:.+]] = arith.muli %[[MI]], %c128_i64
// CHECK: %[[NI:.+]] = arith.divui %[[IN]], %[[PMTILES]] : i64
// CHECK: %[[N0:.+]] = arith.muli %[[NI]], %c128_i64
// CHECK: %[[ZM:.+]] = arith.muli %[[ZP]], %[[M]] : i64
// CHECK: %[[ROWA:.+]] = arith.addi %[[ZM]], %[[M0]] : i64
// CHECK: %[[ZN:.+]] = arith.muli %[[ZP]], %[[N]] : i64
// CHECK: %[[ROWB:.+]] = arith.addi %[[ZN]], %[[N0]] : i64
// CHECK: %[[RA:.+]] = arith.trunci %[[ROWA]] : i64 to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TA]], %{{.+}}, box[%{{.+}}, %[[RA]]]
// CHECK: %[[RB:.+]] = arith.trunci %[[ROWB]] : i64 to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TB]], %{{.+}}, box[%{{.+}}, %[[RB]]]
func.func @bmm(%x: tensor<?x200x1000xf32>, %w: tensor<?x129x1000xf32>, %f: tensor<?x200x129xf32>) -> tensor<?x200x129xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%f : tensor<?x200x129xf32>)
         epilogue_maps [affine_map<(b, m, n) -> (b, m, n)>] {config = #split}
         : tensor<?x200x1000xf32>, tensor<?x129x1000xf32> -> tensor<?x200x129xf32> {
  ^bb0(%acc: f32, %fi: f32):
    %s = arith.addf %acc, %fi : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x200x129xf32>
}

// -----

// Split K stays 2-D: a batched product is refused (the configuration step
// never asks for it).
#splitk = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64, split_k = 4>
func.func @bmm_split_k(%x: tensor<2x128x8192xf32>, %w: tensor<2x128x8192xf32>) -> tensor<2x128x128xf32> {
  // expected-error @+1 {{cannot split K (split_k = 4): split K needs the 'wgmma_tma' strategy, a 2-D product and no group norm}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] {config = #splitk}
         : tensor<2x128x8192xf32>, tensor<2x128x8192xf32> -> tensor<2x128x128xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<2x128x128xf32>
}

// -----

// The cp.async wgmma kernel stays 2-D.
#wgmma = #fuser.config<strategy = "wgmma", block = [256, 1, 1], tile = [128, 128, 32, 16, 128, 4], min_blocks_per_sm = 1, precision = "tf32">
func.func @bmm_wgmma(%x: tensor<2x128x64xf32>, %w: tensor<2x128x64xf32>) -> tensor<2x128x128xf32> {
  // expected-error @+1 {{a batched matmul needs the 'mma', 'wgmma_tma' or 'ffma' strategy}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] {config = #wgmma}
         : tensor<2x128x64xf32>, tensor<2x128x64xf32> -> tensor<2x128x128xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<2x128x128xf32>
}
