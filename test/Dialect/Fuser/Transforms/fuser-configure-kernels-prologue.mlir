// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="report=true" -verify-diagnostics | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-configure-kernels="precision=tf32" | FileCheck %s --check-prefix=TF32

// nn.Linear's backward with the mask fused (fuser-fuse-matmul-prologues):
// 3xtf32 on wgmma_tma applies dX's prologue in its splitter. dW's M-major
// A, g, gets a transposing copy; the group that computed g goes: the copy
// computes g from dy and y (read transposed, a staged tile each), and the
// bias gradient's column sums, which read g's unscaled values, compute them
// from dy and y themselves. Four kernels and the reduction, not six.
// CHECK-LABEL: func.func @linear_backward
// CHECK-SAME: (%[[DY:.+]]: tensor<1024x8192xf32>, %[[Y:.+]]: tensor<1024x8192xf32>, %[[W:.+]]: tensor<8192x4096xf32>, %[[X:.+]]: tensor<1024x4096xf32>)
// CHECK: fuser.matmul %[[DY]], %[[W]] prologue_inputs(%[[Y]] : tensor<1024x8192xf32>) epilogue_maps [] {config = #fuser.config<strategy = "wgmma_tma", {{.+}} precision = "3xtf32"
// CHECK-SAME: prologue {
// CHECK: %[[GT:.+]] = fuser.pointwise ins(%[[Y]], %[[DY]] : tensor<1024x8192xf32>, tensor<1024x8192xf32>) maps [#[[T:.+]], #[[T]]] {config = #fuser.config<strategy = "pointwise_transpose"{{.+}}} -> tensor<8192x1024xf32>
// CHECK: arith.select
// CHECK: %[[XT:.+]] = fuser.pointwise ins(%[[X]] : tensor<1024x4096xf32>)
// CHECK: fuser.matmul %[[GT]], %[[XT]] transpose_b
// CHECK: linalg.generic {indexing_maps = [#[[T]], #[[T]], #{{.+}}], iterator_types = ["parallel", "reduction"]} ins(%[[Y]], %[[DY]] : {{.+}}) {{.+}} attrs = {fuser.config = #fuser.config<strategy = "reduction"
// CHECK: arith.select
// CHECK: arith.addf
// CHECK-NOT: fuser.pointwise
// CHECK: return

