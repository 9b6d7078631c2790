// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul{report=true}))" -verify-diagnostics | FileCheck %s
// Constant epilogue inputs become immediates in fuser-simplify-group-bodies,
// which runs after fusion.
// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul{report=true},fuser-simplify-group-bodies))" -verify-diagnostics | FileCheck %s --check-prefix=SIMPLIFY

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// W2 as torch-mlir emits it: leaky_relu((x @ W^T + b) * 2.0, 0.1), with W
// stored (out, in) and transposed by linalg.transpose. The transpose, the
// zero fill and the whole epilogue disappear into one fuser.matmul.
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @w2_linear_scale_leaky
// CHECK-SAME: (%[[X:.+]]: tensor<4x16xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.empty
// CHECK: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<8xf32>) epilogue_maps [#[[$ROW]]] : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[S]], %[[TWO]] : f32
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[P:.+]] = arith.cmpf ugt, %[[M]], %[[Z]] : f32
// CHECK-NEXT: %[[SL:.+]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: %[[N:.+]] = arith.mulf %[[M]], %[[SL]] : f32
// CHECK-NEXT: %[[Y:.+]] = arith.select %[[P]], %[[M]], %[[N]] : f32
// CHECK-NEXT: fuser.yield %[[Y]] : f32
// CHECK-NEXT: }
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @w2_linear_scale_leaky(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %slope = arith.constant 0.1 : f32
  %et = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 3 epilogue op(s)}}
  %mm = linalg.matmul ins(%x, %wt : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %n = arith.mulf %a, %slope : f32
    %r = arith.select %p, %a, %n : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A plain matmul without epilogue: the group yields the accumulator.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>)
// CHECK: %[[R:.+]] = fuser.matmul %[[A]], %[[B]] epilogue_maps [] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32):
// CHECK-NEXT: fuser.yield %[[ACC]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @plain(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

// MLIR 22's transposed-B matmul (there is no linalg.matmul_transpose_b op
// any more): B is read through (m, n, k) -> (n, k). The bias comes through a
// named linalg.broadcast and linalg.add: the broadcast is looked through, so
// the bias itself is the epilogue input.
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @indexing_maps_transpose_b
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[BIAS:.+]]: tensor<8xf32>)
// CHECK-NOT: linalg.broadcast
// CHECK: fuser.matmul %[[A]], %[[W]] transpose_b epilogue_inputs(%[[BIAS]] : tensor<8xf32>) epilogue_maps [#[[$ROW]]]
// CHECK: arith.addf
// CHECK-NOT: linalg.
func.func @indexing_maps_transpose_b(%a: tensor<4x16xf32>, %w: tensor<8x16xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : tensor<4x16xf32>, tensor<8x16xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %bb = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %r = linalg.add ins(%mm, %bb : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A transposed-B matmul whose B is itself a transpose: the two cancel.
// CHECK-LABEL: func.func @double_transpose
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>)
// CHECK: fuser.matmul %[[A]], %[[B]] epilogue_maps []
func.func @double_transpose(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<8x16xf32>
  %bt = linalg.transpose ins(%b : tensor<16x8xf32>) outs(%et : tensor<8x16xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : tensor<4x16xf32>, tensor<8x16xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A linalg.generic contraction, with loops in (m, k, n) order and the
// multiply's operands swapped, then a column-vector add and an exp.
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @generic_contraction
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[C:.+]]: tensor<4xf32>)
// CHECK: fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[C]] : tensor<4xf32>) epilogue_maps [#[[$COL]]]
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[CV:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[CV]]
// CHECK-NEXT: %[[E:.+]] = math.exp %[[S]]
// CHECK-NEXT: fuser.yield %[[E]]
// CHECK-NOT: linalg.
func.func @generic_contraction(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<4xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 2 epilogue op(s)}}
  %mm = linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>],
                        iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %c : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %cv: f32, %o: f32):
    %s = arith.addf %v, %cv : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %r = linalg.exp ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Dynamic M: the result keeps it; the size computations become dead.
