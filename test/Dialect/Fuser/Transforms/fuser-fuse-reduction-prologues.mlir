// RUN: fuser-opt %s -split-input-file --fuser-fuse-reduction-prologues="report=true" -verify-diagnostics | FileCheck %s

// A transposed copy read only by a column sum: the sum reads the source
// through the transposed map and the copy is gone.
// CHECK-LABEL: func.func @transpose_then_sum
// CHECK-SAME: (%[[G:.+]]: tensor<1024x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[T:.+]], #{{.+}}], iterator_types = ["parallel", "reduction"]} ins(%[[G]] : tensor<1024x64xf32>)
// CHECK-NOT: linalg.transpose
func.func @transpose_then_sum(%g: tensor<1024x64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %t = linalg.transpose ins(%g : tensor<1024x64xf32>) outs(%e : tensor<64x1024xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{fused 1 elementwise producer(s) into this reduction}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<64x1024xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A widening to f64 that another op also reads: cheap to recompute, so the
// sum fuses its own copy and the original stays for the other user.
// CHECK-LABEL: func.func @shared_widening
// CHECK: %[[W:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x16xf32>)
// CHECK:   arith.extf
// CHECK:   arith.addf
// CHECK: return %{{.+}}, %[[W]]
func.func @shared_widening(%x: tensor<8x16xf32>) -> (tensor<8xf64>, tensor<8x16xf64>) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<8x16xf64>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf64>) {
  ^bb0(%a: f32, %b: f64):
    %d = arith.extf %a : f32 to f64
    linalg.yield %d : f64
  } -> tensor<8x16xf64>
  %o = tensor.empty() : tensor<8xf64>
  %init = linalg.fill ins(%zero : f64) outs(%o : tensor<8xf64>) -> tensor<8xf64>
  // expected-remark @+1 {{fused 1 elementwise producer(s) into this reduction}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%w : tensor<8x16xf64>) outs(%init : tensor<8xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %a, %acc : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  return %s, %w : tensor<8xf64>, tensor<8x16xf64>
}

// -----

// A product of two full-size tensors that another op also reads: reading
// both again would cost more than reading the product, so it stays.
// CHECK-LABEL: func.func @shared_product
// CHECK: %[[P:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<8x16xf32>)
func.func @shared_product(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %o = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %p : tensor<8xf32>, tensor<8x16xf32>
}

// -----

// Not fused: an i1 mask (pointwise groups load it as bytes; a reduction
// kernel does not) and a producer read through a broadcast over the
// reduction loop (it would run once per reduced element).
// CHECK-LABEL: func.func @kept_producers
// CHECK: %[[MASKED:.+]] = linalg.generic {{.*}}ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<8x16xi1>)
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}}ins(%arg2 : tensor<8xf32>)
// CHECK: linalg.generic {{.*}}ins(%[[MASKED]] : tensor<8x16xf32>)
// CHECK: linalg.generic {{.*}}ins(%[[EXP]], %arg0 : tensor<8xf32>, tensor<8x16xf32>)
func.func @kept_producers(%x: tensor<8x16xf32>, %m: tensor<8x16xi1>, %v: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %masked = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<8x16xf32>, tensor<8x16xi1>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %k: i1, %o: f32):
    %s = arith.select %k, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %ev = tensor.empty() : tensor<8xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%v : tensor<8xf32>) outs(%ev : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ev : tensor<8xf32>) -> tensor<8xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                          iterator_types = ["parallel", "reduction"]}
      ins(%masked : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %ec = tensor.empty() : tensor<16xf32>
  %initc = linalg.fill ins(%zero : f32) outs(%ec : tensor<16xf32>) -> tensor<16xf32>
  %cols = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                          iterator_types = ["parallel", "reduction"]}
      ins(%exp, %x : tensor<8xf32>, tensor<8x16xf32>) outs(%initc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %rows, %cols : tensor<8xf32>, tensor<16xf32>
}

// -----

