// REQUIRES: mlir-runner
// Products whose K (37) is not a multiple of 4 are copied with K padded
// with zeros (B K-major first where it is N-major) so that 3xtf32 on
// wgmma_tma can read them by TMA. On the CPU, through the reference
// lowering of fuser.matmul, the padded program must print exactly what the
// unfused one prints: the padding adds exact zero products after the last
// term of each sum. M and N are large enough (1030) for the copies to pay:
// x @ W (B N-major), relu(x) @ W^T + b, x.T @ W (A M-major), torch.bmm.
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline="fuse=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.unfused
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | sed 's/base@ = 0x[0-9a-f]*//' > %t.padded
// RUN: diff %t.unfused %t.padded
// RUN: FileCheck %s --check-prefix=OUT < %t.padded
// The padded program really pads: both operands of each product.
// RUN: fuser-opt %s --fuser-fusion-pipeline | FileCheck %s --check-prefix=PADDED

// OUT: Unranked Memref rank = 2 offset = 0 sizes = [2, 1030] strides = [1030, 1] data =
// OUT-NEXT: [
// OUT-SAME: {{-?[0-9]+\.[0-9]+}}
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [2, 1030] strides = [1030, 1] data =
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [2, 1030] strides = [1030, 1] data =
// OUT: Unranked Memref rank = 2 offset = 0 sizes = [2, 1030] strides = [1030, 1] data =
// PADDED-LABEL: func.func @mm_nn
// PADDED: fuser.pointwise ins(%{{.+}} : tensor<37x1030xf32>)
// PADDED-SAME: -> tensor<1030x37xf32>
// PADDED-DAG: tensor.pad %{{.+}} low[0, 0] high[0, 3]
// PADDED-DAG: tensor.pad %{{.+}} low[0, 0] high[0, 3]
// PADDED: fuser.matmul %{{.+}}, %{{.+}} transpose_b {{.*}}: tensor<1030x40xf32>, tensor<1030x40xf32> -> tensor<1030x1030xf32>
// PADDED-LABEL: func.func @linear_relu
// PADDED: fuser.pointwise ins(%{{.+}} : tensor<1030x37xf32>)
// PADDED-DAG: tensor.pad %{{.+}} low[0, 0] high[0, 3]
// PADDED-DAG: tensor.pad %{{.+}} low[0, 0] high[0, 3]
// PADDED: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs({{.*}}: tensor<1030x40xf32>, tensor<1030x40xf32> -> tensor<1030x1030xf32>
// PADDED-LABEL: func.func @mm_tn
// PADDED-COUNT-2: tensor.pad %{{.+}} low[0, 0] high[0, 3]
// PADDED: fuser.matmul %{{.+}}, %{{.+}} transpose_b {{.*}}: tensor<1030x40xf32>, tensor<1030x40xf32> -> tensor<1030x1030xf32>
// PADDED-LABEL: func.func @bmm
// PADDED-COUNT-2: tensor.pad %{{.+}} low[0, 0, 0] high[0, 0, 3]
// PADDED: fuser.matmul %{{.+}}, %{{.+}} transpose_b {{.*}}: tensor<2x1030x40xf32>, tensor<2x1030x40xf32> -> tensor<2x1030x1030xf32>

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// torch.mm(a, b), b stored K x N.
func.func @mm_nn(%a: tensor<1030x37xf32>, %b: tensor<37x1030xf32>) -> tensor<1030x1030xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1030x1030xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1030x1030xf32>) -> tensor<1030x1030xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1030x37xf32>, tensor<37x1030xf32>) outs(%z : tensor<1030x1030xf32>) -> tensor<1030x1030xf32>
  return %mm : tensor<1030x1030xf32>
}

// nn.Linear(37, 1030) after a ReLU: relu(x) @ W^T + b.
func.func @linear_relu(%x: tensor<1030x37xf32>, %w: tensor<1030x37xf32>, %b: tensor<1030xf32>) -> tensor<1030x1030xf32> {
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<1030x37xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1030x37xf32>) outs(%ex : tensor<1030x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1030x37xf32>
  %et = tensor.empty() : tensor<37x1030xf32>
  %wt = linalg.transpose ins(%w : tensor<1030x37xf32>) outs(%et : tensor<37x1030xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1030x1030xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1030x1030xf32>) -> tensor<1030x1030xf32>
  %mm = linalg.matmul ins(%r, %wt : tensor<1030x37xf32>, tensor<37x1030xf32>) outs(%z : tensor<1030x1030xf32>) -> tensor<1030x1030xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<1030x1030xf32>, tensor<1030xf32>) outs(%e : tensor<1030x1030xf32>) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %s = arith.addf %in, %bv : f32
    linalg.yield %s : f32
  } -> tensor<1030x1030xf32>
  return %y : tensor<1030x1030xf32>
}