// CHECK-LABEL: func.func @dynamic_m
// CHECK-SAME: (%[[X:.+]]: tensor<?x8192xf32>, %[[W:.+]]: tensor<256x8192xf32>, %[[B:.+]]: tensor<256xf32>)
// CHECK-NOT: tensor.dim
// CHECK-NOT: tensor.empty
// CHECK: %[[R:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<256xf32>) epilogue_maps [#{{.+}}] : tensor<?x8192xf32>, tensor<256x8192xf32> -> tensor<?x256xf32>
// CHECK: return %[[R]]
func.func @dynamic_m(%x: tensor<?x8192xf32>, %w: tensor<256x8192xf32>, %b: tensor<256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x8192xf32>
  %et = tensor.empty() : tensor<8192x256xf32>
  %wt = linalg.transpose ins(%w : tensor<256x8192xf32>) outs(%et : tensor<8192x256xf32>) permutation = [1, 0]
  %e = tensor.empty(%m) : tensor<?x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x256xf32>) -> tensor<?x256xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %mm = linalg.matmul ins(%x, %wt : tensor<?x8192xf32>, tensor<8192x256xf32>) outs(%z : tensor<?x256xf32>) -> tensor<?x256xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x256xf32>, tensor<256xf32>) outs(%e : tensor<?x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x256xf32>
  return %h : tensor<?x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Scalars: a fill of a constant is cloned in, a scalar argument captured by
// a body becomes a scalar epilogue input, and x + x reads the accumulator
// twice through one op.
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[S:.+]]: f32)
// CHECK: fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[S]] : f32) epilogue_maps [#[[$SCALAR]]]
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[SV:.+]]: f32):
// CHECK-NEXT: %[[H:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[ACC]], %[[H]]
// CHECK-NEXT: %[[T:.+]] = arith.mulf %[[M]], %[[SV]]
// CHECK-NEXT: %[[D:.+]] = arith.addf %[[T]], %[[T]]
// CHECK-NEXT: fuser.yield %[[D]]
func.func @scalars(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %s: f32) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 3 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %hf = linalg.fill ins(%half : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.mul ins(%mm, %hf : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %d = linalg.add ins(%t, %t : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A full M x N operand and a zero splat constant as the accumulator.
// CHECK-LABEL: func.func @full_operand_splat_init
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[R:.+]]: tensor<4x8xf32>)
// CHECK: fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[R]] : tensor<4x8xf32>) epilogue_maps [#{{.+}}]
// CHECK: arith.subf
func.func @full_operand_splat_init(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %res: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant dense<0.0> : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.sub ins(%res, %mm : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// bf16 forms a group too (the tensor-core kernel, fp32 accumulation).
// CHECK-LABEL: func.func @bf16
// CHECK-NOT: linalg.matmul
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps [] : tensor<4x16xbf16>, tensor<16x8xbf16> -> tensor<4x8xbf16>
func.func @bf16(%a: tensor<4x16xbf16>, %b: tensor<16x8xbf16>) -> tensor<4x8xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<4x8xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xbf16>, tensor<16x8xbf16>) outs(%z : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %mm : tensor<4x8xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Near misses
//===----------------------------------------------------------------------===//

// Accumulating into a non-zero fill or into an argument is not fused: adding
// the init afterwards would round differently.
// CHECK-LABEL: func.func @nonzero_init
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: fuser.matmul
func.func @nonzero_init(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = arith.constant 1.0 : f32
  %negzero = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: its accumulator does not start from a +0.0 fill (accumulating into a tensor is not supported)}}
  %m1 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: its accumulator does not start from a +0.0 fill}}
  %m2 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  %nz = linalg.fill ins(%negzero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: its accumulator does not start from a +0.0 fill}}
  %m3 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%nz : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m1, %m2, %m3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// torch.bmm: a batched fuser.matmul; the epilogue maps range over (b, m, n)
// and read a per-batch bias (b, n).
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:.+]]: tensor<2x4x16xf32>, %[[B:.+]]: tensor<2x16x8xf32>, %[[BIAS:.+]]: tensor<2x8xf32>)
// CHECK: %[[R:.+]] = fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[BIAS]] : tensor<2x8xf32>) epilogue_maps [#{{.+}}] : tensor<2x4x16xf32>, tensor<2x16x8xf32> -> tensor<2x4x8xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[R]]
func.func @batched(%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>, %bias: tensor<2x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%z : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, n)>, affine_map<(b, m, n) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<2x4x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

// -----

