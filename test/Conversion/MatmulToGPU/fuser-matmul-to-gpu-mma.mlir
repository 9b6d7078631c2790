// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

// The tensor-core kernel (strategy "mma"): a 32 x 64 block tile of two
// 32 x 32 warps, k tiles of 16 in 3 cp.async stages of dynamic shared memory.
#tf32 = #fuser.config<strategy = "mma", block = [64, 1, 1], tile = [32, 64, 16, 32, 32, 3], precision = "tf32">

// nn.Linear with a bias in tf32: host code and the kernel's skeleton.
// CHECK-LABEL: func.func @linear
// CHECK: %[[GX:.+]] = arith.ceildivui %{{.+}}, %c32
// CHECK: %[[GY:.+]] = arith.ceildivui %c48{{.*}}, %c64
// 3 stages x (32 + 64 rows) x (16 + 4) floats = 23040 bytes.
// CHECK: gpu.launch_func @fuser_kernels::@linear_matmul blocks in (%[[GX]], %[[GY]], %{{[^)]+}}) threads in (%c64{{[^)]*}}) dynamic_shared_memory_size %c23040_i32
// CHECK: gpu.func @linear_matmul(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// CHECK: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// Prologue: 16-byte copies whose source size clips the matrix edges, or
// predicated loads when K is no multiple of 4; one group per stage.
// CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.commit.group
// Each k tile: wait for it, barrier, issue the copy STAGES - 1 tiles ahead.
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: gpu.barrier
// CHECK: nvvm.cp.async.commit.group
// Each k step: cvt.rna to tf32, then (32 / 16) x (32 / 8) = 8 mma.syncs.
// CHECK: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-COUNT-8: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: scf.yield
// The epilogue on pairs of accumulators, 64-bit stores when in bounds.
// CHECK: arith.addf %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @linear(%x: tensor<?x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<48xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #tf32}
         : tensor<?x32xf32>, tensor<48x32xf32> -> tensor<?x48xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x48xf32>
}

// -----

// 3xtf32: the rounding error of each operand as a second tf32, three
// mma.syncs per piece (small terms first).
// CHECK-LABEL: gpu.func @split_matmul
// CHECK: scf.for
// CHECK: %[[HI:.+]] = nvvm.convert.float.to.tf32 %[[X:[^ ]+]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: %[[HF:.+]] = llvm.bitcast %[[HI]] : i32 to f32
// CHECK: %[[LO:.+]] = arith.subf %[[X]], %[[HF]] : f32
// An Inf's lo part (inf - inf) becomes 0.
// CHECK: %[[ORD:.+]] = arith.cmpf ord, %[[LO]], %[[LO]] : f32
// CHECK: %[[KEPT:.+]] = arith.select %[[ORD]], %[[LO]], %{{.+}} : f32
// CHECK: nvvm.convert.float.to.tf32 %[[KEPT]] {rnd = #nvvm.fp_rnd_mode<rna>}
// The cross terms take Inf and NaN hi parts as 0 (exponent all ones).
// CHECK: %[[EXP:.+]] = arith.andi %{{.+}}, %c2139095040_i32{{[_0-9]*}} : i32
// CHECK: %[[FIN:.+]] = arith.cmpi ne, %[[EXP]], %c2139095040_i32{{[_0-9]*}} : i32
// CHECK: arith.select %[[FIN]], %{{.+}}, %c0_i32{{[_0-9]*}} : i32
// CHECK-COUNT-3: nvvm.mma.sync
func.func @split(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 32, 8, 16, 32, 2], precision = "3xtf32">}
         : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x?xf32>
}

// -----

// bf16 operands and result: m16n8k16 on 32-bit pairs; the epilogue runs in
// bf16 on the rounded accumulators; B as K x N is read as two 16-bit
// elements per register.
// CHECK-LABEL: gpu.func @bf16_matmul
// CHECK: scf.for
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr<3> -> i16
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: scf.yield
// CHECK: arith.truncf %{{.+}} : vector<2xf32> to vector<2xbf16>
// CHECK: arith.mulf %{{.+}}, %{{.+}} : vector<2xbf16>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
func.func @bf16(%a: tensor<?x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<?x128xbf16> {
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [256, 1, 1], tile = [128, 128, 32, 64, 32, 3], precision = "bf16">}
         : tensor<?x64xbf16>, tensor<64x128xbf16> -> tensor<?x128xbf16> {
  ^bb0(%acc: bf16):
    %two = arith.constant 2.0 : bf16
    %d = arith.mulf %acc, %two : bf16
    fuser.yield %d : bf16
  }
  return %y : tensor<?x128xbf16>
}

