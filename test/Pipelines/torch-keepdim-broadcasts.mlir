// Operands of keepdim or unsqueezed shape read at 0 along their size-1
// dimensions, as torch-mlir emits them (mean(keepdim=True) read through
// `(d0, d1) -> (d0, 0)`, a [1, C] gamma through `(d0, d1) -> (0, d1)`, a
// [N, C, 1, 1] statistic through `(d0, d1, d2, d3) -> (d0, d1, 0, 0)`), are
// broadcasts: a matmul epilogue and a pointwise group take them, each as a
// collapse_shape view of the argument (no copy). Every function is one
// kernel; the manifest aliases the views to the argument buffers and checks
// the dynamic size the view keeps.
// RUN: fuser-opt %s --fuser-fusion-pipeline="report=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: fuser-opt %s --fuser-kernel-pipeline \
// RUN:   | FileCheck %s --check-prefix=KERNEL --implicit-check-not=gpu.launch_func --implicit-check-not=memref.copy
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest \
// RUN:   | FileCheck %s --check-prefix=MANIFEST --implicit-check-not='"kernel"'

// REMARK: remark: fused matmul with 1 epilogue op(s)
// REMARK: remark: fused 1 elementwise op(s) into one pointwise group
// REMARK: remark: fused 1 elementwise op(s) into one pointwise group
// REMARK: remark: matmul kernel: mma in fp64 (3xtf32 not applicable: K is dynamic, zero or not a multiple of 4 (TMA rows) and not copied K-major: M, N or K is dynamic; fp64 tensor cores)

#id = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// KERNEL-LABEL: func.func @linear_keepdim
// KERNEL-SAME: (%{{.+}}: memref<?x37xf32>, %{{.+}}: memref<19x37xf32>, %[[B:.+]]: memref<1x19xf32>, %[[S:.+]]: memref<?x1xf32>)
// KERNEL-DAG: memref.collapse_shape %[[S]] {{\[\[}}0, 1]] : memref<?x1xf32> into memref<?xf32>
// KERNEL-DAG: memref.collapse_shape %[[B]] {{\[\[}}0, 1]] : memref<1x19xf32> into memref<19xf32>
// KERNEL: gpu.launch_func @fuser_kernels::@linear_keepdim_matmul
// MANIFEST: "message": "fuser.matmul: epilogue input #1 dimension 0 must equal the result's M"
// MANIFEST: "kernel": "linear_keepdim_matmul"
func.func @linear_keepdim(%x: tensor<?x37xf32>, %w: tensor<19x37xf32>, %b: tensor<1x19xf32>, %s: tensor<?x1xf32>) -> tensor<?x19xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x37xf32>
  %et = tensor.empty() : tensor<37x19xf32>
  %wt = linalg.transpose ins(%w : tensor<19x37xf32>) outs(%et : tensor<37x19xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x19xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x19xf32>) -> tensor<?x19xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x37xf32>, tensor<37x19xf32>) outs(%z : tensor<?x19xf32>) -> tensor<?x19xf32>
  %y = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %s : tensor<?x19xf32>, tensor<1x19xf32>, tensor<?x1xf32>) outs(%e : tensor<?x19xf32>) {
  ^bb0(%a: f32, %c: f32, %k: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    %t = arith.mulf %r, %k : f32
    linalg.yield %t : f32
  } -> tensor<?x19xf32>
  return %y : tensor<?x19xf32>
}

// KERNEL-LABEL: func.func @normalize_keepdim
// KERNEL-SAME: (%{{.+}}: memref<?x8xf32>, %[[M:.+]]: memref<?x1xf32>, %[[G:.+]]: memref<1x8xf32>)
// KERNEL-DAG: memref.collapse_shape %[[M]] {{\[\[}}0, 1]] : memref<?x1xf32> into memref<?xf32>
// KERNEL-DAG: memref.collapse_shape %[[G]] {{\[\[}}0, 1]] : memref<1x8xf32> into memref<8xf32>
// KERNEL: gpu.launch_func @fuser_kernels::@normalize_keepdim_pointwise
// MANIFEST: "kernel": "normalize_keepdim_pointwise"
func.func @normalize_keepdim(%x: tensor<?x8xf32>, %mean: tensor<?x1xf32>, %g: tensor<1x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %g : tensor<?x8xf32>, tensor<?x1xf32>, tensor<1x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %m: f32, %gg: f32, %o: f32):
    %t = arith.subf %v, %m : f32
    %u = arith.mulf %t, %gg : f32
    linalg.yield %u : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// KERNEL-LABEL: func.func @scale_nchw
// KERNEL-SAME: (%{{.+}}: memref<2x3x5x7xf32>, %[[S:.+]]: memref<2x3x1x1xf32>)
// KERNEL: memref.collapse_shape %[[S]] {{\[\[}}0], [1, 2, 3]] : memref<2x3x1x1xf32> into memref<2x3xf32>
// KERNEL: gpu.launch_func @fuser_kernels::@scale_nchw_pointwise
// MANIFEST: "kernel": "scale_nchw_pointwise"
func.func @scale_nchw(%x: tensor<2x3x5x7xf32>, %s: tensor<2x3x1x1xf32>) -> tensor<2x3x5x7xf32> {
  %e = tensor.empty() : tensor<2x3x5x7xf32>
  %r = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<2x3x5x7xf32>, tensor<2x3x1x1xf32>) outs(%e : tensor<2x3x5x7xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %t = arith.mulf %v, %m : f32
    linalg.yield %t : f32
  } -> tensor<2x3x5x7xf32>
  return %r : tensor<2x3x5x7xf32>
}
