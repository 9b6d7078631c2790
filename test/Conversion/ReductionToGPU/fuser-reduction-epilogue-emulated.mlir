// RUN: fuser-opt %s --fuser-reduction-to-gpu -canonicalize -cse --mlir-print-op-generic | %PYTHON %S/Inputs/emulate_reductions.py %S/Inputs/epilogue_cases.py --stores-once | FileCheck %s

// Reductions that compute their broadcast consumer (strategy
// "reduction_epilogue") run on the CPU (Inputs/emulate_reductions.py) on
// the inputs of Inputs/epilogue_cases.py: each input element is loaded
// twice (the fold, then the consumer's pass) where the threads do not hold
// their elements, once where they do (below), each output element is stored
// exactly once, and the consumer's elements match the reference. An RMS norm over the channels
// of NCHW (threads a block-row apart, odd sizes, combined in shared
// memory), a softmax over rows from online statistics (vectors, warp
// shuffles, NaN, +-inf, -inf rows, ties, a rising row), an L2
// normalization whose norm is a fuser.pointwise of the sum alone (reached
// through expand and collapse), with its sums also returned (the results
// written too; its elements held, below), and a scaled row norm whose weight is read per element
// (scalar loads, one thread per output). Threads holding their elements in
// registers (8 groups each: a softmax over rows of 256 in vectors, an RMS
// norm over 32 channels; the L2 normalization's rows of 1000, 250 vectors
// over 64 threads, the fourth group past the row for 6 of them, which load
// the last vector again and store nothing from it) load each element once;
// a spare thread of the last block reads the last row's elements and
// stores nothing.
// In clusters (cluster_m): the softmax over rows of 300 split over 4
// blocks of a cluster (the last slice empty), their statistics combined
// through each other's shared memory, each block re-reading its slice; row
// sums over 2 blocks in scalar loads (slices of 512 and 488), stored by the
// first.

// CHECK: rms_channels OK
// CHECK-NEXT: softmax_rows OK
// CHECK-NEXT: l2_rows OK
// CHECK-NEXT: weighted_rows OK
// CHECK-NEXT: softmax_held OK
// CHECK-NEXT: lse_rows OK
// CHECK-NEXT: lse_held OK
// CHECK-NEXT: column_norms_two_stages OK
// CHECK-NEXT: rms_channels_held OK
// CHECK-NEXT: softmax_cluster OK
// CHECK-NEXT: row_sums_cluster OK
// CHECK-NOT: MISMATCH

// Consumers over the outputs (ReductionEpilogue::overOutputs), computed by
// the thread that stores each result: logsumexp's log(s) + m plus a tensor
// of the outputs' shape, from online statistics folded per element (rows of
// 300) and held (rows of 256), each element loaded once, special rows
// included (NaN, +inf, all -inf: log(0) + -inf; the spare thread of the
// held rows' block reads the last row again); column norms in two
// stages (threads a block-row apart, 4 slices), whose sqrt runs in the
// second kernel and whose sums are returned too.

func.func @rms_channels(%x: tensor<2x64x3x5xf32>) -> tensor<2x64x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x3x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1x3x5xf32>) -> tensor<2x1x3x5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>],
                       iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : tensor<2x64x3x5xf32>) outs(%init : tensor<2x1x3x5xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], tile = [4, 16]>} {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x1x3x5xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2], [3]] : tensor<2x1x3x5xf32> into tensor<2x3x5xf32>
  %y = fuser.pointwise ins(%c, %x : tensor<2x3x5xf32>, tensor<2x64x3x5xf32>)
      maps [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
      -> tensor<2x64x3x5xf32> {
  ^bb0(%ss: f32, %v: f32):
    %n = arith.constant 6.400000e+01 : f32
    %eps = arith.constant 1.0e-05 : f32
    %m = arith.divf %ss, %n : f32
    %me = arith.addf %m, %eps : f32
    %r = math.sqrt %me : f32
    %o = arith.divf %v, %r : f32
    fuser.yield %o : f32
  }
  return %y : tensor<2x64x3x5xf32>
}

func.func @softmax_rows(%x: tensor<7x300xf32>) -> tensor<7x300xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xf32>) outs(%mi, %si : tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], vector_width = 4, tile = [8, 1]>} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %x0 = math.exp %n : f32
    %isnan = arith.cmpf uno, %d, %d : f32
    %ex = arith.select %isnan, %zero, %x0 : f32
    %isinf = arith.cmpf oeq, %in, %inf : f32
    %w = arith.select %isinf, %nan, %one : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %w : f32
    %we = arith.mulf %w, %ex : f32
    %keep = arith.addf %s, %we : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    %mnan = arith.cmpf uno, %m2, %m2 : f32
    %s3 = arith.select %mnan, %nan, %s2 : f32
    linalg.yield %m2, %s3 : f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>)
  %y = fuser.pointwise ins(%x, %r#0, %r#1 : tensor<7x300xf32>, tensor<7xf32>, tensor<7xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<7x300xf32> {
  ^bb0(%v: f32, %m: f32, %s: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    %o = arith.divf %ex, %s : f32
    fuser.yield %o : f32
  }
  return %y : tensor<7x300xf32>
}

