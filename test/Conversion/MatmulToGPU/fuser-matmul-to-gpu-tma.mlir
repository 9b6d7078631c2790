// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

// The TMA-fed, warp-specialized wgmma kernel (strategy "wgmma_tma") with the
// config -fuser-configure-kernels gives a bf16 nn.Linear on sm_90a: two
// consumer warpgroups of 64 x 256 outputs and one producer warpgroup
// (3 x 128 = 384 threads), k tiles of 64 bf16 (one 128-byte swizzled row)
// in 4 stages. Dynamic shared memory: 4 stages x (128 + 256 rows) x 128
// bytes + 1024 bytes of alignment slack + 4 x 2 mbarriers of 8 bytes
// = 197696 bytes.
#w2 = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], min_blocks_per_sm = 1, precision = "bf16">

// Host code: one tensor map per operand, [BM, BK] boxes of A and [BN, BK]
// boxes of B with the 128-byte swizzle, passed after (A, B, bias, C, M, N, K)
// and the tile counts the host computes: K tiles, M tiles, tiles per batch
// and tiles (parameters cost the kernel no registers).
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x256xbf16>, %[[W:[^:]+]]: tensor<512x256xbf16>,
// CHECK: %[[DIM:.+]] = tensor.dim %[[X]], %c0
// CHECK: %[[MT:[0-9]+]] = arith.ceildivui %[[DIM]], %c128 : index
// CHECK: %[[NT:[0-9]+]] = arith.ceildivui %c512{{.*}}, %c256{{.*}} : index
// CHECK: %[[TILES:[0-9]+]] = arith.muli %[[MT]], %[[NT]] : index
// CHECK: %[[KT:[0-9]+]] = arith.ceildivui %c256{{.*}}, %c64 : index
// CHECK: %[[KT64:[0-9]+]] = arith.index_castui %[[KT]] : index to i64
// CHECK: %[[MT64:[0-9]+]] = arith.index_castui %[[MT]] : index to i64
// CHECK: %[[BT64:[0-9]+]] = arith.index_castui %[[TILES]] : index to i64
// CHECK: %[[T64:[0-9]+]] = arith.index_castui %[[TILES]] : index to i64
// CHECK: %[[XB:[0-9]+]] = bufferization.to_buffer %[[X]] read_only : tensor<?x256xbf16> to memref<?x256xbf16>{{[[:space:]]+}}%[[MAPA:[0-9]+]] = fuser.tensor_map %[[XB]] box [128, 64] swizzle 128 : memref<?x256xbf16> -> !llvm.ptr
// CHECK-NEXT: %[[WB:[0-9]+]] = bufferization.to_buffer %[[W]] read_only : tensor<512x256xbf16> to memref<512x256xbf16>
// CHECK-NEXT: %[[MAPB:[0-9]+]] = fuser.tensor_map %[[WB]] box [256, 64] swizzle 128 : memref<512x256xbf16> -> !llvm.ptr
// CHECK: gpu.launch_func @fuser_kernels::@linear_matmul blocks in ({{[^)]+}}) threads in (%c384{{[^,]*}}, %c1{{[^,]*}}, %c1{{[^)]*}}) dynamic_shared_memory_size %c197696_i32
// CHECK-SAME: args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64, %[[KT64]] : i64, %[[MT64]] : i64, %[[BT64]] : i64, %[[T64]] : i64, %[[MAPA]] : !llvm.ptr, %[[MAPB]] : !llvm.ptr)
//
// The kernel: the maps are the two trailing generic pointers, listed for
// -fuser-lower-tensor-map-params.
// CHECK-LABEL: gpu.func @linear_matmul
// CHECK-SAME: (%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %[[KMAPA:[^:]+]]: !llvm.ptr, %[[KMAPB:[^:]+]]: !llvm.ptr)
// CHECK-SAME: kernel attributes {fuser.tensor_map_args = array<i64: 11, 12>, known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK: gpu.dynamic_shared_memory
// Thread 0 initializes a "full" (1 arrival: the producer's expect_tx) and
// an "empty" mbarrier (8 arrivals: one per consumer warp) per stage.
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c8_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c8_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c8_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c8_i32{{[_0-9]*}} : !llvm.ptr<3>, i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// The consumer warpgroups (threads 0..255) take 232 registers each, wait
// for a full stage, run BK / 16 = 4 wgmmas on it, and (lane 0 of each
// warp) release the previous k tile's stage once its wgmmas are done.
// CHECK: arith.cmpi ult, %{{.+}}, %c256_i64
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// CHECK: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue, 8 of a thread's 32 column pairs at a time: the batch's bias
// loads first (once for both of the thread's rows), so that no store comes
// between them, then the 2 x 8 bias adds and stores of C.
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: llvm.load %{{.+}} -> vector<2xf32>
// CHECK-COUNT-16: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store %{{.+}} : vector<2xf32>
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// The producer warpgroup gives registers back; one thread of it waits for
// an empty stage, expects the 128 x 128 + 256 x 128 = 49152 bytes of the
// two boxes on the full mbarrier and issues the two tensor copies.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:[^,]+]], %c49152_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[KMAPA]], %[[FULL]], box[%{{.+}}, %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[KMAPB]], %[[FULL]], box[%{{.+}}, %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: gpu.return
func.func @linear(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<512xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #w2}
         : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// A bf16 result with N a multiple of 8: the results leave through shared
// memory. Behind the stages and their mbarriers, from the next 128 bytes
// (197760), each consumer warpgroup stages 32 rows of 256 bf16 + 16 bytes
// (528 bytes, conflict-free fragment stores): 197760 + 2 x 32 x 528 =
// 231552 bytes. Per round of 32 rows the
// warpgroup waits until its earlier copies have read the staged rows,
// writes the round's results there between two barriers of its 128 threads
// (fenced for the async proxy), and its first 32 threads each start one
// bulk copy of a row, clipped to M and N. Before the block exits, every
// copy is done.
#w2 = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], min_blocks_per_sm = 1, precision = "bf16">

// CHECK-LABEL: func.func @bf16_result
// CHECK: gpu.launch_func @fuser_kernels::@bf16_result_matmul {{.+}} dynamic_shared_memory_size %c231552_i32
// CHECK-LABEL: gpu.func @bf16_result_matmul
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: arith.minui %c256_i64{{[_0-9]*}}, %{{.+}} : i64
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %[[GROUP:[0-9]+]] number_of_threads = %c128_i32
// N = 512 is a multiple of the tile's 256 columns: the bias is loaded with
// no column check, only whether N is even (aligned pairs).
// CHECK-NOT: arith.cmpi ule
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
// CHECK-NOT: arith.cmpi ule
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store %{{.+}} !llvm.ptr<1>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %[[GROUP]] number_of_threads = %c128_i32
// CHECK: arith.cmpi ult, %{{.+}}, %c32_i64
// CHECK: scf.if
// CHECK: %[[ROWOFF:.+]] = arith.muli %{{.+}}, %c528_i64
// CHECK: nvvm.cp.async.bulk.global.shared.cta %{{.+}}, %{{.+}}, %{{.+}} : <1>, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.cp.async.bulk.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK: nvvm.setmaxregister decrease 40
func.func @bf16_result(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<512xbf16>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #w2}
         : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xbf16> {
  ^bb0(%acc: bf16, %bias: bf16):
    %s = arith.addf %acc, %bias : bf16
    fuser.yield %s : bf16
  }
  return %y : tensor<?x512xbf16>
}

// -----

// N = 520 is no multiple of the tile's 256 columns: the last tile's
// columns past N load 0 (each bias pair checks col + 2 <= N).
#w2 = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], min_blocks_per_sm = 1, precision = "bf16">

// CHECK-LABEL: gpu.func @bf16_result_ragged_n_matmul
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: arith.cmpi ule, %{{.+}}, %c520_i64
// CHECK: scf.if %{{.+}} -> (vector<2xbf16>)
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
func.func @bf16_result_ragged_n(%x: tensor<?x256xbf16>, %w: tensor<520x256xbf16>, %b: tensor<520xbf16>) -> tensor<?x520xbf16> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<520xbf16>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #w2}
         : tensor<?x256xbf16>, tensor<520x256xbf16> -> tensor<?x520xbf16> {
  ^bb0(%acc: bf16, %bias: bf16):
    %s = arith.addf %acc, %bias : bf16
    fuser.yield %s : bf16
  }
  return %y : tensor<?x520xbf16>
}

