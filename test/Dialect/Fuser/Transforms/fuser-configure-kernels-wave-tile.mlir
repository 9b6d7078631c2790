// Wave tiles: a static 3xtf32 wgmma_tma product whose 128 x 128 tiles leave
// much of the last wave of 132 blocks idle gets the record's 128 x 96 tile
// (4 stages) when its waves are predicted >= 5% shorter (a 128 x 96 tile
// takes 0.83x the time of a 128 x 128 one).
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="tile-sizes=128,128,32,16,128,3" | FileCheck %s --check-prefix=OVERRIDE
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" | FileCheck %s --check-prefix=TF32

// REPORT: remark: matmul kernel: wgmma_tma in 3xtf32, sums promoted to fp32 every 64 K ({{.*}}; 128 x 96 tiles: 256 fill 2 waves of 132 blocks, where 192 of 128 x 128 leave the last of 2 part idle)
// Then w2, dynamic_m and half_wave: their default tiles.
// REPORT-NOT: x 96 tiles

// nn.Linear 1000 -> 3000 at batch 1000: 192 tiles of 128 x 128 (1.45
// waves) or 256 of 128 x 96 (1.94 waves).
// CHECK-LABEL: func.func @linear_odd
// CHECK: tile = [128, 96, 32, 16, 96, 4], min_blocks_per_sm = 1, precision = "3xtf32"
// OVERRIDE-LABEL: func.func @linear_odd
// OVERRIDE: tile = [128, 128, 32, 16, 128, 3]
// TF32-LABEL: func.func @linear_odd
// TF32: tile = [128, 256, 32, 16, 256, 4]
func.func @linear_odd(%x: tensor<1000x1000xf32>, %w: tensor<3000x1000xf32>) -> tensor<1000x3000xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1000x1000xf32>, tensor<3000x1000xf32> -> tensor<1000x3000xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1000x3000xf32>
}

// -----

// W2: 512 tiles, 3.9 waves; 128 x 96 would take 688 in 5.2 (6 x 0.83 > 4).
// CHECK-LABEL: func.func @w2
// CHECK: tile = [128, 128, 32, 16, 128, 3]
func.func @w2(%x: tensor<1024x8192xf32>, %w: tensor<8192x8192xf32>) -> tensor<1024x8192xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1024x8192xf32>, tensor<8192x8192xf32> -> tensor<1024x8192xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1024x8192xf32>
}

// -----

// A dynamic M: the tile count is known at run time only.
// CHECK-LABEL: func.func @dynamic_m
// CHECK: tile = [128, 128, 32, 16, 128, 3]
func.func @dynamic_m(%x: tensor<?x1000xf32>, %w: tensor<3000x1000xf32>) -> tensor<?x3000xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<?x1000xf32>, tensor<3000x1000xf32> -> tensor<?x3000xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x3000xf32>
}

// -----

// 64 tiles fill at most half a wave: split K's (here K is too short to
// split), not the wave tile's.
// CHECK-LABEL: func.func @half_wave
// CHECK: tile = [128, 128, 32, 16, 128, 3]
// CHECK-NOT: split_k
func.func @half_wave(%x: tensor<1024x1000xf32>, %w: tensor<1000x1000xf32>) -> tensor<1024x1000xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1024x1000xf32>, tensor<1000x1000xf32> -> tensor<1024x1000xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<1024x1000xf32>
}
