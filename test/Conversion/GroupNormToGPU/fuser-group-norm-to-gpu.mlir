// RUN: fuser-opt %s -split-input-file --fuser-group-norm-to-gpu -verify-diagnostics | FileCheck %s

#cfg = #fuser.config<strategy = "group_norm", block = [64, 1, 1], vector_width = 4>
#col = affine_map<(d0, d1, d2, d3) -> (d0)>

// Host code: gamma, beta and the per-sample input's sizes checked against
// the runtime N, one output, one block per (sample, group).
// CHECK-LABEL: func.func @nchw
// CHECK-SAME: (%[[X:.+]]: tensor<?x8x2x4xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>, %[[S:.+]]: tensor<?xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}}
// CHECK-NOT: cf.assert
// CHECK: %[[SN:.+]] = tensor.dim %[[S]], %{{.+}}
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %[[SN]], %[[N]]
// CHECK: cf.assert %[[EQ]], "fuser.group_norm: epilogue input #0 dimension 0 must equal result dimension 0"
// CHECK: %[[OUT:.+]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x8x2x4xf32>
// CHECK: %[[N64:.+]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[GRID:.+]] = arith.muli %[[N]], %[[C2]]
// CHECK: %[[C64:.+]] = arith.constant 64 : index
// CHECK: gpu.launch_func @fuser_kernels::@nchw_group_norm blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%[[C64]], %{{.+}}, %{{.+}}) args({{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, %[[N64]] : i64)
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// The kernel: a 4-wide statistics loop, the warp butterfly (lower lane
// first), the warps' triples through workgroup memory, then the apply loop.
// CHECK: gpu.module @fuser_kernels
// CHECK: gpu.func @nchw_group_norm(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64) workgroup(%[[SMEM:.+]] : memref<6xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK: llvm.load {{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-15: gpu.shuffle xor %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.+}}, %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK: llvm.store {{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @nchw(%x: tensor<?x8x2x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %s: tensor<?xf32>) -> tensor<?x8x2x4xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 2 eps = 1.0e-05
         epilogue_inputs(%s : tensor<?xf32>) epilogue_maps [#col] {config = #cfg}
         : tensor<?x8x2x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x2x4xf32> {
  ^bb0(%v: f32, %sv: f32):
    %m = arith.mulf %v, %sv : f32
    fuser.yield %m : f32
  }
  return %y : tensor<?x8x2x4xf32>
}

// -----

// One warp: no workgroup memory, no barrier; scalar accesses (groups of 3).
// CHECK-LABEL: gpu.func @one_warp_group_norm
// CHECK-NOT: workgroup
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @one_warp(%x: tensor<4x6xf32>, %g: tensor<6xf32>) -> tensor<4x6xf32> {
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [32, 1, 1], vector_width = 1>}
         : tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<4x6xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x6xf32>
}

// -----

func.func @no_config(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{has no #fuser.config; run -fuser-configure-kernels first}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<2x8xf32>
}

// -----

func.func @wrong_strategy(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{has strategy 'pointwise'; this lowering implements 'group_norm'}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "pointwise", block = [256, 1, 1]>}
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<2x8xf32>
}

// -----

func.func @dynamic_channels(%x: tensor<2x?xf32>, %g: tensor<?xf32>) -> tensor<2x?xf32> {
  // expected-error @+1 {{has dynamic sizes past the batch dimension; the GPU kernel needs static C and spatial sizes (only N may be dynamic)}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [32, 1, 1]>}
         : tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<2x?xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<2x?xf32>
}

// -----

func.func @bad_width(%x: tensor<2x6xf32>, %g: tensor<6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{vector_width 4 must be 1, 2 or 4 and divide the group size 3}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [32, 1, 1], vector_width = 4>}
         : tensor<2x6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<2x6xf32>
}

// -----

func.func @bad_block(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{block must be [B, 1, 1] with B a multiple of 32 up to 1024}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [48, 1, 1]>}
         : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<2x8xf32>
}

// -----

