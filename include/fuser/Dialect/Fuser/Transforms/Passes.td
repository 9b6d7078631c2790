//===- Passes.td - fuser dialect transformation passes -----*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
#define FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuserFuseMatmulProloguesPass
    : Pass<"fuser-fuse-matmul-prologues", "mlir::func::FuncOp"> {
  let summary = "Fuse the elementwise producers of a matmul's A into its prologue";
  let description = [{
    A `fuser.matmul` whose A is produced by elementwise `linalg.generic`s
    (identity maps, A's shape) computes A as it reads it: the producers'
    DAG becomes the op's `prologue` region, and the op reads the DAG's
    leaves instead of A. This is the masked gradient of an activation
    applied on the fly in dX = (dY * act'(y)) . W. Producers with other
    users stay for them (the prologue recomputes them); producers left
    without users are erased.

    Fused only when the product's N is static and at most `max-prologue-n`
    (the kernels read A once per tile of N columns, so the prologue reads
    its inputs and recomputes A that often, in 3xtf32's splitter, which
    bounds the kernel with an N-major B). Against the producer computed by a
    kernel of its own, on W2's dX shape (M = 1024, K = 8192, N-major B) the
    prologue took 0.73x / 0.86x / 1.09x / 1.16x the time at N = 256 / 512 /
    2048 / 8192 with the mask's two inputs, 0.77x / 0.90x / 1.07x / 1.11x
    with one (H100, 2026-11-25, bench/experiments/prologue_ab.py). The DAG
    must read at most two full-size tensors of A's element type, captures no
    scalars but constants, and folds to a finite value at all-zero inputs (the kernels
    zero-pad A and B past K). Not for an M-major A (`transpose_a`) or a
    batched product. The configuration step computes a prologue in a
    pointwise kernel of its own where the chosen GEMM kernel does not read
    one (GemmStrategy.h's `readsPrologue`). Runs after `fuser-fuse-matmul`
    and before `fuser-fuse-pointwise`. With `report`, a remark says what
    fused, or why not.

    Before:
    ```mlir
    %g = linalg.generic {...} ins(%dy, %y : ...) outs(%e : ...) { ...mask... }
    %dx = fuser.matmul %g, %w epilogue_maps [] ...
    ```
    After: `fuser.matmul %dy, %w prologue_inputs(%y : ...) ... prologue
    { ...mask... } { ... }`.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark on each matmul: what fused into its prologue, or why not">,
    Option<"maxPrologueN", "max-prologue-n", "int64_t", /*default=*/"512",
           "Fuse a prologue only into products of a static N up to this many "
           "columns (A is read once per N tile)">,
  ];
}

def FuserFuseReductionProloguesPass
    : Pass<"fuser-fuse-reduction-prologues", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into the reductions that read them";
  let description = [{
    A reduction (`linalg.generic` with reduction loops) reads its
    elementwise producers' inputs directly: each producer (a
    `linalg.generic` with parallel loops only, or a named elementwise op,
    `linalg.transpose` or `linalg.broadcast`, generalized first) read
    through a permutation (constant-0 results on unit dimensions allowed: a
    loss's row statistics as 32768 x 1) is folded into the reduction's
    body, upstream's elementwise fusion. So a transposed copy, a widening to f64 or a
    squared difference before a sum is computed as the sum reads it,
    instead of written to memory by one kernel and read by the next. A
    producer with other users stays for them; the reduction then fuses a
    copy only when recomputing it reads no more memory than its result
    would (per element, its full-size inputs' bytes at most the result's:
    a transposed copy or a widening, not a chain over several tensors). An
    i1 mask is recomputed for each reader whatever its inputs, rather than
    written by a kernel of its own and read back (`target !=
    ignore_index`, read by a loss's sum and its count, which read the
    targets anyway).
    Runs after the matmul and group-norm fusions, which claim their ops
    first, again after the softmax passes (the terms they make), and before
    `fuser-fuse-pointwise`. With `report`, a remark on each reduction
    counts what it absorbed.

    Before:
    ```mlir
    %t = linalg.transpose ins(%g : tensor<1024x8192xf32>) outs(%e : tensor<8192x1024xf32>) permutation = [1, 0]
    %s = linalg.generic {... iterator_types = ["parallel", "reduction"]} ins(%t : tensor<8192x1024xf32>) ...
    ```
    After: one `linalg.generic` reading `%g` through `(d0, d1) -> (d1, d0)`.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark on each reduction that absorbed producers">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserFusePointwisePass : Pass<"fuser-fuse-pointwise", "mlir::func::FuncOp"> {
  let summary = "Outline maximal DAGs of elementwise linalg ops into fuser.pointwise groups";
  let description = [{
    Finds elementwise linalg ops on tensors (linalg.generic with parallel
    iterators, identity output maps, projected-permutation input maps and an
    arith/math body, plus the named elementwise ops, linalg.fill,
    linalg.broadcast and linalg.transpose) and outlines maximal producer to
    consumer DAGs of them into `fuser.pointwise` ops.

    Input maps may read size-1 dimensions at 0 (torch-mlir's keepdim and
    unsqueezed shapes: `(d0, d1) -> (d0, 0)`, `(d0, d1, d2, d3) -> (d0, d1,
    0, 0)`): such an input is a broadcast, read as a `tensor.collapse_shape`
    view without those dimensions.

    A value read by several members is computed once in the body (the
    group is a DAG). A producer whose value is also used outside its group
    becomes an extra result of the group when it has the group's shape;
    otherwise it stays in a group of its own. Ops that cannot be fused are
    left as they were; with `report` set, a remark on each says why. Ops
    over static shapes computed from constants and indices alone
    (`linalg.index`) are evaluated at compile time first, as in
    `fuser-fuse-matmul`.

    Before:
    ```mlir
    %0 = linalg.mul ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %1 = linalg.exp ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    ```
    After:
    ```mlir
    %1 = fuser.pointwise ins(%x : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<?xf32> {
    ^bb0(%a: f32):
      %m = arith.mulf %a, %a : f32
      %e = math.exp %m : f32
      fuser.yield %e : f32
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every op left unfused, with the reason">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserFuseMatmulPass : Pass<"fuser-fuse-matmul", "mlir::func::FuncOp"> {
  let summary = "Fuse a matmul, its zero init and its elementwise epilogue into fuser.matmul";
  let description = [{
    Finds 2-D matrix products on tensors, `C[m, n] = sum_k A[m, k] * B'[k, n]`
    with `B'` either `B` or its transpose: `linalg.matmul` in any of its
    `indexing_maps` forms (MLIR 22 has no separate `linalg.matmul_transpose_b`
    op; it is this form with `B` read through `(m, n, k) -> (n, k)`), or a
    `linalg.generic` with the same maps and a `mulf` + `addf` body. A, B and C
    must share one element type, f32, f16 or bf16.

    The accumulator must start from +0.0 (a `linalg.fill` of 0.0 or a zero
    splat constant). A matmul that accumulates into another tensor is left
    unfused: folding that tensor into the epilogue as `acc + C` would change
    the rounding order, and `fuser.matmul` promises the exact linalg result.

    B read through a transposing copy of a 2-D tensor W (`linalg.transpose`
    with permutation [1, 0], what torch-mlir emits for `nn.Linear`) is
    replaced by W itself with `transpose_b` toggled.

    The elementwise consumers (the ops `fuser-fuse-pointwise` accepts) are
    then absorbed into the epilogue as a DAG, so that values with several
    users (torch-mlir's leaky_relu is `max(0, y) + a * min(0, y)`) are taken
    whole: an op joins when it reads the group's values through the identity
    map, has one result of the product's type, and its other operands are
    not computed from the product outside the group. The group then keeps
    one result: the first of its values needed outside it (in program order)
    ends it, with the ops that value depends on; the rest stay for
    `fuser-fuse-pointwise`. The other operands become `epilogue_inputs`,
    read through their maps over (m, n): a bias row `(m, n) -> (n)`, a
    column `(m, n) -> (m)`, a full tensor or a scalar. Operands read at 0
    along a size-1 dimension (keepdim shapes: `(m, n) -> (0, n)` on a
    `1 x N` bias) are broadcasts, read as a `tensor.collapse_shape` view
    without that dimension. Operands produced by a `linalg.broadcast`,
    `linalg.transpose` or `linalg.fill` are read from their source through
    the composed map; scalar constants (captured from above or filled)
    are cloned into the epilogue. Tensor constants stay epilogue inputs:
    `fuser-simplify-group-bodies` makes the splat ones immediates.

    Epilogue inputs keep the product's element type (the kernels read one
    type): a constant of another type that it holds exactly (an index
    vector, a mask) is read as a constant of that type and converted back
    in the body; an i1 mask computed elementwise from such tensors (a
    causal mask from index vectors) is computed in the body; an op reading
    any other tensor of another type stays out of the epilogue. Values of
    other types inside the DAG (softplus's `y > 20` in mish) are fine.

    First, linalg.generic ops over static shapes of at most 64 Ki elements
    that compute from constants and indices alone (`torch.arange`, triu/tril
    masks: `linalg.index` in the body, or readers of such constants) are
    evaluated at compile time by their body ops' folders.

    With `report` set, a remark on each matmul says how many epilogue ops
    were fused, and on each near miss why not (a transposed copy of A, which
    fuser.matmul cannot read, included).

    Before (W2: `leaky_relu((x @ W^T + b) * 2.0, 0.1)` as torch-mlir emits it):
    ```mlir
    %wt = linalg.transpose ins(%w : tensor<256x64xf32>) outs(%e0 : tensor<64x256xf32>) permutation = [1, 0]
    %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x256xf32>) -> tensor<?x256xf32>
    %mm = linalg.matmul ins(%x, %wt : tensor<?x64xf32>, tensor<64x256xf32>) outs(%z : tensor<?x256xf32>) -> tensor<?x256xf32>
    %h = linalg.generic {indexing_maps = [#id, #row, #id], ...} ins(%mm, %b : ...) {
      ... arith.addf ...
    }
    ... linalg.generic (* 2.0), linalg.generic (leaky_relu 0.1) ...
    ```
    After:
    ```mlir
    %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : tensor<256xf32>)
           epilogue_maps [affine_map<(d0, d1) -> (d1)>]
           : tensor<?x64xf32>, tensor<256x64xf32> -> tensor<?x256xf32> {
    ^bb0(%acc: f32, %bias: f32):
      %s = arith.addf %acc, %bias : f32
      %m = arith.mulf %s, %c2 : f32
      ... leaky_relu ...
      fuser.yield %r : f32
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every matmul fused or left unfused, with the "
           "reason">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fuser::FuserDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserFuseMatmulGroupNormPass
    : Pass<"fuser-fuse-matmul-group-norm", "mlir::func::FuncOp"> {
  let summary = "Fold a fuser.group_norm into the fuser.matmul that produces its input";
  let description = [{
    `Linear -> GroupNorm -> pointwise` as one group: a 2-D `fuser.group_norm`
    whose input is a `fuser.matmul` result (and its only use) becomes that
    matmul's `group_norm(size, eps)` with a `then` region holding the affine
    `x * gamma[c] + beta[c]` and the group norm's epilogue. The GEMM kernel
    then computes each group's statistics on the tile it holds in registers,
    so the whole chain is one kernel.

    The plan depends on the group size G = C / groups. The FFMA kernel gives
    each thread row of a block 64 consecutive columns, in 4-wide pieces, so
    a group fits when G is a multiple of 4 dividing 64. Other groups (one
    channel, a single LayerNorm-like group, a dynamic C) stay a GEMM kernel
    followed by a group-norm kernel; with `report` set, a remark says which
    plan was taken and why.

    ```mlir
    %h = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : ...) ... {...}
    %y = fuser.group_norm %h, %gamma, %beta groups = 512 eps = 1.0e-05 ... {
    ^bb0(%v: f32):
      ... leaky_relu, x + x ...
    }
    ```
    becomes
    ```mlir
    %y = fuser.matmul %x, %w transpose_b
           epilogue_inputs(%b, %gamma, %beta : ...) epilogue_maps [...]
           group_norm(size = 16, eps = 1.0e-05) : ... {
    ^bb0(%acc: f32, %bias: f32, %g: f32, %be: f32):
      %s = arith.addf %acc, %bias : f32
      fuser.yield %s : f32
    } then {
    ^bb0(%xhat: f32, %bias: f32, %g: f32, %be: f32):
      %m = arith.mulf %xhat, %g : f32
      %a = arith.addf %m, %be : f32
      ... leaky_relu, x + x ...
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every group norm after a matmul: fused into "
           "its epilogue, or why not">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fuser::FuserDialect"];
}

def FuserFuseGroupNormGradPass : Pass<"fuser-fuse-group-norm-grad", "mlir::func::FuncOp"> {
  let summary = "Recognize a GroupNorm's input gradient as fuser.group_norm_grad";
  let description = [{
    Finds GroupNorm backward decompositions (torch-mlir's
    `native_group_norm_backward`, with the statistics recomputed from the
    saved input, its f64 variance included) and replaces the input
    gradient, and the statistics it recomputes, by one
    `fuser.group_norm_grad`, whose kernel computes them per (sample, group)
    in one pass over dy and x.

    1. Statistics: over a grouped view T of X (a tensor a sum reduction
       reads element by element), the ops computing rstd = rsqrt(var + eps)
       and the mean, as `fuser-fuse-group-norm` matches them.
    2. The input gradient: a tensor of X's type computed from them. Rather
       than one algebraic form, it is checked numerically: the ops are
       evaluated at points of several groups on pseudo-random inputs of both
       signs and compared, in f64, with
         rstd * (dy * gamma - mean(dy * gamma) - x_hat * mean(dy * gamma * x_hat))
       for a per-channel gamma (or gamma = 1, GroupNorm(affine=False)) and a
       gradient dy among the tensors of X's type it is computed from.
    3. dy's elementwise producers (torch-mlir's leaky_relu mask) become the
       prologue; the statistics' f32 uses read the op's mean and rstd.

    With `report`, a remark says what fused, or why statistics recomputed
    in a backward were left alone.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every GroupNorm gradient fused or left unfused">,
  ];  let dependentDialects = ["::mlir::fuser::FuserDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserFuseGroupNormPass : Pass<"fuser-fuse-group-norm", "mlir::func::FuncOp"> {
  let summary = "Recognize GroupNorm/LayerNorm/InstanceNorm decompositions as fuser.group_norm and fuse their consumers";
  let description = [{
    Finds the decompositions front ends emit for GroupNorm, LayerNorm and
    InstanceNorm on f32 tensors (torch-mlir's `native_group_norm`,
    `native_layer_norm` and batch-norm form of `instance_norm`, as exported
    from meta tensors, and hand-written forms):

    1. a tensor T that a sum reduction reads element by element: a grouped
       view of the input X (tensor.expand_shape / collapse_shape; torch-mlir
       views GroupNorm's (N, C) as (N, G, C/G, 1)), or X itself (LayerNorm;
       when X is computed elementwise, nn.Linear's bias add, the trace
       stops at it);
    2. mean = sum(T) * (1 / K), or / K;
    3. var = sum((T - mean)^2) / K, or sum(T^2) / K - mean^2;
    4. rstd = rsqrt(var + eps), or 1 / sqrt(var + eps), eps a positive
       constant;
    5. (x - mean) * rstd, or (x - mean) / sqrt(var + eps), over T,

    where every sum keeps T's leading dimensions and reduces its trailing
    ones (K contiguous elements per group; dimensions of size 1 do not
    count, so torch-mlir's keepdim outputs such as (N, G, 1, 1) match).
    Scalars are followed through elementwise linalg ops whatever their maps
    (the statistics read through `(d0, d1, d2, d3) -> (d0, d1, 0, 0)`) and
    through `arith.extf` / `arith.truncf`: torch-mlir's f64 variance matches
    like an f32 one (the kernels compute two-pass or shifted fp32 sums).

    The normalized value is followed through reshapes back to X's shape,
    or until an op reads it in another shape (InstanceNorm's affine on its
    view): the group norm's input Y is X or T reshaped like that value, of
    shape (N, C, ...) with only N dynamic, and a group must be whole channels
    of one sample (G groups per sample) or Y's trailing dimensions. The
    elementwise consumers are then absorbed into the epilogue exactly as
    `fuser-fuse-matmul` absorbs its epilogue (reads of size-1 dimensions at
    0, such as torch-mlir's `1 x C` gamma through `(d0, d1) -> (0, d1)`,
    first become reads of the plain vector). A leading `* gamma + beta` per
    channel becomes the op's gamma and beta; one per element of a group
    (LayerNorm's weight over the last dimensions) too, with Y flattened to
    (rows, K), one group per row, and the result viewed back; otherwise
    gamma = 1 and beta = 0 (constants; in a GEMM epilogue they fold away)
    and the epilogue keeps everything. `fuser.group_norm` ops already in the
    input absorb their elementwise consumers the same way. InstanceNorm's
    form (X of (N, C, ...) viewed as (1, N * C, ...), one group per channel,
    gamma and beta repeated per sample) becomes GroupNorm(C) on X with gamma
    and beta themselves, so their copies cost no kernels.

    Near misses stay unfused; with `report` set a remark says why (sums over
    the wrong dimensions, statistics not read per group, no epsilon, a
    divisor other than the group size, groups that are not whole channels,
    dynamic sizes other than N).

    Before (W3's group norm, (1024, 8192) viewed as (1024, 512, 16)):
    ```mlir
    %g = tensor.expand_shape %h [[0], [1, 2]] output_shape [1024, 512, 16] ...
    %sum = linalg.generic {... "reduction"} ins(%g ...)   // sum over dim 2
    %mean = linalg.generic ... arith.mulf %in, %c0_0625
    %sq = linalg.generic {... "reduction"} ins(%g, %mean ...)  // sum (x-m)^2
    %rstd = linalg.generic ... math.rsqrt (var + 1e-5)
    %norm = linalg.generic ... (x - mean) * rstd
    %flat = tensor.collapse_shape %norm [[0], [1, 2]] ...
    %y = linalg.generic ... %flat * gamma[c] + beta[c]
    %act = linalg.generic ... leaky_relu(%y)
    ```
    After:
    ```mlir
    %act = fuser.group_norm %h, %gamma, %beta groups = 512 eps = 1.0e-05
             epilogue_maps [] : tensor<1024x8192xf32>, tensor<8192xf32>,
             tensor<8192xf32> -> tensor<1024x8192xf32> {
    ^bb0(%v: f32):
      ... leaky_relu(%v) ...
      fuser.yield %r : f32
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every group norm fused or left unfused, with "
           "the reason">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::fuser::FuserDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserSimplifyGroupBodiesPass
    : Pass<"fuser-simplify-group-bodies", "mlir::func::FuncOp"> {
  let summary = "Constant inputs as immediates and exact algebra in fusion "
                "group bodies";
  let description = [{
    First, every input of a `fuser.pointwise`, a `fuser.matmul` epilogue
    (both regions when it ends in a group norm), a `fuser.group_norm`
    epilogue or a `fuser.group_norm_grad` prologue that holds one value
    everywhere becomes an `arith.constant` in
    the bodies and leaves the group's inputs (and maps): a scalar constant,
    or a splat tensor constant of any shape read through any map, such as
    torch-mlir's 0-d slopes and bounds (`dense<0.0> : tensor<f32>` read
    through `(d0, d1) -> ()`). So no host buffer (a `memref.global` after
    bufferization) and no kernel argument exists for them. The constant op
    outside goes when nothing else reads it. Other constants (weights) stay
    inputs. This is the one place that does it, for groups formed by any
    fusion pass (those clone scalar constants captured from above into the
    isolated bodies, and leave tensor constants to this step).

    ```mlir
    %z = arith.constant dense<0.0> : tensor<f32>
    %r = fuser.pointwise ins(%z, %x : tensor<f32>, tensor<4x8xf32>)
           maps [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
           -> tensor<4x8xf32> {
    ^bb0(%zv: f32, %xv: f32):
      %m = arith.maximumf %zv, %xv : f32
      fuser.yield %m : f32
    }
    ```
    becomes
    ```mlir
    %r = fuser.pointwise ins(%x : tensor<4x8xf32>)
           maps [affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4x8xf32> {
    ^bb0(%xv: f32):
      %zv = arith.constant 0.0 : f32
      %m = arith.maximumf %zv, %xv : f32
      fuser.yield %m : f32
    }
    ```

    Then it rewrites the scalar bodies so that a constant scaling is
    explicit, for code generation to fold (into the matmul accumulator,
    say). Only rewrites that give bit-identical results are applied; general
    folding is off.

    - `addf(%v, %v)` becomes `mulf(%v, 2.0)`: both compute the exact 2v and
      round it once, so every input (NaN, infinities, signed zeros) gives
      the same result.
    - torch-mlir's leaky_relu, `max(0, x) + min(0, x) * s` written as two
      compares and two selects, becomes `select(x < 0, x * s + 0.0, x)` for
      a finite constant `s >= 0` (the hand-written form's one select, plus
      an add that keeps the +0.0 the sum gives where `x * s` underflows to
      -0.0). Same bits for every x, NaN payloads aside. In
      `fuser.pointwise` bodies only: in a matmul epilogue (torch-mlir's W3)
      it made ptxas spill and the kernel slower.
    - With `fold-scales` (off by default, since it is not exact in every
      case): `mulf(mulf(%v, c1), c2)` becomes `mulf(%v, c1 * c2)` when c1 or
      c2 is a power of two (up to sign), `c1 * c2` is exact and the inner product
      has no other user: scaling by a power of two does not round. Caveat: the results still differ where the
      intermediate `v * c1` overflows or is subnormal while `v * c1 * c2` is
      not (or the reverse), at magnitudes beyond 2^127 or below 2^-126 in
      f32. Two constants that are not powers of two are never combined:
      `(v * 3.0) * 5.0` and `v * 15.0` round differently.

    Before:
    ```mlir
    ^bb0(%acc: f32):
      %a = arith.mulf %acc, %c3 : f32    // 3.0
      %b = arith.mulf %a, %c2 : f32      // 2.0
      %d = arith.addf %b, %b : f32
    ```
    After:
    ```mlir
    ^bb0(%acc: f32):
      %b = arith.mulf %acc, %c6 : f32    // 6.0
      %d = arith.mulf %b, %c2 : f32      // 2.0
    ```
  }];
  let options = [
    Option<"foldScales", "fold-scales", "bool", /*default=*/"false",
           "Also combine constant scalings with a power-of-two factor (exact "
           "unless an intermediate overflows or is subnormal)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FuserConfigureKernelsPass : Pass<"fuser-configure-kernels", "mlir::ModuleOp"> {
  let summary = "Choose the kernel configuration of every fusion group";
  let description = [{
    The single place where code generation heuristics live: block sizes,
    vector widths, grid limits, tile sizes and precision. Attaches a
    `#fuser.config` attribute to each fusion group that has none; the
    lowerings only carry it out. The options override the heuristics, for
    developers exploring configurations.

    A `fuser.matmul` gets the `ffma` strategy (fp32 FMA on CUDA cores) with
    a 256 x 128 x 8 (M, N, K) block tile and 16 x 8 outputs per thread (so
    256 threads); `tile-sizes` overrides the tile, as `M,N,K` (8 x 8 per
    thread) or `M,N,K,TM,TN`.

    With `precision=tf32` or `3xtf32`, or for bf16/f16 operands (whatever
    the option), a `fuser.matmul` gets the tensor-core strategy `mma`
    instead: `tile = [BM, BN, BK, WM, WN, STAGES]` (block tile, warp tile,
    cp.async pipeline depth) and one warp per warp tile; `tile-sizes` takes
    `M,N,K` (warps of up to 64 x 64) or all six.

    On sm_90a, tf32, bf16 and f16 matmuls whose operands are both K-major
    (x * W^T) with a static, non-zero K whose rows are a multiple of 16
    bytes apart get the strategy `wgmma_tma`: a producer warpgroup copies
    128-byte-swizzled stages with TMA (tensor maps encoded by the runtime),
    two consumer warpgroups run warpgroup MMAs of 64 x BN, blocks loop over
    the output tiles (`max_grid` = 132), `tile = [BM, BN, BK, 16, BN,
    STAGES]`, block = consumers + 128. Other K-major bf16/f16 matmuls get
    `wgmma` (cp.async copies by every thread), the rest mma.sync.
    `tensor-core-kernel=mma|wgmma|wgmma-tma` forces one where the operands
    allow it (with a remark when wgmma-tma does not apply). wgmma truncates
    f32 operands to tf32 where mma.sync rounds them: about 2.5x the error
    (2.5e-3 on W2, within the users' 1e-2).

    Under the default `precision=fp32` an f32 matmul stays fp32-accurate.
    On sm_90a, when the operands suit `wgmma_tma` (K-major A, TMA-copyable
    K; B K-major, or N-major (x * W, torch.bmm) with N rows a multiple of 16
    bytes apart and, batched, K a multiple of 32: the kernel transposes it
    in shared memory; a group norm's groups whole 8-column powers of two
    dividing 128), it
    gets `wgmma_tma` with `precision = "3xtf32"` and `promote_every = 64`
    (128 from K = 4096, where cuBLAS SGEMM's error, the bar, is larger):
    three tf32 products per step (A·B + A·B_lo + A_lo·B, lo = x minus its
    tf32 truncation), the tensor cores' sums added into fp32 registers
    every promote_every K, compensated: past the fp32 peak (2.0x eager
    PyTorch on W2),
    with errors within cuBLAS SGEMM's; tile [128, 128, 32, 16, 128, 3]. Otherwise, for sm_90/sm_90a (whose fp64
    tensor cores match the fp32 FMA peak), the `mma` strategy with
    `precision = "fp64"`: operands widened exactly to f64, fp64 products and
    sums. Any other chip, or groups that fit neither, gets FFMA.
    `fp32-kernel=3xtf32|fp64|ffma` forces one (with a remark where it does
    not apply); with `report`, a remark on each matmul names the kernel and
    why. `fp32-kernel=tf32_2xbf16` (or `precision=tf32_2xbf16`) asks for
    3xtf32's kernel with the two cross terms as one bf16 product (bf16 runs
    at twice tf32's rate): about 2^-19 error per product, 2-4x cuBLAS
    SGEMM's, where it applies; elsewhere the same fallbacks.

    A pointwise group that reads one input with the result's two innermost
    dimensions swapped (x.T, a batched transpose, the K-major operand
    copies), and no other input strided along the result's rows, gets
    `strategy = "pointwise_transpose"`, `tile = [64, 64]`, 256 threads:
    the row kernel would read that input down its columns, one element per
    32-byte sector; the tiled kernel stages 64 x 64 tiles through shared
    memory so both the reads and the writes are coalesced. Not when a
    swapped size is statically 1 (already contiguous). `block-size`,
    `vector-width`, `vectors-per-thread` and `l2-prefetch` configure the
    row kernel only (`l2-prefetch`: its loads of the inputs it reads in the
    result's order ask the L2 for that many bytes around each; off by
    default, neutral on W1 on an H100).

    Reductions no fusion group took (linalg.generic with reduction loops,
    an output indexed by the parallel loops and a body that folds one value
    into the accumulator with add, mul, min, max, and, or or xor) get the
    discardable attribute `fuser.config` with strategy `reduction`, for
    `fuser-reduction-to-gpu`: `tile = [S, D]`, S threads per output element
    (a power of two: more while the outputs alone would not fill the GPU,
    so long reductions into few outputs still spread), D apart: consecutive
    (D = 1) when the widest input's innermost dimension is reduced, else a
    block-row apart (D = B / S) so each warp reads 32 neighbouring outputs.
    Few outputs of a long static extent (a scalar loss), whose blocks would
    hold at most half of the 2^18 threads that fill an H100, get `tile =
    [S, D, P]`: two kernels, P blocks per output each reducing a slice and
    a second kernel combining the P partials in a fixed order
    (ConfigureReductions.cpp has the rule). With `report`, a remark says
    which, or why a reduction stays with the generic fallback.

    Wave tiles: a static 3xtf32 `wgmma_tma` matmul whose 128 x 128 tiles
    leave much of the last wave of 132 blocks idle gets 128 x 96 tiles (4
    stages) where their waves are predicted at least 5% shorter, one taking
    0.83x a 128 x 128 tile's time (1000 x 3000 x 1000: 256 tiles in 2 waves
    instead of 192 in 2, 1.99x cuBLAS SGEMM instead of 1.65x). Not with a
    group norm, nor for products split K takes, nor under `tile-sizes`.

    Split K: a `wgmma_tma` matmul with static sizes whose output tiles
    fill at most half a wave (132 blocks) and whose K holds at least two
    slices of 1024 gets `split_k = S`: S slices of K such that tiles x S
    is about one wave, each block's raw sums stored for a second kernel
    that adds them in order and applies the epilogue (M = N = 256, K =
    131072: 4 tiles, S = 33). Not with a group norm, whose statistics need
    the whole sums in the first kernel. `split-k=N` forces N slices (1:
    never split) where the strategy can split.

    Tile order: a tf32, bf16 or f16 `wgmma_tma` matmul with a dynamic M or
    more than 8 M tiles gets `group_m = 8`: its persistent blocks walk the
    output tiles in bands of 8 M tiles, so that A is read from DRAM once,
    not once per N tile (GemmStrategy.cpp has the measurements). Not
    3xtf32, which bands made slower.

    Clusters, on request: `cluster-m=2` runs `wgmma_tma` matmuls with
    unsplit K, unbatched, in pairs of blocks along M, each copying half of
    their common B tile into both by TMA multicast (`cluster_m = 2`), with a
    remark where a matmul cannot. Off by default: on an H100 it halved the L2
    reads of B but moved tf32 and bf16 GEMM times by -2% to +5%
    (MatmulCluster.cpp).

    ```mlir
    %r = fuser.pointwise ins(%x : tensor<?xf32>) maps [...]
           {config = #fuser.config<strategy = "pointwise", block = [256, 1, 1],
                                   vector_width = 4, max_grid = 1048576>} ...
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target chip: its kernels and tunings come from the chip table "
           "(fuser/Dialect/Fuser/IR/Chips.h); unknown chips are errors">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Override: threads per block for pointwise groups (0: the chip's "
           "measured choice, else 1024)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Override: elements per vector access, 1, 2 or 4 (0: heuristic)">,
    Option<"vectorsPerThread", "vectors-per-thread", "int64_t",
           /*default=*/"0",
           "Override: vectors each thread of a pointwise kernel loads before "
           "it stores, per loop iteration (0: heuristic)">,
    Option<"l2Prefetch", "l2-prefetch", "int64_t", /*default=*/"-1",
           "Override: bytes the L2 fetches around each streamed load of a "
           "pointwise kernel, 64, 128 or 256 (PTX .L2::<n>B, PTX 7.4); 0: "
           "plain loads (-1: heuristic)">,
    Option<"maxGrid", "max-grid", "int64_t", /*default=*/"-1",
           "Override: maximum blocks per launch; 0 means unlimited (-1: heuristic)">,
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "Arithmetic precision policy of f32 matmuls: fp32 (at least fp32 "
           "accurate; fp32-kernel picks the kernel), tf32 or 3xtf32 (tensor "
           "cores), tf32_2xbf16 (fp32-kernel=tf32_2xbf16); bf16/f16 matmuls always run on tensor cores in their own "
           "type">,
    Option<"fp32Kernel", "fp32-kernel", "std::string", /*default=*/"\"auto\"",
           "Kernel of fp32-precision f32 matmuls: auto (by chip and "
           "operands: 3xtf32, else fp64, else ffma), 3xtf32 (split tf32 on "
           "wgmma_tma with promoted fp32 sums, sm_90a), tf32_2xbf16 (its "
           "cross terms as one bf16 product: 2-4x SGEMM's error), fp64 (f64 tensor "
           "cores, exact products) or ffma (fp32 FMA on CUDA cores)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark on each matmul naming its kernel and why">,
    Option<"tensorCoreKernel", "tensor-core-kernel", "std::string",
           /*default=*/"\"auto\"",
           "Kernel of tf32/bf16/f16 matmuls: auto (on sm_90a with K-major "
           "operands: wgmma-tma when K is static, else wgmma for bf16/f16; "
           "otherwise mma.sync), mma, wgmma or wgmma-tma">,
    ListOption<"tileSizes", "tile-sizes", "int64_t",
               "Override: matmul tile sizes M,N,K or M,N,K,TM,TN (empty: heuristic)">,
    Option<"promoteEvery", "promote-every", "int64_t", /*default=*/"-1",
           "Override: K elements between promotions of 3xtf32 wgmma_tma "
           "sums into fp32 registers, a multiple of BK (0: never, which "
           "loses accuracy over long K; -1: heuristic, 64 below K = 4096 "
           "and 128 from it)">,
    Option<"splitK", "split-k", "int64_t", /*default=*/"0",
           "Override: slices of K per wgmma_tma matmul, partial sums added "
           "by a second kernel (0: heuristic; 1: never split)">,
    Option<"clusterM", "cluster-m", "int64_t", /*default=*/"0",
           "Blocks per thread-block cluster of a wgmma_tma matmul, sharing "
           "B by TMA multicast: 2, or 0 and 1 for none (the default: "
           "measured neutral on an H100)">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def FuserSlicesToGathersPass
    : Pass<"fuser-slices-to-gathers", "mlir::func::FuncOp"> {
  let summary = "Slices, concatenations and pads no kernel absorbed as gather kernels";
  let description = [{
    Bufferization makes a `tensor.extract_slice` (a chunk, a slice `x[:, 1:5]`,
    the q, k and v of an unbound qkv projection) a strided view of its
    source's buffer, and a `tensor.insert_slice`, `tensor.concat` or
    `tensor.pad` a copy into views of a new buffer. The runtime passes only
    dense buffers to kernels, so such a view in the host code is an error of
    `fuser-verify-host-code`. Run after the fusion groups became kernels and
    before bufferization, this pass rewrites each of these ops still in a
    function's body (used, and not read in place by a kernel, as reductions
    read pooling's pads) into a `linalg.generic` that computes every element
    of the result from its indices, which the generic fallback makes a
    kernel:

    - a slice reads `source[offset + stride * i]` (at the offset along the
      dimensions it drops);
    - an insertion reads the source where `i` falls on the slice, else the
      destination;
    - a concatenation reads the input whose range holds `i` along the
      dimension, at `i` less the sizes of those before it;
    - a pad reads `source[i - low]` where that is in bounds, else its
      padding value (a padding computed from the indices is left alone).

    Each element is read from one tensor (an `scf.if` picks it), so a
    concatenation reads its inputs once. With `report`, a remark names each
    op so computed.

    ```mlir
    %s = tensor.extract_slice %x[0, 8] [4, 8] [1, 1]
        : tensor<4x16xf32> to tensor<4x8xf32>
    // becomes
    %s = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1)], ...}
        outs(%e : tensor<4x8xf32>) {
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %jj = arith.addi %c8, %j : index  // the offset plus stride * j
      %v = tensor.extract %x[%i, %jj] : tensor<4x16xf32>
      linalg.yield %v : f32
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark on each op computed by a gather kernel">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserCopiesToLinalgPass : Pass<"fuser-copies-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Rewrite buffer copies as linalg.copy so the fallback makes them kernels";
  let description = [{
    Bufferization may copy a buffer (an init reused in place, a reshape that
    needs its own storage). Host code cannot copy device memory, but the
    generic fallback turns any linalg op into a kernel, so each
    `memref.copy` becomes a `linalg.copy` between the same buffers.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserEraseUnusedResultsPass
    : Pass<"fuser-erase-unused-results", "mlir::func::FuncOp"> {
  let summary = "Drop linalg.generic results nobody reads";
  let description = [{
    torch-mlir lowers softmax, log_softmax and torch.max(x, dim) through a
    reduction with two results, the maximum and its index; most models read
    only the maximum. A reduction kernel takes one result, so the pair went
    to the generic fallback. This pass drops a `linalg.generic` result that
    has no uses when the results that stay do not read its running value
    (its output block argument, or anything computed from it), along with
    the body ops that only computed it: the index goes, and the maximum is
    a plain max reduction. Upstream's unused-result canonicalization keeps
    such an output, since the body reads its block argument.

    An all-parallel `linalg.generic` whose body never reads an output's
    initial value gets `tensor.empty` there instead: torch-mlir's gathers
    (a loss's pick of the target's logit) write into a fill of zeros, which
    was a kernel of its own.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserConstantPowersPass
    : Pass<"fuser-constant-powers", "mlir::func::FuncOp"> {
  let summary = "Raise to a constant power as PyTorch does: products, sqrt, reciprocals";
  let description = [{
    torch-mlir lowers `x.pow(2.0)`, `torch.norm(x)` (`|x|^2` summed, then
    `^0.5`), `x ** 0.5` and their kin to `math.powf` with a constant
    exponent: the general power, a log and an exp of two dozen instructions
    per element on the GPU, which made a row norm compute-bound. PyTorch's
    kernels special-case these exponents (pow_tensor_scalar: 2 is `x * x`,
    3 is `x * x * x`, 0.5 is `sqrt(x)`, -1 is `1 / x`, -2 is `1 / (x * x)`;
    its norms sum `x * x` and take `sqrt`). This pass rewrites
    `math.powf %x, %c` with such a constant `c` (a scalar or a splat) the
    same way, so the results are PyTorch's (for 0.5 that is PyTorch's, not
    IEEE pow's, answer at -0.0 and -inf: sqrt gives -0.0 and NaN where pow
    gives +0.0 and +inf; PyTorch and inductor both take sqrt there). Other
    exponents (-0.5 included:
    PyTorch's rsqrt is an approximation fuser does not reproduce) keep
    `math.powf`.

    ```mlir
    %y = math.powf %x, %c2 : f32          // %c2 = 2.0
    // becomes
    %y = arith.mulf %x, %x : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def FuserFoldUnitExpandsPass
    : Pass<"fuser-fold-unit-expands", "mlir::func::FuncOp"> {
  let summary = "Elementwise ops read through a unit-dim expand_shape compute in its shape";
  let description = [{
    torch-mlir broadcasts a per-channel vector computed elementwise
    (BatchNorm's `rsqrt(running_var + eps)`) into an NCHW tensor through a
    `tensor.expand_shape` to `C x 1 x 1`, which fuser-fuse-pointwise cannot
    see through: the vector got a kernel of its own, one launch more per
    BatchNorm. Where an elementwise `linalg.generic`'s one use is an
    `expand_shape` that only adds size-1 dimensions, the generic is rebuilt
    in the expanded shape (its inputs read through the same maps, composed);
    its consumers then read it through a broadcast and fuse it, computing it
    per element as they read it.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserFuseGatherProducersPass
    : Pass<"fuser-fuse-gather-producers", "mlir::func::FuncOp"> {
  let summary = "Compute a gather's indices from their elementwise producers' inputs";
  let description = [{
    A gather (an all-parallel `linalg.generic` whose body extracts elements
    at computed indices: a loss's pick of each row's target logit) reads
    indices that elementwise generics computed (the target, or 0 where it is
    `ignore_index`). No fusion group takes a gather, so each producer was a
    kernel of its own, writing the indices for the gather to read back.
    This pass folds each elementwise producer that only the gather reads
    into the gather's body (upstream's elementwise fusion), until none is
    left: the gather reads the targets themselves. Runs after
    `fuser-fold-unit-expands`, which rebuilds a producer read through a
    unit-dimension reshape in the gather's shape. With `report`, a remark
    on each gather counts what it absorbed.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark on each gather that absorbed producers">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserFoldScanFlipsPass
    : Pass<"fuser-fold-scan-flips", "mlir::func::FuncOp"> {
  let summary = "A flip, a scan and a flip back as one reversed fuser.scan";
  let description = [{
    torch-mlir writes a reversed cumsum (`x.flip(d).cumsum(d).flip(d)`, and
    cumsum's backward) as a flip of the input, a scan along `d` and a flip of
    its result, each flip a `linalg.generic` that extracts
    `source[..., last - i, ...]`, which no fusion group takes (three kernels,
    two of them the generic fallback). Where a scan's input is such a flip
    along its dimension and its output's only user is one, the three become
    one `fuser.scan` with `reverse` set over the flip's source. The scan's
    accumulator (the last result in the fold's order) is unchanged.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def FuserFoldUnitTransposesPass
    : Pass<"fuser-fold-unit-transposes", "mlir::func::FuncOp"> {
  let summary = "Transposes that move only dimensions of size 1 as reshapes";
  let description = [{
    torch-mlir's einsum (`"bijl,lk->bijk"`) and other permutes write their
    result through a `linalg.transpose` that moves only dimensions of size 1
    (`[..., 1, 768]` to `[..., 768, 1]`). No element moves in memory, but the
    transpose is a copy kernel of the whole result. Where every dimension
    that is not 1 keeps its order, the transpose becomes a
    `tensor.collapse_shape` to those dimensions and a `tensor.expand_shape`
    to its result: views, which fold with the reshapes around them. A
    dynamic dimension counts as one that is not 1: if it is 1 at run time,
    keeping its order is still a view.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def FuserFoldBroadcastExtractsPass
    : Pass<"fuser-fold-broadcast-extracts", "mlir::func::FuncOp"> {
  let summary = "Read torch-mlir's dynamic broadcasts through indexing maps";
  let description = [{
    torch-mlir broadcasts a tensor along a dimension of dynamic size (`expand`,
    `expand_as`, `broadcast_to`: F.normalize's division by the row norms) with
    a `linalg.generic` that extracts each element at computed indices: a
    loop index, a constant, or `select(S == 1, 0, index)` (the broadcast of a
    size-1 dimension decided at run time). fuser's groups read tensors
    through indexing maps only, so such a generic fused with nothing and ran
    in the generic fallback kernel.

    This pass moves each such `tensor.extract` of a tensor defined outside
    the body into a new input of the generic, read through the map the
    indices describe: a loop index `k` (a `linalg.index` of this generic)
    is `dk`, a constant is the constant. `select(S == 1, 0, index k)` is
    `dk` where `S` is the size of loop `k` itself (the same size value,
    followed through `tensor.dim`, `tensor.empty` and destination-style
    results): when `S` is 1 the loop's index is 0 too. The tensor must have
    each such loop's size along the dimension the loop reads (linalg takes
    loop extents from its operands), so a read of part of a larger tensor
    stays an extract, as does anything else.

    ```mlir
    %b = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1)], ...}
        outs(%e : tensor<?x64xf32>) {
      %i = linalg.index 0 : index
      %one = arith.cmpi eq, %n, %c1 : index      // %e = tensor.empty(%n)
      %r = arith.select %one, %c0, %i : index
      %v = tensor.extract %s[%r, %c0] : tensor<?x1xf32>
      linalg.yield %v : f32
    }
    // becomes
    %b = linalg.generic {indexing_maps = [(d0, d1) -> (d0, 0),
                                          (d0, d1) -> (d0, d1)], ...}
        ins(%s : tensor<?x1xf32>) outs(%e : tensor<?x64xf32>) {
    ^bb0(%v: f32, %out: f32):
      linalg.yield %v : f32
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserSinkIntoExtractsPass
    : Pass<"fuser-sink-into-extracts", "mlir::func::FuncOp"> {
  let summary = "Compute a gathered element from its elementwise producer's inputs";
  let description = [{
    A gather (`linalg.generic` whose body extracts an element at a computed
    index: cross_entropy's and nll_loss's pick of each row's target) reads
    a tensor that an elementwise generic computed in full: the whole
    log_softmax, of which it takes one element per row. This pass rewrites
    each `tensor.extract` in a generic's body whose tensor an elementwise
    `linalg.generic` produced (parallel loops, an identity output map,
    inputs read through projected permutations or constants) into extracts
    of that producer's inputs at the corresponding indices and a copy of
    its body. Applied until nothing changes, the gather reads the logits
    and the row statistics, and the full log_softmax, no longer read, is
    never computed or written. It applies where the gather takes at most as
    many elements as the producer computes (or either is dynamic).

    ```mlir
    %l = linalg.generic ... ins(%x, %s : tensor<8x10xf32>, tensor<8x1xf32>)  // (i, j), (i, 0)
        { %d = arith.subf %a, %b : f32 ... }
    %g = linalg.generic ... { %v = tensor.extract %l[%i, %t] ... }
    // becomes
    %g = linalg.generic ... {
      %a = tensor.extract %x[%i, %t] : tensor<8x10xf32>
      %b = tensor.extract %s[%i, %c0] : tensor<8x1xf32>
      %v = arith.subf %a, %b : f32 ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserGeneralizePoolingPass
    : Pass<"fuser-generalize-pooling", "mlir::func::FuncOp"> {
  let summary = "Rewrite linalg's named pooling ops as reduction generics";
  let description = [{
    torch-mlir lowers avg_pool and max_pool (1-D, 2-D, 3-D) to
    `linalg.pooling_*` named ops (`pooling_nchw_sum`, `pooling_nchw_max`,
    ...) on a padded input. This pass rewrites each on tensors as the
    `linalg.generic` it stands for: parallel loops over the output, reduction
    loops over the window, the input read through `stride * i + dilation * k`
    maps. fuser-configure-kernels then gives it a reduction kernel (one
    thread per output, neighbouring outputs on neighbouring threads, the
    window's reads shared through the caches) instead of the generic
    fallback, and the lowering reads the input through those maps without a
    strided view.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserDivideByReciprocalPass
    : Pass<"fuser-divide-by-reciprocal", "mlir::func::FuncOp"> {
  let summary = "Divide by a constant as PyTorch does: multiply by its reciprocal";
  let description = [{
    PyTorch's CUDA kernels divide a tensor by a scalar as `x * (1 / c)`, the
    reciprocal taken once in the op's math type (div_true_kernel_cuda for a
    scalar divisor; gelu's `x * M_SQRT1_2`); torch-mlir's linalg divides
    (`x / c`, `x / sqrt(2)`), an IEEE division per element that costs a
    dozen instructions on the GPU. This pass rewrites `arith.divf %x, %c`
    with a constant `c` (a scalar or a splat) into `arith.mulf %x, 1/c` for
    f32 and f64, where PyTorch's math type is the element type: the
    results are PyTorch's, within one ulp of the division's.

    Left alone: f16 and bf16 (PyTorch takes the reciprocal in f32 there), and
    divisors whose reciprocal is not a normal number (0, infinities, NaN,
    and magnitudes past 2^126 in f32).

    ```mlir
    %y = arith.divf %x, %cst : f32          // %cst = 1.41421354
    // becomes
    %r = arith.constant 0.707106769 : f32
    %y = arith.mulf %x, %r : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FuserOnlineSoftmaxPass
    : Pass<"fuser-online-softmax", "mlir::func::FuncOp"> {
  let summary = "A softmax's maximum and sum of exponentials in one reduction";
  let description = [{
    torch-mlir lowers softmax, log_softmax and logsumexp to a max reduction
    m of the input x, then a sum reduction of exp(x - m), then the output:
    three reads of x. This pass replaces the two reductions by one with two
    results, which keeps the running maximum m and the running sum s of
    exp(x - m), rescaling s when m grows (the online softmax), so the
    input is read twice. The body folds an element x into (m, s) as:

    ```
    d = x - m;  e = (d is NaN) ? 0 : exp(-|d|);  w = (x == +inf) ? NaN : 1
    s = (x > m) ? s * e + w : s + w * e;  m = maximumf(m, x)
    s = (m is NaN) ? NaN : s
    ```

    one exp per element: the merge of (m, s) with x's own state (x, w),
    which is also the rule by which the kernel merges partial results (the
    op is marked `fuser.online_softmax` for fuser-reduction-to-gpu). NaN
    propagates to the maximum and +inf makes the sum NaN, as in PyTorch;
    -inf elements add 0, and a row of -inf gives m = -inf (whose softmax
    is NaN, as in PyTorch). The sum agrees with the two-pass one to
    rounding.

    Matched: a max reduction (maximumf into -inf) of an input x, and a sum
    (addf into +0.0) of exp(x - m) over the same loops, x read the same way
    and m the max's result (or a reshape of it that adds or drops unit
    dimensions, read through keepdim's `(d0, 0)` or the output's map) at
    the output point. m may also be torch.logsumexp's shift of the maximum,
    `where(|max| == inf, 0, max)`: an elementwise chain from the max that
    evaluates to x at finite points (up to +-FLT_MAX), to 0 at +-inf and to
    NaN at NaN. The sum's users then read `select(max == +inf, +inf, s)`,
    PyTorch's sum of exp(x - 0) where a row holds +inf.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each softmax whose statistics become one pass">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserMergeSiblingReductionsPass
    : Pass<"fuser-merge-sibling-reductions", "mlir::func::FuncOp"> {
  let summary = "Reductions that read a common input become one reduction";
  let description = [{
    Two reductions over the same loops (iterators, static extents and
    output map alike) that read a common input through the same map, and
    of which neither reads the other, become one `linalg.generic` with the
    results of both (up to 4), so their kernel reads the shared input
    once. A triplet margin loss computes the distances from the anchor to
    the positive and to the negative: two sums over rows that both read the
    anchor; merged, the anchor is read once instead of twice. The merged
    op stands where the later one stood when every user of the earlier one
    comes after it, else where the earlier one stood when every operand of
    the later one exists by then. A softmax's online statistics
    (`fuser.online_softmax`) take a sibling: their maximum and sum stay
    results 0 and 1 (the row sum of a label-smoothed cross-entropy joins
    them, see `fuser-split-shifted-sums`). Totals of vectors (one
    reduction loop, no parallel one: a loss's sum and its count of targets
    kept) merge without a common input, which saves a launch. Value-and-index
    reductions, two online ones, and reductions with dynamic extents are
    left alone.

    ```mlir
    %d1 = linalg.generic {...} ins(%a, %p) outs(%z) { ... sum (a - p)^2 }
    %d2 = linalg.generic {...} ins(%a, %n) outs(%z) { ... sum (a - n)^2 }
    // becomes
    %d:2 = linalg.generic {...} ins(%a, %p, %n) outs(%z, %z) { ... both }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each pair of reductions merged">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserSplitShiftedSumsPass
    : Pass<"fuser-split-shifted-sums", "mlir::func::FuncOp"> {
  let summary = "A row sum of values shifted by their softmax statistics: "
                "sum(x) - n g, the logits read once";
  let description = [{
    A label-smoothed cross-entropy adds the row sum of log_softmax(x),
    `sum_j (x_j - m - log s)`, where m and s are the row's softmax
    statistics (`fuser-online-softmax`'s reduction of x): a second
    reduction over the logits, which reads them again from memory. The sum
    splits into `sum_j x_j - n (m + log s)` (n the reduced extent): the
    first part reads only x and `fuser-merge-sibling-reductions` joins it
    to the statistics' reduction (one read of the logits), and the shift
    becomes an elementwise op over the outputs.

    Rewritten: a float sum (`addf` into its init), over static extents, of
    a tree of `addf`, `subf` and `negf` whose leaves are terms that vary
    along the reduced loops (reading no input that is constant along them)
    and exactly two subtracted inputs constant along them: the maximum m
    and the log (an elementwise `math.log`) of the sum s of the online
    softmax statistics of an input the sum reads along the loops, through
    reshapes, those statistics having the sum's loops and output map and
    room for one more result (so that the merge follows).

    Rounding: sum(x) and n g round at the magnitudes n max|x| and n |g|
    (g = m + log s, at least max x), where the shifted sum rounds at that
    of its terms x - g, none above 0. Logits far from 0 beside their spread
    (all near 1000, rows of 1000) make the split row sum's error larger
    relative to itself (by about 1000 / 7 there), but a loss scales the
    row sum by its smoothing over n: about 1e-6 of the loss there, far
    within atol = rtol = 1e-4. Only log_softmax's shift is split; others
    (a mean subtracted, whose terms cancel) are left alone.

    ```mlir
    %r = linalg.generic {... ["parallel", "reduction"]}
        ins(%x, %m, %l : tensor<8x1000xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
        outs(%zero : tensor<8xf32>) {
      ^bb0(%in: f32, %max: f32, %logsum: f32, %acc: f32):
        %d = arith.subf %in, %max : f32
        %t = arith.subf %d, %logsum : f32
        %s = arith.addf %t, %acc : f32
        linalg.yield %s : f32 }
    // becomes
    %sx = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%zero) {
      ... sum of %in }
    %r = linalg.generic {... ["parallel"]} ins(%sx, %m, %l) outs(%e) {
      ... %sx + 1000 * (-%max - %logsum) }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each sum split">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserScaleSumTermsPass
    : Pass<"fuser-scale-sum-terms", "mlir::func::FuncOp"> {
  let summary = "Scale a sum's terms instead of the sum: a mean is one kernel";
  let description = [{
    torch-mlir lowers a mean, an average pool and a loss's mean reduction to
    a sum (a `linalg.generic` reduction into a zero fill) and then an
    elementwise product of the sum by a constant (`x / c` after
    fuser-divide-by-reciprocal). On its own the product is a second kernel
    that reads and writes every output again: avg_pool2d's output, as large
    as its input. Where the sum has no other user, this pass multiplies
    each term by the constant inside the reduction's body and drops the
    product: `sum(x) * c` becomes `sum(x * c)`, one kernel.

    The two agree to the rounding of a sum: each product is within half an
    ulp of its exact value (exact for a power of two, as in most means),
    against one rounding of the final product. Only float sums (`addf`)
    into +0.0 are rewritten; a product with anything but a constant, a sum
    with other users, and max, min or value-and-index reductions are left
    alone.

    ```mlir
    %s = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%zero) {
      ^bb0(%in: f32, %acc: f32):
        %a = arith.addf %in, %acc : f32
        linalg.yield %a : f32 }
    %m = linalg.generic {... ["parallel"]} ins(%s) outs(%e) {
      ^bb0(%in: f32, %out: f32):
        %p = arith.mulf %in, %c : f32
        linalg.yield %p : f32 }
    // becomes
    %m = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%zero) {
      ^bb0(%in: f32, %acc: f32):
        %t = arith.mulf %in, %c : f32
        %a = arith.addf %t, %acc : f32
        linalg.yield %a : f32 }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each scale folded into a sum">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def FuserWidenHalfSumsPass
    : Pass<"fuser-widen-half-sums", "mlir::func::FuncOp"> {
  let summary = "Sum f16 and bf16 tensors in f32, rounding once";
  let description = [{
    torch-mlir lowers the sum of a bf16 or f16 tensor (a bias gradient under
    torch.autocast, say) to a `linalg.generic` reduction whose accumulator
    has the tensor's type, so every term is rounded to 8 or 11 bits: over a
    thousand terms the result is off by percents. PyTorch's kernels sum
    such tensors in f32 and round the result once. This pass does the same:
    a float sum (`addf`) into a 16-bit fill accumulates into an f32 fill of
    the same constant, each term extended (`arith.extf`), and an elementwise
    `arith.truncf` rounds the result to the original type. Max, min and
    value-and-index reductions are exact in any type and are left alone.

    ```mlir
    %s = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%zero) {
      ^bb0(%in: bf16, %acc: bf16):
        %a = arith.addf %in, %acc : bf16
        linalg.yield %a : bf16 }
    // becomes
    %w = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%zero32) {
      ^bb0(%in: bf16, %acc: f32):
        %e = arith.extf %in : bf16 to f32
        %a = arith.addf %e, %acc : f32
        linalg.yield %a : f32 }
    %s = linalg.generic {... ["parallel"]} ins(%w) outs(%empty) {
      ^bb0(%in: f32, %out: bf16):
        %t = arith.truncf %in : f32 to bf16
        linalg.yield %t : bf16 }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each sum widened">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserWidenBoolReductionsPass
    : Pass<"fuser-widen-bool-reductions", "mlir::func::FuncOp"> {
  let summary = "Accumulate i1 all/any reductions in i32 for the reduction kernel";
  let description = [{
    torch-mlir's scaled_dot_product_attention asks, for each row of scores,
    whether all are -inf (to give such a row zeros): a `linalg.generic`
    reducing an i1 comparison with `arith.andi` into an i1 fill. The
    reduction kernel takes accumulators of whole bytes, so the reduction
    went to the generic fallback, a thread per row: a tenth or more of an
    attention block's time. This pass rewrites an i1 reduction whose body
    combines the accumulator once, with `andi`, `ori` or `xori`, with a term
    computed from the inputs, to accumulate in i32 (each term extended to 0
    or 1, the init extended, a fill staying a fill) and truncates the result
    with an elementwise `arith.trunci`. Bitwise ops on 0 and 1 give the i1
    results, so the result is the same.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each reduction widened">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserUnitParallelLoopPass
    : Pass<"fuser-unit-parallel-loop", "mlir::func::FuncOp"> {
  let summary = "Give a generic without parallel loops one of extent 1 for the fallback";
  let description = [{
    The generic fallback makes a linalg op's parallel loops a grid of
    threads. An op on buffers with none, such as a reduction of a whole
    tensor to a scalar that no reduction kernel takes (`torch.any` of a
    mask: an i1 result; a 1-D `linalg.dot`), stayed a loop on the host,
    which the kernel manifest cannot describe, and the module failed to
    compile. This pass gives such an op (a named op as the generic it
    stands for) a leading parallel loop of extent 1 that
    indexes a new unit dimension of each output (a `memref.expand_shape`
    view), so that it runs in a kernel of one thread: correct, not fast.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def FuserGuardAssertsPass
    : Pass<"fuser-guard-asserts", "mlir::func::FuncOp"> {
  let summary = "Put the asserts in linalg bodies under a branch, for the fallback";
  let description = [{
    torch-mlir checks gathered indices with `cf.assert` in the generic's
    body (F.embedding, torch.gather: "index must be smaller than dim
    size"). Upstream's conversion of parallel loops to a GPU launch gives
    up on a loop nest whose innermost body holds such an assert directly,
    so such a generic whose extents the fallback's 16 x 16 tiles divide
    stayed a loop on the host and the module failed to compile (F.embedding
    did, before `fuser-parallel-generics-to-gpu` took its gathers; a
    generic with asserts that reads its output still takes the tiles).
    This pass rewrites each `cf.assert %ok, msg` in a linalg body as
    `scf.if %ok {} else { cf.assert %ok, msg }`: the same check, which
    the conversion takes.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def FuserReductionLoopsInnermostPass
    : Pass<"fuser-reduction-loops-innermost", "mlir::func::FuncOp"> {
  let summary = "Put the reduction loops of generic ops innermost for the fallback";
  let description = [{
    The generic fallback makes the parallel loops of a linalg op that lead
    its loop nest a grid of threads and runs the rest in each thread. A
    reduction over a middle dimension (torch.max(x, dim=1) of a 3-D tensor:
    values and indices, which no reduction kernel takes) left only the
    outermost dimension parallel: 128 threads for 128 x 4096 x 4095, each
    looping over 16 M elements. This pass interchanges each
    `linalg.generic` with reduction loops so that its parallel loops come
    first, in their order, and the reduction loops last, in theirs: every
    output element is a thread, and each still folds its inputs in the same
    order (ties resolve as before).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuserMergeGpuModulesPass : Pass<"fuser-merge-gpu-modules", "mlir::ModuleOp"> {
  let summary = "Move every kernel into one gpu.module so a module yields one PTX";
  let description = [{
    Kernels come from fuser's own lowerings and from upstream outlining, each
    in its own gpu.module. The runtime loads one PTX image per compiled
    module, so this pass moves every gpu.func into the gpu.module named by
    `module-name` (created if needed), renames clashing kernels and updates
    the gpu.launch_func references. A float argument that every launch of a
    kernel passes the same constant for (the generic fallback captures
    torch-mlir's f64 slopes) becomes an immediate in the kernel: the kernel
    manifest cannot describe an f64 kernel argument.
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string",
           /*default=*/"\"fuser_kernels\"", "Name of the merged gpu.module">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def FuserLowerTensorMapParamsPass
    : Pass<"fuser-lower-tensor-map-params", "mlir::gpu::GPUModuleOp"> {
  let summary = "Pass TMA tensor maps to kernels by value (__grid_constant__)";
  let description = [{
    A kernel that copies with `cp.async.bulk.tensor` takes each tensor map
    (`fuser.tensor_map` on the host) as an `!llvm.ptr` parameter listed in
    its `fuser.tensor_map_args` attribute. After the kernels are lowered to
    `llvm.func`, this pass gives each listed parameter `llvm.byval =
    !llvm.array<128 x i8>`, `llvm.align = 64` and `nvvm.grid_constant`, so
    the PTX parameter is the 128-byte map itself, read in place, as CUDA's
    `const __grid_constant__ CUtensorMap` is. It runs after
    convert-gpu-to-nvvm, which drops argument attributes it does not know,
    and NVVM accepts `nvvm.grid_constant` only on kernels.

    ```mlir
    // Before: llvm.func @k(%map: !llvm.ptr, ...) attributes
    //   {fuser.tensor_map_args = array<i64: 0>, nvvm.kernel}
    // After:
    llvm.func @k(%map: !llvm.ptr {llvm.align = 64 : i64,
        llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, ...)
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def FuserNarrowFPowIExponentsPass
    : Pass<"fuser-narrow-fpowi-exponents", "mlir::gpu::GPUModuleOp"> {
  let summary = "Give math.fpowi the 32-bit exponent libdevice's powi takes";
  let description = [{
    convert-gpu-to-nvvm lowers `math.fpowi` to a call of libdevice's
    `__nv_powif(float, int)` / `__nv_powi(double, int)` whatever the width
    of the exponent, so torch-mlir's `x ** 3` (an i64 exponent) passes 64
    bits where the callee reads 32: wrong results, no diagnostic. This pass
    runs before it on the kernels and makes every exponent i32:
    - a narrower one is sign-extended (exact);
    - a wider constant that fits in i32 becomes that i32 constant (exact);
    - otherwise, for f32 and narrower bases, the exponent is saturated to
      the i32 value of the same parity nearest to it (exact too: beyond 2^31
      every such base but +-1 has already overflowed or underflowed, and
      +-1's result depends on the parity alone);
    - an f64 base with such an exponent is an error (f64 has not saturated
      there).

    ```mlir
    %y = math.fpowi %x, %c3 : f32, i64
    // becomes
    %c3_i32 = arith.constant 3 : i32
    %y = math.fpowi %x, %c3_i32 : f32, i32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FuserVerifyEntryPointsPass
    : Pass<"fuser-verify-entry-points", "mlir::ModuleOp"> {
  let summary = "Reject modules whose entry functions fuser cannot compile";
  let description = [{
    The first pass of the GPU pipelines: checks what the runtime will call
    before anything is lowered, so bad input fails with a diagnostic on the
    source instead of an obscure error (or none) deep in the lowering.

    Entry functions are the public functions with a body; the runtime calls
    them with device tensors, so every argument and result must be a dense
    ranked tensor (static or dynamic sizes) of f32, f16, bf16, f64, i1, i8,
    i32 or i64, the dtypes of the kernel manifest. Private functions are
    helpers and may take anything. A module without an entry function has
    nothing to compile, which is reported too (an empty file, say).

    A scalar argument nothing reads (torch.export leaves a Python float it
    specialised into the body as an unused f64 argument) is dropped from
    the signature with a remark, unless something in the module calls the
    function.

    ```mlir
    // error: entry function argument #1 has type 'index'; fuser entry
    // functions take dense ranked tensors of f32, f16, bf16, f64, i1, i8,
    // i32 or i64
    func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<?xf32>
    ```
  }];
}

def FuserVerifyHostCodePass : Pass<"fuser-verify-host-code", "mlir::ModuleOp"> {
  let summary = "Report ops that no lowering turned into a GPU kernel";
  let description = [{
    Runs after the kernel lowerings. The host side of an entry function may
    only compute sizes, allocate buffers and launch kernels; an op that
    neither fusion nor the generic loop fallback lowered (`linalg.softmax`,
    the buffer copy of a `tensor.pad`, ...) would be left on the host, where
    the runtime cannot run it. Each such op gets an error at its source
    location, and so does a loop or an element access of a buffer on the
    host (`scf.for`, `memref.load`, ...), which a lowering left behind.

    ```mlir
    // error: 'linalg.softmax' is not supported: no fuser lowering turns it
    // into a GPU kernel
    linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
    ```
  }];
}

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