// -----

// N = 500 rows of bf16 are 1000 bytes, no multiple of 16: stored from
// registers, no staging.
#w2 = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], min_blocks_per_sm = 1, precision = "bf16">

// CHECK-LABEL: func.func @bf16_result_odd_n
// CHECK: dynamic_shared_memory_size %c197696_i32
// CHECK-LABEL: gpu.func @bf16_result_odd_n_matmul
// CHECK-NOT: nvvm.cp.async.bulk.global.shared.cta
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.global.shared.cta
// CHECK: gpu.return
func.func @bf16_result_odd_n(%x: tensor<?x256xbf16>, %w: tensor<500x256xbf16>) -> tensor<?x500xbf16> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] {config = #w2}
         : tensor<?x256xbf16>, tensor<500x256xbf16> -> tensor<?x500xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %y : tensor<?x500xbf16>
}

// -----

// tf32 with a narrow tile, K = 96 (not a multiple of BK: the last box reads
// zeros past K) and dynamic M and N: two consumer warpgroups of 64 x 32
// (384 threads with the producer), BK = 32 floats = 128 bytes, four m64n32k8
// wgmmas per stage. 3 x (128 + 32) x 128 + 1024 + 3 x 16 = 62512 bytes of
// shared memory; 8 arrivals (consumer warps) on each "empty" mbarrier.
// CHECK-LABEL: func.func @tf32
// CHECK: fuser.tensor_map %{{.+}} box [128, 32] swizzle 128 : memref<?x96xf32> -> !llvm.ptr
// CHECK: fuser.tensor_map %{{.+}} box [32, 32] swizzle 128 : memref<?x96xf32> -> !llvm.ptr
// CHECK: gpu.launch_func @fuser_kernels::@tf32_matmul {{.+}} threads in (%c384{{[^,]*}}, {{.+}}) dynamic_shared_memory_size %c62512_i32
// CHECK-LABEL: gpu.func @tf32_matmul
// CHECK-SAME: %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr)
// CHECK-SAME: kernel attributes {fuser.tensor_map_args = array<i64: 10, 11>, known_block_size = array<i32: 384, 1, 1>}
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c8_i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: arith.cmpi ult, %{{.+}}, %c256_i64
// CHECK: nvvm.setmaxregister increase 232
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 32, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c20480_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
func.func @tf32(%a: tensor<?x96xf32>, %b: tensor<?x96xf32>) -> tensor<?x?xf32> {
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 32, 32, 16, 32, 3], precision = "tf32">}
         : tensor<?x96xf32>, tensor<?x96xf32> -> tensor<?x?xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x?xf32>
}

