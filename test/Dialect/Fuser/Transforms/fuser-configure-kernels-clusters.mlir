// Clusters, on request: cluster-m=2 gives wgmma_tma matmuls with unsplit K,
// unbatched, whose B tiles split in two, cluster_m = 2 (blocks in pairs
// along M sharing B by TMA multicast), with a remark where a matmul cannot
// have them. None by default, nor with cluster-m=1.
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" | FileCheck %s --check-prefix=OFF
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="cluster-m=1" | FileCheck %s --check-prefix=OFF
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 cluster-m=2" 2>/dev/null | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="cluster-m=2" 2>/dev/null | FileCheck %s --check-prefix=X3
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="cluster-m=2 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not fuser-opt %s --fuser-configure-kernels="cluster-m=3" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: cluster-m must be 0 or 1 (no clusters) or 2, got 3
// OFF-NOT: cluster_m

// REMARK: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K, in clusters of 2 blocks (split tf32 on wgmma_tma with promoted fp32 sums (fp32-accurate, past the fp32 peak); cluster-m=2)
// REMARK: remark: cluster-m=2 not applied: B tiles of 96 columns do not split into a share per block
// REMARK: remark: cluster-m=2 not applied: a batched product's tiles are not paired
// REMARK: remark: cluster-m=2 not applied: its K is split, and a cluster shares one K loop

// W2's shape, and an odd count of M tiles (9: the last cluster's second
// block computes a tile past M).
// CHECK-LABEL: func.func @linear
// CHECK: precision = "tf32", cluster_m = 2>
// CHECK: precision = "tf32", cluster_m = 2, group_m = 8>
// X3-LABEL: func.func @linear
// X3: precision = "3xtf32", promote_every = 64, cluster_m = 2>
func.func @linear(%x: tensor<1024x1024xf32>, %w: tensor<1024x1024xf32>,
                  %x9: tensor<1100x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1100x1024xf32>) {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %z = fuser.matmul %x9, %w transpose_b epilogue_maps [] : tensor<1100x1024xf32>, tensor<1024x1024xf32> -> tensor<1100x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z : tensor<1024x1024xf32>, tensor<1100x1024xf32>
}

// -----

// x @ W, W N-major (K x N), 1000 x 3000 in 3xtf32: the 128 x 96 wave tile,
// whose three 32-column boxes of B do not split in two: refused with a
// remark. (tf32 reads an N-major B with mma.sync: no clusters either.)
// X3-LABEL: func.func @wave_tile
// X3-NOT: cluster_m
// X3: return
// CHECK-LABEL: func.func @wave_tile
// CHECK: strategy = "mma"
// CHECK-NOT: cluster_m
// CHECK: return
func.func @wave_tile(%x: tensor<1000x1000xf32>, %w: tensor<1000x3000xf32>) -> tensor<1000x3000xf32> {
  %y = fuser.matmul %x, %w epilogue_maps [] : tensor<1000x1000xf32>, tensor<1000x3000xf32> -> tensor<1000x3000xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1000x3000xf32>
}

// -----

// A batched product and a split K keep single blocks.
// CHECK-LABEL: func.func @batched_and_split
// CHECK-NOT: cluster_m
// CHECK: return
// X3-LABEL: func.func @batched_and_split
// X3-NOT: cluster_m
// X3: return
func.func @batched_and_split(%x: tensor<8x512x512xf32>, %w: tensor<8x512x512xf32>,
                             %a: tensor<256x131072xf32>, %b: tensor<256x131072xf32>)
    -> (tensor<8x512x512xf32>, tensor<256x256xf32>) {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<8x512x512xf32>, tensor<8x512x512xf32> -> tensor<8x512x512xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %z = fuser.matmul %a, %b transpose_b epilogue_maps [] : tensor<256x131072xf32>, tensor<256x131072xf32> -> tensor<256x256xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z : tensor<8x512x512xf32>, tensor<256x256xf32>
}
