// Reductions with few outputs over a long static extent, for
// test/gpu/test_reductions.py: fuser-configure-kernels gives each the two-
// stage form (tile = [S, D, P]: P blocks per output write partial results,
// a second kernel combines them in a fixed order and applies the init).
// Odd lengths (not multiples of the 32-element slices or of the threads).

// A scalar loss: the sum of ~10M floats.
func.func @total_sum(%x: tensor<10000019xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// The maximum, from -inf.
func.func @total_max(%x: tensor<10000019xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Widened to f64 before the sum (torch-mlir's statistics): f64 partials.
func.func @total_sum_f64(%x: tensor<10000019xf32>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%init : tensor<f64>) {
  ^bb0(%a: f32, %acc: f64):
    %w = arith.extf %a : f32 to f64
    %s = arith.addf %w, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}

// Weighted by the element's index: each slice must see its global index.
func.func @index_weighted_total(%x: tensor<10000019xf32>) -> tensor<f32> {
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 0 : index
    %m = arith.remui %i, %c7 : index
    %mi = arith.index_cast %m : index to i32
    %w = arith.sitofp %mi : i32 to f32
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// An i64 total (exact).
func.func @total_sum_i64(%x: tensor<4000037xi64>) -> tensor<i64> {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<4000037xi64>) outs(%init : tensor<i64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.addi %a, %acc : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

// Three long rows: consecutive threads per row, P blocks per row.
func.func @rows3_sum(%x: tensor<3x1000003xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x1000003xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// The same with the init read from memory (a bias): kernel 2 loads it.
func.func @rows3_sum_plus(%x: tensor<3x1000003xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x1000003xf32>) outs(%b : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Three long columns: threads a block-row apart, P blocks per column.
func.func @cols3_sum(%x: tensor<1000003x3xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1000003x3xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Signed i32 column maxima from INT_MIN.
func.func @cols3_max_i32(%x: tensor<1000003x3xi32>) -> tensor<3xi32> {
  %min = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<3xi32>
  %init = linalg.fill ins(%min : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1000003x3xi32>) outs(%init : tensor<3xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %a, %acc : i32
    linalg.yield %m : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// x.argmax() of ~10M floats with its value: two stages of value-and-index
// partials.
func.func @total_argmax(%x: tensor<10000019xf32>) -> (tensor<f32>, tensor<i64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i64
  %ev = tensor.empty() : tensor<f32>
  %vi = linalg.fill ins(%ninf : f32) outs(%ev : tensor<f32>) -> tensor<f32>
  %ei = tensor.empty() : tensor<i64>
  %ii = linalg.fill ins(%z : i64) outs(%ei : tensor<i64>) -> tensor<i64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%x : tensor<10000019xf32>) outs(%vi, %ii : tensor<f32>, tensor<i64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 0 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %gt = arith.cmpf ogt, %in, %v : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<f32>, tensor<i64>)
  return %r#0, %r#1 : tensor<f32>, tensor<i64>
}
