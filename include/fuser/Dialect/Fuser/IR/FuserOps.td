//===- FuserOps.td - fuser fusion group ops ----------------*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
#define FUSER_DIALECT_FUSER_IR_FUSEROPS_TD

include "fuser/Dialect/Fuser/IR/FuserBase.td"
include "fuser/Dialect/Fuser/IR/FuserAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// fuser.pointwise
//===----------------------------------------------------------------------===//

def Fuser_PointwiseOp : Fuser_Op<"pointwise", [
    Pure, IsolatedFromAbove, SingleBlock,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
        ["reifyResultShapes"]>]> {
  let summary = "A fused DAG of elementwise operations";
  let description = [{
    Computes one or more tensors of the same shape elementwise. Each input is
    a ranked tensor or a scalar; `indexing_maps` holds one projected
    permutation per input from the iteration space (the result dimensions) to
    the input's dimensions, so an input broadcasts along the dimensions its
    map drops (as in `linalg.generic`). Scalar and rank-0 inputs use a map
    with no results.

    The body receives one element per input and yields one element per
    result. It is isolated from above: constants live inside it. Only scalar
    `arith` and `math` ops may appear in it.

    Each dynamic result dimension must be read by some input, which supplies
    its size.

    Example (bias add then LeakyReLU):
    ```mlir
    %r = fuser.pointwise ins(%x, %b : tensor<?x64xf32>, tensor<64xf32>)
           maps [affine_map<(d0, d1) -> (d0, d1)>,
                 affine_map<(d0, d1) -> (d1)>] -> tensor<?x64xf32> {
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      %z = arith.constant 0.0 : f32
      %n = arith.constant 0.01 : f32
      %p = arith.cmpf ogt, %s, %z : f32
      %m = arith.mulf %s, %n : f32
      %y = arith.select %p, %s, %m : f32
      fuser.yield %y : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       AffineMapArrayAttr:$indexing_maps,
                       OptionalAttr<Fuser_KernelConfigAttr>:$config);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? `maps` $indexing_maps
    attr-dict `->` type($results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The shared shape of all results.
    ::mlir::RankedTensorType getResultTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getResult(0).getType());
    }
    /// The indexing map of input `i`.
    ::mlir::AffineMap getIndexingMap(unsigned i) {
      return ::llvm::cast<::mlir::AffineMapAttr>(getIndexingMaps()[i])
          .getValue();
    }
    /// True if input `i` is read with the identity map (no broadcast).
    bool isIdentityInput(unsigned i) {
      return getIndexingMap(i).isIdentity() &&
             getIndexingMap(i).getNumResults() ==
                 getResultTensorType().getRank();
    }
    /// The inputs a transposed-tile kernel stages through shared memory:
    /// the read inputs of rank >= 2, of one element type, whose map is the
    /// identity with the two innermost dimensions swapped, when no other
    /// read input reads the result's innermost dimension through a
    /// dimension that is not its own innermost. Empty otherwise.
    ::llvm::SmallVector<unsigned> getTransposedTileInputs();
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

//===----------------------------------------------------------------------===//
// fuser.matmul
//===----------------------------------------------------------------------===//

def Fuser_MatmulOp : Fuser_Op<"matmul", [Pure, IsolatedFromAbove, SingleBlock,
                                         AttrSizedOperandSegments]> {
  let summary = "A matrix product with a fused pointwise epilogue";
  let description = [{
    `result[m, n] = epilogue(sum_k lhs'[m, k] * rhs'[k, n], extra...)` where
    `lhs'` is `lhs` (M x K), or its transpose when `transpose_a` is set
    (`lhs` is K x M: `x.T @ W`), and `rhs'` is `rhs` (K x N), or its
    transpose when `transpose_b` is set (`rhs` is N x K, the layout
    `nn.Linear` stores its weight in).

    Batched (`torch.bmm`): lhs, rhs and result have a leading batch
    dimension of one size B, `result[b, m, n] = epilogue(sum_k lhs'[b, m, k]
    * rhs'[b, k, n], ...)`, and the epilogue maps range over (b, m, n). A
    batched matmul has no group norm.

    The epilogue body receives the accumulator first, then one element per
    `epilogue_inputs` operand, read through `epilogue_maps` from the (m, n)
    iteration space (a bias is `affine_map<(m, n) -> (n)>`). It yields the
    output element.

    ```mlir
    %y = fuser.matmul %x, %w transpose_b
           epilogue_inputs(%b : tensor<256xf32>)
           epilogue_maps [affine_map<(m, n) -> (n)>] -> tensor<?x256xf32> {
    ^bb0(%acc: f32, %bias: f32):
      %s = arith.addf %acc, %bias : f32
      fuser.yield %s : f32
    }
    ```

    With `group_norm(size = G, eps = E)` the epilogue's result is normalized
    over each group of G consecutive columns of a row (mean and biased
    variance, `(v - mean) / sqrt(var + eps)`), and the `then` region maps
    the normalized element to the result. It receives the normalized value
    first, then the same epilogue inputs (a GroupNorm's per-channel gamma and
    beta among them). This is `Linear -> GroupNorm -> pointwise` as one group.

    With a `prologue` region, the product reads `prologue(lhs[m, k],
    p[m, k]...)` in place of `lhs[m, k]`, one element of each
    `prologue_inputs` tensor (each of lhs's shape) beside it: elementwise
    producers of A recomputed as the kernel reads A, so that A never goes
    through memory (the masked gradient of an activation before dX = g·W).
    K-major A only (no `transpose_a`), unbatched.

    ```mlir
    %dx = fuser.matmul %dy, %w prologue_inputs(%y : tensor<?x64xf32>)
            epilogue_maps [] : tensor<?x64xf32>, tensor<64x32xf32>
            -> tensor<?x32xf32> prologue {
    ^bb0(%g: f32, %out: f32):
      %zero = arith.constant 0.0 : f32
      %pos = arith.cmpf ogt, %out, %zero : f32
      %a = arith.select %pos, %g, %zero : f32
      fuser.yield %a : f32
    } {
    ^bb0(%acc: f32):
      fuser.yield %acc : f32
    }
    ```

    ```mlir
    %y = fuser.matmul %x, %w transpose_b
           epilogue_inputs(%b, %g, %be : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
           epilogue_maps [#col, #col, #col] group_norm(size = 16, eps = 1.0e-05)
           : tensor<?x32xf32>, tensor<64x32xf32> -> tensor<?x64xf32> {
    ^bb0(%acc: f32, %bias: f32, %gamma: f32, %beta: f32):
      %s = arith.addf %acc, %bias : f32
      fuser.yield %s : f32
    } then {
    ^bb0(%xhat: f32, %bias: f32, %gamma: f32, %beta: f32):
      %m = arith.mulf %xhat, %gamma : f32
      %a = arith.addf %m, %beta : f32
      fuser.yield %a : f32
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b,
                       Variadic<AnyType>:$epilogue_inputs,
                       Variadic<AnyRankedTensor>:$prologue_inputs,
                       AffineMapArrayAttr:$epilogue_maps,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$norm_group_size,
                       OptionalAttr<F64Attr>:$norm_epsilon,
                       OptionalAttr<Fuser_KernelConfigAttr>:$config);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$epilogue,
                        MaxSizedRegion<1>:$norm_epilogue,
                        MaxSizedRegion<1>:$prologue);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`prologue_inputs` `(` $prologue_inputs^ `:` type($prologue_inputs) `)`)?
    (`epilogue_inputs` `(` $epilogue_inputs^ `:` type($epilogue_inputs) `)`)?
    `epilogue_maps` $epilogue_maps
    (`group_norm` `(` `size` `=` $norm_group_size^ `,` `eps` `=` $norm_epsilon `)`)?
    attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
    (`prologue` $prologue^)? $epilogue (`then` $norm_epilogue^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when the epilogue ends in a group normalization (`then` region).
    bool hasGroupNorm() { return getNormGroupSize().has_value(); }
    /// True when A is read through the `prologue` region.
    bool hasPrologue() { return !getPrologue().empty(); }
    /// Computes the prologue by a fuser.pointwise group of its own, built
    /// before this op, and reads its result as a plain lhs; returns the
    /// group (null without a prologue).
    ::mlir::fuser::PointwiseOp materializePrologue();
    /// The prologue's checks, for verify().
    ::mlir::LogicalResult verifyPrologue();
    /// True for a batched matmul: rank-3 operands and result (B, ., .).
    bool isBatched() {
      return ::llvm::cast<::mlir::ShapedType>(getResult().getType())
                 .getRank() == 3;
    }
    /// The dimensions of lhs that hold M and K, and of rhs that hold K and
    /// N (after the batch dimension, and swapped by the transposes).
    int64_t getLhsMDim() { return isBatched() + (getTransposeA() ? 1 : 0); }
    int64_t getLhsKDim() { return isBatched() + (getTransposeA() ? 0 : 1); }
    int64_t getRhsKDim() { return isBatched() + (getTransposeB() ? 1 : 0); }
    int64_t getRhsNDim() { return isBatched() + (getTransposeB() ? 0 : 1); }
    /// Epilogue input `j`'s map over (m, n) alone: a batched matmul's
    /// (b, m, n) map without the batch dimension, which the kernels apply
    /// by offsetting the input per batch (see readsBatch).
    ::mlir::AffineMap getEpilogueMapOverMN(unsigned j);
    /// True if epilogue input `j` of a batched matmul is read per batch
    /// (its map's first result is the batch dimension).
    bool epilogueInputReadsBatch(unsigned j);
    /// True when K is static, non-zero and K-long rows are a multiple of 16
    /// bytes apart: what a TMA tensor map of the operands needs (A and B
    /// K-major; a batched operand is viewed as its batches' rows stacked).
    bool hasTmaCopyableK() {
      auto lhs = ::llvm::cast<::mlir::ShapedType>(getLhs().getType());
      int64_t k = lhs.getDimSize(getLhsKDim());
      return !getTransposeA() &&
             !::mlir::ShapedType::isDynamic(k) && k > 0 &&
             k * lhs.getElementTypeBitWidth() / 8 % 16 == 0;
    }
    /// True when an N-major B (K x N, no transpose_b) suits a TMA tensor
    /// map read in k tiles of `bk` rows: N static, non-zero, and N-long
    /// rows a multiple of 16 bytes apart. A batched B is viewed as its
    /// batches' K rows stacked, so K must be static and a multiple of `bk`
    /// too: a k tile past K would read the next batch's rows.
    bool hasTmaCopyableNMajorB(int64_t bk) {
      auto rhs = ::llvm::cast<::mlir::ShapedType>(getRhs().getType());
      int64_t n = rhs.getDimSize(getRhsNDim());
      int64_t k = rhs.getDimSize(getRhsKDim());
      return !getTransposeB() && !::mlir::ShapedType::isDynamic(n) && n > 0 &&
             n * rhs.getElementTypeBitWidth() / 8 % 16 == 0 &&
             (!isBatched() ||
              (!::mlir::ShapedType::isDynamic(k) && k % bk == 0));
    }
  }];
}

//===----------------------------------------------------------------------===//
// fuser.group_norm
//===----------------------------------------------------------------------===//

def Fuser_GroupNormOp : Fuser_Op<"group_norm", [Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "Group normalization with a fused pointwise epilogue";
  let description = [{
    For an input of shape (N, C, ...) split into `num_groups` groups of
    C / num_groups contiguous channels, normalizes each (n, group) with its
    mean and biased variance: `(x - mean) / sqrt(var + eps) * gamma[c] +
    beta[c]`. The epilogue then receives the normalized element and one
    element per `epilogue_inputs` operand (read through `epilogue_maps` from
    the result's iteration space) and yields the result element.

    ```mlir
    %y = fuser.group_norm %x, %gamma, %beta groups = 512 eps = 1.0e-05
           epilogue_maps [] : tensor<?x8192xf32>, tensor<8192xf32>,
           tensor<8192xf32> -> tensor<?x8192xf32> {
    ^bb0(%v: f32):
      %d = arith.addf %v, %v : f32
      fuser.yield %d : f32
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$gamma,
                       AnyRankedTensor:$beta,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_groups,
                       F64Attr:$epsilon,
                       Variadic<AnyType>:$epilogue_inputs,
                       AffineMapArrayAttr:$epilogue_maps,
                       OptionalAttr<Fuser_KernelConfigAttr>:$config);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `groups` `=` $num_groups `eps` `=` $epsilon
    (`epilogue_inputs` `(` $epilogue_inputs^ `:` type($epilogue_inputs) `)`)?
    `epilogue_maps` $epilogue_maps attr-dict
    `:` type($input) `,` type($gamma) `,` type($beta) `->` type($result)
    $epilogue
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fuser.group_norm_grad
//===----------------------------------------------------------------------===//

def Fuser_GroupNormGradOp : Fuser_Op<"group_norm_grad", [
    Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "The input gradient of a group normalization";
  let description = [{
    The backward of `fuser.group_norm` with respect to its input. `input` is
    the (N, C, ...) tensor the forward normalized, split into `num_groups`
    groups of K = C / num_groups * (spatial size) contiguous elements. The
    prologue computes dy, the gradient of the affine output, at each element
    from one element per `prologue_inputs` operand (read through
    `prologue_maps` from the input's iteration space). Per (n, group), with
    mean and rstd = 1 / sqrt(var + eps) of the group (biased variance),
    x_hat = (x - mean) * rstd and dx_hat = dy * gamma[c]:

      grad_input = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat * x_hat))

    with the means over the group's K elements. `mean` and `rstd` are the
    (N, num_groups) statistics, results so that the parameter gradients
    (column sums over N) can read them.

    ```mlir
    %dx, %mean, %rstd = fuser.group_norm_grad %x, %gamma groups = 512
        eps = 1.0e-05 prologue_inputs(%dout, %z : tensor<?x8192xf32>,
        tensor<?x8192xf32>) prologue_maps [#id, #id]
        : tensor<?x8192xf32>, tensor<8192xf32>
        -> tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32> {
    ^bb0(%d: f32, %zi: f32):
      ...
      fuser.yield %dy : f32
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$gamma,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_groups,
                       F64Attr:$epsilon,
                       Variadic<AnyType>:$prologue_inputs,
                       AffineMapArrayAttr:$prologue_maps,
                       OptionalAttr<Fuser_KernelConfigAttr>:$config);
  let results = (outs AnyRankedTensor:$grad_input, AnyRankedTensor:$mean,
                      AnyRankedTensor:$rstd);
  let regions = (region SizedRegion<1>:$prologue);
  let assemblyFormat = [{
    $input `,` $gamma `groups` `=` $num_groups `eps` `=` $epsilon
    (`prologue_inputs` `(` $prologue_inputs^ `:` type($prologue_inputs) `)`)?
    `prologue_maps` $prologue_maps attr-dict
    `:` type($input) `,` type($gamma) `->` type($grad_input) `,` type($mean)
    `,` type($rstd) $prologue
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fuser.tensor_map
//===----------------------------------------------------------------------===//

def Fuser_TensorMapOp : Fuser_Op<"tensor_map", [Pure]> {
  let summary = "A TMA tensor map of a 2-D buffer, for one kernel launch";
  let description = [{
    Host code only: names the Hopper tensor map (CUtensorMap) that the
    runtime encodes for `source`, a dense row-major 2-D buffer, before the
    launch that takes the result (an `!llvm.ptr`) as a by-value kernel
    parameter. One `cp.async.bulk.tensor` copies `box` = [rows, columns]
    elements, laid out in shared memory with the given swizzle (bytes; 0
    for none); elements outside the buffer read as zeros. The runtime
    checks that the buffer is 16-byte aligned and its row pitch a multiple
    of 16 bytes (docs/manifest.md).

    ```mlir
    %map = fuser.tensor_map %a box [128, 64] swizzle 128
             : memref<?x8192xbf16> -> !llvm.ptr
    ```
  }];
  let arguments = (ins MemRefRankOf<[F32, BF16, F16], [2]>:$source,
                       DenseI64ArrayAttr:$box, I64Attr:$swizzle);
  let results = (outs AnyType:$map);
  let assemblyFormat = [{
    $source `box` $box `swizzle` $swizzle attr-dict `:` type($source) `->`
    type($map)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// fuser.scan
//===----------------------------------------------------------------------===//

def Fuser_ScanOp : Fuser_Op<"scan", [Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "A cumulative fold (scan) along one dimension";
  let description = [{
    Folds `input` along `dimension` with the binary body, keeping every
    partial result: with `f` the body (its first argument the running value,
    its second an element of `input`) and `i` the index along `dimension`,

    - inclusive: `output[0] = input[0]`, `output[i] = f(output[i-1], input[i])`;
    - exclusive: `output[0] = init`, `output[i] = f(output[i-1], input[i-1])`,
      where `init` is the element of `accumulator_init` at the other indices.

    With `reverse`, the fold runs from the end of the dimension: index `i`
    above counts from the last element (a reversed cumsum, torch-mlir's
    flip, scan, flip; `fuser-fold-scan-flips`).

    The `accumulator` result holds the last element of `output` in the
    fold's order (`accumulator_init` where the dimension is empty). The body
    must be associative (sums, products, max, min): kernels combine partial
    results in a tree, in order (`f` is never applied to its arguments
    swapped). `output_init` gives only the result's shape.

    The form is that of torch-mlir's `tm_tensor.scan`, which the front end
    renames to this op (torch.cumsum, torch.cumprod).

    ```mlir
    %out, %acc = fuser.scan dimension(1) inclusive(true)
        ins(%x : tensor<8x100xf32>)
        outs(%empty, %zeros : tensor<8x100xf32>, tensor<8xf32>) {
    ^bb0(%running: f32, %element: f32):
      %s = arith.addf %running, %element : f32
      fuser.yield %s : f32
    } -> tensor<8x100xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       AnyRankedTensor:$output_init,
                       AnyRankedTensor:$accumulator_init,
                       I64Attr:$dimension,
                       BoolAttr:$inclusive,
                       UnitAttr:$reverse,
                       OptionalAttr<Fuser_KernelConfigAttr>:$config);
  let results = (outs AnyRankedTensor:$output, AnyRankedTensor:$accumulator);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `dimension` `(` $dimension `)` `inclusive` `(` $inclusive `)`
    `ins` `(` $input `:` type($input) `)`
    `outs` `(` $output_init `,` $accumulator_init `:` type($output_init) `,`
        type($accumulator_init) `)`
    $body attr-dict `->` type($output) `,` type($accumulator)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getInputType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getInput().getType());
    }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

//===----------------------------------------------------------------------===//
// fuser.yield
//===----------------------------------------------------------------------===//

def Fuser_YieldOp : Fuser_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["PointwiseOp", "MatmulOp", "GroupNormOp",
                "GroupNormGradOp", "ScanOp"]>]> {
  let summary = "Yields the elements computed by a fusion group body";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing to build */ }]>];
}

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
