// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="chip=sm_90a report=true" -verify-diagnostics | FileCheck %s

// RMSNorm over the 64 channels of NCHW: 8 threads a block-row apart per
// output hold 8 channels each in registers, so the consumer reads nothing
// again; blocks of 1024 threads, 128 neighbouring outputs per block-row.
// CHECK-LABEL: func.func @rms_channels
// CHECK: strategy = "reduction_epilogue", block = [1024, 1, 1], tile = [8, 128]
func.func @rms_channels(%x: tensor<112x64x512x512xf32>) -> tensor<112x64x512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<112x1x512x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<112x1x512x512xf32>) -> tensor<112x1x512x512xf32>
  // expected-remark @+1 {{reduction kernel: 29360128 outputs of 64 elements, 8 threads a block-row apart per output, 1024 threads per block (128 neighbouring outputs per block-row, so that fewer sectors straddle two blocks); its consumer runs in the same kernel, each thread holding its 8 elements in registers}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>],
                       iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : tensor<112x64x512x512xf32>) outs(%init : tensor<112x1x512x512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<112x1x512x512xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2], [3]] : tensor<112x1x512x512xf32> into tensor<112x512x512xf32>
  %y = fuser.pointwise ins(%c, %x : tensor<112x512x512xf32>, tensor<112x64x512x512xf32>)
      maps [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
      -> tensor<112x64x512x512xf32> {
  ^bb0(%ss: f32, %v: f32):
    %r = math.sqrt %ss : f32
    %o = arith.divf %v, %r : f32
    fuser.yield %o : f32
  }
  return %y : tensor<112x64x512x512xf32>
}

// -----

// Rows of 1000: 250 vectors over 32 threads, 8 each but for the last 6,
// which lie past the row: held in registers all the same.
// CHECK-LABEL: func.func @rows_ragged_held
// CHECK: strategy = "reduction_epilogue", block = [256, 1, 1], vector_width = 4, tile = [32, 1]
func.func @rows_ragged_held(%x: tensor<32768x1000xf32>) -> tensor<32768x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32768xf32>) -> tensor<32768xf32>
  // expected-remark @+1 {{reduction kernel: 32768 outputs of 1000 elements in 4-element vectors, 32 consecutive threads per output, 256 threads per block; its consumer runs in the same kernel, each thread holding up to 32 elements in registers}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32768x1000xf32>) outs(%init : tensor<32768xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<32768xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<32768x1000xf32>, tensor<32768xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<32768x1000xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<32768x1000xf32>
}

// -----

// Rows of 36000: 9000 vectors, more than 1024 threads hold, so the
// consumer's pass reads them again, from L2.
// CHECK-LABEL: func.func @rows_reread
// CHECK: strategy = "reduction_epilogue", block = [1024, 1, 1], vector_width = 4, tile = [1024, 1]
func.func @rows_reread(%x: tensor<2048x36000xf32>) -> tensor<2048x36000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2048xf32>) -> tensor<2048xf32>
  // expected-remark @+1 {{reduction kernel: 2048 outputs of 36000 elements in 4-element vectors, 1024 consecutive threads per output, 1024 threads per block; its consumer runs in the same kernel, reading each output's elements again from L2}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2048x36000xf32>) outs(%init : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2048xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<2048x36000xf32>, tensor<2048xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<2048x36000xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<2048x36000xf32>
}

// -----

// Rows of 4096: 128 threads per row hold 8 vectors each.
// CHECK-LABEL: func.func @rows_held
// CHECK: strategy = "reduction_epilogue", block = [256, 1, 1], vector_width = 4, tile = [128, 1]
func.func @rows_held(%x: tensor<8192x4096xf32>) -> tensor<8192x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  // expected-remark @+1 {{reduction kernel: 8192 outputs of 4096 elements in 4-element vectors, 128 consecutive threads per output, 256 threads per block; its consumer runs in the same kernel, each thread holding its 32 elements in registers}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x4096xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8192xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<8192x4096xf32>, tensor<8192xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<8192x4096xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<8192x4096xf32>
}

// -----

// Rows of 393216 elements: even 1024 threads per row re-read 3 MiB per SM,
// more than L2 holds, and so would 4 blocks of a cluster per row (768 KiB);
// the consumer keeps its kernel.
// CHECK-LABEL: func.func @long_rows
// CHECK: strategy = "reduction",
func.func @long_rows(%x: tensor<4096x393216xf32>) -> tensor<4096x393216xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  // expected-remark @+1 {{its consumer gets a kernel of its own: the elements its blocks read again (3072 KiB per SM) would not fit in sm_90a's L2 (387 KiB per SM)}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x393216xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4096xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<4096x393216xf32>, tensor<4096xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<4096x393216xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<4096x393216xf32>
}

// -----

// Rows of 65536 elements (512 KiB per SM in one block each): 4 blocks of a
// cluster per row, the fewest that bring the re-read within half of L2.
// CHECK-LABEL: func.func @rows_in_clusters
// CHECK: strategy = "reduction_epilogue", block = [1024, 1, 1], vector_width = 4, tile = [1024, 1], cluster_m = 4
func.func @rows_in_clusters(%x: tensor<4096x65536xf32>) -> tensor<4096x65536xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  // expected-remark @+1 {{reduction kernel: 4096 outputs of 65536 elements in 4-element vectors, 1024 consecutive threads per output, 1024 threads per block; its consumer runs in the same kernel, reading each output's elements again from L2 (128 KiB per SM), in clusters of 4 blocks per output: each block folds and re-reads 1/4 of it, the blocks' results combined through distributed shared memory}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x65536xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4096xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<4096x65536xf32>, tensor<4096xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<4096x65536xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<4096x65536xf32>
}

