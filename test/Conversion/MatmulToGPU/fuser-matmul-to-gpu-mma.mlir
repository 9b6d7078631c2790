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
// CHECK: nvvm.convert.float.to.tf32 %[[LO]] {rnd = #nvvm.fp_rnd_mode<rna>}
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
  // expected-error @+1 {{precision 'tf32' needs 'f32' operands, got 'bf16' x 'bf16' (tf32 and 3xtf32 take f32; bf16 and f16 take their own type)}}
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
  // expected-error @+1 {{precision 'fp32' has no tensor-core ('mma') kernel; use tf32, 3xtf32, bf16 or f16}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps []
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 8, 8, 16, 8, 2]>}
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

// A group-norm epilogue (`then` region) runs only in the FFMA kernel.
func.func @group_norm(%a: tensor<4x16xf32>, %b: tensor<32x16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{the tensor-core kernel has no group-norm epilogue yet; use precision=fp32}}
  %y = fuser.matmul %a, %b transpose_b epilogue_maps [] group_norm(size = 16, eps = 1.0e-05)
         {config = #fuser.config<strategy = "mma", block = [32, 1, 1], tile = [16, 32, 8, 16, 32, 2], precision = "tf32">}
         : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<4x32xf32>
}