func.func @f16(%x: tensor<2x8xf16>, %g: tensor<8xf16>) -> tensor<2x8xf16> {
  // expected-error @+1 {{the GPU kernel needs f32 input, gamma, beta and result}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [32, 1, 1]>}
         : tensor<2x8xf16>, tensor<8xf16>, tensor<8xf16> -> tensor<2x8xf16> {
  ^bb0(%v: f16):
    fuser.yield %v : f16
  }
  return %y : tensor<2x8xf16>
}

// -----

// tile = [4]: four threads per group, 64 groups per 256-thread block; the
// grid rounds the group count up, the block's spare threads clamp their
// group and skip the work, and the lanes of a group merge with xor
// shuffles of offset 2 and 1 only (no shared memory).
// CHECK-LABEL: func.func @shared_blocks
// CHECK: %[[GROUPS:.+]] = arith.muli %{{.+}}, %c512
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[GROUPS]], %c64
// CHECK: gpu.launch_func @fuser_kernels::@shared_blocks_group_norm blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256
// CHECK: gpu.func @shared_blocks_group_norm
// CHECK-NOT: workgroup
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c4_i64
// CHECK: arith.minui
// CHECK: scf.for %{{.+}} = %[[LANE]] to
// CHECK: gpu.shuffle xor %{{.+}}, %c2_i32
// CHECK-NOT: gpu.shuffle xor %{{.+}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.barrier
func.func @shared_blocks(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %b: tensor<8192xf32>) -> tensor<?x8192xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 512 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [256, 1, 1], vector_width = 4, tile = [4]>}
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x8192xf32>
}

// -----

func.func @bad_tile(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %b: tensor<8192xf32>) -> tensor<?x8192xf32> {
  // expected-error @+1 {{tile must be empty, [threads per group] (a power of two up to 32 dividing the block) or [block, blocks per group]}}
  %y = fuser.group_norm %x, %g, %b groups = 512 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [256, 1, 1], vector_width = 4, tile = [64]>}
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x8192xf32>
}

// -----

// tile = [64, 3]: each group of 256 (64 vectors) split into 3 slices of
// 22 vectors, one 64-thread block each. The statistics kernel writes each
// slice's (count, mean, M2) to an intermediate of N * G * 3 * 3 floats (one
// thread stores); the normalizing kernel's lanes merge the 3 triples and
// a butterfly over the whole warp (offsets 16 to 1) gives every lane the
// group's moments, with no shared memory.
// CHECK-LABEL: func.func @split
// CHECK: %[[N:.+]] = tensor.dim
// CHECK: %[[OUT:.+]] = memref.alloc(%[[N]])
// CHECK: %[[N64:.+]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[COUNT:.+]] = arith.muli %[[N]], %c36
// CHECK: %[[PARTIALS:.+]] = memref.alloc(%[[COUNT]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[GRID:.+]] = arith.muli %[[N]], %c12
// CHECK: gpu.launch_func @fuser_kernels::@split_group_norm_stats blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c64{{.*}}, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %[[N64]] : i64)
// CHECK: %[[GRID2:.+]] = arith.muli %[[N]], %c12
// CHECK: gpu.launch_func @fuser_kernels::@split_group_norm blocks in (%[[GRID2]], {{.+}} args({{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, %[[N64]] : i64)
// CHECK: gpu.func @split_group_norm_stats(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64) workgroup(%{{.+}} : memref<6xf32, #gpu.address_space<workgroup>>) kernel
// Block b takes slice b / (N * 4) of group b % (N * 4): the blocks resident
// together take one slice of every sample.
// CHECK: %[[NG:.+]] = arith.muli %{{.+}}, %c4_i64
// CHECK: %[[GROUP:.+]] = arith.remui %{{.+}}, %[[NG]]
// CHECK: %[[SLICE:.+]] = arith.divui %{{.+}}, %[[NG]]
// CHECK: arith.muli %[[SLICE]], %c22_i64
// CHECK: gpu.barrier
// CHECK: scf.if
// The slice's (count, mean, M2) at (group * 3 + slice) * 3, whichever
// order the blocks run in.
// CHECK: %[[GP:.+]] = arith.muli %[[GROUP]], %c3_i64
// CHECK: %[[AT:.+]] = arith.addi %[[GP]], %[[SLICE]]
// CHECK: arith.muli %[[AT]], %c3_i64
// CHECK-COUNT-3: llvm.store
// The normalizing kernel goes group by group (per-channel gamma and beta).
// CHECK: gpu.func @split_group_norm(
// CHECK-NOT: workgroup
// CHECK-SAME: kernel
// CHECK: arith.divui %{{.+}}, %c3_i64
// CHECK: arith.remui %{{.+}}, %c3_i64
// Lanes 0 to 2 load their slice's triple, loaded before any merge; the
// lanes past the slices load the last one and count nothing.
// CHECK-NOT: scf.for
// CHECK: arith.cmpi ult, %{{.+}}, %c3_i64
// CHECK: arith.minui %{{.+}}, %c2_i64
// CHECK-COUNT-3: llvm.load
// CHECK-COUNT-3: arith.select
// CHECK: gpu.shuffle xor %{{.+}}, %c16_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c8_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c2_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.barrier
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK: llvm.store
func.func @split(%x: tensor<?x8x128xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8x128xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 4 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [64, 1, 1], vector_width = 4, tile = [64, 3]>}
         : tensor<?x8x128xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x128xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x8x128xf32>
}

