// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-pointwise{report=true}))" -verify-diagnostics | FileCheck %s
// Constant inputs become immediates in fuser-simplify-group-bodies, which
// runs after fusion.
// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-pointwise{report=true},fuser-simplify-group-bodies))" -verify-diagnostics | FileCheck %s --check-prefix=SIMPLIFY

#id = affine_map<(d0, d1) -> (d0, d1)>

// A chain of four elementwise ops, named and generic, becomes one group.
// CHECK-LABEL: func.func @chain4
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.pointwise ins(%[[X]] : tensor<?x?xf32>) maps [#{{.+}}] -> tensor<?x?xf32>
// CHECK: arith.mulf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.select
// CHECK: fuser.yield
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @chain4(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %m = linalg.mul ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %ex = linalg.exp ins(%m : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %a = linalg.add ins(%ex, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  // expected-remark @+1 {{fused 4 elementwise op(s) into one pointwise group}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.cmpf ugt, %in, %zero : f32
    %s = arith.select %p, %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A broadcast bias add: the bias is read through (d0, d1) -> (d1).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: fuser.pointwise ins(%[[B]], %[[X]] : tensor<8xf32>, tensor<4x8xf32>) maps [#[[$ROW]], #[[$ID]]]
// CHECK-NOT: linalg.broadcast
func.func @bias_add(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  // expected-remark @+1 {{fused 2 elementwise op(s) into one pointwise group}}
  %r = linalg.add ins(%x, %bb : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A value used inside the group and returned becomes a second group result.
// CHECK-LABEL: func.func @multi_use_export
// CHECK: %[[G:.+]]:2 = fuser.pointwise
// CHECK: %[[E:.+]] = math.exp
// CHECK: %[[S:.+]] = arith.addf %[[E]], %[[E]]
// CHECK: fuser.yield %[[S]], %[[E]] : f32, f32
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @multi_use_export(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %ex = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{fused 2 elementwise op(s) into one pointwise group}}
  %s = linalg.add ins(%ex, %ex : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %s, %ex : tensor<16xf32>, tensor<16xf32>
}

// -----

// A producer read through a broadcast and also returned cannot be shared:
// it stays in a group of its own.
// CHECK-LABEL: func.func @multi_use_broadcast
// CHECK: %[[P:.+]] = fuser.pointwise ins(%{{.+}} : tensor<8xf32>)
// CHECK: math.exp
// CHECK: %[[C:.+]] = fuser.pointwise ins(%{{.+}}, %[[P]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: return %[[C]], %[[P]]
func.func @multi_use_broadcast(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %e8 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+2 {{not fused into its consumers: its value is also used elsewhere, and the group reads it through a broadcast or with another shape; it forms its own group}}
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %eb = linalg.exp ins(%b : tensor<8xf32>) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %eb : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // expected-remark @-7 {{fused 1 elementwise op(s)}}
  return %r, %eb : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A value also used by an op between the producer and the group's last op
// cannot be produced by the group.
func.func private @use(tensor<16xf32>)
// CHECK-LABEL: func.func @used_before_root
// CHECK: %[[P:.+]] = fuser.pointwise
// CHECK: call @use(%[[P]])
// CHECK: fuser.pointwise ins(%[[P]]
func.func @used_before_root(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  // expected-remark @+2 {{not fused into its consumers: its value is also used before the group's last op; it forms its own group}}
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %ex = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  func.call @use(%ex) : (tensor<16xf32>) -> ()
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %s = linalg.add ins(%ex, %x : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// A matmul is not elementwise: it stays, and its epilogue forms a group.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: fuser.pointwise ins(%{{.+}}, %[[MM]] : tensor<8xf32>, tensor<4x8xf32>)
func.func @matmul_epilogue(%a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{left unfused: it has reduction iterators; it gets a reduction kernel where fuser-configure-kernels can configure one, else the generic fallback lowering}}
  %mm = linalg.matmul ins(%a, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  // expected-remark @+1 {{fused 2 elementwise op(s) into one pointwise group}}
  %r = linalg.add ins(%mm, %bb : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @reduction
// CHECK: linalg.generic
// CHECK-NOT: fuser.pointwise
func.func @reduction(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{left unfused: it has reduction iterators}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// linalg.index (torch.arange) over a static shape: evaluated at compile
// time, as are its readers that read nothing else; over a dynamic shape it
// is left to the generic fallback.
// CHECK-LABEL: func.func @uses_index
// CHECK: %[[C:.+]] = arith.constant dense<[0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00, 1.000000e+01, 1.200000e+01, 1.400000e+01]> : tensor<8xf32>
// CHECK: fuser.pointwise ins(%[[C]], %{{.+}} : tensor<8xf32>, tensor<8xf32>)
// CHECK: linalg.generic
// CHECK: linalg.index
func.func @uses_index(%e: tensor<8xf32>, %x: tensor<8xf32>, %d: tensor<?xf32>) -> (tensor<8xf32>, tensor<?xf32>) {
  // expected-remark @+1 {{evaluated at compile time (its value depends on constants and indices only): a constant, no kernel}}
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  // expected-remark @+1 {{evaluated at compile time (its value depends on constants and indices only): a constant, no kernel}}
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.addf %v, %v : f32
    linalg.yield %two : f32
  } -> tensor<8xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%b, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  // expected-remark @+1 {{left unfused: its body uses linalg.index}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%d : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    linalg.yield %f : f32
  } -> tensor<?xf32>
  return %c, %r : tensor<8xf32>, tensor<?xf32>
}

// -----

// A tensor built from indices that the function returns stays a kernel (the
// fallback's): a constant returned unchanged would have no kernel writing
// the result.
// CHECK-LABEL: func.func @returned_index
// CHECK: linalg.generic
// CHECK: linalg.index
func.func @returned_index(%e: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{left unfused: its body uses linalg.index}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A scalar captured from above becomes a scalar input; constants are cloned.
// CHECK-LABEL: func.func @captured_scalar
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>, %[[S:.+]]: f32)
// CHECK: fuser.pointwise ins(%[[X]], %[[S]] : tensor<8xf32>, f32) maps [#{{.+}}, #{{.+}}]
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32):
// CHECK: arith.constant 3.000000e+00
func.func @captured_scalar(%x: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %t = arith.addf %m, %three : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A dynamic fill has no input that gives its size: the init carries it.
// CHECK-LABEL: func.func @dynamic_fill
// CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?xf32>
// CHECK: fuser.pointwise ins(%[[E]] : tensor<?xf32>)
// CHECK: ^bb0(%{{.+}}: f32):
// CHECK-NEXT: %[[C:.+]] = arith.constant 1.5
// CHECK-NEXT: fuser.yield %[[C]]
func.func @dynamic_fill(%n: index) -> tensor<?xf32> {
  %v = arith.constant 1.5 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s)}}
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}

// -----

// A transpose feeding an add fuses; the transpose becomes the read map.
// CHECK-DAG: #[[$T:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @transpose_add
// CHECK: fuser.pointwise ins(%{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4x8xf32>) maps [#[[$T]], #{{.+}}]
func.func @transpose_add(%x: tensor<8x4xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  // expected-remark @+1 {{fused 2 elementwise op(s)}}
  %r = linalg.add ins(%t, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// torch-mlir's leaky_relu: max(0, x) + min(0, x) * slope, with the zero a
// 0-d constant read through a map with no results and the slope an f64
// constant captured from above and truncated in the body. All four ops form
// one group; the zero is one input (both readers share it), the slope is
// cloned in. After fuser-simplify-group-bodies the zero is an immediate too.
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @torch_leaky_relu
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK: %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: fuser.pointwise ins(%[[Z]], %[[X]] : tensor<f32>, tensor<4x8xf32>) maps [#[[$S]], #{{.+}}]
// CHECK-NEXT: ^bb0(%[[ZA:.+]]: f32, %[[XA:.+]]: f32):
// CHECK: %[[SL:.+]] = arith.constant 1.000000e-02 : f64
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[SL]] : f64 to f32
// SIMPLIFY-LABEL: func.func @torch_leaky_relu
// SIMPLIFY-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// SIMPLIFY-NOT: dense<
// SIMPLIFY: fuser.pointwise ins(%[[X]] : tensor<4x8xf32>) maps [#{{.+}}] -> tensor<4x8xf32> {
// SIMPLIFY-NEXT: ^bb0(%[[XA:.+]]: f32):
// SIMPLIFY-NEXT: %[[SL:.+]] = arith.constant 1.000000e-02 : f64
// SIMPLIFY: arith.cmpf olt, %[[XA]], %{{.+}} : f32
// SIMPLIFY: arith.select
// SIMPLIFY-NOT: tensor<f32>
func.func @torch_leaky_relu(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 1.000000e-02 : f64
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cst_0, %arg0 : tensor<f32>, tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %5 = arith.cmpf ogt, %in, %in_1 : f32
    %6 = arith.select %5, %in, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cst_0, %arg0 : tensor<f32>, tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %5 = arith.cmpf olt, %in, %in_1 : f32
    %6 = arith.select %5, %in, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.truncf %cst : f64 to f32
    %6 = arith.mulf %in, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  // expected-remark @+1 {{fused 4 elementwise op(s) into one pointwise group}}
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1, %3 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %5 = arith.addf %in, %in_1 : f32
    linalg.yield %5 : f32
  } -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// A DAG whose shared value has three readers in the group is one group,
// and the shared value is computed once.
// CHECK-LABEL: func.func @shared_value_dag
// CHECK-SAME: (%[[X:.+]]: tensor<16xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[G:.+]] = fuser.pointwise ins(%[[X]] : tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.+]]: f32):
// CHECK-NEXT: %[[A:.+]] = math.exp %[[XV]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT: %[[C:.+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[C]], %[[A]] : f32
// CHECK-NEXT: fuser.yield %[[D]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[G]]
func.func @shared_value_dag(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %b = linalg.mul ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %c = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{fused 4 elementwise op(s) into one pointwise group}}
  %d = linalg.sub ins(%c, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %d : tensor<16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Keepdim and unsqueezed inputs read at 0 along size-1 dimensions (what
// torch-mlir emits for mean(keepdim=True) and for gamma of shape [1, C]):
// broadcasts, read as tensor.collapse_shape views without the unit
// dimensions. A dynamic kept dimension stays dynamic.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$NC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @unit_dim_broadcasts
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[M:.+]]: tensor<?x1xf32>, %[[G:.+]]: tensor<1x8xf32>, %[[X4:.+]]: tensor<2x3x5x7xf32>, %[[S4:.+]]: tensor<2x3x1x1xf32>)
// CHECK-DAG: %[[MV:.+]] = tensor.collapse_shape %[[M]] {{\[\[}}0, 1]] : tensor<?x1xf32> into tensor<?xf32>
// CHECK-DAG: %[[GV:.+]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK: fuser.pointwise ins(%[[X]], %[[MV]], %[[GV]] : tensor<?x8xf32>, tensor<?xf32>, tensor<8xf32>) maps [#[[$ID]], #[[$COL]], #[[$ROW]]]
// CHECK: %[[SV:.+]] = tensor.collapse_shape %[[S4]] {{\[\[}}0], [1, 2, 3]] : tensor<2x3x1x1xf32> into tensor<2x3xf32>
// CHECK: fuser.pointwise ins(%[[X4]], %[[SV]] : tensor<2x3x5x7xf32>, tensor<2x3xf32>) maps [#[[$ID4]], #[[$NC]]]
// CHECK-NOT: linalg.
func.func @unit_dim_broadcasts(%x: tensor<?x8xf32>, %mean: tensor<?x1xf32>, %g: tensor<1x8xf32>, %x4: tensor<2x3x5x7xf32>, %s4: tensor<2x3x1x1xf32>) -> (tensor<?x8xf32>, tensor<2x3x5x7xf32>) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x8xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s) into one pointwise group}}
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %g : tensor<?x8xf32>, tensor<?x1xf32>, tensor<1x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %m: f32, %gg: f32, %o: f32):
    %t = arith.subf %v, %m : f32
    %u = arith.mulf %t, %gg : f32
    linalg.yield %u : f32
  } -> tensor<?x8xf32>
  %e4 = tensor.empty() : tensor<2x3x5x7xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s) into one pointwise group}}
  %r4 = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x4, %s4 : tensor<2x3x5x7xf32>, tensor<2x3x1x1xf32>) outs(%e4 : tensor<2x3x5x7xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %t = arith.mulf %v, %m : f32
    linalg.yield %t : f32
  } -> tensor<2x3x5x7xf32>
  return %r, %r4 : tensor<?x8xf32>, tensor<2x3x5x7xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A producer of keepdim shape read at 0 along its size-1 dimension joins
// its consumer: the group reads the producer's own input through the
// composed broadcast, (d0, d1) -> (d0).
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @unit_dim_producer
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<4x1xf32>)
// CHECK: %[[VV:.+]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: fuser.pointwise ins(%[[VV]], %[[X]] : tensor<4xf32>, tensor<4x8xf32>) maps [#[[$COL]], #{{.+}}]
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK-NOT: linalg.
func.func @unit_dim_producer(%x: tensor<4x8xf32>, %var: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %e1 = tensor.empty() : tensor<4x1xf32>
  %sd = linalg.sqrt ins(%var : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{fused 2 elementwise op(s) into one pointwise group}}
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sd : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Near misses. Index 0 of a dimension of dynamic size is a slice, not a
// broadcast: the op stays unfused. A producer whose own input is dynamic
// where the consumer reads it at 0 forms its own group.
// CHECK-LABEL: func.func @unit_dim_near_misses
// CHECK: linalg.generic
// CHECK: %[[P:.+]] = fuser.pointwise ins(%{{.+}} : tensor<4x?xf32>)
// CHECK: %[[PV:.+]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: fuser.pointwise ins(%{{.+}}, %[[PV]] : tensor<4x8xf32>, tensor<4xf32>)
func.func @unit_dim_near_misses(%x: tensor<4x8xf32>, %row: tensor<?x8xf32>, %dyn: tensor<4x?xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{left unfused: it reads an input through a map that is not a broadcast or transpose; it is compiled by the generic fallback lowering}}
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %row : tensor<4x8xf32>, tensor<?x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %t = arith.addf %v, %c : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x1xf32>
  // expected-remark @+2 {{not fused into its consumers: they read it at 0 along a size-1 dimension, where one of its inputs has a dimension of dynamic size; it forms its own group}}
  // expected-remark @+1 {{fused 1 elementwise op(s) into one pointwise group}}
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dyn : tensor<4x?xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<4x1xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s) into one pointwise group}}
  %q = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %t = arith.mulf %v, %c : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %r, %q : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A splat constant of unsqueezed shape read at 0 along its size-1