// -----

// Precision and element types must agree.
func.func @tf32_on_bf16(%a: tensor<4x16xbf16>, %b: tensor<4x16xbf16>) -> tensor<4x4xf32> {
  // expected-error @+1 {{precision 'tf32' needs 'f32' operands, got 'bf16' x 'bf16' (tf32, 3xtf32, tf32_2xbf16 and fp64 take f32; bf16 and f16 take their own type)}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 8, 16, 16, 8, 2], precision = "tf32">}
         : tensor<4x16xbf16>, tensor<4x16xbf16> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @bf16_on_f32(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{precision 'bf16' needs 'bf16' operands, got 'f32' x 'f32'}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 8, 16, 16, 8, 2], precision = "bf16">}
         : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @fp32_mma(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{precision 'fp32' has no tensor-core ('mma') kernel; use tf32, 3xtf32, tf32_2xbf16 (wgmma_tma), fp64, bf16 or f16}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 8, 8, 16, 8, 2]>}
         : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @tf32_2xbf16_on_mma(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{mma tile [16, 8, 8, 16, 8, 2] unsupported: precision tf32_2xbf16 runs on wgmma_tma only}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 8, 8, 16, 8, 2], precision = "tf32_2xbf16">}
         : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @bf16_on_ffma(%a: tensor<4x16xbf16>, %b: tensor<4x16xbf16>) -> tensor<4x4xbf16> {
  // expected-error @+1 {{precision 'bf16' needs the tensor-core strategy 'mma'; the 'ffma' kernel computes in fp32}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8], precision = "bf16">}
         : tensor<4x16xbf16>, tensor<4x16xbf16> -> tensor<4x4xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %y : tensor<4x4xbf16>
}

// -----

func.func @bad_tile(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{mma tile [64, 64, 12, 32, 32, 3] unsupported: WM must be a multiple of 16 and WN of 8, dividing BM and BN; BK a multiple of 8; at least 2 stages}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [64, 64, 12, 32, 32, 3], precision = "tf32">}
         : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @bad_block(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{mma tile [64, 64, 16, 32, 32, 3] needs a block of [128, 1, 1] (one warp per 32 x 32 outputs)}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [64, 1, 1], tile = [64, 64, 16, 32, 32, 3], precision = "tf32">}
         : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @too_much_shared(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{mma tile [256, 256, 64, 64, 64, 3] needs 417792 bytes of shared memory; a block may have 232448}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [512, 1, 1], tile = [256, 256, 64, 64, 64, 3], precision = "tf32">}
         : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

// A group-norm epilogue needs each group as whole 8-column pieces of one
// warp's row: groups of 4 do not fit.
func.func @group_norm(%a: tensor<4x16xf32>, %b: tensor<32x16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{mma tile [16, 32, 8, 16, 32, 2] cannot hold group_norm(size = 4): a group must be a power of two of whole 8-column pieces of a warp's 32 columns}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps [] group_norm(size = 4, eps = 1.0e-05)
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 32, 8, 16, 32, 2], precision = "fp64">}
         : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x32xf32>
}

// -----

