// Reductions no fusion group takes, for test/gpu/test_reductions.py: each
// gets a reduction kernel (fuser-reduction-to-gpu); dynamic sizes, the
// forms torch-mlir emits (keepdim outputs indexed by constant 0s, f64
// sums, transposed reads) and each kind of thread sharing.

// Row sums: consecutive threads share a row.
func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Column sums (a bias gradient): each warp spans neighbouring columns.
func.func @col_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// torch-mlir's GroupNorm statistics: x (N, G, K, 1) widened to f64 and
// summed over the group into a keepdim (N, G, 1, 1).
func.func @group_sum_f64(%x: tensor<?x?x16x1xf32>) -> tensor<?x?x1x1xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %x, %c0 : tensor<?x?x16x1xf32>
  %g = tensor.dim %x, %c1 : tensor<?x?x16x1xf32>
  %e = tensor.empty(%n, %g) : tensor<?x?x1x1xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?x1x1xf64>) -> tensor<?x?x1x1xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x?x16x1xf32>) outs(%init : tensor<?x?x1x1xf64>) {
  ^bb0(%a: f32, %acc: f64):
    %w = arith.extf %a : f32 to f64
    %s = arith.addf %w, %acc : f64
    linalg.yield %s : f64
  } -> tensor<?x?x1x1xf64>
  return %r : tensor<?x?x1x1xf64>
}

// A maximum with its identity in the init, and a broadcast operand.
func.func @row_max_scaled(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %s : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %mx = arith.maximumf %p, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Everything into one element, weighted by its index: few outputs, so
// many threads share each.
func.func @index_weighted_total(%x: tensor<?xf32>) -> tensor<f32> {
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
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

// Short static rows (20): 32 consecutive threads per row combine by warp
// shuffles (the f64 group sums above take the 64-bit shuffle path).
func.func @row_sum_20(%x: tensor<?x20xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x20xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x20xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// The init from memory (a bias added to row sums: the kernel loads it).
func.func @row_sum_plus(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%b : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Integers: an i64 sum on short rows (64-bit shuffles) and a signed i32
// maximum from its identity (INT_MIN).
func.func @row_sum_i64(%x: tensor<?x20xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %m = tensor.dim %x, %c0 : tensor<?x20xi64>
  %e = tensor.empty(%m) : tensor<?xi64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x20xi64>) outs(%init : tensor<?xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.addi %a, %acc : i64
    linalg.yield %s : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

func.func @col_max_i32(%x: tensor<?x?xi32>) -> tensor<?xi32> {
  %c1 = arith.constant 1 : index
  %min = arith.constant -2147483648 : i32
  %n = tensor.dim %x, %c1 : tensor<?x?xi32>
  %e = tensor.empty(%n) : tensor<?xi32>
  %init = linalg.fill ins(%min : i32) outs(%e : tensor<?xi32>) -> tensor<?xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xi32>) outs(%init : tensor<?xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.maxsi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// Masks (i1 arguments, a byte each): a row count of true elements in the
// reduction kernel (cross_entropy's count of kept targets), and torch.any
// of a whole mask (an i1 result: the generic fallback, in one thread).
func.func @mask_row_count(%m: tensor<?x?xi1>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %r0 = tensor.dim %m, %c0 : tensor<?x?xi1>
  %e = tensor.empty(%r0) : tensor<?xi64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<?x?xi1>) outs(%init : tensor<?xi64>) {
  ^bb0(%a: i1, %acc: i64):
    %w = arith.extui %a : i1 to i64
    %s = arith.addi %w, %acc : i64
    linalg.yield %s : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

func.func @mask_any(%m: tensor<?x?xi1>) -> tensor<i1> {
  %false = arith.constant false
  %e = tensor.empty() : tensor<i1>
  %init = linalg.fill ins(%false : i1) outs(%e : tensor<i1>) -> tensor<i1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%m : tensor<?x?xi1>) outs(%init : tensor<i1>) {
  ^bb0(%a: i1, %acc: i1):
    %o = arith.ori %a, %acc : i1
    linalg.yield %o : i1
  } -> tensor<i1>
  return %r : tensor<i1>
}

// torch.sum(x, dim=1) on (N, C, W): threads a block-row apart, 1024 per
// block spanning 64 neighbouring outputs per block-row.
func.func @sum_middle(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%d0, %d2) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<?x?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// torch.max(x, dim=1) as torch-mlir lowers it: the value and its index,
// over the middle dimension (threads a block-row apart).
func.func @max_middle(%x: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i64
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %ev = tensor.empty(%d0, %d2) : tensor<?x?xf32>
  %vi = linalg.fill ins(%ninf : f32) outs(%ev : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ei = tensor.empty(%d0, %d2) : tensor<?x?xi64>
  %ii = linalg.fill ins(%z : i64) outs(%ei : tensor<?x?xi64>) -> tensor<?x?xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                         iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<?x?x?xf32>) outs(%vi, %ii : tensor<?x?xf32>, tensor<?x?xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %gt = arith.cmpf ogt, %in, %v : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<?x?xf32>, tensor<?x?xi64>)
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xi64>
}

// torch.min(x, dim=1) over rows (consecutive threads).
func.func @min_rows(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %inf = arith.constant 0x7F800000 : f32
  %z = arith.constant 0 : i64
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %ev = tensor.empty(%d0) : tensor<?xf32>
  %vi = linalg.fill ins(%inf : f32) outs(%ev : tensor<?xf32>) -> tensor<?xf32>
  %ei = tensor.empty(%d0) : tensor<?xi64>
  %ii = linalg.fill ins(%z : i64) outs(%ei : tensor<?xi64>) -> tensor<?xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%vi, %ii : tensor<?xf32>, tensor<?xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.minimumf %in, %v : f32
    %lt = arith.cmpf olt, %in, %v : f32
    %s = arith.select %lt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<?xf32>, tensor<?xi64>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}