// -----

// The tensor maps need a static K with 16-byte rows.
func.func @dynamic_k(%a: tensor<?x?xbf16>, %b: tensor<512x?xbf16>) -> tensor<?x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 256, 64, 16, 256, 4] needs a static, non-zero K whose rows are a multiple of 16 bytes apart for its tensor maps, got K = ?}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], precision = "bf16">}
         : tensor<?x?xbf16>, tensor<512x?xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

func.func @odd_pitch(%a: tensor<?x10xbf16>, %b: tensor<512x10xbf16>) -> tensor<?x512xf32> {
  // expected-error @+1 {{got K = 10}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], precision = "bf16">}
         : tensor<?x10xbf16>, tensor<512x10xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// BK must span one 128-byte swizzled row: 32 bf16 are 64 bytes.
func.func @half_row(%a: tensor<?x256xbf16>, %b: tensor<512x256xbf16>) -> tensor<?x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 256, 32, 16, 256, 4] unsupported: wgmma needs tf32, bf16 or f16 (wgmma_tma: or 3xtf32, tf32_2xbf16), WM = 16, WN = BN (at most 256, a multiple of 8), BM a multiple of 64, BK of 128 bytes and at least 3 stages}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 32, 16, 256, 4], precision = "bf16">}
         : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// B as K x N is not K-major: bf16 wgmma_tma does not transpose it.
func.func @nn(%a: tensor<?x256xbf16>, %b: tensor<256x512xbf16>) -> tensor<?x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 256, 64, 16, 256, 4] unsupported: wgmma reads K-major B (transpose_b); an N-major B needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma, BN a multiple of 32 and static N rows a multiple of 16 bytes apart (batched: K a multiple of BK)}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 256, 64, 16, 256, 4], precision = "bf16">}
         : tensor<?x256xbf16>, tensor<256x512xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// The block counts the producer warpgroup.
func.func @no_producer(%a: tensor<?x256xbf16>, %b: tensor<512x256xbf16>) -> tensor<?x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 256, 64, 16, 256, 4] needs a block of [384, 1, 1] (one warp per 16 x 256 outputs, and a producer warpgroup)}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [256, 1, 1], tile = [128, 256, 64, 16, 256, 4], precision = "bf16">}
         : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// A TMA box has at most 256 rows.
