// Strategies for operand layouts the tensor-core kernels do not read: an
// M-major A (transpose_a, x.T @ W) gets the FFMA kernel; a batched matmul
// (torch.bmm) gets wgmma_tma where its operands are K-major with a static
// K, else mma.sync (fp64 tensor cores for f32), never wgmma.
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -verify-diagnostics | FileCheck %s
// Other options (`not`: one split is an error under every option).
// RUN: not fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" 2>&1 | FileCheck %s --check-prefix=TF32
// RUN: not fuser-opt %s -split-input-file --fuser-configure-kernels="precision=bf16 tensor-core-kernel=wgmma" 2>&1 | FileCheck %s --check-prefix=BF16
// Forced 3xtf32 runs no operand copies (they run under fp32-kernel=auto),
// and the remark says so.
// RUN: not fuser-opt %s -split-input-file --fuser-configure-kernels="report=true fp32-kernel=3xtf32" 2>&1 | FileCheck %s --check-prefix=FORCED

// CHECK-LABEL: func.func @transposed_a
// CHECK: strategy = "ffma"
// TF32-DAG: remark: precision tf32 not applied: A is M-major (x.T), which only the fp32 FFMA kernel reads
// TF32-DAG: strategy = "ffma"
func.func @transposed_a(%x: tensor<64x32xf32>, %w: tensor<48x64xf32>) -> tensor<32x48xf32> {
  // expected-remark @+1 {{matmul kernel: ffma in fp32 (3xtf32 not applicable: A is not K-major (x.T) and not copied K-major: M * N / (M + N) = 19, below 512; the fp64 tensor-core kernel reads K-major A; FFMA)}}
  %y = fuser.matmul %x, %w transpose_a transpose_b epilogue_maps [] : tensor<64x32xf32>, tensor<48x64xf32> -> tensor<32x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<32x48xf32>
}

// -----

// A batched matmul (torch.bmm) with K-major operands and a static K gets
// the 2-D default: 3xtf32 on wgmma_tma (tensor maps of its batches' rows
// stacked), bf16 its wgmma_tma; the batch may be dynamic. A dynamic K (no
// tensor map) or a small N-major B keeps fp64 tensor cores, and the remark
// says why.
// CHECK-LABEL: func.func @batched
// CHECK: strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 128, 32, 16, 128, 3]
// CHECK-SAME: precision = "3xtf32", promote_every = 64
// BF16-DAG: remark: precision bf16 not applied: A is M-major (x.T)
// BF16-DAG: strategy = "mma", block = [128, 1, 1], tile = [128, 128, 32, 64, 64, 3], min_blocks_per_sm = 1, precision = "bf16"
func.func @batched(%x: tensor<?x32x64xf32>, %w: tensor<?x48x64xf32>) -> tensor<?x32x48xf32> {
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); every batch's tiles in one persistent grid)}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x32x64xf32>, tensor<?x48x64xf32> -> tensor<?x32x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32x48xf32>
}
// CHECK-LABEL: func.func @batched_bf16
// CHECK: strategy = "wgmma_tma", block = [384, 1, 1], max_grid = 132, tile = [128, 256, 64, 16, 256, 4]
// CHECK-SAME: precision = "bf16"
func.func @batched_bf16(%x: tensor<4x32x64xbf16>, %w: tensor<4x48x64xbf16>) -> tensor<4x32x48xbf16> {
  // expected-remark @+1 {{matmul kernel: wgmma_tma in bf16}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<4x32x64xbf16>, tensor<4x48x64xbf16> -> tensor<4x32x48xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %y : tensor<4x32x48xbf16>
}
// CHECK-LABEL: func.func @batched_dynamic_k
// CHECK: strategy = "mma"
// CHECK-SAME: precision = "fp64"
func.func @batched_dynamic_k(%x: tensor<?x32x?xf32>, %w: tensor<?x48x?xf32>) -> tensor<?x32x48xf32> {
  // expected-remark @+1 {{matmul kernel: mma in fp64 (3xtf32 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: M, N or K is dynamic; fp64 tensor cores)}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x32x?xf32>, tensor<?x48x?xf32> -> tensor<?x32x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32x48xf32>
}
// torch.bmm's N-major B, even small: 3xtf32 on wgmma_tma reads it N-major
// (its splitter transposes B in shared memory), so nothing is copied.
// CHECK-LABEL: func.func @batched_small_nn
// CHECK-NOT: fuser.pointwise
// CHECK: strategy = "wgmma_tma"
// CHECK-SAME: precision = "3xtf32"
func.func @batched_small_nn(%x: tensor<?x32x64xf32>, %w: tensor<?x64x48xf32>) -> tensor<?x32x48xf32> {
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory; every batch's tiles in one persistent grid)}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<?x32x64xf32>, tensor<?x64x48xf32> -> tensor<?x32x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32x48xf32>
}
// A batched N-major B whose K is not a multiple of the k tile (32): a tile
// would read the next batch's rows. Too small to copy: the remark says so.
// CHECK-LABEL: func.func @batched_small_nn_k_tail
// CHECK-NOT: fuser.pointwise
// CHECK: strategy = "mma"
// CHECK-SAME: precision = "fp64"
func.func @batched_small_nn_k_tail(%x: tensor<?x32x60xf32>, %w: tensor<?x60x48xf32>) -> tensor<?x32x48xf32> {
  // expected-remark @+1 {{matmul kernel: mma in fp64 (3xtf32 not applicable: B is N-major (x * W) with N dynamic or not a multiple of 4, or batched with K not a multiple of the k tile and not copied K-major: M * N / (M + N) = 19, below 512; fp64 tensor cores)}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<?x32x60xf32>, tensor<?x60x48xf32> -> tensor<?x32x48xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x32x48xf32>
}