// fp64 (the default fp32 kernel on sm_90a): f32 fragments widened exactly,
// m16n8k8 f64 mma.syncs (an intrinsic call: nvvm.mma.sync has only m8n8k4
// for f64), f64 accumulators rounded once to f32 before the epilogue. With
// both operands K-major, each fragment pair (k t, k t+4) is one 64-bit load
// from stage columns 2t, 2t+1; rows are padded by 8 floats.
// CHECK-LABEL: func.func @fp64
// 2 stages x (16 + 32 rows) x (16 + 8) floats = 9216 bytes.
// CHECK: gpu.launch_func {{.+}} dynamic_shared_memory_size %c9216_i32
// CHECK-LABEL: gpu.func @fp64_matmul
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f64
// CHECK: scf.for {{.+}} iter_args(%{{.+}} = %[[ZERO]],
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: arith.extf %{{.+}} : f32 to f64
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k8.row.col.f64"({{.+}}) : (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) -> !llvm.struct<(f64, f64, f64, f64)>
// CHECK: scf.yield
// CHECK: arith.truncf %{{.+}} : vector<2xf64> to vector<2xf32>
// CHECK: arith.addf %{{.+}}, %{{.+}} : vector<2xf32>
func.func @fp64(%a: tensor<?x16xf32>, %b: tensor<32x16xf32>, %bias: tensor<32xf32>) -> tensor<?x32xf32> {
  %y = fuser.matmul %a, %b transpose_b epilogue_inputs(%bias : tensor<32xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>]
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 32, 16, 16, 32, 2], precision = "fp64">}
         : tensor<?x16xf32>, tensor<32x16xf32> -> tensor<?x32xf32> {
  ^bb0(%acc: f32, %bi: f32):
    %s = arith.addf %acc, %bi : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// A group norm in the fp64 kernel's epilogue: groups of 16 are two m16n8
// pieces, so per row a lane sums its 4 values, then 2 butterfly shuffles
// over the quad; mean first, then the squared deviations (two passes); the
// `then` region after the normalization.
// CHECK-LABEL: gpu.func @gn_matmul
// CHECK: scf.yield
// CHECK: vector.reduction <add>, %{{.+}} : vector<2xf32> into f32
// CHECK: gpu.shuffle  xor %{{.+}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.+}}, %c2_i32
// CHECK: %[[MEAN:.+]] = arith.mulf %{{.+}}, %cst{{.*}} : f32
// CHECK: arith.subf %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: math.rsqrt
// CHECK: arith.mulf %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK: arith.maximumf
func.func @gn(%a: tensor<?x16xf32>, %b: tensor<32x16xf32>) -> tensor<?x32xf32> {
  %y = fuser.matmul %a, %b transpose_b epilogue_maps [] group_norm(size = 16, eps = 1.0e-05)
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 32, 16, 16, 32, 2], precision = "fp64">}
         : tensor<?x16xf32>, tensor<32x16xf32> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %z : f32
    fuser.yield %r : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// wgmma (sm_90a): one warpgroup of 64 x 32, K-major bf16 operands in
// 128-byte swizzled rows (16-byte chunk c of row r at c ^ r % 8), filled by
// cp.async STAGES - 2 tiles ahead; per k tile the copies are made visible
// to the async proxy, then BK / 16 = 4 wgmma.mma_async on descriptors, one
// group left in flight. 3 stages x (64 + 32 rows) x 128 bytes + 1024 bytes
// of alignment slack = 37888 bytes.
// CHECK-LABEL: func.func @wgmma
// CHECK: gpu.launch_func {{.+}} threads in (%c128{{[^)]*}}) dynamic_shared_memory_size %c37888_i32
// CHECK-LABEL: gpu.func @wgmma_matmul
// CHECK: arith.xori
// CHECK: nvvm.cp.async.shared.global
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue
func.func @wgmma(%a: tensor<?x64xbf16>, %b: tensor<32x64xbf16>) -> tensor<?x32xf32> {
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma", block = [128, 1, 1], tile = [64, 32, 64, 16, 32, 3], precision = "bf16">}
         : tensor<?x64xbf16>, tensor<32x64xbf16> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32xf32>
}

// -----

// wgmma reads both operands K-major: B as K x N needs mma.sync.
func.func @wgmma_nn(%a: tensor<?x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<?x32xf32> {
  // expected-error @+1 {{wgmma tile [64, 32, 64, 16, 32, 3] unsupported: wgmma reads K-major B (transpose_b); an N-major B needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma, BN a multiple of 32 and static N rows a multiple of 16 bytes apart (batched: K a multiple of BK)}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "wgmma", block = [128, 1, 1], tile = [64, 32, 64, 16, 32, 3], precision = "bf16">}
         : tensor<?x64xbf16>, tensor<64x32xbf16> -> tensor<?x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32xf32>
}