// dimension is reshaped as a constant, so it still becomes an immediate.
// CHECK-LABEL: func.func @unit_dim_constant
// CHECK: %[[C:.+]] = arith.constant dense<2.500000e+00> : tensor<8xf32>
// CHECK: fuser.pointwise ins(%{{.+}}, %[[C]] : tensor<4x8xf32>, tensor<8xf32>)
// SIMPLIFY-LABEL: func.func @unit_dim_constant
// SIMPLIFY-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// SIMPLIFY: fuser.pointwise ins(%[[X]] : tensor<4x8xf32>) maps [#{{.+}}] -> tensor<4x8xf32> {
// SIMPLIFY-NEXT: ^bb0(%{{.+}}: f32):
// SIMPLIFY-NEXT: arith.constant 2.500000e+00 : f32
func.func @unit_dim_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant dense<2.5> : tensor<1x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{fused 1 elementwise op(s) into one pointwise group}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<4x8xf32>, tensor<1x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %k: f32, %o: f32):
    %t = arith.mulf %v, %k : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A convolution is said apart: the generic fallback compiles it, far slower
// than cuDNN, and fuser.torch leaves it to PyTorch.
// CHECK-LABEL: func.func @convolution_said_apart
// CHECK: linalg.conv_2d_nchw_fchw
func.func @convolution_said_apart(%x: tensor<2x4x9x9xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<2x8x7x7xf32>) -> tensor<2x8x7x7xf32> {
  // expected-remark @+1 {{left unfused: a convolution, for which fuser has no kernel yet; the generic fallback lowering compiles it, far slower than cuDNN (fuser.torch leaves convolutions to PyTorch)}}
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x4x9x9xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<2x8x7x7xf32>) -> tensor<2x8x7x7xf32>
  return %r : tensor<2x8x7x7xf32>
}

// -----

// A pooling op has a convolution's maps, but no filter: it is no
// convolution (it gets a reduction kernel).
// CHECK-LABEL: func.func @pooling_is_no_convolution
func.func @pooling_is_no_convolution(%x: tensor<2x4x9x9xf32>, %init: tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32> {
  %window = tensor.empty() : tensor<3x3xf32>
  // expected-remark @+1 {{left unfused: it has reduction iterators; it gets a reduction kernel where fuser-configure-kernels can configure one, else the generic fallback lowering}}
  %r = linalg.pooling_nchw_max ins(%x, %window : tensor<2x4x9x9xf32>, tensor<3x3xf32>) outs(%init : tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32>
  return %r : tensor<2x4x7x7xf32>
}
