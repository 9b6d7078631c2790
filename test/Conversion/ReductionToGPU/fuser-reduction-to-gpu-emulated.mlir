// RUN: fuser-opt %s --fuser-reduction-to-gpu -canonicalize -cse --mlir-print-op-generic | %PYTHON %S/Inputs/emulate_reductions.py %S/Inputs/two_stage_cases.py | FileCheck %s

// The reduction kernels run on the CPU (Inputs/emulate_reductions.py: the
// threads of a block in lockstep, shuffles between lanes) on the inputs of
// Inputs/two_stage_cases.py: every input element is loaded exactly once
// (pooling: as often as windows cover it), two runs agree and the outputs
// are exact. Two stages with slices of every kind (P not a power of two;
// trailing slices short and empty, 100 elements in 7 slices of 32),
// consecutive and block-row-apart threads, a kernel 2 combining by
// shuffles (64-bit halves: the i64 maximum) and through shared memory,
// inits constant and loaded, a body reading two reduction indices; one
// stage for comparison; arg reductions, vector loads and pooling windows
// (also 4 x 4 outputs a thread, their inputs loaded as vectors);
// sibling reductions (a sum and a max over one read, in two stages; a
// column sum and min through shared memory); online softmax statistics
// (NaN, +-inf, ties, a maximum that grows at every element; sums to 1e-12
// relative, the emulation being in f64), also held in registers and taken
// in two passes (75 vectors a row over 16 threads: a thread's fifth group
// lies past the row, loads the last vector again and folds nothing); i1 inputs (masks: a cross
// entropy's count of targets kept) loaded as bytes, in vectors and alone;
// online statistics with a sibling sum of the same elements (a smoothed
// cross-entropy's row sum), in two stages and held.

// CHECK: rows OK
// CHECK-NEXT: onestage OK
// CHECK-NEXT: total_tail OK
// CHECK-NEXT: total_big OK
// CHECK-NEXT: cols OK
// CHECK-NEXT: colsum OK
// CHECK-NEXT: imax OK
// CHECK-NEXT: weighted OK
// CHECK-NEXT: argmax_rows OK
// CHECK-NEXT: argmax_rows_one_stage OK
// CHECK-NEXT: argmin_cols OK
// CHECK-NEXT: rows_vector OK
// CHECK-NEXT: argmax_rows_vector OK
// CHECK-NEXT: pool_sum OK
// CHECK-NEXT: pool_max OK
// CHECK-NEXT: pool_sum_padded OK
// CHECK-NEXT: pool_tile OK
// CHECK-NEXT: siblings OK
// CHECK-NEXT: siblings_cols OK
// CHECK-NEXT: online_softmax OK
// CHECK-NEXT: online_softmax_vector OK
// CHECK-NEXT: online_softmax_held OK
// CHECK-NEXT: mask_count OK
// CHECK-NEXT: mask_count_scalar OK
// CHECK-NEXT: online_softmax_sum OK
// CHECK-NEXT: online_softmax_sum_held OK
// CHECK-NOT: MISMATCH

func.func @rows(%x: tensor<7x1000xf32>, %init: tensor<7xf32>) -> tensor<7xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x1000xf32>) outs(%init : tensor<7xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 5]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @total_tail(%x: tensor<100xf32>) -> tensor<f32> {
  %c = arith.constant 2.5 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<100xf32>) outs(%init : tensor<f32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 7]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

func.func @total_big(%x: tensor<100003xf32>) -> tensor<f32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<100003xf32>) outs(%init : tensor<f32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [128, 1, 1], tile = [128, 1, 40]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

func.func @cols(%x: tensor<1001x3xf32>) -> tensor<3xf32> {
  %c = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%c : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1001x3xf32>) outs(%init : tensor<3xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [8, 8, 9]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @colsum(%x: tensor<1001x3xf32>) -> tensor<3xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%c : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1001x3xf32>) outs(%init : tensor<3xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [8, 8, 9]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @imax(%x: tensor<5x300xi64>, %init: tensor<5xi64>) -> tensor<5xi64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x300xi64>) outs(%init : tensor<5xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [32, 1, 1], tile = [32, 1, 8]>} {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.maxsi %a, %acc : i64
    linalg.yield %s : i64
  } -> tensor<5xi64>
  return %r : tensor<5xi64>
}

