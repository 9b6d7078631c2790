// RUN: fuser-opt %s -split-input-file --fuser-widen-half-sums="report=true" -verify-diagnostics | FileCheck %s

// A bias gradient under autocast: the column sums of a bf16 gradient. The
// sum accumulates in f32 from an f32 +0.0 fill, each term extended, and
// one truncf rounds the result.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_grad
// CHECK-SAME: (%[[G:.+]]: tensor<?x64xbf16>)
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<64xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<64xf32>)
// CHECK: %[[W:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]} ins(%[[G]] : tensor<?x64xbf16>) outs(%[[F]] : tensor<64xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[T:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[T]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[A]] : f32
// CHECK: %[[N:.+]] = linalg.generic {{.+}} ins(%[[W]] : tensor<64xf32>) outs(%{{.+}} : tensor<64xbf16>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK: return %[[N]]
func.func @bias_grad(%g: tensor<?x64xbf16>) -> tensor<64xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64xbf16>
  %fill = linalg.fill ins(%zero : bf16) outs(%e : tensor<64xbf16>) -> tensor<64xbf16>
  // expected-remark @+1 {{16-bit sum accumulated in f32 and rounded once, as PyTorch sums f16 and bf16 tensors}}
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%g : tensor<?x64xbf16>) outs(%fill : tensor<64xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %a = arith.addf %in, %acc : bf16
    linalg.yield %a : bf16
  } -> tensor<64xbf16>
  return %s : tensor<64xbf16>
}

// -----

// Terms computed in the body keep their type; the accumulator on the left
// of the add stays there; a dynamic output size carries over. f16 too.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @squares_f16
// CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?xf32>
// CHECK: ^bb0(%[[IN:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[IN]], %[[IN]] : f16
// CHECK-NEXT: %[[T:.+]] = arith.extf %[[SQ]] : f16 to f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[ACC]], %[[T]] : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @squares_f16(%x: tensor<?x64xf16>) -> tensor<?xf16> {
  %zero = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf16>
  %e = tensor.empty(%n) : tensor<?xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%e : tensor<?xf16>) -> tensor<?xf16>
  // expected-remark @+1 {{16-bit sum accumulated in f32}}
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf16>) outs(%fill : tensor<?xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %sq = arith.mulf %in, %in : f16
    %a = arith.addf %acc, %sq : f16
    linalg.yield %a : f16
  } -> tensor<?xf16>
  return %s : tensor<?xf16>
}

// -----

// Left alone: a bf16 maximum (exact in any type), an f32 sum, and a bf16
// sum into a tensor that is not a fill.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
func.func @left_alone(%x: tensor<8x64xbf16>, %y: tensor<8x64xf32>, %init: tensor<8xbf16>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>) {
  %ninf = arith.constant 0xFF80 : bf16
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xbf16>
  %ef = tensor.empty() : tensor<8xf32>
  %fill = linalg.fill ins(%ninf : bf16) outs(%e : tensor<8xbf16>) -> tensor<8xbf16>
  %fillf = linalg.fill ins(%zero : f32) outs(%ef : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xbf16>) outs(%fill : tensor<8xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %a = arith.maximumf %in, %acc : bf16
    linalg.yield %a : bf16
  } -> tensor<8xbf16>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<8x64xf32>) outs(%fillf : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xbf16>) outs(%init : tensor<8xbf16>) {
  ^bb0(%in: bf16, %acc: bf16):
    %a = arith.addf %in, %acc : bf16
    linalg.yield %a : bf16
  } -> tensor<8xbf16>
  return %m, %s, %t : tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>
}
