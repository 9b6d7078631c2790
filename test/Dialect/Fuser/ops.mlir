// RUN: fuser-opt %s -split-input-file | FileCheck %s
// Round trip: print, parse again, print the same.
// RUN: fuser-opt %s -split-input-file | fuser-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @pointwise_broadcast
// CHECK: %[[R:.+]] = fuser.pointwise ins(%{{.+}}, %{{.+}} : tensor<?x64xf32>, tensor<64xf32>) maps [#{{.+}}, #{{.+}}] -> tensor<?x64xf32> {
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
// CHECK:   %[[S:.+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:   fuser.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @pointwise_broadcast(%x: tensor<?x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %r = fuser.pointwise ins(%x, %b : tensor<?x64xf32>, tensor<64xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>] -> tensor<?x64xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    fuser.yield %s : f32
  }
  return %r : tensor<?x64xf32>
}

// -----

// A scalar operand, two results, and a kernel config.
// CHECK-LABEL: func.func @pointwise_scalar_two_results
// CHECK: fuser.pointwise ins(%{{.+}}, %{{.+}} : f32, tensor<8xf32>)
// CHECK-SAME: config = #fuser.config<strategy = "pointwise", block = [128, 1, 1], vector_width = 4, max_grid = 4096>
// CHECK-SAME: -> tensor<8xf32>, tensor<8xi32>
// CHECK: fuser.yield %{{.+}}, %{{.+}} : f32, i32
func.func @pointwise_scalar_two_results(%s: f32, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %r:2 = fuser.pointwise ins(%s, %x : f32, tensor<8xf32>)
           maps [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
           {config = #fuser.config<strategy = "pointwise", block = [128, 1, 1], vector_width = 4, max_grid = 4096>}
           -> tensor<8xf32>, tensor<8xi32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    %i = arith.fptosi %m : f32 to i32
    fuser.yield %m, %i : f32, i32
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}

// -----

// nn.Linear with a bias and an epilogue: x * W^T + b, then * 2.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}} : tensor<256xf32>) epilogue_maps [#{{.+}}] : tensor<?x128xf32>, tensor<256x128xf32> -> tensor<?x256xf32> {
// CHECK: ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32):
// CHECK: arith.addf %[[ACC]], %[[BIAS]]
func.func @matmul_epilogue(%x: tensor<?x128xf32>, %w: tensor<256x128xf32>, %b: tensor<256xf32>) -> tensor<?x256xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<256xf32>)
         epilogue_maps [affine_map<(m, n) -> (n)>] : tensor<?x128xf32>, tensor<256x128xf32> -> tensor<?x256xf32> {
  ^bb0(%acc: f32, %bias: f32):
    %s = arith.addf %acc, %bias : f32
    %two = arith.constant 2.0 : f32
    %d = arith.mulf %s, %two : f32
    fuser.yield %d : f32
  }
  return %y : tensor<?x256xf32>
}

// -----

