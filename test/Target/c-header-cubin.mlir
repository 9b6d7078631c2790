// The header embeds PTX: a module compiled to a cubin is refused clearly.
// REQUIRES: ptxas
// RUN: fuser-opt %s --fuser-gpu-pipeline="format=cubin" \
// RUN:   | not fuser-translate --fuser-to-c-header 2>&1 | FileCheck %s

// CHECK: error: the C header embeds PTX, but the module holds a cubin; compile with --fuser-gpu-pipeline="format=ptx"

#id = affine_map<(d0) -> (d0)>
func.func @negate(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %init = tensor.empty() : tensor<1024xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}