func.func @l2_rows(%x: tensor<5x1000xf32>) -> (tensor<5x1000xf32>, tensor<5x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<5x1xf32>) -> tensor<5x1xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x1000xf32>) outs(%init : tensor<5x1xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [128, 1, 1], vector_width = 4, tile = [64, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<5x1xf32>
  %norm = fuser.pointwise ins(%s : tensor<5x1xf32>) maps [affine_map<(d0, d1) -> (d0, d1)>] -> tensor<5x1xf32> {
  ^bb0(%ss: f32):
    %eps = arith.constant 1.0e-12 : f32
    %r = math.sqrt %ss : f32
    %m = arith.maximumf %r, %eps : f32
    fuser.yield %m : f32
  }
  %c = tensor.collapse_shape %norm [[0, 1]] : tensor<5x1xf32> into tensor<5xf32>
  %ex = tensor.expand_shape %c [[0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
  %c2 = tensor.collapse_shape %ex [[0, 1]] : tensor<5x1xf32> into tensor<5xf32>
  %y = fuser.pointwise ins(%c2, %x : tensor<5xf32>, tensor<5x1000xf32>)
      maps [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
      -> tensor<5x1000xf32> {
  ^bb0(%nn: f32, %v: f32):
    %o = arith.divf %v, %nn : f32
    fuser.yield %o : f32
  }
  return %y, %s : tensor<5x1000xf32>, tensor<5x1xf32>
}

func.func @weighted_rows(%x: tensor<64x13xf32>, %w: tensor<13xf32>) -> tensor<64x13xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x13xf32>) outs(%init : tensor<64xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [32, 1, 1], tile = [1, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %y = fuser.pointwise ins(%w, %x, %s : tensor<13xf32>, tensor<64x13xf32>, tensor<64xf32>)
      maps [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<64x13xf32> {
  ^bb0(%ww: f32, %v: f32, %ss: f32):
    %r = math.sqrt %ss : f32
    %o = arith.divf %v, %r : f32
    %p = arith.mulf %o, %ww : f32
    fuser.yield %p : f32
  }
  return %y : tensor<64x13xf32>
}

func.func @softmax_held(%x: tensor<7x256xf32>) -> tensor<7x256xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x256xf32>) outs(%mi, %si : tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], vector_width = 4, tile = [8, 1]>} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %x0 = math.exp %n : f32
    %isnan = arith.cmpf uno, %d, %d : f32
    %ex = arith.select %isnan, %zero, %x0 : f32
    %isinf = arith.cmpf oeq, %in, %inf : f32
    %w = arith.select %isinf, %nan, %one : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %w : f32
    %we = arith.mulf %w, %ex : f32
    %keep = arith.addf %s, %we : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    %mnan = arith.cmpf uno, %m2, %m2 : f32
    %s3 = arith.select %mnan, %nan, %s2 : f32
    linalg.yield %m2, %s3 : f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>)
  %y = fuser.pointwise ins(%x, %r#0, %r#1 : tensor<7x256xf32>, tensor<7xf32>, tensor<7xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<7x256xf32> {
  ^bb0(%v: f32, %m: f32, %s: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    %o = arith.divf %ex, %s : f32
    fuser.yield %o : f32
  }
  return %y : tensor<7x256xf32>
}

func.func @rms_channels_held(%x: tensor<2x32x2x4xf32>) -> tensor<2x32x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x2x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1x2x4xf32>) -> tensor<2x1x2x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>],
                       iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : tensor<2x32x2x4xf32>) outs(%init : tensor<2x1x2x4xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], tile = [4, 16]>} {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x1x2x4xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2], [3]] : tensor<2x1x2x4xf32> into tensor<2x2x4xf32>
  %y = fuser.pointwise ins(%c, %x : tensor<2x2x4xf32>, tensor<2x32x2x4xf32>)
      maps [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
      -> tensor<2x32x2x4xf32> {
  ^bb0(%ss: f32, %v: f32):
    %n = arith.constant 3.200000e+01 : f32
    %eps = arith.constant 1.0e-05 : f32
    %m = arith.divf %ss, %n : f32
    %me = arith.addf %m, %eps : f32
    %r = math.sqrt %me : f32
    %o = arith.divf %v, %r : f32
    fuser.yield %o : f32
  }
  return %y : tensor<2x32x2x4xf32>
}

