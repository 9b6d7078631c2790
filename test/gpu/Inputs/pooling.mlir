// torch-mlir's export of avg_pool2d(3, stride=2, padding=1), max_pool2d(3,
// stride=2, padding=1) and avg_pool2d((2, 3), stride=(1, 2)) on 2x3x33x47
// (scripts: torch_mlir.fx.export_and_import, linalg-on-tensors), for
// test/gpu/test_reductions.py: fuser-generalize-pooling's windows through
// the reduction kernel, a padded input, odd sizes; and global 4 x 4 pools
// (a 1-wide output: the window's loop innermost, read element by element);
// and pools large enough for 4 outputs per thread along the output rows
// (avg_pool2d(3, stride=1) with 253 rows, max_pool2d(3, stride=2,
// padding=1)) or 2 along the output columns of 1-D pools (avg_pool1d(4,
// stride=2, padding=1), max_pool1d(3, stride=2, padding=1), 2049 columns);
// and pools whose rows load as 16-byte vectors, 4 x 4 outputs per thread
// (avg_pool2d(3, stride=1) with 258 output columns, the last group half past
// them; max_pool2d(3, stride=1)).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @pools(%arg0: tensor<2x3x33x47xf32>) -> (tensor<2x3x17x24xf32>, tensor<2x3x17x24xf32>, tensor<2x3x32x23xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 9.000000e+00 : f32
    %cst_2 = arith.constant 6.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x3x33x47xf32> to tensor<2x3x35x49xf32>
    %0 = tensor.empty() : tensor<2x3x17x24xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3x17x24xf32>) -> tensor<2x3x17x24xf32>
    %2 = tensor.empty() : tensor<3x3xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %2 : tensor<2x3x35x49xf32>, tensor<3x3xf32>) outs(%1 : tensor<2x3x17x24xf32>) -> tensor<2x3x17x24xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<2x3x17x24xf32>) outs(%0 : tensor<2x3x17x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.divf %in, %cst_1 : f32
      linalg.yield %12 : f32
    } -> tensor<2x3x17x24xf32>
    %padded_3 = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_0 : f32
    } : tensor<2x3x33x47xf32> to tensor<2x3x35x49xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<2x3x17x24xf32>) -> tensor<2x3x17x24xf32>
    %6 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded_3, %2 : tensor<2x3x35x49xf32>, tensor<3x3xf32>) outs(%5 : tensor<2x3x17x24xf32>) -> tensor<2x3x17x24xf32>
    %7 = tensor.empty() : tensor<2x3x32x23xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<2x3x32x23xf32>) -> tensor<2x3x32x23xf32>
    %9 = tensor.empty() : tensor<2x3xf32>
    %10 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%arg0, %9 : tensor<2x3x33x47xf32>, tensor<2x3xf32>) outs(%8 : tensor<2x3x32x23xf32>) -> tensor<2x3x32x23xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<2x3x32x23xf32>) outs(%7 : tensor<2x3x32x23xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.divf %in, %cst_2 : f32
      linalg.yield %12 : f32
    } -> tensor<2x3x32x23xf32>
    return %4, %6, %11 : tensor<2x3x17x24xf32>, tensor<2x3x17x24xf32>, tensor<2x3x32x23xf32>
  }
  func.func @global_pools(%arg0: tensor<8x512x4x4xf32>) -> (tensor<8x512x1x1xf32>, tensor<8x512x1x1xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 1.600000e+01 : f32
    %0 = tensor.empty() : tensor<8x512x1x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x512x1x1xf32>) -> tensor<8x512x1x1xf32>
    %2 = tensor.empty() : tensor<4x4xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<4> : vector<2xi64>} ins(%arg0, %2 : tensor<8x512x4x4xf32>, tensor<4x4xf32>) outs(%1 : tensor<8x512x1x1xf32>) -> tensor<8x512x1x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<8x512x1x1xf32>) outs(%0 : tensor<8x512x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.divf %in, %cst_1 : f32
      linalg.yield %7 : f32
    } -> tensor<8x512x1x1xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<8x512x1x1xf32>) -> tensor<8x512x1x1xf32>
    %6 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<4> : vector<2xi64>} ins(%arg0, %2 : tensor<8x512x4x4xf32>, tensor<4x4xf32>) outs(%5 : tensor<8x512x1x1xf32>) -> tensor<8x512x1x1xf32>
    return %4, %6 : tensor<8x512x1x1xf32>, tensor<8x512x1x1xf32>
  }
  func.func @row_pools(%arg0: tensor<4x64x255x257xf32>, %arg1: tensor<8x64x255x255xf32>) -> (tensor<4x64x253x255xf32>, tensor<8x64x128x128xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 9.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x64x253x255xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x64x253x255xf32>) -> tensor<4x64x253x255xf32>
    %2 = tensor.empty() : tensor<3x3xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg0, %2 : tensor<4x64x255x257xf32>, tensor<3x3xf32>) outs(%1 : tensor<4x64x253x255xf32>) -> tensor<4x64x253x255xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<4x64x253x255xf32>) outs(%0 : tensor<4x64x253x255xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.divf %in, %cst_1 : f32
      linalg.yield %9 : f32
    } -> tensor<4x64x253x255xf32>
    %padded = tensor.pad %arg1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %cst_0 : f32
    } : tensor<8x64x255x255xf32> to tensor<8x64x257x257xf32>
    %5 = tensor.empty() : tensor<8x64x128x128xf32>
    %6 = linalg.fill ins(%cst_0 : f32) outs(%5 : tensor<8x64x128x128xf32>) -> tensor<8x64x128x128xf32>
    %7 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %2 : tensor<8x64x257x257xf32>, tensor<3x3xf32>) outs(%6 : tensor<8x64x128x128xf32>) -> tensor<8x64x128x128xf32>
    return %4, %7 : tensor<4x64x253x255xf32>, tensor<8x64x128x128xf32>
  }
  func.func @col_pools(%arg0: tensor<8x64x4099xf32>, %arg1: tensor<8x64x4097xf32>) -> (tensor<8x64x2049xf32>, tensor<8x64x2049xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 4.000000e+00 : f32
    %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [8, 64, 1, 4099] : tensor<8x64x4099xf32> into tensor<8x64x1x4099xf32>
    %padded = tensor.pad %expanded low[0, 0, 0, 1] high[0, 0, 0, 1] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f32
    } : tensor<8x64x1x4099xf32> to tensor<8x64x1x4101xf32>
    %0 = tensor.empty() : tensor<8x64x1x2049xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x64x1x2049xf32>) -> tensor<8x64x1x2049xf32>
    %2 = tensor.empty() : tensor<1x4xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%padded, %2 : tensor<8x64x1x4101xf32>, tensor<1x4xf32>) outs(%1 : tensor<8x64x1x2049xf32>) -> tensor<8x64x1x2049xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<8x64x1x2049xf32>) outs(%0 : tensor<8x64x1x2049xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.divf %in, %cst_1 : f32
      linalg.yield %8 : f32
    } -> tensor<8x64x1x2049xf32>
    %collapsed = tensor.collapse_shape %4 [[0], [1, 2], [3]] : tensor<8x64x1x2049xf32> into tensor<8x64x2049xf32>
    %expanded_2 = tensor.expand_shape %arg1 [[0], [1], [2, 3]] output_shape [8, 64, 1, 4097] : tensor<8x64x4097xf32> into tensor<8x64x1x4097xf32>
    %padded_3 = tensor.pad %expanded_2 low[0, 0, 0, 1] high[0, 0, 0, 1] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst_0 : f32
    } : tensor<8x64x1x4097xf32> to tensor<8x64x1x4099xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<8x64x1x2049xf32>) -> tensor<8x64x1x2049xf32>
    %6 = tensor.empty() : tensor<1x3xf32>
    %7 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%padded_3, %6 : tensor<8x64x1x4099xf32>, tensor<1x3xf32>) outs(%5 : tensor<8x64x1x2049xf32>) -> tensor<8x64x1x2049xf32>
    %collapsed_4 = tensor.collapse_shape %7 [[0], [1, 2], [3]] : tensor<8x64x1x2049xf32> into tensor<8x64x2049xf32>
    return %collapsed, %collapsed_4 : tensor<8x64x2049xf32>, tensor<8x64x2049xf32>
  }
  func.func @tile_pools(%arg0: tensor<4x64x255x260xf32>, %arg1: tensor<4x64x130x128xf32>) -> (tensor<4x64x253x258xf32>, tensor<4x64x128x126xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 9.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x64x253x258xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x64x253x258xf32>) -> tensor<4x64x253x258xf32>
    %2 = tensor.empty() : tensor<3x3xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg0, %2 : tensor<4x64x255x260xf32>, tensor<3x3xf32>) outs(%1 : tensor<4x64x253x258xf32>) -> tensor<4x64x253x258xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<4x64x253x258xf32>) outs(%0 : tensor<4x64x253x258xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.divf %in, %cst_1 : f32
      linalg.yield %9 : f32
    } -> tensor<4x64x253x258xf32>
    %5 = tensor.empty() : tensor<4x64x128x126xf32>
    %6 = linalg.fill ins(%cst_0 : f32) outs(%5 : tensor<4x64x128x126xf32>) -> tensor<4x64x128x126xf32>
    %7 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg1, %2 : tensor<4x64x130x128xf32>, tensor<3x3xf32>) outs(%6 : tensor<4x64x128x126xf32>) -> tensor<4x64x128x126xf32>
    return %4, %7 : tensor<4x64x253x258xf32>, tensor<4x64x128x126xf32>
  }
}