func.func @tall_box(%a: tensor<?x256xbf16>, %b: tensor<32x256xbf16>) -> tensor<?x32xf32> {
  // expected-error @+1 {{wgmma_tma tile [320, 32, 64, 16, 32, 3] unsupported: wgmma_tma needs BM = 128 (two consumer warpgroups)}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [768, 1, 1], tile = [320, 32, 64, 16, 32, 3], precision = "bf16">}
         : tensor<?x256xbf16>, tensor<32x256xbf16> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// wgmma_tma holds a group norm only beside 3xtf32's promoted sums.
func.func @group_norm(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{wgmma_tma tile [64, 32, 32, 16, 32, 3] holds a group norm only in a split precision (3xtf32, tf32_2xbf16); use the 'mma' strategy}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps [] group_norm(size = 16, eps = 1.0e-05)
         {config = #fuser.config<strategy = "wgmma_tma", block = [256, 1, 1], tile = [64, 32, 32, 16, 32, 3], precision = "tf32">}
         : tensor<?x64xf32>, tensor<32x64xf32> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// cluster_m = 2: blocks in pairs along M (compile-time cluster dims), the M
// tiles counted in whole clusters, B's box half a B tile ([128, 64]: each
// block copies its half into both by multicast). The empty mbarriers count
// both blocks' 8 consumer warps; a cluster barrier follows their init and
// precedes the exit; each warp releases a stage to both blocks' producers
// (mapa to rank 0 and 1); a tile past M skips its epilogue.
// CHECK-LABEL: func.func @clustered
// CHECK: %[[MT:[0-9]+]] = arith.ceildivui %{{.+}}, %c256{{[_0-9]*}} : index
// CHECK: arith.muli %[[MT]], %c2 : index
// CHECK: fuser.tensor_map %{{.+}} box [128, 64] swizzle 128 : memref<?x256xbf16> -> !llvm.ptr
// CHECK: fuser.tensor_map %{{.+}} box [128, 64] swizzle 128 : memref<512x256xbf16> -> !llvm.ptr
// CHECK-LABEL: gpu.func @clustered_matmul
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.mbarrier.init %{{.+}}, %c16_i32
// CHECK: gpu.barrier
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.setmaxregister increase 232
// CHECK: %[[R0:.+]] = nvvm.mapa %{{.+}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[R0]] : !llvm.ptr<7>
// CHECK: %[[R1:.+]] = nvvm.mapa %{{.+}}, %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[R1]] : !llvm.ptr<7>
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] multicast_mask = %c3_i16 : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
func.func @clustered(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<?x512xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 64, 16, 256, 4], precision = "bf16", cluster_m = 2>}
         : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// A batched product's tiles are not paired.
func.func @clustered_batched(%a: tensor<4x256x256xbf16>, %b: tensor<4x512x256xbf16>) -> tensor<4x256x512xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 256, 64, 16, 256, 4] cannot run in clusters of 2 blocks: cluster_m needs the 'wgmma_tma' strategy, a 2-D product, a max_grid of whole clusters and B tiles that split into a share per block}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 64, 16, 256, 4], precision = "bf16", cluster_m = 2>}
         : tensor<4x256x256xbf16>, tensor<4x512x256xbf16> -> tensor<4x256x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x256x512xf32>
}

// -----

// group_m = 8: the blocks walk bands of 8 M tiles, N tile after N tile
// within a band: band = tile / (8 * N tiles), the band's M tiles (at most
// 8, fewer in the last band), then M index = first + in-band % rows and N
// index = in-band / rows. Without group_m the decode is tile % M tiles,
// tile / M tiles (the cases above).
// CHECK-LABEL: gpu.func @banded_matmul
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for %[[TILE:[^ ]+]] =
// CHECK: %[[NT:.+]] = arith.ceildivui %c512_i64, %c256_i64{{[_0-9]*}} : i64
// CHECK: %[[PER:.+]] = arith.muli %c8_i64{{[_0-9]*}}, %[[NT]] : i64
// CHECK: %[[BAND:.+]] = arith.divui %[[TILE]], %[[PER]] : i64
// CHECK: %[[FIRST:.+]] = arith.muli %[[BAND]], %c8_i64{{[_0-9]*}} : i64
// CHECK: %[[LEFT:.+]] = arith.subi %{{.+}}, %[[FIRST]] : i64
// CHECK: %[[ROWS:.+]] = arith.minui %[[LEFT]], %c8_i64{{[_0-9]*}} : i64
// CHECK: arith.remui %{{.+}}, %[[ROWS]] : i64
// CHECK: arith.divui %{{.+}}, %[[ROWS]] : i64
func.func @banded(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<?x512xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 64, 16, 256, 4], precision = "bf16", group_m = 8>}
         : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}

// -----

// An N-major B in 128 x 96 tiles is three 32-column boxes: no equal share
// per block of a 2-block cluster (GemmStrategy.h's wgmmaTmaClusterError).
func.func @clustered_odd_boxes(%a: tensor<?x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<?x1024xf32> {
  // expected-error @+1 {{wgmma_tma tile [128, 96, 32, 16, 96, 4] cannot run in clusters of 2 blocks: cluster_m needs the 'wgmma_tma' strategy, a 2-D product, a max_grid of whole clusters and B tiles that split into a share per block}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 96, 32, 16, 96, 4], precision = "3xtf32", promote_every = 64, cluster_m = 2>}
         : tensor<?x1024xf32>, tensor<1024x1024xf32> -> tensor<?x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x1024xf32>
}
