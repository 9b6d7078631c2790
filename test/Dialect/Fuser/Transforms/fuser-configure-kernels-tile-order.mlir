// The order wgmma_tma's persistent blocks walk the output tiles: in tf32,
// bf16 and f16, a product of more than 8 M tiles of 128 rows, or a dynamic
// M, gets group_m = 8 (bands of 8 M tiles, each band's tiles M fastest),
// so that the blocks running at once share a band of A in L2 as they share
// a panel of B; up to 8 M tiles are one band already (no group_m: M
// fastest, as before). Not 3xtf32, whose bound is shared memory.
// RUN: fuser-opt %s --fuser-configure-kernels="precision=tf32" | FileCheck %s
// RUN: fuser-opt %s --fuser-configure-kernels | FileCheck %s --check-prefix=X3

// CHECK-LABEL: func.func @tile_order
// CHECK: precision = "tf32">} : tensor<1024x1024xf32>,
// CHECK: precision = "tf32", group_m = 8>} : tensor<1025x1024xf32>,
// CHECK: precision = "tf32", group_m = 8>} : tensor<?x1024xf32>,
// X3-LABEL: func.func @tile_order
// X3-NOT: group_m
// X3: return
func.func @tile_order(%x: tensor<1024x1024xf32>, %x9: tensor<1025x1024xf32>,
                      %xd: tensor<?x1024xf32>, %w: tensor<1024x1024xf32>)
    -> (tensor<1024x1024xf32>, tensor<1025x1024xf32>, tensor<?x1024xf32>) {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %z = fuser.matmul %x9, %w transpose_b epilogue_maps [] : tensor<1025x1024xf32>, tensor<1024x1024xf32> -> tensor<1025x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %d = fuser.matmul %xd, %w transpose_b epilogue_maps [] : tensor<?x1024xf32>, tensor<1024x1024xf32> -> tensor<?x1024xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z, %d : tensor<1024x1024xf32>, tensor<1025x1024xf32>, tensor<?x1024xf32>
}
