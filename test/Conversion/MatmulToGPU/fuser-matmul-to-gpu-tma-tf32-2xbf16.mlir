// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu | FileCheck %s

// tf32_2xbf16 on the TMA-fed wgmma kernel: 3xtf32's pipeline (stages, lo
// parts beside them, promotion) with the cross terms A·B_lo + A_lo·B as one
// bf16 product. The splitter writes, per 8 k of a row, A's bf16 hi parts
// then its lo parts, and B's lo parts then its hi parts, into the lo-part
// bytes; with a K-major B all three producer warps other than the copier
// split (96 arrivals), two pairs of chunks each in flight.
#split = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "tf32_2xbf16", promote_every = 64>

// CHECK-LABEL: gpu.func @linear_matmul
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}}
// CHECK: nvvm.mbarrier.init %{{.+}}, %c8_i32{{[_0-9]*}}
// CHECK: nvvm.mbarrier.init %{{.+}}, %c96_i32{{[_0-9]*}}
// Consumers: per k tile, BK / 8 = 4 bf16 wgmmas of K 16 on the lo-part
// bytes (the small sums), then 4 tf32 wgmmas on the copies (the large).
// CHECK: nvvm.setmaxregister increase 224
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c2_i64{{[_0-9]*}} iter_args(%[[SUMS:[^ ]+]] = %{{.+}}, %[[ERR:[^ ]+]] = %{{.+}})
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.+}}, %[[ERR]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// Promotion: a non-finite small sum (|small| is not below Inf; an Inf
// operand's lo part is inf - inf) is dropped before the large sum and it
// are added into the fp32 sums.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[MAG:[^ ]+]] = math.absf %[[SMALL:[^ ]+]] : f32
// CHECK: %[[FINITE:[^ ]+]] = arith.cmpf olt, %[[MAG]], %{{.+}} : f32
// CHECK: %[[KEPT:[^ ]+]] = arith.select %[[FINITE]], %[[SMALL]], %{{.+}} : f32
// CHECK: arith.addf %{{.+}}, %[[KEPT]] : f32
// The splitter: pairs sid, sid + 96, ... of the stage's 1024, loading k 0-3
// first (in odd rows the pair's second chunk: bit 7 of the offset, moved to
// bit 4); hi parts with their low 13 bits cleared, lo = x - hi, both packed
// to bf16 pairs (cvt.rn.bf16x2); A's pairs (the first 512) store the hi
// parts first.
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: arith.cmpi ult, %{{.+}}, %c96_i64{{[_0-9]*}}
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: scf.for %[[PAIR:[^ ]+]] = %{{.+}} to %c1024_i64{{[_0-9]*}} step %c192_i64{{[_0-9]*}}
// CHECK: arith.minui %{{.+}}, %c1023_i64{{[_0-9]*}}
// CHECK: arith.shrui %{{.+}}, %c3_i64{{[_0-9]*}}
// CHECK: arith.andi %{{.+}}, %c16_i64{{[_0-9]*}}
// CHECK-COUNT-2: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: arith.andi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: arith.subf %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK-COUNT-4: nvvm.convert.f32x2.to.bf16x2
// CHECK: arith.cmpi uge, %[[PAIR]], %c512_i64{{[_0-9]*}}
// CHECK-COUNT-2: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
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

// An N-major B: warps 1 and 2 split A's pairs (a pair per thread per 64,
// hi parts first), then all three transpose B's boxes and write each row's
// cross terms per 8 k: the lo parts, then the hi parts.
#nmajor = #fuser.config<strategy = "wgmma_tma", block = [384, 1, 1], tile = [128, 128, 32, 16, 128, 3], max_grid = 132, min_blocks_per_sm = 1, precision = "tf32_2xbf16", promote_every = 64>

// CHECK-LABEL: gpu.func @x_times_w_matmul
// CHECK: nvvm.mbarrier.init %{{.+}}, %c96_i32{{[_0-9]*}}
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: arith.cmpi ult, %{{.+}}, %c64_i64{{[_0-9]*}}
// CHECK: scf.if
// CHECK: scf.for %{{.+}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c2_i64{{[_0-9]*}}
// CHECK-COUNT-4: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-COUNT-4: nvvm.convert.f32x2.to.bf16x2
// CHECK-COUNT-2: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
func.func @x_times_w(%x: tensor<?x1024xf32>, %w: tensor<1024x512xf32>) -> tensor<?x512xf32> {
  %y = fuser.matmul %x, %w epilogue_maps [] {config = #nmajor}
         : tensor<?x1024xf32>, tensor<1024x512xf32> -> tensor<?x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x512xf32>
}
