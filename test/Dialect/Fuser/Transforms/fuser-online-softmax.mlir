// RUN: fuser-opt %s -split-input-file --fuser-online-softmax="report=true" -verify-diagnostics | FileCheck %s

// torch.softmax(x, dim=-1) as torch-mlir lowers it, after reduction
// prologue fusion: the max over rows (into -inf), then the sum of
// exp(x - max) (into 0, keepdim: 64x1, reading the max through an
// expand_shape). Both become one reduction marked fuser.online_softmax,
// the max's output and a new zero fill its inits; the sum's users read
// result 1 reshaped to 64x1.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<64x1000xf32>)
// CHECK: %[[MINIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<64xf32>)
// CHECK: %[[SINIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<64xf32>)
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<64x1000xf32>) outs(%[[MINIT]], %[[SINIT]] : tensor<64xf32>, tensor<64xf32>) attrs = {fuser.online_softmax}
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[M:.+]]: f32, %[[S:.+]]: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[IN]], %[[M]]
// CHECK-NEXT: %[[A:.+]] = math.absf %[[D]]
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[A]]
// CHECK-NEXT: %[[E0:.+]] = math.exp %[[N]]
// CHECK: %[[UNO:.+]] = arith.cmpf uno, %[[D]], %[[D]]
// CHECK: %[[E:.+]] = arith.select %[[UNO]], %{{.+}}, %[[E0]]
// CHECK: %[[INF:.+]] = arith.cmpf oeq, %[[IN]], %{{.+}}
// CHECK: %[[W:.+]] = arith.select %[[INF]], %{{.+}}, %{{.+}}
// CHECK: %[[GROWS:.+]] = arith.cmpf ogt, %[[IN]], %[[M]]
// CHECK: %[[SE:.+]] = arith.mulf %[[S]], %[[E]]
// CHECK: %[[UP:.+]] = arith.addf %[[SE]], %[[W]]
// CHECK: %[[WE:.+]] = arith.mulf %[[W]], %[[E]]
// CHECK: %[[KEEP:.+]] = arith.addf %[[S]], %[[WE]]
// CHECK: %[[S2:.+]] = arith.select %[[GROWS]], %[[UP]], %[[KEEP]]
// CHECK: %[[M2:.+]] = arith.maximumf %[[M]], %[[IN]]
// CHECK: %[[MNAN:.+]] = arith.cmpf uno, %[[M2]], %[[M2]]
// CHECK: %[[S3:.+]] = arith.select %[[MNAN]], %{{.+}}, %[[S2]]
// CHECK: linalg.yield %[[M2]], %[[S3]]
// CHECK: %[[SUM:.+]] = tensor.expand_shape %[[R]]#1 {{\[}}[0, 1]] output_shape [64, 1]
// CHECK: linalg.generic {{.+}} ins(%[[X]], %{{.+}}, %[[SUM]] : tensor<64x1000xf32>, tensor<64x1xf32>, tensor<64x1xf32>)
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // expected-remark @+1 {{softmax statistics in one pass: the maximum and the sum of exp(x - maximum) in one reduction}}
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%mi : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %mk = tensor.expand_shape %max [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
  %ek = tensor.empty() : tensor<64x1xf32>
  %si = linalg.fill ins(%zero : f32) outs(%ek : tensor<64x1xf32>) -> tensor<64x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #keep, #keep], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mk : tensor<64x1000xf32>, tensor<64x1xf32>) outs(%si : tensor<64x1xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x0 = math.exp %d : f32
    %s = arith.addf %x0, %out : f32
    linalg.yield %s : f32
  } -> tensor<64x1xf32>
  %ey = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #keep, #keep, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mk, %sum : tensor<64x1000xf32>, tensor<64x1xf32>, tensor<64x1xf32>) outs(%ey : tensor<64x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x0 = math.exp %d : f32
    %q = arith.divf %x0, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// -----