func.func @weighted(%x: tensor<3x50x40xf32>) -> tensor<3xf32> {
  %c7 = arith.constant 7 : index
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%c : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
                       iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<3x50x40xf32>) outs(%init : tensor<3xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 6]>} {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %m = arith.remui %k, %c7 : index
    %mi = arith.index_cast %m : index to i32
    %w = arith.sitofp %mi : i32 to f32
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @onestage(%x: tensor<7x1000xf32>, %init: tensor<7xf32>) -> tensor<7xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x1000xf32>) outs(%init : tensor<7xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// Arg reductions (torch.max(dim) as torch-mlir lowers it): the value and
// its index, two stages with slices of 64 and one stage with shuffles of
// 64-bit indices; PyTorch's answers on ties, NaN and infinities.
func.func @argmax_rows(%x: tensor<6x300xf32>) -> (tensor<6xf32>, tensor<6xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<6xf32>
  %vi = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %ei = tensor.empty() : tensor<6xi64>
  %ii = linalg.fill ins(%c0 : i64) outs(%ei : tensor<6xi64>) -> tensor<6xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x300xf32>) outs(%vi, %ii : tensor<6xf32>, tensor<6xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 5]>} {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %gt = arith.cmpf ogt, %in, %v : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<6xf32>, tensor<6xi64>)
  return %r#0, %r#1 : tensor<6xf32>, tensor<6xi64>
}

func.func @argmax_rows_one_stage(%x: tensor<6x300xf32>) -> (tensor<6xf32>, tensor<6xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<6xf32>
  %vi = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %ei = tensor.empty() : tensor<6xi64>
  %ii = linalg.fill ins(%c0 : i64) outs(%ei : tensor<6xi64>) -> tensor<6xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x300xf32>) outs(%vi, %ii : tensor<6xf32>, tensor<6xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [32, 1]>} {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %gt = arith.cmpf ogt, %in, %v : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<6xf32>, tensor<6xi64>)
  return %r#0, %r#1 : tensor<6xf32>, tensor<6xi64>
}

// argmin over a column, threads a block-row apart combining in shared
// memory; the comparison written with the running value first.
func.func @argmin_cols(%x: tensor<1001x4xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %inf = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4xf32>
  %vi = linalg.fill ins(%inf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi64>
  %ii = linalg.fill ins(%c0 : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1001x4xf32>) outs(%vi, %ii : tensor<4xf32>, tensor<4xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [8, 8]>} {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.minimumf %v, %in : f32
    %gt = arith.cmpf ogt, %v, %in : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi64>
}

// 4-element vector loads (vector_width = 4): two stages of row sums, and
// an argmax whose indices come from each vector's lanes.
func.func @rows_vector(%x: tensor<7x1000xf32>, %init: tensor<7xf32>) -> tensor<7xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x1000xf32>) outs(%init : tensor<7xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], vector_width = 4, tile = [16, 1, 3]>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @argmax_rows_vector(%x: tensor<6x300xf32>) -> (tensor<6xf32>, tensor<6xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<6xf32>
  %vi = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %ei = tensor.empty() : tensor<6xi64>
  %ii = linalg.fill ins(%c0 : i64) outs(%ei : tensor<6xi64>) -> tensor<6xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x300xf32>) outs(%vi, %ii : tensor<6xf32>, tensor<6xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], vector_width = 4, tile = [8, 1]>} {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %idx = linalg.index 1 : index
    %i64 = arith.index_cast %idx : index to i64
    %m = arith.maximumf %in, %v : f32
    %gt = arith.cmpf ogt, %in, %v : f32
    %s = arith.select %gt, %i64, %i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<6xf32>, tensor<6xi64>)
  return %r#0, %r#1 : tensor<6xf32>, tensor<6xi64>
}

// Pooling windows (fuser-generalize-pooling's generics): a 3 x 2 window
// with stride 2 down and dilation 2 across, summed one thread per output,
// and its maximum with 4 threads a block-row apart sharing each window.
func.func @pool_sum(%x: tensor<2x3x9x10xf32>) -> tensor<2x3x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  %w = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 + d5 * 2)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x9x10xf32>, tensor<3x2xf32>) outs(%init : tensor<2x3x4x8xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [1, 64]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x8xf32>
  return %r : tensor<2x3x4x8xf32>
}

func.func @pool_max(%x: tensor<2x3x9x10xf32>) -> tensor<2x3x4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x3x4x8xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  %w = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 + d5 * 2)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x9x10xf32>, tensor<3x2xf32>) outs(%init : tensor<2x3x4x8xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [4, 16]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x8xf32>
  return %r : tensor<2x3x4x8xf32>
}

// A padded window (torch-mlir pads pooling inputs with tensor.pad): the
// kernel reads the unpadded input, the padding value outside it.
func.func @pool_sum_padded(%x: tensor<2x3x9x10xf32>) -> tensor<2x3x5x10xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %half : f32
  } : tensor<2x3x9x10xf32> to tensor<2x3x11x12xf32>
  %e = tensor.empty() : tensor<2x3x5x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5x10xf32>) -> tensor<2x3x5x10xf32>
  %w = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 + d5 * 2)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : tensor<2x3x11x12xf32>, tensor<3x2xf32>) outs(%init : tensor<2x3x5x10xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [2, 32]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5x10xf32>
  return %r : tensor<2x3x5x10xf32>
}

