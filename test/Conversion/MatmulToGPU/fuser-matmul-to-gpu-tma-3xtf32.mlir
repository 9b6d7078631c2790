// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

// 3xtf32 on the TMA-fed wgmma kernel, with the config -fuser-configure-kernels
// gives an f32 nn.Linear on sm_90a under precision=fp32: two consumer
// warpgroups of 64 x 128, 3 stages, each of 32 KiB copied (128 + 128 rows of
// 32 f32) and 32 KiB of lo parts. Dynamic shared memory: 3 x 65536 + 1024
// bytes of alignment slack + 3 x 3 mbarriers of 8 bytes, then from the next
// 128 bytes the staged output rows (2 warpgroups x 32 rows of 128 f32 + 16
// bytes): 197760 + 33792 = 231552 bytes.
#split = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>

// CHECK-LABEL: func.func @linear
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128
// CHECK: gpu.launch_func{{ +}}@fuser_kernels::@linear_matmul {{.+}} threads in (%c384{{[^,]*}}, %c1{{[^,]*}}, %c1{{[^)]*}}) dynamic_shared_memory_size %c231552_i32
// CHECK-LABEL: gpu.func @linear_matmul
// Per stage: full (the producer), empty (8 consumer warps), split (the 64
// splitter threads).
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}}
// CHECK: nvvm.mbarrier.init %{{.+}}, %c8_i32{{[_0-9]*}}
// CHECK: nvvm.mbarrier.init %{{.+}}, %c64_i32{{[_0-9]*}}
// Consumers: chunks of promote_every / BK = 2 k tiles; each k tile waits
// for its split barrier, then 3 x BK / 8 = 12 wgmmas: the small terms
// A·B_lo, A_lo·B into one set of tensor-core sums, A·B into another. A
// chunk's first k tile restarts the large sums (scale-d zero) and starts
// the small ones from the last promotion's rounding error (carried by the
// chunk loop beside the fp32 sums).
// CHECK: nvvm.setmaxregister increase 224
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c2_i64 iter_args(%[[SUMS:[^ ]+]] = %{{.+}}, %[[ERR:[^ ]+]] = %{{.+}})
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.+}}, %[[ERR]], <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-COUNT-7: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <zero>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-12: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// Promotion: wait for the chunk's wgmmas, release its last stage, add each
// large sum and its small sum (part; a non-finite small sum, such as an
// Inf operand's inf - inf lo part, dropped: |small| < Inf selects it or
// 0), that into the fp32 sums, and keep what that add lost: part - (new -
// old) (Fast2Sum); 64 sums, 2 subf each.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[INF:[^ ]+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[MAG:[^ ]+]] = math.absf %[[SMALL:[^ ]+]] : f32
// CHECK: %[[FINITE:[^ ]+]] = arith.cmpf olt, %[[MAG]], %[[INF]] : f32
// CHECK: %[[KEPT:[^ ]+]] = arith.select %[[FINITE]], %[[SMALL]], %{{.+}} : f32
// CHECK: %[[PART:[^ ]+]] = arith.addf %{{.+}}, %[[KEPT]] : f32
// CHECK: %[[OLD:[^ ]+]] = llvm.extractvalue %[[SUMS]][0]
// CHECK: %[[NEW:[^ ]+]] = arith.addf %[[OLD]], %[[PART]] : f32
// CHECK: %[[GROWTH:[^ ]+]] = arith.subf %[[NEW]], %[[OLD]] : f32
// CHECK: arith.subf %[[PART]], %[[GROWTH]] : f32
// CHECK-COUNT-126: arith.subf %{{.+}}, %{{.+}} : f32
// CHECK: scf.yield %{{.+}}, %{{.+}} : !llvm.struct
// CHECK: scf.yield
// The epilogue: the results with the bias added, staged in shared memory
// and written by bulk copies of whole rows (as in fuser-matmul-to-gpu-tma).
// CHECK: arith.addf %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// The producer: one thread's TMA copies expect the 32768 copied bytes.
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c32768_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The splitter (producer warps 1 and 2): lo = x - (x with its low 13
// mantissa bits cleared), plus half a tf32 unit (0x1000) on its bits so that
// wgmma's truncation rounds it, written 32768 bytes past x, four 16-byte
// chunks at a time; then the async-proxy fence and the split arrival.
// CHECK: arith.cmpi ult, %{{.+}}, %c64_i64
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: arith.andi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: arith.subf %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK: arith.addi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: %c32768_i64
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// CHECK: gpu.return
func.func @linear(%x: tensor<?x1024xf32>, %w: tensor<512x1024xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<512xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #split}
         : tensor<?x1024xf32>, tensor<512x1024xf32> -> tensor<?x512xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// A group norm (W3's 16-column groups) in the 3xtf32 kernel's epilogue:
// the group sums are quad shuffles.
// CHECK-LABEL: gpu.func @group_norm_matmul
// CHECK: gpu.shuffle xor
// CHECK: math.rsqrt
func.func @group_norm(%a: tensor<?x64xf32>, %b: tensor<256x64xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %a, %b transpose_b epilogue_maps [] group_norm(size = 16, eps = 1.0e-05)
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
         : tensor<?x64xf32>, tensor<256x64xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

func.func @promote_needs_split(%a: tensor<?x64xbf16>, %b: tensor<256x64xbf16>) -> tensor<?x256xf32> {
  // expected-error @+1 {{promote_every = 64 needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma and a multiple of BK}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], max_grid = 132, min_blocks_per_sm = 1, precision = "bf16", promote_every = 64>}
         : tensor<?x64xbf16>, tensor<256x64xbf16> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

func.func @promote_not_multiple_of_bk(%a: tensor<?x64xf32>, %b: tensor<256x64xf32>) -> tensor<?x256xf32> {
  // expected-error @+1 {{promote_every = 48 needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma and a multiple of BK}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 48>}
         : tensor<?x64xf32>, tensor<256x64xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

// Two accumulator sets of 64 x 256 would not fit the consumers' registers.
func.func @split_too_wide(%a: tensor<?x64xf32>, %b: tensor<256x64xf32>) -> tensor<?x256xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 256, 32, 16, 256, 3] unsupported: split precisions on wgmma_tma need BN <= 128 (three accumulator sets in registers)}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 32, 16, 256, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
         : tensor<?x64xf32>, tensor<256x64xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

// An N-major B (x @ W, W stored K x N): B's tensor map is a [K, N] view in
// [32, 32] boxes (32 k rows of 32 n columns, 128 bytes); the producer copies
// A and four boxes per k tile (the same 32768 bytes); the splitter splits
// A as above, then transposes each box in place into the K-major rows
// wgmma reads: a lane's 16 four-byte loads of one column, a warp sync,
// four 16-byte stores of one row and four of its lo parts, twice per box.
// The consumers are the K-major kernel's.
// CHECK-LABEL: func.func @x_times_w
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128 : memref<?x1024xf32>
// CHECK: fuser.tensor_map %{{.+}} box [32, 32] swizzle 128 : memref<1024x512xf32>
// CHECK-LABEL: gpu.func @x_times_w_matmul
// CHECK: nvvm.setmaxregister increase 224
// CHECK-COUNT-12: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c32768_i32
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// Each address is (box | the lane's bits) ^ a constant. Loads of phase p,
// step i: row k = 16 ((l / 16) ^ p) + i, chunk (n / 4) ^ (k % 8), so the
// constant is p * 2048 | i * 128 | (i % 8) * 16. Stores of row l: chunk
// (k / 4) ^ (l % 8), the constant (4 p + q) * 16, x then its lo part.
// CHECK: scf.for
// CHECK: arith.xori %[[LOAD:[^,]+]], %c0_i64
// CHECK: arith.xori %[[LOAD]], %c144_i64
// CHECK: arith.xori %[[LOAD]], %c1008_i64
// CHECK: arith.xori %[[LOAD]], %c1024_i64
// CHECK: arith.xori %[[LOAD]], %c2032_i64
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.store
// CHECK: nvvm.bar.warp.sync
// CHECK: arith.xori %[[STORE:[^,]+]], %c0_i64
// CHECK-COUNT-2: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: arith.xori %[[STORE]], %c16_i64
// CHECK: arith.xori %[[STORE]], %c48_i64
// CHECK-COUNT-2: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: arith.xori %[[LOAD]], %c2048_i64
// CHECK: arith.xori %[[LOAD]], %c2192_i64
// CHECK: arith.xori %[[LOAD]], %c4080_i64
// CHECK: nvvm.bar.warp.sync
// CHECK: arith.xori %[[STORE]], %c64_i64
// CHECK: arith.xori %[[STORE]], %c112_i64
// CHECK-COUNT-2: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
func.func @x_times_w(%x: tensor<?x1024xf32>, %w: tensor<1024x512xf32>) -> tensor<?x512xf32> {
  %y = fuser.matmul %x, %w epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
         : tensor<?x1024xf32>, tensor<1024x512xf32> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// A batched N-major B is viewed as its batches' K rows stacked: with K no
// multiple of BK, a k tile would read the next batch's rows.
func.func @batched_k_tail(%x: tensor<?x64x1000xf32>, %w: tensor<?x1000x512xf32>) -> tensor<?x64x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 128, 32, 16, 128, 3] unsupported: wgmma reads K-major B (transpose_b); an N-major B needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma, BN a multiple of 32 and static N rows a multiple of 16 bytes apart (batched: K a multiple of BK)}}
  %y = fuser.matmul %x, %w epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
         : tensor<?x64x1000xf32>, tensor<?x1000x512xf32> -> tensor<?x64x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x64x512xf32>
}