// -----

func.func @split_tile_not_block(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %b: tensor<8192xf32>) -> tensor<?x8192xf32> {
  // expected-error @+1 {{a split group's tile must be [B, P]: the block's B threads per group, P >= 1 blocks per group}}
  %y = fuser.group_norm %x, %g, %b groups = 8 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [256, 1, 1], vector_width = 4, tile = [128, 4]>}
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x8192xf32>
}

// -----

func.func @more_slices_than_vectors(%x: tensor<?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{splits groups of 16 vectors into 17 slices: more slices than vectors}}
  %y = fuser.group_norm %x, %g, %b groups = 1 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [32, 1, 1], vector_width = 4, tile = [32, 17]>}
         : tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<?x64xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

// LayerNorm's form (one group, one element per channel) with a residual:
// gamma, beta and the residual each come in one 4-wide load per vector of
// x, like x itself.
// CHECK-LABEL: gpu.func @layer_norm_residual_group_norm(
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: llvm.store %{{.+}} {alignment = 16 : i64} : vector<4xf32>
func.func @layer_norm_residual(%x: tensor<?x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>,
                               %r: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 1 eps = 1.0e-05
         epilogue_inputs(%r : tensor<?x1024xf32>) epilogue_maps [affine_map<(d0, d1) -> (d0, d1)>]
         {config = #fuser.config<strategy = "group_norm", block = [128, 1, 1], vector_width = 4>}
         : tensor<?x1024xf32>, tensor<1024xf32>, tensor<1024xf32> -> tensor<?x1024xf32> {
  ^bb0(%v: f32, %rv: f32):
    %s = arith.addf %v, %rv : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x1024xf32>
}

// -----

// LayerNorm over a whole sample, split (tile = [64, 4]): gamma and beta have
// an element per channel, so both kernels go slice by slice across the
// samples, and the blocks resident together read one slice of gamma and
// beta for all samples.
// CHECK-LABEL: gpu.func @layer_norm_split_group_norm_stats(
// CHECK: %[[NG:.+]] = arith.muli %{{.+}}, %c1_i64
// CHECK: arith.remui %{{.+}}, %[[NG]]
// CHECK: arith.divui %{{.+}}, %[[NG]]
// CHECK-LABEL: gpu.func @layer_norm_split_group_norm(
// CHECK: %[[NG2:.+]] = arith.muli %{{.+}}, %c1_i64
// CHECK: arith.remui %{{.+}}, %[[NG2]]
// CHECK: arith.divui %{{.+}}, %[[NG2]]
func.func @layer_norm_split(%x: tensor<?x4096xf32>, %g: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<?x4096xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 1 eps = 1.0e-05 epilogue_maps []
         {config = #fuser.config<strategy = "group_norm", block = [64, 1, 1], vector_width = 4, tile = [64, 4]>}
         : tensor<?x4096xf32>, tensor<4096xf32>, tensor<4096xf32> -> tensor<?x4096xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<?x4096xf32>
}