// CHECK-LABEL: func.func @group_norm_grad
// CHECK: %{{.+}}, %{{.+}}, %{{.+}} = fuser.group_norm_grad %{{.+}}, %{{.+}} groups = 512 eps = 1.000000e-05 prologue_inputs(%{{.+}}, %{{.+}} : tensor<?x8192xf32>, tensor<?x8192xf32>) prologue_maps [#{{.+}}, #{{.+}}] : tensor<?x8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>
#gid = affine_map<(d0, d1) -> (d0, d1)>
func.func @group_norm_grad(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %dout: tensor<?x8192xf32>, %z: tensor<?x8192xf32>) -> (tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %g groups = 512 eps = 1.0e-05
      prologue_inputs(%dout, %z : tensor<?x8192xf32>, tensor<?x8192xf32>) prologue_maps [#gid, #gid]
      : tensor<?x8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32> {
  ^bb0(%d: f32, %zi: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %zi, %zero : f32
    %slope = arith.constant 0.01 : f32
    %neg = arith.mulf %d, %slope : f32
    %dy = arith.select %pos, %d, %neg : f32
    fuser.yield %dy : f32
  }
  return %dx, %mean, %rstd : tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>
}

// -----

// CHECK-LABEL: func.func @group_norm_epilogue
// CHECK: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 512 eps = 1.000000e-05 epilogue_maps [] : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>
func.func @group_norm_epilogue(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %b: tensor<8192xf32>) -> tensor<?x8192xf32> {
  %y = fuser.group_norm %x, %g, %b groups = 512 eps = 1.0e-05 epilogue_maps []
         : tensor<?x8192xf32>, tensor<8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32> {
  ^bb0(%v: f32):
    %d = arith.addf %v, %v : f32
    fuser.yield %d : f32
  }
  return %y : tensor<?x8192xf32>
}

// -----

// A matmul whose epilogue ends in a group normalization.
// CHECK-LABEL: func.func @matmul_group_norm
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}}, %{{.+}} : tensor<16xf32>, tensor<16xf32>) epilogue_maps [#{{.+}}, #{{.+}}] group_norm(size = 8, eps = 1.000000e-05) : tensor<?x8xf32>, tensor<16x8xf32> -> tensor<?x16xf32> {
// CHECK: } then {
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[G:.+]]: f32, %[[B:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[V]], %[[G]] : f32
#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_group_norm(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>, %g: tensor<16xf32>,
                             %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%g, %b : tensor<16xf32>, tensor<16xf32>)
         epilogue_maps [#col, #col] group_norm(size = 8, eps = 1.0e-05)
         : tensor<?x8xf32>, tensor<16x8xf32> -> tensor<?x16xf32> {
  ^bb0(%acc: f32, %ga: f32, %be: f32):
    fuser.yield %acc : f32
  } then {
  ^bb0(%v: f32, %ga: f32, %be: f32):
    %m = arith.mulf %v, %ga : f32
    %a = arith.addf %m, %be : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x16xf32>
}

// -----

// TMA tensor maps: f32 with 128-byte swizzled rows of 32 floats, bf16 with
// rows of 64, and an unswizzled f16 box whose rows are 16-byte multiples.
// CHECK-LABEL: func.func @tensor_maps
// CHECK-SAME: (%[[A:.+]]: memref<?x256xf32>, %[[B:.+]]: memref<?x8192xbf16>, %[[C:.+]]: memref<64x24xf16>)
// CHECK: %[[MA:.+]] = fuser.tensor_map %[[A]] box [128, 32] swizzle 128 : memref<?x256xf32> -> !llvm.ptr
// CHECK: %[[MB:.+]] = fuser.tensor_map %[[B]] box [256, 64] swizzle 128 : memref<?x8192xbf16> -> !llvm.ptr
// CHECK: %[[MC:.+]] = fuser.tensor_map %[[C]] box [1, 8] swizzle 0 : memref<64x24xf16> -> !llvm.ptr
// CHECK: return %[[MA]], %[[MB]], %[[MC]] : !llvm.ptr, !llvm.ptr, !llvm.ptr
func.func @tensor_maps(%a: memref<?x256xf32>, %b: memref<?x8192xbf16>, %c: memref<64x24xf16>)
    -> (!llvm.ptr, !llvm.ptr, !llvm.ptr) {
  %ma = fuser.tensor_map %a box [128, 32] swizzle 128 : memref<?x256xf32> -> !llvm.ptr
  %mb = fuser.tensor_map %b box [256, 64] swizzle 128 : memref<?x8192xbf16> -> !llvm.ptr
  %mc = fuser.tensor_map %c box [1, 8] swizzle 0 : memref<64x24xf16> -> !llvm.ptr
  return %ma, %mb, %mc : !llvm.ptr, !llvm.ptr, !llvm.ptr
}

// -----

// Rows narrower than a 32- or 64-byte swizzle span are what TMA accepts
// (docs/manifest.md): the verifier, the reader and the header agree.
// CHECK-LABEL: func.func @tensor_map_narrow_swizzled_rows
// CHECK: fuser.tensor_map %{{.+}} box [8, 4] swizzle 32 : memref<?x64xf32> -> !llvm.ptr
// CHECK: fuser.tensor_map %{{.+}} box [8, 16] swizzle 64 : memref<?x64xbf16> -> !llvm.ptr
func.func @tensor_map_narrow_swizzled_rows(%a: memref<?x64xf32>, %b: memref<?x64xbf16>) -> (!llvm.ptr, !llvm.ptr) {
  %ma = fuser.tensor_map %a box [8, 4] swizzle 32 : memref<?x64xf32> -> !llvm.ptr
  %mb = fuser.tensor_map %b box [8, 16] swizzle 64 : memref<?x64xbf16> -> !llvm.ptr
  return %ma, %mb : !llvm.ptr, !llvm.ptr
}

// -----

// The generic form: box and swizzle are properties; 32- and 64-byte swizzles.
// CHECK-LABEL: func.func @tensor_map_generic
// CHECK: fuser.tensor_map %{{.+}} box [64, 8] swizzle 32 : memref<?x?xf32> -> !llvm.ptr
// CHECK: fuser.tensor_map %{{.+}} box [2, 32] swizzle 64 : memref<?x?xf16> -> !llvm.ptr
func.func @tensor_map_generic(%a: memref<?x?xf32>, %b: memref<?x?xf16>) -> (!llvm.ptr, !llvm.ptr) {
  %ma = "fuser.tensor_map"(%a) <{box = array<i64: 64, 8>, swizzle = 32 : i64}> : (memref<?x?xf32>) -> !llvm.ptr
  %mb = "fuser.tensor_map"(%b) <{box = array<i64: 2, 32>, swizzle = 64 : i64}> : (memref<?x?xf16>) -> !llvm.ptr
  return %ma, %mb : !llvm.ptr, !llvm.ptr
}

// -----

// torch.bmm with a per-batch bias, and x.T @ W (A stored K x M).
// CHECK-LABEL: func.func @matmul_batched_transposed
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_inputs(%{{.+}} : tensor<?x8xf32>) epilogue_maps [#{{.+}}] : tensor<?x4x16xf32>, tensor<?x16x8xf32> -> tensor<?x4x8xf32> {
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_a transpose_b epilogue_maps [] : tensor<16x4xf32>, tensor<8x16xf32> -> tensor<4x8xf32> {
func.func @matmul_batched_transposed(%a: tensor<?x4x16xf32>, %b: tensor<?x16x8xf32>, %bias: tensor<?x8xf32>,
                                     %x: tensor<16x4xf32>, %w: tensor<8x16xf32>) -> (tensor<?x4x8xf32>, tensor<4x8xf32>) {
  %y = fuser.matmul %a, %b epilogue_inputs(%bias : tensor<?x8xf32>) epilogue_maps [affine_map<(b, m, n) -> (b, n)>]
         : tensor<?x4x16xf32>, tensor<?x16x8xf32> -> tensor<?x4x8xf32> {
  ^bb0(%acc: f32, %bi: f32):
    %s = arith.addf %acc, %bi : f32
    fuser.yield %s : f32
  }
  %z = fuser.matmul %x, %w transpose_a transpose_b epilogue_maps [] : tensor<16x4xf32>, tensor<8x16xf32> -> tensor<4x8xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y, %z : tensor<?x4x8xf32>, tensor<4x8xf32>
}

// -----

// A prologue: A read as where(y > 0, dy, 0), y beside it.
// CHECK-LABEL: func.func @matmul_prologue
// CHECK: fuser.matmul %{{.+}}, %{{.+}} prologue_inputs(%{{.+}} : tensor<?x8xf32>) epilogue_maps [] : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32> prologue {
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32):
// CHECK: arith.select
// CHECK: } {
// CHECK: ^bb0(%{{.+}}: f32):
func.func @matmul_prologue(%dy: tensor<?x8xf32>, %y: tensor<?x8xf32>, %w: tensor<8x4xf32>) -> tensor<?x4xf32> {
  %r = fuser.matmul %dy, %w prologue_inputs(%y : tensor<?x8xf32>) epilogue_maps [] : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32> prologue {
  ^bb0(%g: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %out, %z : f32
    %v = arith.select %p, %g, %z : f32
    fuser.yield %v : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %r : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @scan
// CHECK: %[[OUT:.+]], %[[ACC:.+]] = fuser.scan dimension(1) inclusive(false) ins(%{{.+}} : tensor<?x100xf32>) outs(%{{.+}}, %{{.+}} : tensor<?x100xf32>, tensor<?xf32>) {
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
// CHECK:   %[[S:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK:   fuser.yield %[[S]] : f32
// CHECK: } -> tensor<?x100xf32>, tensor<?xf32>
// CHECK: return %[[OUT]], %[[ACC]]
func.func @scan(%x: tensor<?x100xf32>, %e: tensor<?x100xf32>, %init: tensor<?xf32>) -> (tensor<?x100xf32>, tensor<?xf32>) {
  %out, %acc = fuser.scan dimension(1) inclusive(false)
      ins(%x : tensor<?x100xf32>) outs(%e, %init : tensor<?x100xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x100xf32>, tensor<?xf32>
  return %out, %acc : tensor<?x100xf32>, tensor<?xf32>
}