// -----

// The boxes are 32 columns wide: BN = 112 is not whole boxes.
func.func @box_remainder(%x: tensor<?x64xf32>, %w: tensor<64x512xf32>) -> tensor<?x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 112, 32, 16, 112, 3] unsupported: wgmma reads K-major B (transpose_b); an N-major B needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma, BN a multiple of 32}}
  %y = fuser.matmul %x, %w epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 112, 32, 16, 112, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
         : tensor<?x64xf32>, tensor<64x512xf32> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// BN = 32: one box per stage, which the last splitter warp (no A chunks)
// takes; the box loop starts past the end for the other two.
// CHECK-LABEL: gpu.func @one_box_matmul
// CHECK: nvvm.mbarrier.init %{{.+}}, %c96_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.cmpi ult, %{{.+}}, %c96_i64
// CHECK: %[[FIRST:.+]] = arith.subi %c2_i64{{[_0-9]*}}, %{{.+}} : i64
// CHECK: scf.for %{{.+}} = %[[FIRST]] to %c1_i64{{[_0-9]*}} step %c3_i64
func.func @one_box(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %y = fuser.matmul %x, %w epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 32, 32, 16, 32, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>}
         : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// A prologue (nn.Linear's masked gradient in dX = g . W): a third tensor
// map, y's [128, 32] boxes, lands where A's lo parts go, so each stage
// expects 48 KiB; the splitter computes the prologue on A's chunks (the
// mask per element), stores it over A, and its lo parts over y.
#split = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "3xtf32", promote_every = 64>

