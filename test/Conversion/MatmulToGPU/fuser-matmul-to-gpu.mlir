// RUN: fuser-opt %s -split-input-file --fuser-matmul-to-gpu -verify-diagnostics | FileCheck %s

#cfg = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8], min_blocks_per_sm = 2>

// nn.Linear with a bias epilogue: host code and the kernel's skeleton.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.+]]: tensor<?x32xf32>, %[[W:.+]]: tensor<48x32xf32>, %[[B:.+]]: tensor<48xf32>)
// CHECK: %[[M:.+]] = tensor.dim %[[X]], %c0
// CHECK: bufferization.to_buffer %[[X]] read_only
// CHECK: bufferization.to_buffer %[[W]] read_only
// CHECK: bufferization.to_buffer %[[B]] read_only
// CHECK: %[[OUT:.+]] = memref.alloc(%[[M]]) {alignment = 64 : i64} : memref<?x48xf32>
// CHECK: %[[GX:.+]] = arith.ceildivui %[[M]], %c64
// CHECK: %[[GY:.+]] = arith.ceildivui %c48{{.*}}, %c64
// CHECK: gpu.launch_func @fuser_kernels::@linear_matmul blocks in (%[[GX]], %[[GY]], %{{[^)]+}}) threads in (%c64{{[^)]*}})
// CHECK-SAME: args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>, %{{.+}} : i64, %{{.+}} : i64, %{{.+}} : i64)
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
//
// The kernel: double-buffered k-major shared tiles padded by 4 floats.
// M, N, K are parameters; the static N and K are constants inside.
// CHECK: gpu.func @linear_matmul(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %[[MM:.+]]: i64, %[[NN:.+]]: i64, %[[KK:.+]]: i64)
// CHECK-SAME: workgroup(%[[AS:.+]] : memref<2x8x68xf32, #gpu.address_space<workgroup>>, %[[BS:.+]] : memref<2x8x68xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 64, 1, 1>, nvvm.minctasm = 2 : i32}
// Prologue only when K > 0 (empty operands may have no memory).
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK: %[[NK:.+]] = arith.ceildivui %c32_i64, %c8_i64
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[NK]] step %{{.+}} iter_args(
// 128-bit global loads of the next slice, guarded by bounds.
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: vector.load %[[AS]][%{{.+}}, %{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<2x8x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.load %[[BS]]
// 8 x 8 per thread: 16 vector FMAs per k step, 8 k steps.
// CHECK-COUNT-128: vector.fma
// CHECK: gpu.barrier
// CHECK: scf.yield
// The epilogue in registers, then 128-bit stores when in bounds.
// CHECK: arith.addf %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @linear(%x: tensor<?x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<48xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] {config = #cfg}
         : tensor<?x32xf32>, tensor<48x32xf32> -> tensor<?x48xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x48xf32>
}

// -----

// K x N operand (no transpose): B slices are stored as float4 rows; dynamic
// K is checked against B at run time.
// CHECK-LABEL: func.func @plain
// CHECK: cf.assert %{{.+}}, "fuser.matmul: the reduction sizes of lhs and rhs differ"
// CHECK: gpu.func @plain_matmul
// CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<2x8x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
func.func @plain(%a: tensor<16x?xf32>, %b: tensor<?x64xf32>) -> tensor<16x64xf32> {
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8]>}
         : tensor<16x?xf32>, tensor<?x64xf32> -> tensor<16x64xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<16x64xf32>
}

// -----

// A 16 x 8 thread tile: 4 row groups, 2 column groups, 32 FMAs per k step.
// CHECK-LABEL: gpu.func @wide_matmul
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK-COUNT-256: vector.fma
func.func @wide(%a: tensor<64x8xf32>, %b: tensor<64x8xf32>) -> tensor<64x64xf32> {
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [32, 1, 1], tile = [64, 64, 8, 16, 8]>}
         : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x64xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<64x64xf32>
}

// -----

func.func @unconfigured(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{has no #fuser.config; run -fuser-configure-kernels first}}
  %y = fuser.matmul %a, %b epilogue_maps [] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @strategy(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{has strategy 'pointwise'; this lowering implements 'ffma', 'mma', 'wgmma' and 'wgmma_tma'}}
  %y = fuser.matmul %a, %b epilogue_maps [] {config = #fuser.config<strategy = "pointwise", block = [64, 1, 1]>}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @tf32(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{precision 'tf32' needs the tensor-core strategy 'mma'; the 'ffma' kernel computes in fp32}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8], precision = "tf32">}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @f16(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>) -> tensor<4x4xf16> {
  // expected-error @+1 {{the fp32 FFMA kernel needs f32 operands, epilogue inputs and result}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8]>}
         : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16> {
  ^bb0(%acc: f16):
    fuser.yield %acc : f16
  }
  return %y : tensor<4x4xf16>
}

// -----

func.func @tile_count(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{needs a config tile of [BM, BN, BK] or [BM, BN, BK, TM, TN], got 2 sizes}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64]>}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @tile_shape(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile [64, 64, 6, 8, 8] unsupported: TM and TN must be multiples of 4 dividing BM and BN, and BK a multiple of 4}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 6]>}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @block_mismatch(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile [64, 64, 8] needs a block of [64, 1, 1] (one thread per 8 x 8 outputs)}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [128, 1, 1], tile = [64, 64, 8]>}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @smem(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile needs 66560 bytes of shared memory; the static limit is 49152}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [256, 256, 16, 16, 16]>}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @loads(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{tile [512, 64, 8] does not split into whole float4 loads per thread}}
  %y = fuser.matmul %a, %b epilogue_maps []
         {config = #fuser.config<strategy = "ffma", block = [256, 1, 1], tile = [512, 64, 8, 16, 8]>}
         : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x4xf32>
}