// A Huber loss's sum as torch-mlir lowers it: the select reads an i1 mask
// (|x - y| < 1), which the reduction absorbs with its producer; the
// difference x - y, read by three ops, is one input after deduplication
// and fuses too. The sum reads x and y only.
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @huber_mask
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf32>, %[[Y:.+]]: tensor<8x16xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[X]], %[[Y]] : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @huber_mask(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %eb = tensor.empty() : tensor<8x16xi1>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %abs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.absf %a : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%abs : tensor<8x16xf32>) outs(%eb : tensor<8x16xi1>) {
  ^bb0(%a: f32, %o: i1):
    %s = arith.cmpf olt, %a, %one : f32
    linalg.yield %s : i1
  } -> tensor<8x16xi1>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%abs : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    %h = arith.mulf %s, %half : f32
    linalg.yield %h : f32
  } -> tensor<8x16xf32>
  %lin = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%abs : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.subf %a, %half : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %sel = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %sq, %lin : tensor<8x16xi1>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%m: i1, %a: f32, %b: f32, %o: f32):
    %s = arith.select %m, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %es = tensor.empty() : tensor<f32>
  %fill = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
  // (|x - y| fuses once per reader: a cheap copy for each.)
  // expected-remark @+1 {{fused 8 elementwise producer(s) into this reduction}}
  %sum = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%sel : tensor<8x16xf32>) outs(%fill : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %sum : tensor<f32>
}

// -----

// A loss's sum and count over the targets that are not ignore_index, as
// torch-mlir lowers nll_loss: the mask target != 7 has three readers. Each
// reduction recomputes it from the targets (it reads no i1 tensor); the
// select of the gathered index keeps the original. The picked values come
// as 32 x 1 and are read through (d0) -> (d0, 0): each element once, so
// their negation fuses too.
// CHECK-LABEL: func.func @loss_mask_and_unit_rows
// CHECK-SAME: (%[[T:.+]]: tensor<32xi64>, %[[P:.+]]: tensor<32x1xf32>)
// CHECK: %[[MASK:.+]] = linalg.generic {{.+}} ins(%[[T]] : tensor<32xi64>)
// CHECK: linalg.generic {{.+}} ins(%[[MASK]], %[[T]]
// CHECK: linalg.generic {{.+}} ins(%[[T]] : tensor<32xi64>)
// CHECK: arith.cmpi ne
// CHECK: arith.extui
// CHECK: linalg.generic {{.+}} ins(%[[T]], %[[P]] : tensor<32xi64>, tensor<32x1xf32>)
// CHECK: arith.negf
// CHECK: arith.cmpi ne
// CHECK: arith.select
func.func @loss_mask_and_unit_rows(%t: tensor<32xi64>, %p: tensor<32x1xf32>)
    -> (tensor<32xi64>, tensor<i64>, tensor<f32>) {
  %c7 = arith.constant 7 : i64
  %c0 = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<32xi1>
  %ei = tensor.empty() : tensor<32xi64>
  %ef = tensor.empty() : tensor<32x1xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%t : tensor<32xi64>) outs(%eb : tensor<32xi1>) {
  ^bb0(%a: i64, %o: i1):
    %s = arith.cmpi ne, %a, %c7 : i64
    linalg.yield %s : i1
  } -> tensor<32xi1>
  %idx = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%mask, %t : tensor<32xi1>, tensor<32xi64>) outs(%ei : tensor<32xi64>) {
  ^bb0(%m: i1, %a: i64, %o: i64):
    %s = arith.select %m, %a, %c0 : i64
    linalg.yield %s : i64
  } -> tensor<32xi64>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<32x1xf32>) outs(%ef : tensor<32x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<32x1xf32>
  %esi = tensor.empty() : tensor<i64>
  %ci = linalg.fill ins(%c0 : i64) outs(%esi : tensor<i64>) -> tensor<i64>
  // expected-remark @+1 {{fused 1 elementwise producer(s) into this reduction}}
  %count = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                           iterator_types = ["reduction"]}
      ins(%mask : tensor<32xi1>) outs(%ci : tensor<i64>) {
  ^bb0(%m: i1, %acc: i64):
    %w = arith.extui %m : i1 to i64
    %s = arith.addi %w, %acc : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %esf = tensor.empty() : tensor<f32>
  %cf = linalg.fill ins(%zero : f32) outs(%esf : tensor<f32>) -> tensor<f32>
  // expected-remark @+1 {{fused 2 elementwise producer(s) into this reduction}}
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%mask, %neg : tensor<32xi1>, tensor<32x1xf32>) outs(%cf : tensor<f32>) {
  ^bb0(%m: i1, %a: f32, %acc: f32):
    %v = arith.select %m, %a, %zero : f32
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %idx, %count, %sum : tensor<32xi64>, tensor<i64>, tensor<f32>
}