// -----

func.func @transposed_a_bf16(%x: tensor<64x32xbf16>, %w: tensor<48x64xbf16>) -> tensor<32x48xbf16> {
  // expected-error @+1 {{transpose_a needs f32 operands: only the FFMA kernel reads an M-major A}}
  %y = fuser.matmul %x, %w transpose_a transpose_b epilogue_maps [] : tensor<64x32xbf16>, tensor<48x64xbf16> -> tensor<32x48xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %y : tensor<32x48xbf16>
}

// -----

// nn.Linear's backward (dX = g * W, dW = g^T * x): 3xtf32 on wgmma_tma
// reads dX's N-major B (M = 1024) itself; a large static product's M-major
// A gets a transposing pointwise copy (the shared-memory tiled kernel) so
// that the kernel reads it K-major, and so does dW's N-major B, since at
// M = 8192 the copy costs less than the kernel's transposition.
// CHECK-LABEL: func.func @backward_gemms
// CHECK-SAME: (%[[G:.+]]: tensor<1024x8192xf32>, %[[W:.+]]: tensor<8192x4096xf32>, %[[X:.+]]: tensor<1024x4096xf32>)
// CHECK-NOT: fuser.pointwise ins(%[[W]]
// CHECK: fuser.matmul %[[G]], %[[W]] epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
// CHECK: %[[GT:.+]] = fuser.pointwise ins(%[[G]] : tensor<1024x8192xf32>) maps [#{{.+}}] {config = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], max_grid = 1048576, tile = [64, 64]>} -> tensor<8192x1024xf32>
// CHECK: %[[XT:.+]] = fuser.pointwise ins(%[[X]] : tensor<1024x4096xf32>) {{.+}} -> tensor<4096x1024xf32>
// CHECK: fuser.matmul %[[GT]], %[[XT]] transpose_b epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
func.func @backward_gemms(%g: tensor<1024x8192xf32>, %w: tensor<8192x4096xf32>, %x: tensor<1024x4096xf32>) -> (tensor<1024x4096xf32>, tensor<8192x4096xf32>) {
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 128 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory)}}
  %dx = fuser.matmul %g, %w epilogue_maps [] : tensor<1024x8192xf32>, tensor<8192x4096xf32> -> tensor<1024x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+2 {{A and B copied K-major by a transposing kernel so that 3xtf32 on wgmma_tma applies (M * N / (M + N) = 2730, at least 512; with M = 8192, at least 1536, B's copy costs less than its transposition in the kernel)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %dw = fuser.matmul %g, %x transpose_a epilogue_maps [] : tensor<1024x8192xf32>, tensor<1024x4096xf32> -> tensor<8192x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %dx, %dw : tensor<1024x4096xf32>, tensor<8192x4096xf32>
}

// -----

// torch.bmm (B x M x K times B x K x N, 32 x 1024^3 in bench/suite.py),
// with a dynamic batch: 3xtf32 on wgmma_tma reads the N-major B as it is.
// With K not a multiple of the k tile, the B x K rows stacked would leak
// into the next batch: B is copied to B x N x K by the tiled transpose
// (the swapped innermost dimensions; batches outermost) by the 2-D rule
// per batch (M * N / (M + N) = 512), or, below it, not copied.
// CHECK: #[[$SWAP:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @bmm
// CHECK-NOT: fuser.pointwise
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
// CHECK-SAME: precision = "3xtf32"
// CHECK-LABEL: func.func @bmm_k_tail
// CHECK-SAME: (%[[X:.+]]: tensor<?x1024x1000xf32>, %[[W:.+]]: tensor<?x1000x1024xf32>)
// CHECK: %[[WT:.+]] = fuser.pointwise ins(%[[W]] : tensor<?x1000x1024xf32>) maps [#[[$SWAP]]] {config = #fuser.config<strategy = "pointwise_transpose", block = [256, 1, 1], max_grid = 1048576, tile = [64, 64]>} -> tensor<?x1024x1000xf32>
// CHECK: fuser.matmul %[[X]], %[[WT]] transpose_b epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
// CHECK-SAME: precision = "3xtf32"
// CHECK-LABEL: func.func @bmm_k_tail_below
// CHECK-NOT: fuser.pointwise
// CHECK: strategy = "mma"
func.func @bmm(%x: tensor<?x1024x1024xf32>, %w: tensor<?x1024x1024xf32>) -> tensor<?x1024x1024xf32> {
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory; every batch's tiles in one persistent grid)}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<?x1024x1024xf32>, tensor<?x1024x1024xf32> -> tensor<?x1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x1024x1024xf32>
}
func.func @bmm_k_tail(%x: tensor<?x1024x1000xf32>, %w: tensor<?x1000x1024xf32>) -> tensor<?x1024x1024xf32> {
  // expected-remark @+2 {{B copied K-major by a transposing kernel so that 3xtf32 on wgmma_tma applies (M * N / (M + N) = 512, at least 512)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<?x1024x1000xf32>, tensor<?x1000x1024xf32> -> tensor<?x1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x1024x1024xf32>
}
func.func @bmm_k_tail_below(%x: tensor<4x1022x1000xf32>, %w: tensor<4x1000x1024xf32>) -> tensor<4x1022x1024xf32> {
  // expected-remark @+1 {{matmul kernel: mma in fp64 (3xtf32 not applicable: B is N-major (x * W) with N dynamic or not a multiple of 4, or batched with K not a multiple of the k tile and not copied K-major: M * N / (M + N) = 511, below 512; fp64 tensor cores)}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<4x1022x1000xf32>, tensor<4x1000x1024xf32> -> tensor<4x1022x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4x1022x1024xf32>
}

// -----

// x @ W with W stored K x N: from M = 1536 the configuration step copies B
// K-major (the copy costs less than the kernel's transposition there);
// below, the kernel reads B N-major.
// CHECK-LABEL: func.func @nn_copy_at_1536
// CHECK: fuser.pointwise {{.+}} -> tensor<4096x1024xf32>
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
// CHECK-LABEL: func.func @nn_in_kernel_1535
// CHECK-NOT: fuser.pointwise
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
func.func @nn_copy_at_1536(%x: tensor<1536x1024xf32>, %w: tensor<1024x4096xf32>) -> tensor<1536x4096xf32> {
  // expected-remark @+2 {{B copied K-major by a transposing kernel so that 3xtf32 on wgmma_tma applies (M * N / (M + N) = 1117, at least 512; with M = 1536, at least 1536, B's copy costs less than its transposition in the kernel)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<1536x1024xf32>, tensor<1024x4096xf32> -> tensor<1536x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1536x4096xf32>
}
func.func @nn_in_kernel_1535(%x: tensor<1535x1024xf32>, %w: tensor<1024x4096xf32>) -> tensor<1535x4096xf32> {
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); B read N-major and transposed in shared memory)}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<1535x1024xf32>, tensor<1024x4096xf32> -> tensor<1535x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1535x4096xf32>
}