// CHECK-LABEL: func.func @masked_gradient
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128 : memref<?x512xf32>
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128 : memref<256x512xf32>
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128 : memref<?x512xf32>
// CHECK-LABEL: gpu.func @masked_gradient_matmul
// CHECK-SAME: fuser.tensor_map_args = array<i64: 10, 11, 12>
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.cmpf ogt
// CHECK: arith.select
func.func @masked_gradient(%dy: tensor<?x512xf32>, %y: tensor<?x512xf32>, %w: tensor<256x512xf32>) -> tensor<?x256xf32> {
  %r = fuser.matmul %dy, %w transpose_b prologue_inputs(%y : tensor<?x512xf32>) epilogue_maps [] {config = #split} : tensor<?x512xf32>, tensor<256x512xf32> -> tensor<?x256xf32> prologue {
  ^bb0(%g: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %out, %z : f32
    %v = arith.select %p, %g, %z : f32
    fuser.yield %v : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x256xf32>
}

// -----

// A prologue needs the splitter: tf32 reads A straight into the tensor cores.
#tf32 = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 32, 16, 256, 4], max_grid = 132, min_blocks_per_sm = 1, precision = "tf32">

func.func @prologue_needs_splitter(%a: tensor<?x64xf32>, %b: tensor<256x64xf32>) -> tensor<?x256xf32> {
  // expected-error @+1 {{has a prologue, which 'wgmma_tma' in 'tf32' does not read (3xtf32 on wgmma_tma does, with at most one prologue input of A's type); fuser-configure-kernels computes such a prologue in a kernel of its own}}
  %r = fuser.matmul %a, %b transpose_b epilogue_maps [] {config = #tf32} : tensor<?x64xf32>, tensor<256x64xf32> -> tensor<?x256xf32> prologue {
  ^bb0(%x: f32):
    %n = arith.negf %x : f32
    fuser.yield %n : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x256xf32>
}
