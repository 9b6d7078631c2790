// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-group-norm{report=true}))" -verify-diagnostics | FileCheck %s
// Constant epilogue inputs become immediates in fuser-simplify-group-bodies,
// which runs after fusion.
// RUN: fuser-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuser-fuse-group-norm{report=true},fuser-simplify-group-bodies))" -verify-diagnostics | FileCheck %s --check-prefix=SIMPLIFY

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// W3's decomposition on (N, 8) with 2 groups of 4, dynamic N, then
// LeakyReLU and y + y: one fuser.group_norm whose epilogue holds both.
// CHECK-LABEL: func.func @w3_like
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 2 eps = 1.000000e-05 epilogue_maps [] : tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8xf32> {
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK: %[[P:.+]] = arith.cmpf ugt, %[[V]]
// CHECK: %[[S:.+]] = arith.select %[[P]], %[[V]], %{{.+}} : f32
// CHECK-NEXT: %[[D:.+]] = arith.addf %[[S]], %[[S]] : f32
// CHECK-NEXT: fuser.yield %[[D]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @w3_like(%x: tensor<?x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.25 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  // expected-remark @+1 {{fused group norm (2 groups of 4) with 3 consumer op(s), the affine included}}
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [%n, 2, 4] : tensor<?x8xf32> into tensor<?x2x4xf32>
  %es = tensor.empty(%n) : tensor<?x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x2xf32>) -> tensor<?x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<?x2x4xf32>) outs(%zs : tensor<?x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?x2xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x2xf32>) outs(%es : tensor<?x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<?x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<?x2x4xf32>, tensor<?x2xf32>) outs(%zs : tensor<?x2xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?x2xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<?x2xf32>) outs(%es : tensor<?x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<?x2xf32>
  %eg = tensor.empty(%n) : tensor<?x2x4xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<?x2x4xf32>, tensor<?x2xf32>, tensor<?x2xf32>) outs(%eg : tensor<?x2x4xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<?x2x4xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<?x2x4xf32> into tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %aff = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<?x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%aff : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  %y = linalg.add ins(%act, %act : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Near miss: the sum reduces the group dimension (1), not the group's
// elements (2). Everything stays linalg.
// CHECK-LABEL: func.func @wrong_axis
// CHECK-NOT: fuser.group_norm
func.func @wrong_axis(%x: tensor<2x16xf32>, %gamma: tensor<16xf32>, %beta: tensor<16xf32>) -> tensor<2x16xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.25 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  // expected-remark @+1 {{not fused into fuser.group_norm: the mean does not reduce over the elements of each group (trailing dimensions of the grouped view, keeping the leading ones)}}
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 4, 4] : tensor<2x16xf32> into tensor<2x4x4xf32>
  %es = tensor.empty() : tensor<2x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%g : tensor<2x4x4xf32>) outs(%zs : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x4xf32>) outs(%es : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%zs : tensor<2x4xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<2x4xf32>) outs(%es : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %eg = tensor.empty() : tensor<2x4x4xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%eg : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x4x4xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<2x4x4xf32> into tensor<2x16xf32>
  %e = tensor.empty() : tensor<2x16xf32>
  %aff = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<2x16xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<2x16xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%aff : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %y = linalg.add ins(%act, %act : tensor<2x16xf32>, tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Near miss: rsqrt(var) without epsilon.
// CHECK-LABEL: func.func @no_eps
// CHECK-NOT: fuser.group_norm
func.func @no_eps(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.25 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  // expected-remark @+1 {{not fused into fuser.group_norm: no positive constant epsilon is added to the variance before rsqrt}}
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
  %es = tensor.empty() : tensor<2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<2x2x4xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<2x2x4xf32>, tensor<2x2xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %r = math.rsqrt %var : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %eg = tensor.empty() : tensor<2x2x4xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%eg : tensor<2x2x4xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x2x4xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %aff = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<2x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%aff : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %y = linalg.add ins(%act, %act : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Near miss: the mean divides by 5, but a group holds 4 elements.
// CHECK-LABEL: func.func @wrong_divisor
// CHECK-NOT: fuser.group_norm
func.func @wrong_divisor(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.2 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  // expected-remark @+1 {{not fused into fuser.group_norm: the mean divides the group sum by 5, not by the group size 4}}
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
  %es = tensor.empty() : tensor<2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<2x2x4xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<2x2x4xf32>, tensor<2x2xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %eg = tensor.empty() : tensor<2x2x4xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%eg : tensor<2x2x4xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x2x4xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %aff = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat, %gamma, %beta : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<2x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%aff : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %y = linalg.add ins(%act, %act : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// GroupNorm(affine=False): no gamma and beta to take; the group norm gets
// gamma = 1 and beta = 0 (constants) and the chain stays in its epilogue.
// CHECK-LABEL: func.func @no_affine
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>,
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[ONE]], %[[ZERO]] groups = 2 eps = 1.000000e-05 epilogue_maps []
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK: arith.cmpf ugt, %[[V]]
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @no_affine(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.25 : f32
  %eps = arith.constant 1.0e-05 : f32
  %slope = arith.constant 0.01 : f32
  // expected-remark @+1 {{fused group norm (2 groups of 4) with 2 consumer op(s), no affine (gamma 1, beta 0)}}
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
  %es = tensor.empty() : tensor<2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<2x2x4xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %mean : tensor<2x2x4xf32>, tensor<2x2xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %rstd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<2x2xf32>) outs(%es : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %var = arith.mulf %in, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %eg = tensor.empty() : tensor<2x2x4xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%eg : tensor<2x2x4xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x2x4xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flat : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %pos = arith.cmpf ugt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %r = arith.select %pos, %in, %neg : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %y = linalg.add ins(%act, %act : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#grp3 = affine_map<(d0, d1, d2) -> (d1)>

// gamma and beta have one value per group, applied to the grouped view
// before it is reshaped back: the group norm runs on the view, whose
// channels are the groups, and its result is reshaped back.
// CHECK-LABEL: func.func @per_group_affine
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>, %[[G:.+]]: tensor<2xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK: %[[V:.+]] = tensor.expand_shape %[[X]]
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[V]], %[[G]], %[[B]] groups = 2 eps = 1.000000e-05 epilogue_maps [] : tensor<2x2x4xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<2x2x4xf32>
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[R]]
// CHECK: return %[[F]]
func.func @per_group_affine(%x: tensor<2x8xf32>, %gamma: tensor<2xf32>, %beta: tensor<2xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.25 : f32
  %eps = arith.constant 1.0e-05 : f32
  // expected-remark @+1 {{fused group norm (2 groups of 4) with 1 consumer op(s), the affine included}}
  %g = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
  %es = tensor.empty() : tensor<2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<2x2x4xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %sum : tensor<2x2x4xf32>, tensor<2x2xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %su: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %eg = tensor.empty() : tensor<2x2x4xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %sum, %sq : tensor<2x2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%eg : tensor<2x2x4xf32>) {
  ^bb0(%in: f32, %su: f32, %q: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %var = arith.mulf %q, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x2x4xf32>
  %aff = linalg.generic {indexing_maps = [#id3, #grp3, #grp3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%norm, %gamma, %beta : tensor<2x2x4xf32>, tensor<2xf32>, tensor<2xf32>) outs(%eg : tensor<2x2x4xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    %a = arith.addf %m, %be : f32
    linalg.yield %a : f32
  } -> tensor<2x2x4xf32>
  %flat = tensor.collapse_shape %aff [[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
  return %flat : tensor<2x8xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#red5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// N x C x H x W = ? x 4 x 2 x 3 with 2 groups, viewed as (N, G, C/G, H, W);
// the variance as E[x^2] - mean^2, the mean with divf, the statistics split
// over several ops, the affine as named ops on broadcasts, then a residual
// add: the residual becomes an epilogue input read through the identity.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @nchw_ex2
// CHECK-SAME: (%[[X:.+]]: tensor<?x4x2x3xf32>, %[[G:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>, %[[RES:.+]]: tensor<?x4x2x3xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 2 eps = 9.9999999999999995E-7 epilogue_inputs(%[[RES]] : tensor<?x4x2x3xf32>) epilogue_maps [#[[$ID]]]
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[RV:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[V]], %[[RV]] : f32
// CHECK-NEXT: fuser.yield %[[S]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @nchw_ex2(%x: tensor<?x4x2x3xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>, %res: tensor<?x4x2x3xf32>) -> tensor<?x4x2x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x2x3xf32>
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 12.0 : f32
  %eps = arith.constant 1.0e-06 : f32
  // expected-remark @+1 {{fused group norm (2 groups of 12) with 3 consumer op(s), the affine included}}
  %g = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [%n, 2, 2, 2, 3] : tensor<?x4x2x3xf32> into tensor<?x2x2x2x3xf32>
  %es = tensor.empty(%n) : tensor<?x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x2xf32>) -> tensor<?x2xf32>
  %sum = linalg.reduce ins(%g : tensor<?x2x2x2x3xf32>) outs(%zs : tensor<?x2xf32>) dimensions = [2, 3, 4]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %sumsq = linalg.generic {indexing_maps = [#id5, #red5], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%g : tensor<?x2x2x2x3xf32>) outs(%zs : tensor<?x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x2 = arith.mulf %in, %in : f32
    %s = arith.addf %out, %x2 : f32
    linalg.yield %s : f32
  } -> tensor<?x2xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x2xf32>) outs(%es : tensor<?x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %k : f32
    linalg.yield %m : f32
  } -> tensor<?x2xf32>
  %var = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sumsq, %mean : tensor<?x2xf32>, tensor<?x2xf32>) outs(%es : tensor<?x2xf32>) {
  ^bb0(%q: f32, %mu: f32, %out: f32):
    %ex2 = arith.divf %q, %k : f32
    %m2 = arith.mulf %mu, %mu : f32
    %v = arith.subf %ex2, %m2 : f32
    linalg.yield %v : f32
  } -> tensor<?x2xf32>
  %rstd = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%var : tensor<?x2xf32>) outs(%es : tensor<?x2xf32>) {
  ^bb0(%v: f32, %out: f32):
    %ve = arith.addf %eps, %v : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<?x2xf32>
  %eg = tensor.empty(%n) : tensor<?x2x2x2x3xf32>
  %norm = linalg.generic {indexing_maps = [#id5, #red5, #red5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%g, %mean, %rstd : tensor<?x2x2x2x3xf32>, tensor<?x2xf32>, tensor<?x2xf32>) outs(%eg : tensor<?x2x2x2x3xf32>) {
  ^bb0(%in: f32, %mu: f32, %rs: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %rs, %d : f32
    linalg.yield %nv : f32
  } -> tensor<?x2x2x2x3xf32>
  %flat = tensor.collapse_shape %norm [[0], [1, 2], [3], [4]] : tensor<?x2x2x2x3xf32> into tensor<?x4x2x3xf32>
  %e = tensor.empty(%n) : tensor<?x4x2x3xf32>
  %gb = linalg.broadcast ins(%gamma : tensor<4xf32>) outs(%e : tensor<?x4x2x3xf32>) dimensions = [0, 2, 3]
  %bb = linalg.broadcast ins(%beta : tensor<4xf32>) outs(%e : tensor<?x4x2x3xf32>) dimensions = [0, 2, 3]
  %scaled = linalg.mul ins(%gb, %flat : tensor<?x4x2x3xf32>, tensor<?x4x2x3xf32>) outs(%e : tensor<?x4x2x3xf32>) -> tensor<?x4x2x3xf32>
  %shifted = linalg.add ins(%scaled, %bb : tensor<?x4x2x3xf32>, tensor<?x4x2x3xf32>) outs(%e : tensor<?x4x2x3xf32>) -> tensor<?x4x2x3xf32>
  %y = linalg.add ins(%shifted, %res : tensor<?x4x2x3xf32>, tensor<?x4x2x3xf32>) outs(%e : tensor<?x4x2x3xf32>) -> tensor<?x4x2x3xf32>
  return %y : tensor<?x4x2x3xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1)>

// torch-mlir's view of N x C x H x W = 2 x 4 x 2 x 2 as (N, G, C/G*H*W):
// flatten, split into groups, and the same back; the statistics in one op.
// CHECK-LABEL: func.func @nchw_flat_view
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x2x2xf32>, %[[G:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[B]] groups = 2 eps = 1.000000e-05 epilogue_maps [] : tensor<2x4x2x2xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x2x2xf32> {
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: fuser.yield %[[V]] : f32
// CHECK: return %[[R]]
func.func @nchw_flat_view(%x: tensor<2x4x2x2xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<2x4x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %inv = arith.constant 0.125 : f32
  %eps = arith.constant 1.0e-05 : f32
  %f = tensor.collapse_shape %x [[0], [1, 2, 3]] : tensor<2x4x2x2xf32> into tensor<2x16xf32>
  // expected-remark @+1 {{fused group norm (2 groups of 8) with 1 consumer op(s), the affine included}}
  %g = tensor.expand_shape %f [[0], [1, 2]] output_shape [2, 2, 8] : tensor<2x16xf32> into tensor<2x2x8xf32>
  %es = tensor.empty() : tensor<2x2xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<2x2x8xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %sum : tensor<2x2x8xf32>, tensor<2x2xf32>) outs(%zs : tensor<2x2xf32>) {
  ^bb0(%in: f32, %su: f32, %out: f32):
    %mu = arith.mulf %inv, %su : f32
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %eg = tensor.empty() : tensor<2x2x8xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %sum, %sq : tensor<2x2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%eg : tensor<2x2x8xf32>) {
  ^bb0(%in: f32, %su: f32, %q: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %var = arith.mulf %q, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %rs = arith.divf %one, %sd : f32
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x2x8xf32>
  %c = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<2x2x8xf32> into tensor<2x16xf32>
  %back = tensor.expand_shape %c [[0], [1, 2, 3]] output_shape [2, 4, 2, 2] : tensor<2x16xf32> into tensor<2x4x2x2xf32>
  %e = tensor.empty() : tensor<2x4x2x2xf32>
  %aff = linalg.generic {indexing_maps = [#id4, #ch4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%back, %gamma, %beta : tensor<2x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<2x4x2x2xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %out: f32):
    %m = arith.mulf %ga, %in : f32
    %a = arith.addf %be, %m : f32
    linalg.yield %a : f32
  } -> tensor<2x4x2x2xf32>
  return %aff : tensor<2x4x2x2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>

// The direct form: a fuser.group_norm already in the input absorbs its
// elementwise consumers; a column input joins the existing epilogue input.
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @direct
// CHECK-SAME: (%[[X:.+]]: tensor<?x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[R:.+]]: tensor<?x8xf32>, %[[C:.+]]: tensor<?xf32>)
// CHECK: %[[Y:.+]] = fuser.group_norm %[[X]], %[[G]], %[[G]] groups = 2 eps = 1.000000e-05 epilogue_inputs(%[[R]], %[[C]] : tensor<?x8xf32>, tensor<?xf32>) epilogue_maps [#[[$ID]], #[[$COL]]]
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[RV:.+]]: f32, %[[CV:.+]]: f32):
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[V]], %[[RV]] : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[A]], %[[CV]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[M]] : f32
// CHECK-NEXT: fuser.yield %[[E]] : f32
// CHECK-NOT: linalg.
// CHECK: return %[[Y]]
func.func @direct(%x: tensor<?x8xf32>, %g: tensor<8xf32>, %r: tensor<?x8xf32>, %c: tensor<?xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  // expected-remark @+1 {{absorbed 2 elementwise op(s) into the group norm epilogue}}
  %gn = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_inputs(%r : tensor<?x8xf32>) epilogue_maps [#id]
      : tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8xf32> {
  ^bb0(%v: f32, %rv: f32):
    %a = arith.addf %v, %rv : f32
    fuser.yield %a : f32
  }
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gn, %c : tensor<?x8xf32>, tensor<?xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %cv: f32, %o: f32):
    %p = arith.mulf %a, %cv : f32
    linalg.yield %p : f32
  } -> tensor<?x8xf32>
  %y = linalg.exp ins(%m : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The direct form whose consumer reads it transposed: nothing to absorb.
// CHECK-LABEL: func.func @direct_transposed_consumer
// CHECK: fuser.group_norm
// CHECK: linalg.generic
func.func @direct_transposed_consumer(%x: tensor<8x8xf32>, %g: tensor<8xf32>) -> tensor<8x8xf32> {
  %gn = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
      : tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @+1 {{not fused into the group norm epilogue: it reads the group norm's value through a broadcast or transpose}}
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gn : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %a : f32
    linalg.yield %p : f32
  } -> tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#s = affine_map<(d0, d1) -> ()>

// A group norm followed by torch-mlir's leaky_relu: the zero is a 0-d
// constant read by two consumers through a map with no results (one epilogue
// input), the slope an f64 constant captured from above (cloned in). After
// fuser-simplify-group-bodies the zero is an immediate and no input is left.
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @direct_torch_leaky_relu
// CHECK: %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 2 eps = 1.000000e-05 epilogue_inputs(%[[Z]] : tensor<f32>) epilogue_maps [#[[$S]]]
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[ZV:.+]]: f32):
// SIMPLIFY-LABEL: func.func @direct_torch_leaky_relu
// SIMPLIFY-NOT: dense<
// SIMPLIFY: fuser.group_norm %{{.+}}, %{{.+}}, %{{.+}} groups = 2 eps = 1.000000e-05 epilogue_maps []
// SIMPLIFY-NEXT: ^bb0(%[[V:.+]]: f32):
// SIMPLIFY-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// SIMPLIFY-NEXT: %[[P:.+]] = arith.cmpf ogt, %[[Z]], %[[V]] : f32
// SIMPLIFY-NEXT: %[[MAX:.+]] = arith.select %[[P]], %[[Z]], %[[V]] : f32
// SIMPLIFY-NEXT: %[[Q:.+]] = arith.cmpf olt, %[[Z]], %[[MAX]] : f32
// SIMPLIFY-NEXT: %[[MIN:.+]] = arith.select %[[Q]], %[[Z]], %[[MAX]] : f32
// SIMPLIFY-NEXT: %[[SL:.+]] = arith.constant 1.000000e-02 : f64
// SIMPLIFY-NEXT: %[[T:.+]] = arith.truncf %[[SL]] : f64 to f32
// SIMPLIFY-NEXT: %[[N:.+]] = arith.mulf %[[MIN]], %[[T]] : f32
// SIMPLIFY-NEXT: fuser.yield %[[N]] : f32
// SIMPLIFY-NOT: dense<
func.func @direct_torch_leaky_relu(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %slope = arith.constant 1.000000e-02 : f64
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  // expected-remark @+1 {{absorbed 3 elementwise op(s) into the group norm epilogue}}
  %gn = fuser.group_norm %x, %g, %g groups = 2 eps = 1.0e-05 epilogue_maps []
      : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32> {
  ^bb0(%v: f32):
    fuser.yield %v : f32
  }
  %e = tensor.empty() : tensor<4x8xf32>
  // A chain (the epilogue takes single-user chains): min(0, max(0, x)) * slope.
  %1 = linalg.generic {indexing_maps = [#s, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%zero, %gn : tensor<f32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %5 = arith.cmpf ogt, %in, %in_1 : f32
    %6 = arith.select %5, %in, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#s, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%zero, %1 : tensor<f32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %5 = arith.cmpf olt, %in, %in_1 : f32
    %6 = arith.select %5, %in, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.truncf %slope : f64 to f32
    %6 = arith.mulf %in, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Near miss: (2, 6, 4) viewed as (2, 8, 3): a group of 3 elements is not
// whole channels (of 4 elements) nor trailing dimensions of the input.
// CHECK-LABEL: func.func @not_whole_channels
// SIMPLIFY-LABEL: func.func @not_whole_channels
// CHECK-NOT: fuser.group_norm
func.func @not_whole_channels(%x: tensor<2x6x4xf32>) -> tensor<2x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.333333343 : f32
  %eps = arith.constant 1.0e-05 : f32
  %f = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x6x4xf32> into tensor<2x24xf32>
  // expected-remark @+1 {{not fused into fuser.group_norm: a group of 3 elements is not whole channels of one sample of the tensor<2x6x4xf32> tensor}}
  %g = tensor.expand_shape %f [[0], [1, 2]] output_shape [2, 8, 3] : tensor<2x24xf32> into tensor<2x8x3xf32>
  %es = tensor.empty() : tensor<2x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g : tensor<2x8x3xf32>) outs(%zs : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %sum : tensor<2x8x3xf32>, tensor<2x8xf32>) outs(%zs : tensor<2x8xf32>) {
  ^bb0(%in: f32, %su: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %eg = tensor.empty() : tensor<2x8x3xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %sum, %sq : tensor<2x8x3xf32>, tensor<2x8xf32>, tensor<2x8xf32>) outs(%eg : tensor<2x8x3xf32>) {
  ^bb0(%in: f32, %su: f32, %q: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %var = arith.mulf %q, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x8x3xf32>
  %back = tensor.collapse_shape %norm [[0], [1, 2]] : tensor<2x8x3xf32> into tensor<2x24xf32>
  %y = tensor.expand_shape %back [[0], [1, 2]] output_shape [2, 6, 4] : tensor<2x24xf32> into tensor<2x6x4xf32>
  return %y : tensor<2x6x4xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
#row = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

// A LayerNorm written as (x - mean) / sqrt(var + eps) on the input itself
// (no view), with a weight and no bias: one group per row, beta = 0.
// CHECK-LABEL: func.func @div_form_scale_only
// CHECK-SAME: (%[[X:.+]]: tensor<?x16xf32>, %[[G:.+]]: tensor<16xf32>)
// CHECK: %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = fuser.group_norm %[[X]], %[[G]], %[[Z]] groups = 1 eps = 9.9999999999999995E-7 epilogue_maps []
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32):
// CHECK-NEXT: fuser.yield %[[V]] : f32
// CHECK: return %[[R]]
func.func @div_form_scale_only(%x: tensor<?x16xf32>, %gamma: tensor<16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 16.0 : f32
  %eps = arith.constant 1.0e-06 : f32
  %es = tensor.empty(%n) : tensor<?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{fused group norm (1 groups of 16) with 1 consumer op(s), the scale (gamma, no beta) included}}
  %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x16xf32>) outs(%zs : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%sum : tensor<?xf32>) outs(%es : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %k : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #col, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<?x16xf32>, tensor<?xf32>) outs(%zs : tensor<?xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %norm = linalg.generic {indexing_maps = [#id2, #col, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %sq : tensor<?x16xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%in: f32, %mu: f32, %q: f32, %out: f32):
    %var = arith.divf %q, %k : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %nv = arith.divf %d, %sd : f32
    linalg.yield %nv : f32
  } -> tensor<?x16xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%norm, %gamma : tensor<?x16xf32>, tensor<16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%in: f32, %ga: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    linalg.yield %m : f32
  } -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#last = affine_map<(d0, d1, d2) -> (d2)>
#mid = affine_map<(d0, d1, d2) -> (d1)>

// A LayerNorm over the last dimension of 2 x 4 x 8 whose weight and bias
// are per element of a group, followed by an add of a vector over the
// middle dimension, which flattening to (8, 8) cannot express: the group
// norm runs on the input with 4 groups (one per (n, l)), gamma 1 and beta
// 0, and the epilogue keeps the affine.
// CHECK-DAG: #[[$LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$MID:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @layer_norm_unflattenable_epilogue
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>, %[[M:.+]]: tensor<4xf32>)
// CHECK-DAG: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: fuser.group_norm %[[X]], %[[ONE]], %[[ZERO]] groups = 4 eps = 1.000000e-05 epilogue_inputs(%[[G]], %[[B]], %[[M]] : {{.+}}) epilogue_maps [#[[$LAST]], #[[$LAST]], #[[$MID]]]
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[GV:.+]]: f32, %[[BV:.+]]: f32, %[[MV:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.mulf %[[V]], %[[GV]] : f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[S]], %[[BV]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[A]], %[[MV]] : f32
// CHECK-NEXT: fuser.yield %[[R]] : f32
func.func @layer_norm_unflattenable_epilogue(%x: tensor<2x4x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>, %m: tensor<4xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.125 : f32
  %eps = arith.constant 1.0e-05 : f32
  %es = tensor.empty() : tensor<2x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4xf32>) -> tensor<2x4xf32>
  // expected-remark @+1 {{fused group norm (4 groups of 8) with 1 consumer op(s), gamma 1 and beta 0 (the epilogue keeps its own scale)}}
  %sum = linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x8xf32>) outs(%zs : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #red3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %sum : tensor<2x4x8xf32>, tensor<2x4xf32>) outs(%zs : tensor<2x4xf32>) {
  ^bb0(%in: f32, %su: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4x8xf32>
  %norm = linalg.generic {indexing_maps = [#id3, #red3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %su: f32, %q: f32, %out: f32):
    %mu = arith.mulf %su, %inv : f32
    %var = arith.mulf %q, %inv : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %nv = arith.mulf %d, %rs : f32
    linalg.yield %nv : f32
  } -> tensor<2x4x8xf32>
  %y = linalg.generic {indexing_maps = [#id3, #last, #last, #mid, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%norm, %gamma, %beta, %m : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) outs(%e : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %ga: f32, %be: f32, %mv: f32, %out: f32):
    %s = arith.mulf %in, %ga : f32
    %a = arith.addf %s, %be : f32
    %r = arith.addf %a, %mv : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
#row = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

// Near miss: the same LayerNorm over 2^24 elements per row, more than the
// group norm kernel counts exactly in f32: left to the fallback.
// CHECK-LABEL: func.func @group_too_large
// CHECK-NOT: fuser.group_norm
func.func @group_too_large(%x: tensor<?x16777216xf32>, %gamma: tensor<16777216xf32>) -> tensor<?x16777216xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16777216xf32>
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 16777216.0 : f32
  %eps = arith.constant 1.0e-06 : f32
  %es = tensor.empty(%n) : tensor<?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?xf32>) -> tensor<?xf32>
  // expected-remark @+1 {{not fused into fuser.group_norm: a group of 16777216 elements is more than the group norm kernel handles (2^24 - 1)}}
  %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x16777216xf32>) outs(%zs : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%sum : tensor<?xf32>) outs(%es : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %k : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #col, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<?x16777216xf32>, tensor<?xf32>) outs(%zs : tensor<?xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %out, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?x16777216xf32>
  %norm = linalg.generic {indexing_maps = [#id2, #col, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %sq : tensor<?x16777216xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?x16777216xf32>) {
  ^bb0(%in: f32, %mu: f32, %q: f32, %out: f32):
    %var = arith.divf %q, %k : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %nv = arith.divf %d, %sd : f32
    linalg.yield %nv : f32
  } -> tensor<?x16777216xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%norm, %gamma : tensor<?x16777216xf32>, tensor<16777216xf32>) outs(%e : tensor<?x16777216xf32>) {
  ^bb0(%in: f32, %ga: f32, %out: f32):
    %m = arith.mulf %in, %ga : f32
    linalg.yield %m : f32
  } -> tensor<?x16777216xf32>
  return %y : tensor<?x16777216xf32>
}