func.func @lse_rows(%x: tensor<7x300xf32>, %b: tensor<7xf32>) -> tensor<7xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xf32>) outs(%mi, %si : tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], vector_width = 4, tile = [8, 1]>} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %x0 = math.exp %n : f32
    %isnan = arith.cmpf uno, %d, %d : f32
    %ex = arith.select %isnan, %zero, %x0 : f32
    %isinf = arith.cmpf oeq, %in, %inf : f32
    %w = arith.select %isinf, %nan, %one : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %w : f32
    %we = arith.mulf %w, %ex : f32
    %keep = arith.addf %s, %we : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    %mnan = arith.cmpf uno, %m2, %m2 : f32
    %s3 = arith.select %mnan, %nan, %s2 : f32
    linalg.yield %m2, %s3 : f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>)
  %y = fuser.pointwise ins(%r#0, %r#1, %b : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
      -> tensor<7xf32> {
  ^bb0(%m: f32, %s: f32, %v: f32):
    %l = math.log %s : f32
    %t = arith.addf %l, %m : f32
    %o = arith.addf %t, %v : f32
    fuser.yield %o : f32
  }
  return %y : tensor<7xf32>
}

func.func @lse_held(%x: tensor<7x256xf32>, %b: tensor<7xf32>) -> tensor<7xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x256xf32>) outs(%mi, %si : tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], vector_width = 4, tile = [8, 1]>} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %x0 = math.exp %n : f32
    %isnan = arith.cmpf uno, %d, %d : f32
    %ex = arith.select %isnan, %zero, %x0 : f32
    %isinf = arith.cmpf oeq, %in, %inf : f32
    %w = arith.select %isinf, %nan, %one : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %w : f32
    %we = arith.mulf %w, %ex : f32
    %keep = arith.addf %s, %we : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    %mnan = arith.cmpf uno, %m2, %m2 : f32
    %s3 = arith.select %mnan, %nan, %s2 : f32
    linalg.yield %m2, %s3 : f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>)
  %y = fuser.pointwise ins(%r#0, %r#1, %b : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
      -> tensor<7xf32> {
  ^bb0(%m: f32, %s: f32, %v: f32):
    %l = math.log %s : f32
    %t = arith.addf %l, %m : f32
    %o = arith.addf %t, %v : f32
    fuser.yield %o : f32
  }
  return %y : tensor<7xf32>
}

func.func @column_norms_two_stages(%x: tensor<300x9xf32>) -> (tensor<9xf32>, tensor<9xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<9xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<9xf32>) -> tensor<9xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<300x9xf32>) outs(%init : tensor<9xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], tile = [2, 32, 4]>} {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<9xf32>
  %n = fuser.pointwise ins(%s : tensor<9xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<9xf32> {
  ^bb0(%ss: f32):
    %r = math.sqrt %ss : f32
    fuser.yield %r : f32
  }
  return %n, %s : tensor<9xf32>, tensor<9xf32>
}

func.func @softmax_cluster(%x: tensor<7x300xf32>) -> tensor<7x300xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xf32>) outs(%mi, %si : tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction_epilogue", block = [64, 1, 1], vector_width = 4, tile = [64, 1], cluster_m = 4>} {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %d = arith.subf %in, %m : f32
    %a = math.absf %d : f32
    %n = arith.negf %a : f32
    %x0 = math.exp %n : f32
    %isnan = arith.cmpf uno, %d, %d : f32
    %ex = arith.select %isnan, %zero, %x0 : f32
    %isinf = arith.cmpf oeq, %in, %inf : f32
    %w = arith.select %isinf, %nan, %one : f32
    %grows = arith.cmpf ogt, %in, %m : f32
    %se = arith.mulf %s, %ex : f32
    %up = arith.addf %se, %w : f32
    %we = arith.mulf %w, %ex : f32
    %keep = arith.addf %s, %we : f32
    %s2 = arith.select %grows, %up, %keep : f32
    %m2 = arith.maximumf %m, %in : f32
    %mnan = arith.cmpf uno, %m2, %m2 : f32
    %s3 = arith.select %mnan, %nan, %s2 : f32
    linalg.yield %m2, %s3 : f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>)
  %y = fuser.pointwise ins(%x, %r#0, %r#1 : tensor<7x300xf32>, tensor<7xf32>, tensor<7xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<7x300xf32> {
  ^bb0(%v: f32, %m: f32, %s: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    %o = arith.divf %ex, %s : f32
    fuser.yield %o : f32
  }
  return %y : tensor<7x300xf32>
}

func.func @row_sums_cluster(%x: tensor<5x1000xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x1000xf32>) outs(%init : tensor<5xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [64, 1], cluster_m = 2>} {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<5xf32>
  return %s : tensor<5xf32>
}