// -----

// dW = g^T x under autocast: bf16 operands, B (x) N-major. wgmma_tma reads
// 16-bit operands K-major only, so B is copied K-major (a bf16 copy).
// CHECK-LABEL: func.func @bf16_n_major_b
// CHECK: fuser.pointwise {{.+}} -> tensor<4096x1024xbf16>
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"{{.+}}precision = "bf16"
func.func @bf16_n_major_b(%g: tensor<4096x1024xbf16>, %x: tensor<1024x4096xbf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+2 {{B copied K-major by a transposing kernel so that bf16 on wgmma_tma applies (M * N / (M + N) = 2048, at least 512)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in bf16}}
  %y = fuser.matmul %g, %x epilogue_maps [] : tensor<4096x1024xbf16>, tensor<1024x4096xbf16> -> tensor<4096x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4096x4096xf32>
}

// -----

// A weight gradient of a small layer (BERT-base's dW = g^T * x, 768 x 768
// from K = 1024): 18 FFMA tiles would take a seventh of the wave, so the
// copy's bar drops to 512 x 18 / 132 and A is copied K-major for 3xtf32
// (twice the FFMA tiles' share of the wave, at twice the rate). A
// product whose FFMA tiles are short (64 x 64 from K = 64) keeps the whole
// bar: a copy's kernel would cost more than it saves.
// CHECK-LABEL: func.func @small_weight_gradient
// CHECK: fuser.pointwise
// CHECK: strategy = "wgmma_tma"
// FORCED: remark: matmul kernel: ffma in fp32 (3xtf32 not applicable: A is not K-major (x.T) and not copied K-major: fp32-kernel=3xtf32 (the copies run under auto); the fp64 tensor-core kernel reads K-major A; FFMA)
func.func @small_weight_gradient(%g: tensor<1024x768xf32>, %h: tensor<1024x768xf32>) -> tensor<768x768xf32> {
  // expected-remark @+2 {{A copied K-major by a transposing kernel so that 3xtf32 on wgmma_tma applies (M * N / (M + N) = 384, at least 69)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %y = fuser.matmul %g, %h transpose_a epilogue_maps [] : tensor<1024x768xf32>, tensor<1024x768xf32> -> tensor<768x768xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<768x768xf32>
}