// Left alone: a sum of exp(x - m) where m is the max of another tensor,
// and one whose max starts from 0 (a relu'd max), not -inf.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: fuser.online_softmax
func.func @left_alone(%x: tensor<8x16xf32>, %z: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %maxz = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<8x16xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %maxz : tensor<8x16xf32>, tensor<8xf32>) outs(%zi : tensor<8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x0 = math.exp %d : f32
    %s = arith.addf %x0, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %max0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%zi : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max0 : tensor<8x16xf32>, tensor<8xf32>) outs(%zi : tensor<8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x0 = math.exp %d : f32
    %s = arith.addf %x0, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %s0, %s1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// torch.logsumexp(x, 1) as torch-mlir lowers it: the sum subtracts
// where(|m| == inf, 0, m) (compared in f64), a shift recognised by
// evaluating its chain at finite and infinite points. The sum's users read
// the online sum, +inf where the maximum is +inf (exp(x - 0) sums to +inf
// there; the online sum is NaN, as softmax's is).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @logsumexp
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} attrs = {fuser.online_softmax}
// CHECK: %[[FIX:.+]] = linalg.generic {{.*}} ins(%[[R]]#0, %[[R]]#1 : tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[M:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[IS:.+]] = arith.cmpf oeq, %[[M]], %[[INF]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.select %[[IS]], %[[INF]], %[[S]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[FIX]] : tensor<8xf32>)
// CHECK: math.log
func.func @logsumexp(%x: tensor<8x1000xf32>) -> tensor<8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : tensor<f32>
  %inf64 = arith.constant 0x7FF0000000000000 : f64
  %e = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{softmax statistics in one pass: the maximum and the sum of exp(x - maximum) in one reduction (logsumexp's shift: 0 where the maximum is infinite)}}
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.maximumf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %mk = tensor.expand_shape %m [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %e1 = tensor.empty() : tensor<8x1xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mk : tensor<8x1xf32>) outs(%e1 : tensor<8x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = math.absf %in : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %eb = tensor.empty() : tensor<8x1xi1>
  %isinf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x1xf32>) outs(%eb : tensor<8x1xi1>) {
  ^bb0(%in: f32, %o: i1):
    %w = arith.extf %in : f32 to f64
    %c = arith.cmpf oeq, %w, %inf64 : f64
    linalg.yield %c : i1
  } -> tensor<8x1xi1>
  %shift = linalg.generic {indexing_maps = [#id, #scalar, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%isinf, %zeros, %mk : tensor<8x1xi1>, tensor<f32>, tensor<8x1xf32>) outs(%e1 : tensor<8x1xf32>) {
  ^bb0(%c: i1, %z: f32, %v: f32, %o: f32):
    %t = arith.select %c, %z, %v : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #keep, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %shift : tensor<8x1000xf32>, tensor<8x1xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%in: f32, %sh: f32, %acc: f32):
    %d = arith.subf %in, %sh : f32
    %ex = math.exp %d : f32
    %t = arith.addf %ex, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = math.log %in : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %l : tensor<8xf32>
}

// -----

// A shift that is not logsumexp's (1 where the maximum is infinite): the
// max and the sum stay two reductions.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @other_shift
// CHECK-NOT: fuser.online_softmax
func.func @other_shift(%x: tensor<8x1000xf32>) -> tensor<8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.maximumf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %mk = tensor.expand_shape %m [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %e1 = tensor.empty() : tensor<8x1xf32>
  %shift = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mk : tensor<8x1xf32>) outs(%e1 : tensor<8x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = math.absf %v : f32
    %c = arith.cmpf oeq, %a, %inf : f32
    %t = arith.select %c, %one, %v : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #keep, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %shift : tensor<8x1000xf32>, tensor<8x1xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%in: f32, %sh: f32, %acc: f32):
    %d = arith.subf %in, %sh : f32
    %ex = math.exp %d : f32
    %t = arith.addf %ex, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
