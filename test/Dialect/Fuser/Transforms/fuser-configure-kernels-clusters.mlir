// Clusters: a tf32, bf16 or f16 wgmma_tma matmul with unsplit K and a
// dynamic M, or a static M of at least 2 M tiles (an even count, or at
// least 8), gets cluster_m = 2: blocks in pairs along M sharing B by TMA
// multicast. Not 3xtf32 (unless forced), split K or batched products.
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32 cluster-m=1" | FileCheck %s --check-prefix=OFF
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s --check-prefix=X3
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="cluster-m=2" 2>/dev/null | FileCheck %s --check-prefix=FORCE
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="cluster-m=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not fuser-opt %s --fuser-configure-kernels="cluster-m=3" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: cluster-m must be 0 (heuristic), 1 (no clusters) or 2, got 3

// REPORT: remark: matmul kernel: wgmma_tma in tf32, in clusters of 2 blocks (precision tf32; 2-block clusters share each B tile by TMA multicast: half the L2 reads of B)
// REFUSED: remark: cluster-m=2 not applied: B tiles of 96 columns do not split into a share per block
// REFUSED: remark: cluster-m=2 not applied: a batched product's tiles are not paired
// REFUSED: remark: cluster-m=2 not applied: its K is split, and a cluster shares one K loop

// W2's shape: 8 M tiles of 128.
// CHECK-LABEL: func.func @even_m
// CHECK: precision = "tf32", cluster_m = 2>
// OFF-LABEL: func.func @even_m
// OFF-NOT: cluster_m
// X3-LABEL: func.func @even_m
// X3-NOT: cluster_m
// FORCE-LABEL: func.func @even_m
// FORCE: precision = "3xtf32", promote_every = 64, cluster_m = 2>
func.func @even_m(%x: tensor<1024x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1024x1024xf32>
}

// -----

// 3 M tiles: rounded up to 4, a third more tiles; 9 M tiles: one in ten.
// CHECK-LABEL: func.func @odd_m
// CHECK: precision = "tf32">
// CHECK: precision = "tf32", cluster_m = 2>
func.func @odd_m(%x: tensor<384x1024xf32>, %w: tensor<1024x1024xf32>,
                 %x9: tensor<1100x1024xf32>) -> (tensor<384x1024xf32>, tensor<1100x1024xf32>) {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<384x1024xf32>, tensor<1024x1024xf32> -> tensor<384x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %z = fuser.matmul %x9, %w transpose_b epilogue_maps [] : tensor<1100x1024xf32>, tensor<1024x1024xf32> -> tensor<1100x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z : tensor<384x1024xf32>, tensor<1100x1024xf32>
}

// -----

// One M tile: nothing to pair. A dynamic M (the batch) is paired.
// CHECK-LABEL: func.func @one_tile_and_dynamic
// CHECK: precision = "tf32">
// CHECK: precision = "tf32", cluster_m = 2>
func.func @one_tile_and_dynamic(%x: tensor<100x1024xf32>, %w: tensor<1024x1024xf32>,
                                %xd: tensor<?x1024xf32>) -> (tensor<100x1024xf32>, tensor<?x1024xf32>) {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<100x1024xf32>, tensor<1024x1024xf32> -> tensor<100x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %z = fuser.matmul %xd, %w transpose_b epilogue_maps [] : tensor<?x1024xf32>, tensor<1024x1024xf32> -> tensor<?x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z : tensor<100x1024xf32>, tensor<?x1024xf32>
}

// -----

// x @ W, W N-major (K x N), 1000 x 3000 in 3xtf32: the 128 x 96 wave tile,
// whose three 32-column boxes of B do not split in two, so forced clusters
// are refused with a remark. (tf32 reads an N-major B with mma.sync.)
// FORCE-LABEL: func.func @wave_tile
// FORCE-NOT: cluster_m
// FORCE: return
// CHECK-LABEL: func.func @wave_tile
// CHECK: strategy = "mma"
// CHECK-NOT: cluster_m
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