// A batched product of a transposing copy (x.transpose(1, 2) @ w): the copy
// is absorbed as transpose_a.
// CHECK-LABEL: func.func @batched_transposed_copy
// CHECK-SAME: (%[[X:.+]]: tensor<2x16x4xf32>, %[[W:.+]]: tensor<2x16x8xf32>)
// CHECK: fuser.matmul %[[X]], %[[W]] transpose_a epilogue_maps [] : tensor<2x16x4xf32>, tensor<2x16x8xf32> -> tensor<2x4x8xf32>
// CHECK-NOT: linalg.transpose
func.func @batched_transposed_copy(%x: tensor<2x16x4xf32>, %w: tensor<2x16x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<2x4x16xf32>
  %xt = linalg.transpose ins(%x : tensor<2x16x4xf32>) outs(%te : tensor<2x4x16xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<2x4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.batch_matmul ins(%xt, %w : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%z : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %mm : tensor<2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @element_types
// CHECK: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps [] : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: ^bb0(%{{.+}}: f32):
func.func @element_types(%a: tensor<4x16xi32>, %b: tensor<16x8xi32>, %h: tensor<4x16xf16>, %g: tensor<16x8xf16>) -> (tensor<4x8xi32>, tensor<4x8xf32>) {
  %zi = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  %ei = tensor.empty() : tensor<4x8xi32>
  %ef = tensor.empty() : tensor<4x8xf32>
  %fi = linalg.fill ins(%zi : i32) outs(%ei : tensor<4x8xi32>) -> tensor<4x8xi32>
  %ff = linalg.fill ins(%zf : f32) outs(%ef : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: element types i32 x i32 -> i32 are not supported: fuser.matmul takes f32, f16 or bf16 operands of one type, into a result of that type or (16-bit operands) f32}}
  %mi = linalg.matmul ins(%a, %b : tensor<4x16xi32>, tensor<16x8xi32>) outs(%fi : tensor<4x8xi32>) -> tensor<4x8xi32>
  // 16-bit operands summed in f32 (linalg.matmul extends them in its body):
  // the tensor cores' own arithmetic.
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mf = linalg.matmul ins(%h, %g : tensor<4x16xf16>, tensor<16x8xf16>) outs(%ff : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mi, %mf : tensor<4x8xi32>, tensor<4x8xf32>
}

// -----

// torch-mlir's addmm under autocast: both operands bf16 values extended to
// f32, an f32 product. The matmul reads the bf16 tensors (products of bf16
// values are exact in f32, and the sum stays f32), W through transpose_b.
// CHECK-LABEL: func.func @extended_bf16_operands
// CHECK-SAME: (%[[X:.+]]: tensor<4x16xbf16>, %[[W:.+]]: tensor<8x16xbf16>)
// CHECK-NOT: arith.extf
// CHECK: fuser.matmul %[[X]], %[[W]] transpose_b epilogue_maps [] : tensor<4x16xbf16>, tensor<8x16xbf16> -> tensor<4x8xf32>
func.func @extended_bf16_operands(%x: tensor<4x16xbf16>, %w: tensor<8x16xbf16>) -> tensor<4x8xf32> {
  %zf = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<4x16xf32>
  %xf = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xbf16>) outs(%ex : tensor<4x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<4x16xf32>
  %et = tensor.empty() : tensor<16x8xbf16>
  %wt = linalg.transpose ins(%w : tensor<8x16xbf16>) outs(%et : tensor<16x8xbf16>) permutation = [1, 0]
  %ew = tensor.empty() : tensor<16x8xf32>
  %wf = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%wt : tensor<16x8xbf16>) outs(%ew : tensor<16x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<16x8xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %ff = linalg.fill ins(%zf : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%xf, %wf : tensor<4x16xf32>, tensor<16x8xf32>) outs(%ff : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

// Only one operand extended (or the two from different types): the f32
// product stays f32, on the extended values.
// CHECK-LABEL: func.func @one_extended_operand
// CHECK: arith.extf
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps [] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
func.func @one_extended_operand(%x: tensor<4x16xbf16>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zf = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<4x16xf32>
  %xf = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xbf16>) outs(%ex : tensor<4x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<4x16xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %ff = linalg.fill ins(%zf : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%xf, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%ff : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

// A matmul reading A through (k, m) is transpose_a; so is a transposing
// copy of x (torch-mlir's x.T @ W), which is absorbed.
// CHECK-LABEL: func.func @transposed_a
// CHECK-SAME: (%[[A:.+]]: tensor<16x4xf32>, %[[B:.+]]: tensor<16x8xf32>)
// CHECK: fuser.matmul %[[A]], %[[B]] transpose_a epilogue_maps [] : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK: fuser.matmul %[[A]], %[[B]] transpose_a epilogue_maps [] : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NOT: linalg.transpose
func.func @transposed_a(%a: tensor<16x4xf32>, %b: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<16x4xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %te = tensor.empty() : tensor<4x16xf32>
  %at = linalg.transpose ins(%a : tensor<16x4xf32>) outs(%te : tensor<4x16xf32>) permutation = [1, 0]
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m2 = linalg.matmul ins(%at, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm, %m2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// bf16: only the f32 FFMA kernel reads an M-major A, so a bf16 x.T stays a
// copy of its own, and a bf16 matmul reading A through (k, m) is not fused.
// CHECK-LABEL: func.func @transposed_a_bf16
// CHECK: linalg.transpose
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_maps
// CHECK: linalg.matmul
func.func @transposed_a_bf16(%a: tensor<16x4xbf16>, %b: tensor<16x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<4x8xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %te = tensor.empty() : tensor<4x16xbf16>
  // expected-remark @+1 {{not absorbed into fuser.matmul: the left operand is a transposed copy (x.T) and the tensor-core kernels read K-major A only (16-bit types have no FFMA kernel)}}
  %at = linalg.transpose ins(%a : tensor<16x4xbf16>) outs(%te : tensor<4x16xbf16>) permutation = [1, 0]
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m1 = linalg.matmul ins(%at, %b : tensor<4x16xbf16>, tensor<16x8xbf16>) outs(%z : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  // expected-remark @+1 {{not fused into fuser.matmul: it reads A transposed (K x M), which only the f32 kernel does}}
  %m2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<16x4xbf16>, tensor<16x8xbf16>) outs(%z : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %m1, %m2 : tensor<4x8xbf16>, tensor<4x8xbf16>
}

// -----

// A generic contraction whose body is not a plain multiply-add.
// CHECK-LABEL: func.func @fma_with_cast
// CHECK: linalg.generic
// CHECK-NOT: fuser.matmul
func.func @fma_with_cast(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: its body is not a single multiply-add}}
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %xn = arith.negf %x : f32
    %p = arith.mulf %xn, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A value with two users inside the epilogue does not end it: the bias add,
// the exp of its result and the sum of both are one DAG, computed once.
// CHECK-LABEL: func.func @multi_use
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[BIAS:.+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[G:.+]] = fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[BIAS]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BV:.+]]: f32):
// CHECK-NEXT: %[[H:.+]] = arith.addf %[[ACC]], %[[BV]] : f32
// CHECK-NEXT: %[[X:.+]] = math.exp %[[H]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[H]], %[[X]] : f32
// CHECK-NEXT: fuser.yield %[[R]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[G]]
func.func @multi_use(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 3 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %x = linalg.exp ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.add ins(%h, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#s = affine_map<(d0, d1) -> ()>

// leaky_relu as torch-mlir emits it after Linear and * 2.0 (W2):
// max(0, y) + 0.1 * min(0, y), with y read by two ops, the zero a 0-d
// constant and the slope an f64 truncated in a body. All six ops join.
// CHECK-LABEL: func.func @torch_leaky_relu_dag
// CHECK-SAME: (%[[X:.+]]: tensor<?x16xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[G:.+]] = fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]], %{{.+}} : tensor<8xf32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BV:.+]]: f32, %[[ZV:.+]]: f32):
// CHECK-NEXT: %[[L:.+]] = arith.addf %[[ACC]], %[[BV]] : f32
// CHECK: %[[Y:.+]] = arith.mulf %[[L]], %{{.+}} : f32
// CHECK-NEXT: %[[P:.+]] = arith.cmpf ogt, %[[ZV]], %[[Y]] : f32
// CHECK-NEXT: %[[MAX:.+]] = arith.select %[[P]], %[[ZV]], %[[Y]] : f32
// CHECK-NEXT: %[[Q:.+]] = arith.cmpf olt, %[[ZV]], %[[Y]] : f32
// CHECK-NEXT: %[[MIN:.+]] = arith.select %[[Q]], %[[ZV]], %[[Y]] : f32
// CHECK: %[[N:.+]] = arith.mulf %[[MIN]], %{{.+}} : f32
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[MAX]], %[[N]] : f32
// CHECK-NEXT: fuser.yield %[[R]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[G]]
// SIMPLIFY-LABEL: func.func @torch_leaky_relu_dag
// SIMPLIFY: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_inputs(%{{.+}} : tensor<8xf32>)
func.func @torch_leaky_relu_dag(%arg0: tensor<?x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
  %cst_1 = arith.constant 1.000000e-01 : f64
  %cst_2 = arith.constant 2.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x8xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<8x16xf32>) outs(%0 : tensor<16x8xf32>) permutation = [1, 0]
  %dim = tensor.dim %arg0, %c0 : tensor<?x16xf32>
  %1 = tensor.empty(%dim) : tensor<?x8xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<?x8xf32>) -> tensor<?x8xf32>
  // expected-remark @+1 {{fused matmul with 6 epilogue op(s)}}
  %3 = linalg.matmul ins(%arg0, %transposed : tensor<?x16xf32>, tensor<16x8xf32>) outs(%2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %4 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<?x8xf32>, tensor<8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.addf %in, %in_3 : f32
    linalg.yield %10 : f32
  } -> tensor<?x8xf32>
  %5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.mulf %in, %cst_2 : f32
    linalg.yield %10 : f32
  } -> tensor<?x8xf32>
  %6 = linalg.generic {indexing_maps = [#s, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%cst_0, %5 : tensor<f32>, tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.cmpf ogt, %in, %in_3 : f32
    %11 = arith.select %10, %in, %in_3 : f32
    linalg.yield %11 : f32
  } -> tensor<?x8xf32>
  %7 = linalg.generic {indexing_maps = [#s, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%cst_0, %5 : tensor<f32>, tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.cmpf olt, %in, %in_3 : f32
    %11 = arith.select %10, %in, %in_3 : f32
    linalg.yield %11 : f32
  } -> tensor<?x8xf32>
  %8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %10 = arith.truncf %cst_1 : f64 to f32
    %11 = arith.mulf %in, %10 : f32
    linalg.yield %11 : f32
  } -> tensor<?x8xf32>
  %9 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%6, %8 : tensor<?x8xf32>, tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %10 = arith.addf %in, %in_3 : f32
    linalg.yield %10 : f32
  } -> tensor<?x8xf32>
  return %9 : tensor<?x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Only a value needed outside the group ends it: the biased value is also
// returned, so it is the group's result and its exp stays out (for
// fuser-fuse-pointwise).
// CHECK-LABEL: func.func @needed_outside
// CHECK: %[[G:.+]] = fuser.matmul
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BV:.+]]: f32):
// CHECK-NEXT: %[[H:.+]] = arith.addf %[[ACC]], %[[BV]] : f32
// CHECK-NEXT: fuser.yield %[[H]] : f32
// CHECK: %[[X:.+]] = linalg.generic {{.+}} ins(%[[G]] : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: return %[[G]], %[[X]]
func.func @needed_outside(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %bias: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{matmul epilogue ends here: this value is also needed outside the group, so it is the group's result (1 elementwise op(s) after it stay out)}}
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %x = linalg.exp ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %h, %x : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Two values needed outside: the scaled one and the final sum are both
// returned, and the sum also reads the biased value; the group cannot have
// two results, so it ends at the first value needed outside that keeps
// every other member's value inside: the biased one.
// CHECK-LABEL: func.func @two_needed_outside
// CHECK: %[[G:.+]] = fuser.matmul
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BV:.+]]: f32):
// CHECK-NEXT: %[[H:.+]] = arith.addf %[[ACC]], %[[BV]] : f32
// CHECK-NEXT: fuser.yield %[[H]] : f32
// CHECK: %[[S:.+]] = linalg.generic {{.+}} ins(%[[G]] : tensor<4x8xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[S]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: return %[[S]], %[[R]]
func.func @two_needed_outside(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %bias: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{matmul epilogue ends here: this value is also needed outside the group, so it is the group's result (2 elementwise op(s) after it stay out)}}
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %r = linalg.add ins(%s, %h : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %r : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An op that reads a group value and a value computed from it outside the
// group (here through a transposed read) cannot join: the group's value is
// needed by the transpose, so the group ends at the accumulator.
// CHECK-LABEL: func.func @reads_outside_value
// CHECK: %[[G:.+]] = fuser.matmul
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32):
// CHECK-NEXT: fuser.yield %[[ACC]] : f32
// CHECK: %[[T:.+]] = linalg.generic {{.+}} ins(%[[G]] : tensor<8x8xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[G]], %[[T]] : tensor<8x8xf32>, tensor<8x8xf32>)
func.func @reads_outside_value(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it reads the matmul's value through a broadcast or transpose}}
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it also reads a value computed from the matmul's value outside the epilogue}}
  %r = linalg.add ins(%mm, %t : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Keepdim and unsqueezed operands read at 0 along their size-1 dimensions
// are broadcasts: a 1 x N row (a bias of shape [1, N]), an M x 1 column
// (a per-row statistic with keepdim) and a 1 x 1 scalar, each read as a
// tensor.collapse_shape view without the unit dimensions; the row also
// through a generic broadcast copy, which is looked through.
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @unit_dim_broadcasts
// CHECK-SAME: (%[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>, %[[R:.+]]: tensor<1x8xf32>, %[[C:.+]]: tensor<4x1xf32>, %[[S:.+]]: tensor<1x1xf32>)
// CHECK-DAG: %[[RV:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK-DAG: %[[CV:.+]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK-DAG: %[[SV:.+]] = tensor.collapse_shape %[[S]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: fuser.matmul %[[A]], %[[B]] epilogue_inputs(%[[RV]], %[[CV]], %[[SV]] : tensor<8xf32>, tensor<4xf32>, tensor<f32>) epilogue_maps [#[[$ROW]], #[[$COL]], #[[$S]]]
// CHECK-NOT: linalg.
func.func @unit_dim_broadcasts(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %row: tensor<1x8xf32>, %col: tensor<4x1xf32>, %s: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 2 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %rb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%row : tensor<1x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %h = linalg.add ins(%mm, %rb : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, 0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %col, %s : tensor<4x8xf32>, tensor<4x1xf32>, tensor<1x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %k: f32, %o: f32):
    %m = arith.mulf %v, %c : f32
    %t = arith.addf %m, %k : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Reading index 0 of a dimension of dynamic size is a slice, not a
// broadcast: that consumer stays out (and compiles unfused).
// CHECK-LABEL: func.func @dynamic_dim_read_at_zero
// CHECK: %[[G:.+]] = fuser.matmul
// CHECK: linalg.generic {{.+}} ins(%[[G]], %{{.+}} : tensor<4x8xf32>, tensor<?x8xf32>)
func.func @dynamic_dim_read_at_zero(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %row: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it reads an input through a map that is not a broadcast or transpose}}
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %row : tensor<4x8xf32>, tensor<?x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %t = arith.addf %v, %c : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Consumers that cannot join: a reduction, a transposed read, a cast to
// another element type. Each matmul fuses without them.
// CHECK-LABEL: func.func @epilogue_stops
// CHECK: %[[M1:.+]] = fuser.matmul
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[M1]]
// CHECK: %[[M2:.+]] = fuser.matmul
// CHECK: linalg.generic {{.+}} ins(%[[M2]]
// CHECK: %[[M3:.+]] = fuser.matmul
// CHECK: linalg.generic {{.+}} ins(%[[M3]] : tensor<8x8xf32>) outs(%{{.+}} : tensor<8x8xf16>)
func.func @epilogue_stops(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %acc: tensor<8xf32>) -> (tensor<8xf32>, tensor<8x8xf32>, tensor<8x8xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %eh = tensor.empty() : tensor<8x8xf16>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it has reduction iterators}}
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%m1 : tensor<8x8xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m2 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it reads the matmul's value through a broadcast or transpose}}
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m3 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: its result type differs from the matmul's}}
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m3 : tensor<8x8xf32>) outs(%eh : tensor<8x8xf16>) {
  ^bb0(%v: f32, %o: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<8x8xf16>
  return %sum, %t, %c : tensor<8xf32>, tensor<8x8xf32>, tensor<8x8xf16>
}

// -----

// More contraction shapes fuser.matmul does not take.
// CHECK-LABEL: func.func @other_contractions
// CHECK-NOT: fuser.matmul
func.func @other_contractions(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %a3: tensor<4x2x8xf32>, %b3: tensor<2x8x8xf32>,
                              %ma: memref<4x16xf32>, %mb: memref<16x8xf32>, %mc: memref<4x8xf32>) -> (tensor<8x4xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<8x4xf32>
  %zt = linalg.fill ins(%zero : f32) outs(%et : tensor<8x4xf32>) -> tensor<8x4xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: it writes its result transposed (N x M)}}
  %t = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%zt : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: it contracts more than one M, N or K dimension}}
  %k2 = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (k1, k2, n)>, affine_map<(m, n, k1, k2) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a3, %b3 : tensor<4x2x8xf32>, tensor<2x8x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: it operates on buffers, not tensors}}
  linalg.matmul ins(%ma, %mb : memref<4x16xf32>, memref<16x8xf32>) outs(%mc : memref<4x8xf32>)
  return %t, %k2 : tensor<8x4xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Epilogue candidates that are not elementwise enough: two results, and a