// -----

// torch.bmm of x.transpose(1, 2): every batch's M tiles along grid x
// (batch-major; grid z would stop at 65535 batches); the kernel decodes its
// batch and M tile from block x and offsets A, B, C and the per-batch bias
// to the batch; A is read K x M (transpose_a).
// CHECK-LABEL: func.func @batched_transposed_a
// CHECK-SAME: (%[[X:.+]]: tensor<?x32x40xf32>, %[[W:.+]]: tensor<?x32x48xf32>, %[[B:.+]]: tensor<?x48xf32>)
// CHECK: %[[BATCH:.+]] = tensor.dim %[[X]], %c0
// CHECK: cf.assert %{{.+}}, "fuser.matmul: the batch sizes of lhs and rhs differ"
// CHECK: cf.assert %{{.+}}, "fuser.matmul: epilogue input #0 dimension 0 must equal the result's batch"
// CHECK: memref.alloc(%[[BATCH]]) {alignment = 64 : i64} : memref<?x40x48xf32>
// CHECK: %[[MT:.+]] = arith.ceildivui %c40{{.*}}, %c64
// CHECK: %[[GX:.+]] = arith.muli %[[MT]], %[[BATCH]]
// CHECK: gpu.launch_func @fuser_kernels::@batched_transposed_a_matmul blocks in (%[[GX]], %{{.+}}, %c1)
// CHECK: gpu.func @batched_transposed_a_matmul(%[[A:.+]]: !llvm.ptr<1>, %[[BP:.+]]: !llvm.ptr<1>, %[[BIAS:.+]]: !llvm.ptr<1>, %[[C:.+]]: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK-DAG: %[[M:.+]] = arith.constant 40 : i64
// CHECK-DAG: %[[N:.+]] = arith.constant 48 : i64
// CHECK-DAG: %[[K:.+]] = arith.constant 32 : i64
// CHECK: %[[BX:.+]] = arith.index_castui %block_id_x
// CHECK: %[[TILES:.+]] = arith.ceildivui %[[M]], %c64_i64
// CHECK: %[[Z:.+]] = arith.divui %[[BX]], %[[TILES]]
// CHECK: arith.remui %[[BX]], %[[TILES]]
// CHECK: %[[MK:.+]] = arith.muli %[[M]], %[[K]]
// CHECK: %[[OA:.+]] = arith.muli %[[Z]], %[[MK]]
// CHECK: llvm.getelementptr inbounds %[[A]][%[[OA]]]
// CHECK: %[[KN:.+]] = arith.muli %[[K]], %[[N]]
// CHECK: %[[OB:.+]] = arith.muli %[[Z]], %[[KN]]
// CHECK: llvm.getelementptr inbounds %[[BP]][%[[OB]]]
// CHECK: %[[MN:.+]] = arith.muli %[[M]], %[[N]]
// CHECK: %[[OC:.+]] = arith.muli %[[Z]], %[[MN]]
// CHECK: llvm.getelementptr inbounds %[[C]][%[[OC]]]
// CHECK: llvm.getelementptr inbounds %[[BIAS]]
#cfg = #fuser.config<strategy = "ffma", block = [64, 1, 1], tile = [64, 64, 8], min_blocks_per_sm = 2>
func.func @batched_transposed_a(%x: tensor<?x32x40xf32>, %w: tensor<?x32x48xf32>, %b: tensor<?x48xf32>) -> tensor<?x40x48xf32> {
  %y = fuser.matmul %x, %w transpose_a epilogue_inputs(%b : tensor<?x48xf32>) epilogue_maps [affine_map<(b, m, n) -> (b, n)>] {config = #cfg}
         : tensor<?x32x40xf32>, tensor<?x32x48xf32> -> tensor<?x40x48xf32> {
  ^bb0(%acc: f32, %bi: f32):
    %s = arith.addf %acc, %bi : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x40x48xf32>
}

// -----

#tc = #fuser.config<strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 64, 3], precision = "tf32">

func.func @transposed_a_on_tensor_cores(%x: tensor<32x40xf32>, %w: tensor<32x48xf32>) -> tensor<40x48xf32> {
  // expected-error @+1 {{transpose_a (an M-major A) needs the 'ffma' strategy; the tensor-core kernels read K-major A}}
  %y = fuser.matmul %x, %w transpose_a epilogue_maps [] {config = #tc}
         : tensor<32x40xf32>, tensor<32x48xf32> -> tensor<40x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<40x48xf32>
}