// precision=tf32 (mma.sync here: the N-major B) has no splitter: the
// prologue gets a pointwise kernel of its own, which the product reads.
// TF32-LABEL: func.func @linear_backward
// TF32-SAME: (%[[DY:.+]]: tensor<1024x8192xf32>, %[[Y:.+]]: tensor<1024x8192xf32>, %[[W:.+]]: tensor<8192x4096xf32>
// TF32: %[[A:.+]] = fuser.pointwise ins(%[[DY]], %[[Y]] : tensor<1024x8192xf32>, tensor<1024x8192xf32>) maps [#[[ID:.+]], #[[ID]]] {config = #fuser.config<strategy = "pointwise"
// TF32: fuser.matmul %[[A]], %[[W]] epilogue_maps [] {config = #fuser.config<strategy = "mma"{{.+}}precision = "tf32"
// TF32-NOT: prologue {
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @linear_backward(%dy: tensor<1024x8192xf32>, %y: tensor<1024x8192xf32>, %w: tensor<8192x4096xf32>, %x: tensor<1024x4096xf32>) -> (tensor<1024x4096xf32>, tensor<8192x4096xf32>, tensor<8192xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %g:2 = fuser.pointwise ins(%y, %dy : tensor<1024x8192xf32>, tensor<1024x8192xf32>) maps [#id, #id] -> tensor<1024x8192xf32>, tensor<1024x8192xf32> {
  ^bb0(%out: f32, %d: f32):
    %slope = arith.constant 1.000000e-01 : f32
    %two = arith.constant 2.000000e+00 : f32
    %c = arith.constant 0.000000e+00 : f32
    %pos = arith.cmpf ogt, %out, %c : f32
    %leak = arith.mulf %d, %slope : f32
    %sel = arith.select %pos, %d, %leak : f32
    %a = arith.mulf %sel, %two : f32
    fuser.yield %a, %sel : f32, f32
  }
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %dx = fuser.matmul %dy, %w prologue_inputs(%y : tensor<1024x8192xf32>) epilogue_maps [] : tensor<1024x8192xf32>, tensor<8192x4096xf32> -> tensor<1024x4096xf32> prologue {
  ^bb0(%d: f32, %out: f32):
    %slope = arith.constant 1.000000e-01 : f32
    %two = arith.constant 2.000000e+00 : f32
    %c = arith.constant 0.000000e+00 : f32
    %pos = arith.cmpf ogt, %out, %c : f32
    %leak = arith.mulf %d, %slope : f32
    %sel = arith.select %pos, %d, %leak : f32
    %a = arith.mulf %sel, %two : f32
    fuser.yield %a : f32
  } {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  // expected-remark @+2 {{A and B copied K-major by a transposing kernel}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %dw = fuser.matmul %g#0, %x transpose_a epilogue_maps [] : tensor<1024x8192xf32>, tensor<1024x4096xf32> -> tensor<8192x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %e = tensor.empty() : tensor<8192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  // expected-remark @+1 {{reduction kernel}}
  %db = linalg.generic {indexing_maps = [#t, #col], iterator_types = ["parallel", "reduction"]} ins(%g#1 : tensor<1024x8192xf32>) outs(%f : tensor<8192xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %two = arith.constant 2.000000e+00 : f32
    %v = arith.mulf %in, %two : f32
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %dx, %dw, %db : tensor<1024x4096xf32>, tensor<8192x4096xf32>, tensor<8192xf32>
}

// -----

// A reduction that reads the group twice: the group stays, the copy reads
// its result (rebuilding the reduction per read would lose the other).
// CHECK-LABEL: func.func @reads_twice
// CHECK: %[[G:.+]]:2 = fuser.pointwise
// CHECK: fuser.pointwise ins(%[[G]]#0 : tensor<1024x8192xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[G]]#1, %[[G]]#1 :
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @reads_twice(%dy: tensor<1024x8192xf32>, %y: tensor<1024x8192xf32>, %x: tensor<1024x4096xf32>) -> (tensor<8192x4096xf32>, tensor<8192xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %g:2 = fuser.pointwise ins(%y, %dy : tensor<1024x8192xf32>, tensor<1024x8192xf32>) maps [#id, #id] -> tensor<1024x8192xf32>, tensor<1024x8192xf32> {
  ^bb0(%out: f32, %d: f32):
    %c = arith.constant 0.000000e+00 : f32
    %pos = arith.cmpf ogt, %out, %c : f32
    %sel = arith.select %pos, %d, %c : f32
    %a = arith.addf %sel, %sel : f32
    fuser.yield %a, %sel : f32, f32
  }
  // expected-remark @+2 {{A and B copied K-major by a transposing kernel}}
  // expected-remark @+1 {{matmul kernel: wgmma_tma in 3xtf32}}
  %dw = fuser.matmul %g#0, %x transpose_a epilogue_maps [] : tensor<1024x8192xf32>, tensor<1024x4096xf32> -> tensor<8192x4096xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  %e = tensor.empty() : tensor<8192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  // expected-remark @+1 {{reduction kernel}}
  %db = linalg.generic {indexing_maps = [#t, #t, #col], iterator_types = ["parallel", "reduction"]} ins(%g#1, %g#1 : tensor<1024x8192xf32>, tensor<1024x8192xf32>) outs(%f : tensor<8192xf32>) {
  ^bb0(%in: f32, %in2: f32, %acc: f32):
    %v = arith.mulf %in, %in2 : f32
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %dw, %db : tensor<8192x4096xf32>, tensor<8192xf32>
}