// body that reads linalg.index (the same rules as fuser-fuse-pointwise).
// CHECK-LABEL: func.func @epilogue_not_elementwise
// CHECK: %[[M1:.+]] = fuser.matmul
// CHECK: linalg.generic {{.+}} ins(%[[M1]]
// CHECK: %[[M2:.+]] = fuser.matmul
// CHECK: linalg.generic {{.+}} ins(%[[M2]]
func.func @epilogue_not_elementwise(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m1 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it does not have exactly one result}}
  %two:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<4x8xf32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%v: f32, %o1: f32, %o2: f32):
    %n = arith.negf %v : f32
    linalg.yield %v, %n : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m2 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: its body uses linalg.index}}
  %idx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %r = arith.addf %v, %f : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %two#0, %two#1, %idx : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// nn.Linear then hardtanh(-2, 3) as torch-mlir emits it: the bounds are 0-d
// constants read through maps with no results, and an f64 scale is captured
// from above and truncated in a body. The bounds become epilogue inputs
// looked through as they are (one per map), the scale is cloned in; after
// fuser-simplify-group-bodies only the bias is left as an input.
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @torch_linear_hardtanh
// CHECK-SAME: (%[[X:.+]]: tensor<?x16xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-DAG: %[[HI:.+]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-DAG: %[[LO:.+]] = arith.constant dense<-2.000000e+00> : tensor<f32>
// CHECK: fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]], %[[LO]], %[[HI]] : tensor<8xf32>, tensor<f32>, tensor<f32>) epilogue_maps [#[[$ROW]], #[[$S]], #[[$S]]]
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BA:.+]]: f32, %[[LA:.+]]: f32, %[[HA:.+]]: f32):
// CHECK: arith.constant 5.000000e-01 : f64
// SIMPLIFY-LABEL: func.func @torch_linear_hardtanh
// SIMPLIFY-SAME: (%[[X:.+]]: tensor<?x16xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<8xf32>)
// SIMPLIFY-NOT: dense<
// SIMPLIFY: fuser.matmul %[[X]], %[[W]] transpose_b epilogue_inputs(%[[B]] : tensor<8xf32>) epilogue_maps [#{{.+}}]
// SIMPLIFY-NEXT: ^bb0(%[[ACC:.+]]: f32, %[[BA:.+]]: f32):
// SIMPLIFY-NEXT: %[[LO:.+]] = arith.constant -2.000000e+00 : f32
// SIMPLIFY-NEXT: %[[HI:.+]] = arith.constant 3.000000e+00 : f32
// SIMPLIFY-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[BA]] : f32
// SIMPLIFY-NEXT: %[[P:.+]] = arith.cmpf ogt, %[[S]], %[[LO]] : f32
// SIMPLIFY-NEXT: %[[L:.+]] = arith.select %[[P]], %[[S]], %[[LO]] : f32
// SIMPLIFY-NEXT: %[[Q:.+]] = arith.cmpf olt, %[[HI]], %[[L]] : f32
// SIMPLIFY-NEXT: %[[H:.+]] = arith.select %[[Q]], %[[HI]], %[[L]] : f32
// SIMPLIFY-NEXT: %[[C:.+]] = arith.constant 5.000000e-01 : f64
// SIMPLIFY-NEXT: %[[T:.+]] = arith.truncf %[[C]] : f64 to f32
// SIMPLIFY-NEXT: %[[Y:.+]] = arith.mulf %[[H]], %[[T]] : f32
// SIMPLIFY-NEXT: fuser.yield %[[Y]]
// SIMPLIFY-NOT: dense<
func.func @torch_linear_hardtanh(%arg0: tensor<?x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %hi = arith.constant dense<3.000000e+00> : tensor<f32>
  %lo = arith.constant dense<-2.000000e+00> : tensor<f32>
  %half = arith.constant 5.000000e-01 : f64
  %0 = tensor.empty() : tensor<16x8xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<8x16xf32>) outs(%0 : tensor<16x8xf32>) permutation = [1, 0]
  %dim = tensor.dim %arg0, %c0 : tensor<?x16xf32>
  %1 = tensor.empty(%dim) : tensor<?x8xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<?x8xf32>) -> tensor<?x8xf32>
  // expected-remark @+1 {{fused matmul with 4 epilogue op(s)}}
  %3 = linalg.matmul ins(%arg0, %transposed : tensor<?x16xf32>, tensor<16x8xf32>) outs(%2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<?x8xf32>, tensor<8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.addf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<?x8xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4, %lo : tensor<?x8xf32>, tensor<f32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.cmpf ogt, %in, %in_1 : f32
    %9 = arith.select %8, %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<?x8xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%hi, %5 : tensor<f32>, tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.cmpf olt, %in, %in_1 : f32
    %9 = arith.select %8, %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<?x8xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.truncf %half : f64 to f32
    %9 = arith.mulf %in, %8 : f32
    linalg.yield %9 : f32
  } -> tensor<?x8xf32>
  return %7 : tensor<?x8xf32>
}

