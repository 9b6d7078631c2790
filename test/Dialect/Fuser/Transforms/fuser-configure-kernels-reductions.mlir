// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -verify-diagnostics | FileCheck %s

// Many short rows (a GroupNorm group of 16): 4 consecutive threads each,
// each loading 4 elements at once.
// CHECK-LABEL: func.func @group_sums
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], vector_width = 4, tile = [4, 1]>
func.func @group_sums(%x: tensor<1024x512x16xf32>, %init: tensor<1024x512xf32>) -> tensor<1024x512xf32> {
  // expected-remark @+1 {{reduction kernel: 524288 outputs of 16 elements in 4-element vectors, 4 consecutive threads per output, 256 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<1024x512x16xf32>) outs(%init : tensor<1024x512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}

// -----

// A bias gradient: 8192 column sums over 1024 rows. Neighbouring columns
// are neighbours in memory, so each warp takes 32 of them and 32 threads a
// block-row apart share each column to fill the GPU.
// CHECK-LABEL: func.func @bias_grad
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [32, 32]>
func.func @bias_grad(%g: tensor<1024x8192xf32>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  // expected-remark @+1 {{reduction kernel: 8192 outputs of 1024 elements, 32 threads a block-row apart per output, 1024 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<1024x8192xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}

// -----

// A vector times a matrix (x @ A): 8192 columns of 65536, too long for 32
// threads a block-row apart. Two stages: block-rows of 512 neighbouring
// columns, each column split into 16 slices.
// CHECK-LABEL: func.func @vecmat_columns
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [2, 512, 16]>
func.func @vecmat_columns(%x: tensor<65536xf32>, %a: tensor<65536x8192xf32>, %init: tensor<8192xf32>) -> tensor<8192xf32> {
  // expected-remark @+1 {{reduction kernel: 8192 outputs of 65536 elements, 2 threads a block-row apart per output, 1024 threads per block; two stages: columns of 65536 elements are too long for one, so block-rows of 512 neighbouring outputs, 16 blocks per output each reduce a slice of about 4096 elements, and a second kernel combines each output's 16 partial results in a fixed order}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %a : tensor<65536xf32>, tensor<65536x8192xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}

// -----

// 100 columns of 65536: the GPU is idle with one block, so two stages as
// before (block-rows of 32 columns, 64 slices), not the long-column form.
// CHECK-LABEL: func.func @few_long_columns
// CHECK: tile = [32, 32, 64]>
func.func @few_long_columns(%a: tensor<65536x100xf32>, %init: tensor<100xf32>) -> tensor<100xf32> {
  // expected-remark @+1 {{two stages: 4 block(s) of 1024 threads would leave most of the GPU idle}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<65536x100xf32>) outs(%init : tensor<100xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<100xf32>
  return %r : tensor<100xf32>
}

// -----

// One total: up to 1024 threads share it. Its extent is dynamic, so one
// stage whatever its size at run time (two stages need static extents).
// CHECK-LABEL: func.func @total
// CHECK: tile = [1024, 1]>
func.func @total(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-remark @+1 {{reduction kernel: 1 outputs of 4096 elements, 1024 consecutive threads per output, 1024 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// No identity for a subtraction: the generic fallback, with a remark.
// CHECK-LABEL: func.func @difference
// CHECK-NOT: fuser.config
func.func @difference(%x: tensor<8x8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{reduction left to the generic fallback: 'arith.subf' is no associative combiner with an identity}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.subf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// i1 masks stay with the fallback (the kernel loads whole bytes).
func.func @any(%x: tensor<8x8xi1>, %init: tensor<8xi1>) -> tensor<8xi1> {
  // expected-remark @+1 {{reduction left to the generic fallback: an element type of fewer than 8 bits}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xi1>) outs(%init : tensor<8xi1>) {
  ^bb0(%a: i1, %acc: i1):
    %s = arith.ori %a, %acc : i1
    linalg.yield %s : i1
  } -> tensor<8xi1>
  return %r : tensor<8xi1>
}

// -----

// The kernel clones the body op by op: a body with a region stays with the
// fallback.
func.func @region_in_body(%x: tensor<8x8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{reduction left to the generic fallback: the body has an op with regions}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %zero = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %zero : f32
    %v = scf.if %c -> f32 {
      %e = math.exp %a : f32
      scf.yield %e : f32
    } else {
      scf.yield %a : f32
    }
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A size-1 innermost loop does not decide the layout: the sum over dim 0
// of ?x1 (nn.Linear(..., 1)'s bias gradient) reads consecutive elements.
// CHECK-LABEL: func.func @column_of_one
// CHECK: tile = [1024, 1]
func.func @column_of_one(%g: tensor<?x1xf32>, %init: tensor<1xf32>) -> tensor<1xf32> {
  // expected-remark @+1 {{reduction kernel: 1 outputs of 4096 elements, 1024 consecutive threads per output, 1024 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<?x1xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

// Two stages: one total of ~10M elements would run one block on one SM.
// 2^18 target threads / 1024 per block = 256 blocks, each folding a slice
// of ~39063 elements (38 per thread, over kMinSliceFolds = 16).
// CHECK-LABEL: func.func @scalar_loss
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [1024, 1, 256]>
func.func @scalar_loss(%x: tensor<10000019xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-remark @+1 {{reduction kernel: 1 outputs of 10000019 elements, 1024 consecutive threads per output, 1024 threads per block; two stages: 1 block(s) of 1024 threads would leave most of the GPU idle, so 256 blocks per output each reduce a slice of about 39063 elements, and a second kernel combines each output's 256 partial results in a fixed order}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Three long rows: 2^18 / (3 x 1024) = 85 slices would keep fewer than 16
// elements per thread, so 1000003 / (16 x 1024) = 61.
// CHECK-LABEL: func.func @three_rows
// CHECK: tile = [1024, 1, 61]
func.func @three_rows(%x: tensor<3x1000003xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  // expected-remark @+1 {{3 block(s) of 1024 threads would leave most of the GPU idle, so 61 blocks per output}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x1000003xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Three long columns, an i32 maximum: 32 threads a block-row apart per
// column in one block; 256 slices.
// CHECK-LABEL: func.func @three_columns
// CHECK: tile = [32, 32, 256]
func.func @three_columns(%x: tensor<1000003x3xi32>, %init: tensor<3xi32>) -> tensor<3xi32> {
  // expected-remark @+1 {{32 threads a block-row apart per output, 1024 threads per block; two stages: 1 block(s) of 1024 threads would leave most of the GPU idle, so 256 blocks per output}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1000003x3xi32>) outs(%init : tensor<3xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %a, %acc : i32
    linalg.yield %m : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// -----

// One stage: a static total too short for two slices of 16 elements per
// thread (32768), and 256 outputs whose blocks fill the GPU already.
// CHECK-LABEL: func.func @short_total
// CHECK: tile = [1024, 1]>
func.func @short_total(%x: tensor<32767xf32>, %init: tensor<f32>) -> tensor<f32> {
  // expected-remark @+1 {{reduction kernel: 1 outputs of 32767 elements, 1024 consecutive threads per output, 1024 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<32767xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
// CHECK-LABEL: func.func @many_rows
// CHECK: vector_width = 4, tile = [1024, 1]>
func.func @many_rows(%x: tensor<256x1000000xf32>, %init: tensor<256xf32>) -> tensor<256xf32> {
  // expected-remark @+1 {{reduction kernel: 256 outputs of 1000000 elements in 4-element vectors, 1024 consecutive threads per output, 1024 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x1000000xf32>) outs(%init : tensor<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// -----

// torch.max(x, dim=1) on 128 x 4096 x 4095 as torch-mlir lowers it: the
// value and its index, one reduction kernel over the middle dimension.
// Outputs enough to fill the GPU, but 4096 elements are too many for one
// thread to sum (kMaxFoldsPerThread): 16 threads share each, in blocks of
// 1024 that span 64 outputs per block-row (kWideStridedBlock).
// CHECK-LABEL: func.func @max_with_index
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [1024, 1, 1], tile = [16, 64]>
func.func @max_with_index(%x: tensor<128x4096x4095xf32>, %vi: tensor<128x4095xf32>, %ii: tensor<128x4095xi64>) -> (tensor<128x4095xf32>, tensor<128x4095xi64>) {
  // expected-remark @+1 {{reduction kernel: 524160 outputs of 4096 elements, 16 threads a block-row apart per output, 1024 threads per block (64 neighbouring outputs per block-row, so that fewer sectors straddle two blocks)}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                         iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<128x4096x4095xf32>) outs(%vi, %ii : tensor<128x4095xf32>, tensor<128x4095xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %gt = arith.cmpf ogt, %in, %v : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<128x4095xf32>, tensor<128x4095xi64>)
  return %r#0, %r#1 : tensor<128x4095xf32>, tensor<128x4095xi64>
}

// -----

// Two results that are no value and index (the select keeps a value that
// is not strictly better: oge): the generic fallback, with a remark.
func.func @not_an_arg_reduction(%x: tensor<8x16xf32>, %vi: tensor<8xf32>, %ii: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xi64>) {
  // expected-remark @+1 {{reduction left to the generic fallback: the body of two results is no value-and-index reduction (max or min of a value, and the index where it was strictly better), no online softmax and no two independent folds}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%vi, %ii : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %ge = arith.cmpf oge, %in, %v : f32
    %s = arith.select %ge, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi64>
}

// -----

// A global 4 x 4 average pool (a ResNet's last): the 1-wide output leaves
// the window's loop innermost, but the input reads it through a window, not
// contiguously: no vector loads.
// CHECK-LABEL: func.func @global_pool
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [16, 1]>
func.func @global_pool(%x: tensor<8x512x4x4xf32>, %w: tensor<4x4xf32>, %init: tensor<8x512x1x1xf32>) -> tensor<8x512x1x1xf32> {
  // expected-remark @+1 {{reduction kernel: 4096 outputs of 16 elements, 16 consecutive threads per output, 256 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 4 + d4, d3 * 4 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<8x512x4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<8x512x1x1xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x512x1x1xf32>
  return %r : tensor<8x512x1x1xf32>
}

// -----

// avg_pool2d(3) on 16 x 64 x 256 x 256: 66M windows of 9, one thread per
// output, neighbouring outputs on neighbouring threads, each thread 4 x 4
// outputs: 4 down a column (their windows share rows) and 4 along the row
// (the input rows' 1024-byte pitch loads as 16-byte vectors).
// CHECK-LABEL: func.func @pool_windows
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4, 4]>
func.func @pool_windows(%x: tensor<16x64x256x256xf32>, %w: tensor<3x3xf32>, %init: tensor<16x64x254x254xf32>) -> tensor<16x64x254x254xf32> {
  // expected-remark @+1 {{reduction kernel: 66064384 outputs of 9 elements, 1 thread per output, 256 threads per block, 4 outputs per thread along loop 2 (their windows overlap: the input rows they share are loaded once), and 4 neighbouring outputs along loop 3 (the input columns their windows read loaded as 16-byte vectors)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x64x256x256xf32>, tensor<3x3xf32>) outs(%init : tensor<16x64x254x254xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x64x254x254xf32>
  return %r : tensor<16x64x254x254xf32>
}

// -----

// The same pool over rows of 255 elements: their pitch does not keep
// 16-byte vectors aligned, so only the rows are shared.
// CHECK-LABEL: func.func @pool_windows_odd_pitch
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 4]>
func.func @pool_windows_odd_pitch(%x: tensor<16x64x256x255xf32>, %w: tensor<3x3xf32>, %init: tensor<16x64x254x253xf32>) -> tensor<16x64x254x253xf32> {
  // expected-remark @+1 {{reduction kernel: 65804288 outputs of 9 elements, 1 thread per output, 256 threads per block, 4 outputs per thread along loop 2 (their windows overlap: the input rows they share are loaded once)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x64x256x255xf32>, tensor<3x3xf32>) outs(%init : tensor<16x64x254x253xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x64x254x253xf32>
  return %r : tensor<16x64x254x253xf32>
}

// -----

// avg_pool1d(4, stride=2, padding=1) on 8 x 64 x 4099 (padded to 4101): 1M
// windows of 4 along the row; each thread computes 2 neighbouring outputs,
// whose windows share elements.
// CHECK-LABEL: func.func @pool_columns
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 2]>
func.func @pool_columns(%x: tensor<8x64x4101xf32>, %w: tensor<4xf32>, %init: tensor<8x64x2049xf32>) -> tensor<8x64x2049xf32> {
  // expected-remark @+1 {{reduction kernel: 1049088 outputs of 4 elements, 1 thread per output, 256 threads per block, 2 outputs per thread along loop 2 (their windows overlap: the input elements they share are loaded once)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x64x4101xf32>, tensor<4xf32>) outs(%init : tensor<8x64x2049xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x64x2049xf32>
  return %r : tensor<8x64x2049xf32>
}

// -----

// avg_pool1d as torch-mlir exports it: a 1 x 4 window, stride (1, 2), over
// an H of 1. The window has a single row, so the 2 outputs per thread go
// along W.
// CHECK-LABEL: func.func @pool_one_row
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256, 1, 2]>
func.func @pool_one_row(%x: tensor<8x64x1x4101xf32>, %w: tensor<1x4xf32>, %init: tensor<8x64x1x2049xf32>) -> tensor<8x64x1x2049xf32> {
  // expected-remark @+1 {{2 outputs per thread along loop 3 (their windows overlap: the input elements they share are loaded once)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 * 2 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<8x64x1x4101xf32>, tensor<1x4xf32>) outs(%init : tensor<8x64x1x2049xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x64x1x2049xf32>
  return %r : tensor<8x64x1x2049xf32>
}

// -----

// A 2 x 2 window, stride 2: neither its rows nor its columns overlap, and
// the window has two rows, so one output per thread.
// CHECK-LABEL: func.func @pool_disjoint_2x2
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256]>
func.func @pool_disjoint_2x2(%x: tensor<16x64x256x256xf32>, %w: tensor<2x2xf32>, %init: tensor<16x64x128x128xf32>) -> tensor<16x64x128x128xf32> {
  // expected-remark @+1 {{reduction kernel: 16777216 outputs of 4 elements, 1 thread per output, 256 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x64x256x256xf32>, tensor<2x2xf32>) outs(%init : tensor<16x64x128x128xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x64x128x128xf32>
  return %r : tensor<16x64x128x128xf32>
}

// -----

// A 3 x 3 window, stride (3, 1): its columns overlap but it has three
// disjoint rows, so one output per thread (the rule takes columns only for
// a window of a single row).
// CHECK-LABEL: func.func @pool_row_stride_3
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256]>
func.func @pool_row_stride_3(%x: tensor<16x64x255x256xf32>, %w: tensor<3x3xf32>, %init: tensor<16x64x85x254xf32>) -> tensor<16x64x85x254xf32> {
  // expected-remark @+1 {{1 thread per output, 256 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 3 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x64x255x256xf32>, tensor<3x3xf32>) outs(%init : tensor<16x64x85x254xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x64x85x254xf32>
  return %r : tensor<16x64x85x254xf32>
}

// -----

// A window of 3 rows dilated by 2 with stride 3: the next output's window
// starts between this one's rows and shares none of them, so one output
// per thread.
// CHECK-LABEL: func.func @pool_dilated_disjoint
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], tile = [1, 256]>
func.func @pool_dilated_disjoint(%x: tensor<16x64x256x256xf32>, %w: tensor<3x3xf32>, %init: tensor<16x64x84x84xf32>) -> tensor<16x64x84x84xf32> {
  // expected-remark @+1 {{reduction kernel: 7225344 outputs of 9 elements, 1 thread per output, 256 threads per block}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 3 + d4 * 2, d3 * 3 + d5 * 2)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x64x256x256xf32>, tensor<3x3xf32>) outs(%init : tensor<16x64x84x84xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x64x84x84xf32>
  return %r : tensor<16x64x84x84xf32>
}

// -----

// f16 rows summed in f32 (fuser-widen-half-sums): the config's widest
// vector is 4 elements, so 16-bit inputs load 8 bytes at a time.
// CHECK-LABEL: func.func @half_rows
// CHECK: fuser.config = #fuser.config<strategy = "reduction", block = [256, 1, 1], vector_width = 4
func.func @half_rows(%x: tensor<4096x64xf16>, %init: tensor<4096xf32>) -> tensor<4096xf32> {
  // expected-remark @+1 {{reduction kernel: 4096 outputs of 64 elements in 4-element vectors}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x64xf16>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// A softmax's statistics with no consumer in the kernel (cross_entropy's):
// rows of 1000 are held in registers, 250 vectors over 32 threads, and the
// statistics taken in two passes over them; rows of 393216 keep the online
// update.
// CHECK-LABEL: func.func @softmax_statistics
// CHECK: strategy = "reduction", block = [256, 1, 1], vector_width = 4, tile = [32, 1]
// CHECK: strategy = "reduction", block = [512, 1, 1], vector_width = 4, tile = [512, 1]
func.func @softmax_statistics(%x: tensor<32768x1000xf32>, %y: tensor<4096x393216xf32>)
    -> (tensor<32768xf32>, tensor<32768xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32768xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<32768xf32>) -> tensor<32768xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<32768xf32>) -> tensor<32768xf32>
  // expected-remark @+1 {{reduction kernel: 32768 outputs of 1000 elements in 4-element vectors, 32 consecutive threads per output, 256 threads per block; each thread holds up to 32 elements in registers and takes the softmax statistics in two passes over them}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32768x1000xf32>) outs(%mi, %si : tensor<32768xf32>, tensor<32768xf32>)
      attrs = {fuser.online_softmax} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %one : f32
    %keep = arith.addf %s, %ex : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    linalg.yield %m2, %s2 : f32, f32
  } -> (tensor<32768xf32>, tensor<32768xf32>)
  %f = tensor.empty() : tensor<4096xf32>
  %mj = linalg.fill ins(%ninf : f32) outs(%f : tensor<4096xf32>) -> tensor<4096xf32>
  %sj = linalg.fill ins(%zero : f32) outs(%f : tensor<4096xf32>) -> tensor<4096xf32>
  // expected-remark @+1 {{reduction kernel: 4096 outputs of 393216 elements in 4-element vectors, 512 consecutive threads per output, 512 threads per block}}
  %q:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4096x393216xf32>) outs(%mj, %sj : tensor<4096xf32>, tensor<4096xf32>)
      attrs = {fuser.online_softmax} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %one : f32
    %keep = arith.addf %s, %ex : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    linalg.yield %m2, %s2 : f32, f32
  } -> (tensor<4096xf32>, tensor<4096xf32>)
  return %r#0, %r#1, %q#0, %q#1 : tensor<32768xf32>, tensor<32768xf32>, tensor<4096xf32>, tensor<4096xf32>
}
