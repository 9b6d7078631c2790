// RUN: fuser-opt %s -split-input-file --fuser-to-linalg -verify-diagnostics | FileCheck %s

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: linalg.yield
// CHECK-NOT: fuser.pointwise
// CHECK: return %[[G]]
func.func @bias_relu(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %r = fuser.pointwise ins(%x, %b : tensor<?x8xf32>, tensor<8xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] -> tensor<?x8xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %z : f32
    fuser.yield %m : f32
  }
  return %r : tensor<?x8xf32>
}

// -----

// A transposed-B matmul with a bias epilogue: zero fill, linalg.matmul
// reading B through (n, k), and one generic for the epilogue. The dynamic M
// comes from A.
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul_bias
// CHECK-SAME: (%[[A:.+]]: tensor<?x8xf32>, %[[W:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[M:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x8xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[M]]) : tensor<?x4xf32>
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: %[[P:.+]] = linalg.matmul indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]] ins(%[[A]], %[[W]] : tensor<?x8xf32>, tensor<4x8xf32>) outs(%[[F]] : tensor<?x4xf32>)
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[P]], %[[B]] : tensor<?x4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[BIAS]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK-NOT: fuser.matmul
// CHECK: return %[[G]]
func.func @matmul_bias(%a: tensor<?x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = fuser.matmul %a, %w transpose_b epilogue_inputs(%b : tensor<4xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] : tensor<?x8xf32>, tensor<4x8xf32> -> tensor<?x4xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    fuser.yield %s : f32
  }
  return %r : tensor<?x4xf32>
}

// -----

// Without transpose_b and with an epilogue that only yields the accumulator:
// a plain linalg.matmul and no generic.
// CHECK-LABEL: func.func @matmul_plain
// CHECK: %[[F:.+]] = linalg.fill
// CHECK: %[[P:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x3xf32>) outs(%[[F]] : tensor<4x3xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
func.func @matmul_plain(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %r = fuser.matmul %a, %b epilogue_maps [] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<4x3xf32>
}

// -----

// A group norm becomes the two-pass decomposition on the grouped view
// (N, G, C/G, ...), gamma and beta viewed as (G, C/G), and a generic for
// its epilogue over the result.
// CHECK-DAG: #[[$V:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func.func @group_norm
// CHECK-SAME: (%[[X:.+]]: tensor<?x8x3xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>, %[[R:.+]]: tensor<?x8x3xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]]
// CHECK: %[[V:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3]] output_shape [%[[N]], 2, 4, 3] : tensor<?x8x3xf32> into tensor<?x2x4x3xf32>
// CHECK-DAG: %[[K:.+]] = arith.constant 1.200000e+01 : f32
// CHECK-DAG: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$V]], #[[$S]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[V]]
// CHECK: %[[MEAN:.+]] = linalg.generic
// CHECK: arith.divf %{{.+}}, %[[K]]
// CHECK: %[[SQ:.+]] = linalg.generic {{.+}} ins(%[[V]], %[[MEAN]]
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} ins(%[[SQ]]
// CHECK: arith.addf %{{.+}}, %[[EPS]]
// CHECK: math.rsqrt
// CHECK: %[[GG:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [2, 4]
// CHECK: %[[BG:.+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [2, 4]
// CHECK: %[[NORM:.+]] = linalg.generic {indexing_maps = [#[[$V]], #[[$S]], #[[$S]], #[[$C]], #[[$C]], #[[$V]]]{{.+}} ins(%[[V]], %[[MEAN]], %[[RSTD]], %[[GG]], %[[BG]]
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[NORM]] {{\[\[}}0], [1, 2], [3]]
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} ins(%[[FLAT]], %[[R]]
// CHECK: arith.addf
// CHECK-NOT: fuser.group_norm
// CHECK: return %[[Y]]
func.func @group_norm(%x: tensor<?x8x3xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %r: tensor<?x8x3xf32>) -> tensor<?x8x3xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 2 eps = 1.0e-05
         epilogue_inputs(%r : tensor<?x8x3xf32>) epilogue_maps [affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
         : tensor<?x8x3xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x3xf32> {
  ^bb0(%v: f32, %rv: f32):
    %a = arith.addf %v, %rv : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x8x3xf32>
}

// -----

func.func @dynamic_channels(%x: tensor<2x?xf32>, %g: tensor<?xf32>) -> tensor<2x?xf32> {
  // expected-error @+1 {{has dynamic sizes past the batch dimension; the CPU reference needs them static}}
  %y = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
         : tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<2x?xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  return %y : tensor<2x?xf32>
}

// -----

// A batched matmul with both operands transposed: the product is a
// linalg.generic over (b, m, n, k) summing K innermost, as the unfused
// batch_matmul of the transposed copies does; the epilogue ranges over
// (b, m, n).
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$BN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @batched_transposed
// CHECK-SAME: (%[[X:.+]]: tensor<?x32x40xf32>, %[[W:.+]]: tensor<?x48x32xf32>, %[[BIAS:.+]]: tensor<?x48xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %c0
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x40x48xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?x40x48xf32>)
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<?x32x40xf32>, tensor<?x48x32xf32>) outs(%[[F]] : tensor<?x40x48xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.+}} ins(%[[P]], %[[BIAS]] : tensor<?x40x48xf32>, tensor<?x48xf32>)
func.func @batched_transposed(%x: tensor<?x32x40xf32>, %w: tensor<?x48x32xf32>, %b: tensor<?x48xf32>) -> tensor<?x40x48xf32> {
  %y = fuser.matmul %x, %w transpose_a transpose_b epilogue_inputs(%b : tensor<?x48xf32>) epilogue_maps [affine_map<(b, m, n) -> (b, n)>]
         : tensor<?x32x40xf32>, tensor<?x48x32xf32> -> tensor<?x40x48xf32> {
  ^bb0(%acc: f32, %bi: f32):
    %s = arith.addf %acc, %bi : f32
    fuser.yield %s : f32
  }
  return %y : tensor<?x40x48xf32>
}

// -----

// Mixed precision (bf16 operands, an f32 result): the batched product's body
// widens each operand to the accumulator's type before it multiplies, as
// linalg.matmul casts them (it added a bf16 product into an f32 sum, invalid
// IR, found by fuzz/PipelineFuzzer.cpp on test/gpu/Inputs/bmm_tma_bf16.mlir).
// CHECK-LABEL: func.func @batched_bf16_into_f32
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : tensor<?x?x64xbf16>, tensor<?x?x64xbf16>) outs(%{{.+}} : tensor<?x?x?xf32>)
// CHECK: ^bb0(%[[A:.+]]: bf16, %[[B:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-DAG: %[[AW:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-DAG: %[[BW:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
func.func @batched_bf16_into_f32(%x: tensor<?x?x64xbf16>, %w: tensor<?x?x64xbf16>, %c: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%c : tensor<?x?xf32>) epilogue_maps [affine_map<(b, m, n) -> (b, n)>]
         : tensor<?x?x64xbf16>, tensor<?x?x64xbf16> -> tensor<?x?x?xf32> {
  ^bb0(%acc: f32, %ci: f32):
    %a = arith.addf %acc, %ci : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x?x?xf32>
}