// -----

// An i1 mask read by the epilogue (torch.triu after a matmul: an
// arith.select on a mask tensor) that is neither a constant nor computed
// elementwise from f32 tensors: the matmul kernels read epilogue inputs of
// the product's type only, so the select stays out, for pointwise fusion,
// with a remark.
// CHECK-LABEL: func.func @mask_input
// SIMPLIFY-LABEL: func.func @mask_input
// CHECK: %[[MM:.+]] = fuser.matmul %{{.+}}, %{{.+}} :
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %[[MM]] : tensor<8x8xi1>, tensor<8x8xf32>)
// CHECK: arith.select
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_input(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %mask: tensor<8x8xi1>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the matmul epilogue: it reads a tensor of i1 elements, and the matmul kernels read epilogue inputs of the matmul's type (f32); it is left for pointwise fusion}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %m : tensor<8x8xi1>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%k: i1, %v: f32, %o: f32):
    %s = arith.select %k, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Values of another element type inside the epilogue are fine (mish's
// softplus threshold: an i1 tensor `y > 20` that a select then reads); the
// group's result keeps the matmul's type.
// CHECK-LABEL: func.func @mask_inside
// CHECK: %[[MM:.+]] = fuser.matmul %{{.+}}, %{{.+}} :
// CHECK: ^bb0(%[[ACC:.+]]: f32):
// CHECK: %[[P:.+]] = arith.cmpf ogt, %[[ACC]], %{{.+}} : f32
// CHECK: %[[E:.+]] = math.exp %[[ACC]] : f32
// CHECK: %[[S:.+]] = arith.select %[[P]], %[[ACC]], %[[E]] : f32
// CHECK: fuser.yield %[[S]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_inside(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %twenty = arith.constant 20.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %eb = tensor.empty() : tensor<8x8xi1>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 3 epilogue op(s)}}
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x8xf32>) outs(%eb : tensor<8x8xi1>) {
  ^bb0(%v: f32, %o: i1):
    %c = arith.cmpf ogt, %v, %twenty : f32
    linalg.yield %c : i1
  } -> tensor<8x8xi1>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %x = math.exp %v : f32
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %m, %x : tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%k: i1, %v: f32, %w: f32, %o: f32):
    %s = arith.select %k, %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A mask computed elementwise from f32 tensors (a causal mask from row and
// column positions, too large to evaluate at compile time): the epilogue
// computes it from the position vectors, with the difference only the mask
// reads.
// CHECK-LABEL: func.func @computed_mask
// CHECK-SAME: (%{{.+}}: tensor<8x16xf32>, %{{.+}}: tensor<16x8xf32>, %[[R:.+]]: tensor<8xf32>, %[[C:.+]]: tensor<8xf32>)
// CHECK: %[[MM:.+]] = fuser.matmul %{{.+}}, %{{.+}} epilogue_inputs(%[[C]], %[[R]] : tensor<8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[ACC:.+]]: f32, %[[J:.+]]: f32, %[[I:.+]]: f32):
// CHECK: %[[D:.+]] = arith.subf %[[J]], %[[I]] : f32
// CHECK: %[[M:.+]] = arith.cmpf oge, %[[D]], %{{.+}} : f32
// CHECK: %[[S:.+]] = arith.select %[[M]], %[[ACC]], %{{.+}} : f32
// CHECK: fuser.yield %[[S]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @computed_mask(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %rows: tensor<8xf32>, %cols: tensor<8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %eb = tensor.empty() : tensor<8x8xi1>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols, %rows : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%j: f32, %i: f32, %o: f32):
    %s = arith.subf %j, %i : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<8x8xf32>) outs(%eb : tensor<8x8xi1>) {
  ^bb0(%v: f32, %o: i1):
    %k = arith.cmpf oge, %v, %zero : f32
    linalg.yield %k : i1
  } -> tensor<8x8xi1>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %m : tensor<8x8xi1>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%k: i1, %v: f32, %o: f32):
    %s = arith.select %k, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Constants of another type that f32 holds exactly (index vectors, a mask
// evaluated at compile time) are read as f32 constants and converted back
// in the body: every epilogue input has the product's type.
// CHECK-LABEL: func.func @constant_other_types
// CHECK-DAG: %[[CI:.+]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// CHECK-DAG: %[[CB:.+]] = arith.constant dense<[1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00]> : tensor<8xf32>
// CHECK: fuser.matmul %{{.+}}, %{{.+}} epilogue_inputs(%[[CI]], %[[CB]] : tensor<8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[ACC:.+]]: f32, %[[I:.+]]: f32, %[[B:.+]]: f32):
// CHECK: %[[II:.+]] = arith.fptosi %[[I]] : f32 to i64
// CHECK: %[[BB:.+]] = arith.cmpf une, %[[B]], %{{.+}} : f32
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @constant_other_types(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %idx = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %bits = arith.constant dense<[true, false, true, false, true, false, true, false]> : tensor<8xi1>
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{fused matmul with 1 epilogue op(s)}}
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %idx, %bits : tensor<8x8xf32>, tensor<8xi64>, tensor<8xi1>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %i: i64, %k: i1, %o: f32):
    %f = arith.sitofp %i : i64 to f32
    %s = arith.addf %v, %f : f32
    %t = arith.select %k, %s, %v : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A batched contraction reading B with the batch in the middle, (k, b, n):