// x.T @ b with x stored K x M: A copied K-major, then both padded.
func.func @mm_tn(%x: tensor<37x1030xf32>, %b: tensor<37x1030xf32>) -> tensor<1030x1030xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<1030x37xf32>
  %xt = linalg.transpose ins(%x : tensor<37x1030xf32>) outs(%et : tensor<1030x37xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1030x1030xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1030x1030xf32>) -> tensor<1030x1030xf32>
  %mm = linalg.matmul ins(%xt, %b : tensor<1030x37xf32>, tensor<37x1030xf32>) outs(%z : tensor<1030x1030xf32>) -> tensor<1030x1030xf32>
  return %mm : tensor<1030x1030xf32>
}

// torch.bmm of 2 x 1030 x 37 and 2 x 37 x 1030: B copied K-major per
// batch, both padded.
func.func @bmm(%a: tensor<2x1030x37xf32>, %b: tensor<2x37x1030xf32>) -> tensor<2x1030x1030xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1030x1030xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1030x1030xf32>) -> tensor<2x1030x1030xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x1030x37xf32>, tensor<2x37x1030xf32>) outs(%z : tensor<2x1030x1030xf32>) -> tensor<2x1030x1030xf32>
  return %mm : tensor<2x1030x1030xf32>
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

// Rows 0 and 1029 of `y`.
func.func @print(%y: tensor<1030x1030xf32>) {
  %rows = tensor.extract_slice %y[0, 0] [2, 1030] [1029, 1] : tensor<1030x1030xf32> to tensor<2x1030xf32>
  %m = bufferization.to_buffer %rows : tensor<2x1030xf32> to memref<2x1030xf32>
  %u = memref.cast %m : memref<2x1030xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c1030 = arith.constant 1030 : index
  %seed_x = arith.constant 0.25 : f32
  %seed_w = arith.constant 3.5 : f32
  %seed_b = arith.constant 7.5 : f32
  %one = arith.constant 1.0 : f32
  %wscale = arith.constant 0.16 : f32
  %ad = func.call @random(%c1030, %c37, %seed_x, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<1030x37xf32>
  %bd = func.call @random(%c37, %c1030, %seed_w, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<37x1030xf32>
  %y = func.call @mm_nn(%a, %b) : (tensor<1030x37xf32>, tensor<37x1030xf32>) -> tensor<1030x1030xf32>
  func.call @print(%y) : (tensor<1030x1030xf32>) -> ()

  %wd = func.call @random(%c1030, %c37, %seed_w, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<1030x37xf32>
  %biasd = func.call @random(%c1, %c1030, %seed_b, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %biasc = tensor.collapse_shape %biasd [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %bias = tensor.cast %biasc : tensor<?xf32> to tensor<1030xf32>
  %y2 = func.call @linear_relu(%a, %w, %bias) : (tensor<1030x37xf32>, tensor<1030x37xf32>, tensor<1030xf32>) -> tensor<1030x1030xf32>
  func.call @print(%y2) : (tensor<1030x1030xf32>) -> ()

  %xtd = func.call @random(%c37, %c1030, %seed_x, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %xt = tensor.cast %xtd : tensor<?x?xf32> to tensor<37x1030xf32>
  %y3 = func.call @mm_tn(%xt, %b) : (tensor<37x1030xf32>, tensor<37x1030xf32>) -> tensor<1030x1030xf32>
  func.call @print(%y3) : (tensor<1030x1030xf32>) -> ()

  %c2060 = arith.constant 2060 : index
  %c74 = arith.constant 74 : index
  %a3d = func.call @random(%c2060, %c37, %seed_w, %one) : (index, index, f32, f32) -> tensor<?x?xf32>
  %a3s = tensor.cast %a3d : tensor<?x?xf32> to tensor<2060x37xf32>
  %a3 = tensor.expand_shape %a3s [[0, 1], [2]] output_shape [2, 1030, 37] : tensor<2060x37xf32> into tensor<2x1030x37xf32>
  %b3d = func.call @random(%c74, %c1030, %seed_b, %wscale) : (index, index, f32, f32) -> tensor<?x?xf32>
  %b3s = tensor.cast %b3d : tensor<?x?xf32> to tensor<74x1030xf32>
  %b3 = tensor.expand_shape %b3s [[0, 1], [2]] output_shape [2, 37, 1030] : tensor<74x1030xf32> into tensor<2x37x1030xf32>
  %y4 = func.call @bmm(%a3, %b3) : (tensor<2x1030x37xf32>, tensor<2x37x1030xf32>) -> tensor<2x1030x1030xf32>
  %y4b = tensor.extract_slice %y4[1, 0, 0] [1, 1030, 1030] [1, 1, 1] : tensor<2x1030x1030xf32> to tensor<1030x1030xf32>
  func.call @print(%y4b) : (tensor<1030x1030xf32>) -> ()
  return
}
