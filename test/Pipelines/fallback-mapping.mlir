// The generic fallback maps the innermost parallel loop to threadIdx.x, so
// a warp's lanes read and write neighbouring elements of a row-major tensor
// (the outermost loop on x put them a row apart: one memory sector each).
// RUN: fuser-opt %s --fuser-kernel-pipeline | FileCheck %s

// CHECK-LABEL: gpu.func @forward_kernel
// CHECK: %[[TX:.+]] = gpu.thread_id  x
// CHECK: %[[IN_TILE:.+]] = affine.apply #{{.+}}()[%{{.+}}, %{{.+}}, %[[TX]]]
// CHECK: %[[COL:.+]] = arith.addi %[[IN_TILE]], %{{.+}} : index
// CHECK: memref.load %{{.+}}[%{{.+}}, %[[COL]]] : memref<64x256xf32>
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}, %[[COL]]] : memref<64x256xf32>

// linalg.index keeps the group from fusing: the fallback compiles it.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %init = tensor.empty() : tensor<64x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%init : tensor<64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %r = arith.addf %in, %jf : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