// fuser.matmul takes the batch first, so it is left alone.
// CHECK-LABEL: func.func @batch_not_first
// CHECK: linalg.generic
// CHECK-NOT: fuser.matmul
func.func @batch_not_first(%a: tensor<4x16x8xf32>, %b: tensor<8x4x32xf32>) -> tensor<4x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: it reads its operands through maps other than (batch, row, column) with the batch first}}
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, b, n)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x16x8xf32>, tensor<8x4x32xf32>) outs(%z : tensor<4x16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16x32xf32>
  return %r : tensor<4x16x32xf32>
}

// -----

// x.T @ W.T (B K-major): the copy of x stays, so that the f32 split-precision
// tensor-core kernel reads K-major A and B.
// CHECK-LABEL: func.func @transposed_a_k_major_b
// CHECK: linalg.transpose
// CHECK: fuser.matmul %{{.+}}, %{{.+}} transpose_b epilogue_maps
func.func @transposed_a_k_major_b(%x: tensor<16x4xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<4x16xf32>
  // expected-remark @+1 {{not absorbed into fuser.matmul: the left operand is a transposed copy (x.T) and the tensor-core kernels read K-major A only (B is K-major, so the f32 split-precision kernel applies after the copy); the copy is a kernel of its own}}
  %xt = linalg.transpose ins(%x : tensor<16x4xf32>) outs(%te : tensor<4x16xf32>) permutation = [1, 0]
  %we = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x16xf32>) outs(%we : tensor<16x8xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{fused matmul with 0 epilogue op(s)}}
  %mm = linalg.matmul ins(%xt, %wt : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// -----

// nn.Linear(K, 1): a matrix-vector product. It is a sum over K per row for
// the reduction kernel: the matrix read as stored, the weight's transposing
// copy looked through and the weight read as a 1-D view, a +0.0 fill of
// the outputs; the bias stays an elementwise op after it.
// CHECK-LABEL: func.func @linear_to_one
// CHECK-SAME: (%[[X:.+]]: tensor<?x4096xf32>, %[[W:.+]]: tensor<1x4096xf32>
// CHECK-NOT: fuser.matmul
// CHECK-NOT: linalg.transpose
// CHECK: %[[V:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1]] : tensor<1x4096xf32> into tensor<4096xf32>
// CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?xf32>)
// (The operand shapes fix the maps: the verifier checks them against the
// loops (outputs, K).)
// CHECK: %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[V]] : tensor<?x4096xf32>, tensor<4096xf32>) outs(%[[F]] : tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [%{{.+}}, 1] : tensor<?xf32> into tensor<?x1xf32>
func.func @linear_to_one(%x: tensor<?x4096xf32>, %w: tensor<1x4096xf32>, %b: tensor<1xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %zf = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4096xf32>
  %et = tensor.empty() : tensor<4096x1xf32>
  %wt = linalg.transpose ins(%w : tensor<1x4096xf32>) outs(%et : tensor<4096x1xf32>) permutation = [1, 0]
  %eo = tensor.empty(%n) : tensor<?x1xf32>
  %ff = linalg.fill ins(%zf : f32) outs(%eo : tensor<?x1xf32>) -> tensor<?x1xf32>
  // expected-remark @+1 {{not fused into fuser.matmul: it is a matrix-vector product (M or N of 1): a sum over K per output, memory-bound on the matrix; the reduction kernel streams the matrix with every SM busy, where a GEMM's tiles of 8 or more columns leave most of them idle}}
  %mm = linalg.matmul ins(%x, %wt : tensor<?x4096xf32>, tensor<4096x1xf32>) outs(%ff : tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<?x1xf32>, tensor<1xf32>) outs(%eo : tensor<?x1xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

// -----

// x^T A (M of 1): a sum over K per column of A, read as stored (k, n).
// bf16 operands summed into f32 extend each term.
// CHECK-LABEL: func.func @vector_times_matrix
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<512x256xbf16>, tensor<512xbf16>) outs(%{{.+}} : tensor<256xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: bf16, %[[B:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[EA:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT: %[[EB:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: arith.mulf %[[EA]], %[[EB]] : f32
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [1, 256] : tensor<256xf32> into tensor<1x256xf32>
func.func @vector_times_matrix(%v: tensor<1x512xbf16>, %a: tensor<512x256xbf16>) -> tensor<1x256xf32> {
  %zf = arith.constant 0.0 : f32
  %eo = tensor.empty() : tensor<1x256xf32>
  %ff = linalg.fill ins(%zf : f32) outs(%eo : tensor<1x256xf32>) -> tensor<1x256xf32>
  // expected-remark @+1 {{it is a matrix-vector product}}
  %mm = linalg.matmul ins(%v, %a : tensor<1x512xbf16>, tensor<512x256xbf16>) outs(%ff : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %mm : tensor<1x256xf32>
}