// CHECK-LABEL: func.func @short_tiles
// CHECK: strategy = "ffma"
func.func @short_tiles(%g: tensor<64x64xf32>, %h: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{matmul kernel: ffma in fp32 (3xtf32 not applicable: A is not K-major (x.T) and not copied K-major: M * N / (M + N) = 32, below 512; the fp64 tensor-core kernel reads K-major A; FFMA)}}
  %y = fuser.matmul %g, %h transpose_a epilogue_maps [] : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<64x64xf32>
}

// A wide product of 128 FFMA tiles: the bar barely drops (496), and M * N /
// (M + N) = 252 stays below it.
// CHECK-LABEL: func.func @scaled_bar_not_met
// CHECK: strategy = "ffma"
func.func @scaled_bar_not_met(%g: tensor<1024x256xf32>, %h: tensor<1024x16384xf32>) -> tensor<256x16384xf32> {
  // expected-remark @+1 {{matmul kernel: ffma in fp32 (3xtf32 not applicable: A is not K-major (x.T) and not copied K-major: M * N / (M + N) = 252, below 496 (512 scaled by the FFMA tiles' share of a wave); the fp64 tensor-core kernel reads K-major A; FFMA)}}
  %y = fuser.matmul %g, %h transpose_a epilogue_maps [] : tensor<1024x256xf32>, tensor<1024x16384xf32> -> tensor<256x16384xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<256x16384xf32>
}

// -----