// A 3 x 3, stride-1 window, 4 x 4 outputs a thread (tile = [1, D, 1, U,
// V]): 7 rows make 2 groups (the second from row 3), 10 columns 3 groups
// (the third's last two outputs not stored), the input rows loaded as
// 4-element vectors, the next group's taken from the next lane where it
// holds them; the results staged in shared memory.
func.func @pool_tile(%x: tensor<2x3x9x12xf32>) -> tensor<2x3x7x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x7x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x7x10xf32>) -> tensor<2x3x7x10xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x3x9x12xf32>, tensor<3x3xf32>) outs(%init : tensor<2x3x7x10xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [32, 1, 1], tile = [1, 32, 1, 4, 4]>} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3x7x10xf32>
  return %r : tensor<2x3x7x10xf32>
}

func.func @online_softmax(%x: tensor<7x300xf32>) -> (tensor<7xf32>, tensor<7xf32>) {
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
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 5]>} {
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
  return %r#0, %r#1 : tensor<7xf32>, tensor<7xf32>
}

func.func @online_softmax_vector(%x: tensor<7x300xf32>) -> (tensor<7xf32>, tensor<7xf32>) {
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
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], vector_width = 4, tile = [8, 1]>} {
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
  return %r#0, %r#1 : tensor<7xf32>, tensor<7xf32>
}

func.func @online_softmax_held(%x: tensor<7x300xf32>) -> (tensor<7xf32>, tensor<7xf32>) {
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
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], vector_width = 4, tile = [16, 1]>} {
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
  return %r#0, %r#1 : tensor<7xf32>, tensor<7xf32>
}

func.func @siblings(%x: tensor<7x300xf32>, %y: tensor<7x300xf32>) -> (tensor<7xf32>, tensor<7xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<7x300xf32>, tensor<7x300xf32>) outs(%si, %mi : tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 5]>} {
  ^bb0(%a: f32, %b: f32, %s: f32, %m: f32):
    %p = arith.mulf %a, %b : f32
    %s2 = arith.addf %p, %s : f32
    %m2 = arith.maximumf %a, %m : f32
    linalg.yield %s2, %m2 : f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>)
  return %r#0, %r#1 : tensor<7xf32>, tensor<7xf32>
}

func.func @siblings_cols(%x: tensor<301x5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<5xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %mi = linalg.fill ins(%inf : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>],
                         iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<301x5xf32>) outs(%si, %mi : tensor<5xf32>, tensor<5xf32>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [4, 16]>} {
  ^bb0(%a: f32, %s: f32, %m: f32):
    %s2 = arith.addf %a, %s : f32
    %m2 = arith.minimumf %m, %a : f32
    linalg.yield %s2, %m2 : f32, f32
  } -> (tensor<5xf32>, tensor<5xf32>)
  return %r#0, %r#1 : tensor<5xf32>, tensor<5xf32>
}

func.func @mask_count(%m: tensor<7x300xi1>) -> tensor<7xi64> {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<7xi64>
  %init = linalg.fill ins(%c0 : i64) outs(%e : tensor<7xi64>) -> tensor<7xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<7x300xi1>) outs(%init : tensor<7xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], vector_width = 4, tile = [16, 1]>} {
  ^bb0(%a: i1, %acc: i64):
    %w = arith.extui %a : i1 to i64
    %s = arith.addi %w, %acc : i64
    linalg.yield %s : i64
  } -> tensor<7xi64>
  return %r : tensor<7xi64>
}

func.func @mask_count_scalar(%m: tensor<5x33xi1>) -> tensor<5xi64> {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<5xi64>
  %init = linalg.fill ins(%c0 : i64) outs(%e : tensor<5xi64>) -> tensor<5xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<5x33xi1>) outs(%init : tensor<5xi64>)
      attrs = {fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [8, 1]>} {
  ^bb0(%a: i1, %acc: i64):
    %w = arith.extui %a : i1 to i64
    %s = arith.addi %w, %acc : i64
    linalg.yield %s : i64
  } -> tensor<5xi64>
  return %r : tensor<5xi64>
}

func.func @online_softmax_sum(%x: tensor<7x300xf32>) -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xf32>) outs(%mi, %si, %si : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], tile = [16, 1, 5]>} {
  ^bb0(%in: f32, %m: f32, %s: f32, %t: f32):
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
    %t2 = arith.addf %in, %t : f32
    linalg.yield %m2, %s3, %t2 : f32, f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
  return %r#0, %r#1, %r#2 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
}

func.func @online_softmax_sum_held(%x: tensor<7x300xf32>) -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<7xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %r:3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<7x300xf32>) outs(%mi, %si, %si : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
      attrs = {fuser.online_softmax, fuser.config = #fuser.config<strategy = "reduction", block = [64, 1, 1], vector_width = 4, tile = [16, 1]>} {
  ^bb0(%in: f32, %m: f32, %s: f32, %t: f32):
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
    %t2 = arith.addf %in, %t : f32
    linalg.yield %m2, %s3, %t2 : f32, f32, f32
  } -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
  return %r#0, %r#1, %r#2 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
}