// -----

// Rows of 1048576 elements: even clusters of 4 blocks would re-read 2 MiB
// per SM; the consumer keeps its kernel.
// CHECK-LABEL: func.func @longer_rows
// CHECK: strategy = "reduction",
func.func @longer_rows(%x: tensor<1024x1048576xf32>) -> tensor<1024x1048576xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  // expected-remark @+1 {{its consumer gets a kernel of its own: the elements its blocks read again (8192 KiB per SM) would not fit in sm_90a's L2 (387 KiB per SM)}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x1048576xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1024xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<1024x1048576xf32>, tensor<1024xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<1024x1048576xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<1024x1048576xf32>
}

// -----

// Two consumers of the sums: neither is taken in.
// CHECK-LABEL: func.func @two_consumers
// CHECK: strategy = "reduction",
func.func @two_consumers(%x: tensor<64x1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{its consumer gets a kernel of its own: several fuser.pointwise ops read its results}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<64x1000xf32>, tensor<64xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<64x1000xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  %z = fuser.pointwise ins(%x, %s : tensor<64x1000xf32>, tensor<64xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<64x1000xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.mulf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y, %z : tensor<64x1000xf32>, tensor<64x1000xf32>
}

// -----

// The consumer reads the rows transposed: its loops are not the
// reduction's.
// CHECK-LABEL: func.func @transposed_consumer
// CHECK: strategy = "reduction",
func.func @transposed_consumer(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{its consumer gets a kernel of its own: its consumer reads none of its inputs as it does (the same tensor through the identity)}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %y = fuser.pointwise ins(%x, %s : tensor<64x64xf32>, tensor<64xf32>)
      maps [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<64x64xf32> {
  ^bb0(%v: f32, %ss: f32):
    %o = arith.subf %v, %ss : f32
    fuser.yield %o : f32
  }
  return %y : tensor<64x64xf32>
}

// -----

// The consumer writes an i1 mask (x == max of its row): masks are bytes in
// memory, which the pointwise kernel converts; the consumer keeps it.
// CHECK-LABEL: func.func @mask_consumer
// CHECK: strategy = "reduction",
func.func @mask_consumer(%x: tensor<64x1024xf32>) -> tensor<64x1024xi1> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{its consumer gets a kernel of its own: its consumer writes i1 or index elements, which the kernel does not store as bytes}}
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1024xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.maximumf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %y = fuser.pointwise ins(%x, %m : tensor<64x1024xf32>, tensor<64xf32>)
      maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
      -> tensor<64x1024xi1> {
  ^bb0(%v: f32, %mm: f32):
    %o = arith.cmpf oeq, %v, %mm : f32
    fuser.yield %o : i1
  }
  return %y : tensor<64x1024xi1>
}

// -----

// A consumer over the outputs (a row norm's sqrt plus a bias of the
// outputs' shape): it runs where each result is stored.
// CHECK-LABEL: func.func @row_norms_plus_bias
// CHECK: strategy = "reduction_epilogue", block = [256, 1, 1], vector_width = 4, tile = [64, 1]
func.func @row_norms_plus_bias(%x: tensor<4096x1024xf32>, %b: tensor<4096xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  // expected-remark @+1 {{reduction kernel: 4096 outputs of 1024 elements in 4-element vectors, 64 consecutive threads per output, 256 threads per block; its consumer over the outputs runs where each result is stored}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x1024xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4096xf32>
  %y = fuser.pointwise ins(%s, %b : tensor<4096xf32>, tensor<4096xf32>)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] -> tensor<4096xf32> {
  ^bb0(%ss: f32, %v: f32):
    %r = math.sqrt %ss : f32
    %o = arith.addf %r, %v : f32
    fuser.yield %o : f32
  }
  return %y : tensor<4096xf32>
}

// -----

// A total's mean whose sum is also returned: two stages, the division in
// the second kernel, the sum written too.
// CHECK-LABEL: func.func @mean_and_sum
// CHECK: strategy = "reduction_epilogue"
func.func @mean_and_sum(%x: tensor<16777216xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  // expected-remark @+1 {{a second kernel combines each output's 256 partial results in a fixed order; its consumer over the outputs runs where each result is stored, and the results are written too}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<16777216xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %m = fuser.pointwise ins(%s : tensor<f32>) maps [affine_map<() -> ()>] -> tensor<f32> {
  ^bb0(%ss: f32):
    %n = arith.constant 1.6777216e+07 : f32
    %o = arith.divf %ss, %n : f32
    fuser.yield %o : f32
  }
  return %m, %s : tensor<f32>, tensor<f32>
}

// -----

// A consumer over the outputs that reads an i1 mask keeps its own kernel.
// CHECK-LABEL: func.func @masked_row_sums
// CHECK: strategy = "reduction", block
func.func @masked_row_sums(%x: tensor<4096x1024xf32>, %keep: tensor<4096xi1>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  // expected-remark @+1 {{its consumer gets a kernel of its own: its consumer reads i1 or index elements, which the kernel does not load as bytes}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x1024xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4096xf32>
  %y = fuser.pointwise ins(%s, %keep : tensor<4096xf32>, tensor<4096xi1>)
      maps [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] -> tensor<4096xf32> {
  ^bb0(%ss: f32, %k: i1):
    %z = arith.constant 0.0 : f32
    %o = arith.select %k, %ss, %z : f32
    fuser.yield %o : f32
  }
  return %y : tensor<4096xf32>
}