// K not a multiple of 4: rows of K are not 16-byte multiples apart, so TMA
// reads neither operand as it is. Both are copied with K padded with zeros
// (B K-major first where it is N-major) where the size rule allows copies;
// below it the product keeps fp64 tensor cores, and the remark says why.
// f16/bf16 operands are not padded (wgmma or mma.sync reads them through
// cp.async).
// CHECK-LABEL: func.func @padded_k_nn
// CHECK-SAME: (%[[A:.+]]: tensor<8205x2949xf32>, %[[B:.+]]: tensor<2949x5921xf32>)
// CHECK: %[[BT:.+]] = fuser.pointwise ins(%[[B]] : tensor<2949x5921xf32>) {{.+}} -> tensor<5921x2949xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[AP:.+]] = tensor.pad %[[A]] low[0, 0] high[0, 3]
// CHECK: tensor.yield %[[ZERO]]
// CHECK: } : tensor<8205x2949xf32> to tensor<8205x2952xf32>
// CHECK: %[[BP:.+]] = tensor.pad %[[BT]] low[0, 0] high[0, 3]
// CHECK: tensor.yield %[[ZERO]]
// CHECK: } : tensor<5921x2949xf32> to tensor<5921x2952xf32>
// CHECK: fuser.matmul %[[AP]], %[[BP]] transpose_b epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma"
// CHECK-SAME: precision = "3xtf32"
// CHECK-LABEL: func.func @padded_k_nt
// CHECK-NOT: fuser.pointwise
// CHECK: tensor.pad {{.+}} high[0, 1]
// CHECK: tensor.pad {{.+}} high[0, 1]
// CHECK: fuser.matmul {{.+}} : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
// CHECK-LABEL: func.func @padded_k_bmm
// CHECK: tensor.pad {{.+}} high[0, 0, 2]
// CHECK: } : tensor<?x1024x1022xf32> to tensor<?x1024x1024xf32>
// CHECK: tensor.pad {{.+}} high[0, 0, 2]
// CHECK: } : tensor<?x1024x1022xf32> to tensor<?x1024x1024xf32>
// CHECK-LABEL: func.func @padded_k_below
// CHECK-NOT: tensor.pad
// CHECK: strategy = "mma"
// CHECK-LABEL: func.func @padded_k_short
// CHECK-NOT: tensor.pad
// CHECK: strategy = "mma"
// CHECK-LABEL: func.func @f16_nn_k_tail
// CHECK-NOT: tensor.pad
// CHECK: fuser.pointwise {{.+}} -> tensor<4096x4092xf16>
// CHECK-NOT: tensor.pad
// CHECK: strategy = "wgmma"
// CHECK-LABEL: func.func @padded_k_bf16
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @padded_k_nn(%a: tensor<8205x2949xf32>, %b: tensor<2949x5921xf32>) -> tensor<8205x5921xf32> {
  // expected-remark @+2 {{B copied K-major by a transposing kernel, then both copied with K padded with zeros from 2949 to 2952 (rows of 16-byte multiples for TMA) so that 3xtf32 on wgmma_tma applies (M * N / (M + N) = 3439, at least 512)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %y = fuser.matmul %a, %b epilogue_maps [] : tensor<8205x2949xf32>, tensor<2949x5921xf32> -> tensor<8205x5921xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<8205x5921xf32>
}
func.func @padded_k_nt(%x: tensor<4096x4095xf32>, %w: tensor<4096x4095xf32>) -> tensor<4096x4096xf32> {
  // expected-remark @+2 {{A and B copied with K padded with zeros from 4095 to 4096 (rows of 16-byte multiples for TMA) so that 3xtf32 on wgmma_tma applies (M * N / (M + N) = 2048, at least 512)}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<4096x4095xf32>, tensor<4096x4095xf32> -> tensor<4096x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4096x4096xf32>
}
func.func @padded_k_bmm(%x: tensor<?x1024x1022xf32>, %w: tensor<?x1022x1024xf32>) -> tensor<?x1024x1024xf32> {
  // expected-remark @+2 {{B copied K-major by a transposing kernel, then both copied with K padded with zeros from 1022 to 1024}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<?x1024x1022xf32>, tensor<?x1022x1024xf32> -> tensor<?x1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x1024x1024xf32>
}
func.func @padded_k_below(%x: tensor<64x34xf32>, %w: tensor<64x34xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{matmul kernel: mma in fp64 (3xtf32 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: M * N / (M + N) = 32, below 512; fp64 tensor cores)}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<64x34xf32>, tensor<64x34xf32> -> tensor<64x64xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<64x64xf32>
}
// An outer product's K of 3: padding would not pay.
func.func @padded_k_short(%x: tensor<4096x3xf32>, %w: tensor<4096x3xf32>) -> tensor<4096x4096xf32> {
  // expected-remark @+1 {{matmul kernel: mma in fp64 (3xtf32 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: K = 3 is not a multiple of 4 and below a k tile (32): padding it would not pay; fp64 tensor cores)}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<4096x3xf32>, tensor<4096x3xf32> -> tensor<4096x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4096x4096xf32>
}
// f16 rows of K = 4092 (not 16-byte multiples): B is still copied K-major,
// for wgmma (cp.async), not padded.
func.func @f16_nn_k_tail(%x: tensor<4096x4092xf16>, %w: tensor<4092x4096xf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+2 {{B copied K-major by a transposing kernel so that f16 on wgmma applies (M * N / (M + N) = 2048, at least 512)}}
  // expected-remark @+1 {{matmul kernel: wgmma in f16}}
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<4096x4092xf16>, tensor<4092x4096xf16> -> tensor<4096x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<4096x4096xf32>
}
func.func @padded_k_bf16(%x: tensor<4096x4095xbf16>, %w: tensor<4096x4095xbf16>) -> tensor<4096x4096xbf16> {
  // expected-remark @+1 {{matmul kernel: wgmma in bf16}}
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<4096x4095xbf16>, tensor<4096x4095xbf16> -> tensor<4096x4096xbf16> {
  ^bb0(%acc: bf16):
    fuser.yield %acc : bf16
  }
  return %y : tensor<4096x4096xbf16>
}
