// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

// split_k = 4 on the 3xtf32 wgmma_tma kernel: two kernels. The GEMM kernel
// takes no epilogue inputs and writes raw fp32 sums into a [4, M, N]
// intermediate, one (tile, slice) pair per block, at most max_grid blocks
// looping over them; the reduction kernel adds the 4 slices in order (in
// f64) and applies the epilogue (bias, tanh) into the result.
#split = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64, split_k = 4>

// CHECK-LABEL: func.func @linear
// CHECK: %[[OUT:.+]] = memref.alloc(%[[M:.+]]) {alignment = 64 : i64} : memref<?x300xf32>
// CHECK: %[[PART:.+]] = memref.alloc(%[[M]]) {alignment = 64 : i64} : memref<4x?x300xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[PART]]
// CHECK: %[[PAIRS:.+]] = arith.muli %{{.+}}, %c4 : index
// CHECK: %[[GRID:.+]] = arith.minui %[[PAIRS]], %c132 : index
// CHECK: gpu.launch_func{{ +}}@fuser_kernels::@linear_matmul blocks in (%[[GRID]], %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197704_i32 args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : !llvm.ptr, %{{.+}} : !llvm.ptr)
// CHECK: memref.extract_aligned_pointer_as_index %[[PART]]
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[ELEMS:.+]] = arith.muli %[[M]], %c300 : index
// CHECK: %[[BLOCKS:.+]] = arith.ceildivui %[[ELEMS]], %c256 : index
// CHECK: gpu.launch_func{{ +}}@fuser_kernels::@linear_matmul_reduce blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%c256, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: bufferization.to_tensor %[[OUT]]
// CHECK-LABEL: gpu.func @linear_matmul(
// CHECK-SAME: %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %[[C:.+]]: !llvm.ptr<1>, %[[CM:.+]]: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %[[TILES:.+]]: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// Slices of ceil(K tiles / 4), counted after setmaxnreg: K is static, so
// its tiles are a constant; M is dynamic, so the tiles are the host's
// parameter (tiles per batch). The consumers' loop over (tile, slice) pairs carries the
// block's k iterations so far.
// CHECK: nvvm.setmaxregister increase 224
// CHECK: %[[KTILES:.+]] = arith.ceildivui %c4096_i64, %c32_i64{{[_0-9]*}} : i64
// CHECK: %[[SLICE_TILES:.+]] = arith.ceildivui %[[KTILES]], %c4_i64{{[_0-9]*}} : i64
// CHECK: %[[PAIRS:.+]] = arith.muli %[[TILES]], %c4_i64{{[_0-9]*}} : i64
// CHECK: scf.for %[[PAIR:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[KDONE:.+]] = %c0_i64{{[_0-9]*}}) -> (i64)
// CHECK: %[[SLICE:.+]] = arith.divui %[[PAIR]], %{{.+}} : i64
// CHECK: %[[KFIRST:.+]] = arith.muli %[[SLICE]], %[[SLICE_TILES]] : i64
// CHECK: %[[LEFT:.+]] = arith.minui %[[SLICE_TILES]], %{{.+}} : i64
// CHECK: %[[COUNT:.+]] = arith.select %{{.+}}, %[[LEFT]], %c0_i64{{[_0-9]*}} : i64
// CHECK: scf.for %{{.+}} = %c0_i64{{[_0-9]*}} to %[[COUNT]] step %c2_i64
// CHECK-COUNT-12: nvvm.wgmma.mma_async
// Raw sums, no epilogue: slice s of the intermediate starts s * M * N in.
// CHECK: %[[MN:.+]] = arith.muli %[[CM]], %c300_i64 : i64
// CHECK: %[[FIRST:.+]] = arith.muli %[[SLICE]], %[[MN]] : i64
// CHECK: %[[BASE:.+]] = llvm.getelementptr inbounds %[[C]][%[[FIRST]]]
// CHECK-NOT: math.tanh
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: math.tanh
// CHECK: %[[NEXT:.+]] = arith.addi %[[KDONE]], %[[COUNT]] : i64
// CHECK: scf.yield %[[NEXT]] : i64
// The producer copies K tile kFirst + kt.
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: %[[PSLICE_TILES:.+]] = arith.ceildivui %{{.+}}, %c4_i64{{[_0-9]*}} : i64
// CHECK: scf.for %[[PPAIR:.+]] = %{{.+}} iter_args(%{{.+}} = %c0_i64{{[_0-9]*}}) -> (i64)
// CHECK: %[[PSLICE:.+]] = arith.divui %[[PPAIR]], %{{.+}} : i64
// CHECK: %[[PFIRST:.+]] = arith.muli %[[PSLICE]], %[[PSLICE_TILES]] : i64
// CHECK: scf.for %[[KT:.+]] = %c0_i64{{[_0-9]*}} to %{{.+}} step %c1_i64
// CHECK: %[[KTILE:.+]] = arith.addi %[[PFIRST]], %[[KT]] : i64
// CHECK: arith.muli %[[KTILE]], %c32_i64{{[_0-9]*}} : i64
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @linear_matmul_reduce(
// CHECK-SAME: %[[P:.+]]: !llvm.ptr<1>, %[[BIAS:.+]]: !llvm.ptr<1>, %[[Y:.+]]: !llvm.ptr<1>, %[[RM:.+]]: i64, %[[RN:.+]]: i64)
// CHECK: %[[TOTAL:.+]] = arith.muli %[[RM]], %[[RN]] : i64
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %[[TOTAL]] step
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: %[[S0:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK: %[[S1:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK: %[[A1:.+]] = arith.addf %[[S0]], %[[S1]] : f64
// CHECK: %[[S2:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK: %[[A2:.+]] = arith.addf %[[A1]], %[[S2]] : f64
// CHECK: %[[S3:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK: %[[A3:.+]] = arith.addf %[[A2]], %[[S3]] : f64
// CHECK: %[[SUM:.+]] = arith.truncf %[[A3]] : f64 to f32
// CHECK: %[[COL:.+]] = arith.remui %[[I]], %[[RN]] : i64
// CHECK: %[[BP:.+]] = llvm.getelementptr inbounds %[[BIAS]][%[[COL]]]
// CHECK: %[[B:.+]] = llvm.load %[[BP]]
// CHECK: %[[T:.+]] = arith.addf %[[SUM]], %[[B]] : f32
// CHECK: %[[R:.+]] = math.tanh %[[T]] : f32
// CHECK: %[[YP:.+]] = llvm.getelementptr inbounds %[[Y]][%[[I]]]
// CHECK: llvm.store %[[R]], %[[YP]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @linear(%x: tensor<?x4096xf32>, %w: tensor<300x4096xf32>, %b: tensor<300xf32>) -> tensor<?x300xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<300xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #split}
         : tensor<?x4096xf32>, tensor<300x4096xf32> -> tensor<?x300xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    %t = math.tanh %s : f32
    fuser.yield %t : f32
  }
  return %y : tensor<?x300xf32>
}

// -----

// bf16 operands and result: the partial sums stay fp32; the reduction
// kernel rounds the sum to bf16 before the epilogue, as the GEMM kernels
// do.
#bf16 = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], max_grid = 132, min_blocks_per_sm = 1, precision = "bf16", split_k = 2>

// CHECK-LABEL: func.func @half
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x64x512xf32>
// CHECK-LABEL: gpu.func @half_matmul_reduce(
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
func.func @half(%x: tensor<64x8192xbf16>, %w: tensor<512x8192xbf16>) -> tensor<64x512xbf16> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] {config = #bf16}
         : tensor<64x8192xbf16>, tensor<512x8192xbf16> -> tensor<64x512xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %y : tensor<64x512xbf16>
}

// -----

// A group norm's statistics need each row's whole sums in the GEMM kernel.
#gn = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64, split_k = 4>

func.func @group_norm(%x: tensor<256x8192xf32>, %w: tensor<256x8192xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{'fuser.matmul' op wgmma_tma tile [128, 128, 32, 16, 128, 3] cannot split K (split_k = 4): split K needs the 'wgmma_tma' strategy, a 2-D product and no group norm (its statistics need whole sums)}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps []
         group_norm(size = 16, eps = 1.0e-05) {config = #gn}
         : tensor<256x8192xf32>, tensor<256x8192xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<256x256xf32>
}
