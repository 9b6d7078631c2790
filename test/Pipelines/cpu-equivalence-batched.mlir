// REQUIRES: mlir-runner
// torch.bmm with an epilogue (scale, a residual read through (m, b, n),
// ReLU) and x.T @ W as torch-mlir writes them (linalg.batch_matmul; a
// linalg.transpose feeding linalg.matmul), on odd shapes (B = 3, M = 5,
// K = 37, N = 19), unfused and fused on the CPU, through the reference
// lowering of batched and transposed-A fuser.matmul: the outputs must be
// identical (K summed in the same order from +0.0).
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.fused
// RUN: diff %t.unfused %t.fused
// RUN: FileCheck %s --check-prefix=OUT < %t.fused
// RUN: fuser-opt %s --fuser-fusion-pipeline="report=true" 2>&1 | FileCheck %s --check-prefix=FUSED

// OUT: Unranked Memref rank = 3 offset = 0 sizes = [3, 5, 19] strides = [95, 19, 1] data =
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [5, 19] strides = [19, 1] data =
// FUSED-DAG: remark: epilogue input #0 copied batch-first for the batched matmul
// FUSED-DAG: remark: matmul kernel: mma in fp64 (3xtf32 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: M * N / (M + N) = 3, below 512; fp64 tensor cores)
// FUSED-DAG: remark: matmul kernel: ffma in fp32 (3xtf32 not applicable: A is not K-major (x.T)
// FUSED-LABEL: func.func @bmm_residual_relu
// FUSED: fuser.matmul %{{.+}}, %{{.+}} epilogue_inputs
// FUSED-LABEL: func.func @xt_w
// FUSED-NOT: linalg.transpose
// FUSED: fuser.matmul %{{.+}}, %{{.+}} transpose_a epilogue_maps

#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mbn = affine_map<(d0, d1, d2) -> (d1, d0, d2)>

func.func @bmm_residual_relu(%x: tensor<?x5x37xf32>, %w: tensor<?x37x19xf32>, %r: tensor<5x?x19xf32>) -> tensor<?x5x19xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %s = arith.constant 0.125 : f32
  %b = tensor.dim %x, %c0 : tensor<?x5x37xf32>
  %e = tensor.empty(%b) : tensor<?x5x19xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x5x19xf32>) -> tensor<?x5x19xf32>
  %mm = linalg.batch_matmul ins(%x, %w : tensor<?x5x37xf32>, tensor<?x37x19xf32>) outs(%z : tensor<?x5x19xf32>) -> tensor<?x5x19xf32>
  %y = linalg.generic {indexing_maps = [#id3, #mbn, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %r : tensor<?x5x19xf32>, tensor<5x?x19xf32>) outs(%e : tensor<?x5x19xf32>) {
  ^bb0(%a: f32, %ri: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %p = arith.addf %m, %ri : f32
    %pos = arith.cmpf ugt, %p, %zero : f32
    %q = arith.select %pos, %p, %zero : f32
    linalg.yield %q : f32
  } -> tensor<?x5x19xf32>
  return %y : tensor<?x5x19xf32>
}

func.func @xt_w(%x: tensor<37x?xf32>, %w: tensor<37x19xf32>) -> tensor<?x19xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c1 : tensor<37x?xf32>
  %te = tensor.empty(%m) : tensor<?x37xf32>
  %xt = linalg.transpose ins(%x : tensor<37x?xf32>) outs(%te : tensor<?x37xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x19xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  %y = linalg.matmul ins(%xt, %w : tensor<?x37xf32>, tensor<37x19xf32>) outs(%z : tensor<?x19xf32>) -> tensor<?x19xf32>
  return %y : tensor<?x19xf32>
}

// Pseudo-random values in [-scale, scale): fract(sin(k * 12.9898) * 43758.5).
func.func @random(%rows: index, %cols: index, %seed: f32, %scale: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k0 = arith.muli %i, %cols : index
    %k1 = arith.addi %k0, %j : index
    %ki = arith.index_cast %k1 : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %ks = arith.addf %kf, %seed : f32
    %c1 = arith.constant 12.9898 : f32
    %c2 = arith.constant 43758.5453 : f32
    %m = arith.mulf %ks, %c1 : f32
    %sn = math.sin %m : f32
    %big = arith.mulf %sn, %c2 : f32
    %fl = math.floor %big : f32
    %fr = arith.subf %big, %fl : f32
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %u = arith.mulf %fr, %two : f32
    %v = arith.subf %u, %one : f32
    %w = arith.mulf %v, %scale : f32
    linalg.yield %w : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c15 = arith.constant 15 : index
  %c19 = arith.constant 19 : index
  %c37 = arith.constant 37 : index
  %c111 = arith.constant 111 : index
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.16 : f32
  %s1 = arith.constant 0.25 : f32
  %s2 = arith.constant 3.5 : f32
  %s3 = arith.constant 7.5 : f32
  %xd = func.call @random(%c15, %c37, %s1, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %xc = tensor.cast %xd : tensor<?x?xf32> to tensor<?x37xf32>
  %x = tensor.expand_shape %xc [[0, 1], [2]] output_shape [%c3, 5, 37] : tensor<?x37xf32> into tensor<?x5x37xf32>
  %wd = func.call @random(%c111, %c19, %s2, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %wc = tensor.cast %wd : tensor<?x?xf32> to tensor<?x19xf32>
  %w = tensor.expand_shape %wc [[0, 1], [2]] output_shape [%c3, 37, 19] : tensor<?x19xf32> into tensor<?x37x19xf32>
  %rd = func.call @random(%c15, %c19, %s3, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %rc = tensor.cast %rd : tensor<?x?xf32> to tensor<?x19xf32>
  %r = tensor.expand_shape %rc [[0, 1], [2]] output_shape [5, %c3, 19] : tensor<?x19xf32> into tensor<5x?x19xf32>
  %y = func.call @bmm_residual_relu(%x, %w, %r) : (tensor<?x5x37xf32>, tensor<?x37x19xf32>, tensor<5x?x19xf32>) -> tensor<?x5x19xf32>
  %ym = bufferization.to_buffer %y : tensor<?x5x19xf32> to memref<?x5x19xf32>
  %yu = memref.cast %ym : memref<?x5x19xf32> to memref<*xf32>
  func.call @printMemrefF32(%yu) : (memref<*xf32>) -> ()

  %xtd = func.call @random(%c37, %c5, %s1, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %xt = tensor.cast %xtd : tensor<?x?xf32> to tensor<37x?xf32>
  %w2d = func.call @random(%c37, %c19, %s2, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<37x19xf32>
  %y2 = func.call @xt_w(%xt, %w2) : (tensor<37x?xf32>, tensor<37x19xf32>) -> tensor<?x19xf32>
  %y2m = bufferization.to_buffer %y2 : tensor<?x19xf32> to memref<?x19xf32>
  %y2u = memref.cast %y2m : memref<?x19xf32> to memref<*xf32>
  func.call @printMemrefF32(%y2u) : (memref<*xf32>) -> ()
  return
}
