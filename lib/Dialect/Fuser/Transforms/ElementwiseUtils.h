//===- ElementwiseUtils.h - shared elementwise-op matching ------*- C++ -*-===//
//
// What "elementwise" means for fusion, shared by the passes that absorb
// elementwise linalg ops into fusion groups (fuser-fuse-pointwise,
// fuser-fuse-matmul), so they accept exactly the same ops, and into
// reductions and gathers (fuser-fuse-reduction-prologues,
// fuser-fuse-gather-producers), which fuse them alike.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_ELEMENTWISEUTILS_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_ELEMENTWISEUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::fuser {

/// The value of a float constant `v` (a scalar, or a splat), if it is one.
std::optional<APFloat> getFloatConstant(Value v);

/// The float constant a linalg.fill wrote into `init`, if it did.
std::optional<APFloat> getFillConstant(Value init);

/// The sizes of tensor `v`, asked of the tensor that the destination-style
/// ops producing it (a fill, say) write into: a new init shaped like a
/// fill then reads nothing of it, and the fill can still fold into the
/// kernel it initializes.
SmallVector<OpFoldResult> destinationSizes(OpBuilder &b, Location loc, Value v);

/// An elementwise linalg.generic computing `fn` of each element of tensor
/// `v` into a new tensor of `v`'s shape (destinationSizes) and
/// `elementType`: the casts around a reduction widened to another type.
Value mapElements(OpBuilder &b, Location loc, Value v, Type elementType,
                  llvm::function_ref<Value(OpBuilder &, Location, Value)> fn);

/// True if a value of type `type` read through `map` (from an iteration
/// space to the value's indices) is a broadcast, transpose or both: every
/// result is a distinct dimension (a projected permutation) or the constant
/// 0 on a dimension of static size 1 (torch-mlir's keepdim and unsqueezed
/// shapes: `(d0, d1) -> (0, d1)`, `(d0, d1, d2, d3) -> (d0, d1, 0, 0)`).
bool isBroadcastRead(AffineMap map, Type type);

/// True if a value of type `type` read through `map`, over loops of
/// `loopRanges`, has each element read once: the results are distinct
/// loops or the constant 0 on dimensions of static size 1, and only loops
/// of extent 1 are left out (a loss's row statistics as 32768 x 1, read by
/// a reduction over the rows). More results than loops are allowed, unlike
/// isBroadcastRead.
bool readsEachElementOnce(AffineMap map, Type type,
                          ArrayRef<int64_t> loopRanges);

/// Fuses the elementwise linalg.generic producing `operand` into its
/// consumer with upstream's elementwise fusion: both are replaced by the
/// fused generic, its operands deduplicated (a value the fused body read
/// through several uses then has one), which is returned. Failure, with
/// nothing changed, where upstream's fusion fails.
FailureOr<linalg::GenericOp> fuseElementwiseProducer(RewriterBase &rewriter,
                                                     OpOperand &operand);

/// Rewrites a broadcast read (isBroadcastRead) of `value` through `map` as a
/// read through a projected permutation, the only maps fusion groups take:
/// the size-1 dimensions read at constant 0 are collapsed away by a
/// tensor.collapse_shape created at `builder`'s insertion point (a view, no
/// copy), and their results are dropped from the map. Returns `value` and
/// `map` unchanged when `map` has no constant result.
std::pair<Value, AffineMap> dropUnitDimReads(OpBuilder &builder, Value value,
                                             AffineMap map);

/// Returns why `op` cannot be a member of an elementwise fusion group, or ""
/// if it can: tensors only, parallel iterators, identity output maps of one
/// shape, input maps that are broadcast reads (isBroadcastRead), and a body
/// of scalar arith/math ops without linalg.index.
std::string whyNotElementwise(linalg::GenericOp op);

/// True if `op` is a named (non-generic) linalg op on tensors whose loops are
/// all parallel and that has results: the ops (linalg.add, linalg.fill,
/// linalg.broadcast, ...) that fusion generalizes before matching.
bool isGeneralizableElementwise(linalg::LinalgOp op);

/// Rewrites `op` as a linalg.generic if isGeneralizableElementwise(op).
/// Returns the generic (`op` itself when it already is one), or null when
/// `op` is not elementwise or cannot be generalized.
linalg::GenericOp generalizeIfElementwise(RewriterBase &rewriter,
                                          linalg::LinalgOp op);

/// Rewrites every named elementwise linalg op nested in `root` as
/// linalg.generic, so one matcher handles them all.
void generalizeElementwiseNamedOps(Operation *root);

/// The operands of `op` whose values the body reads: the inputs, plus the
/// inits whose block argument is used (e.g. an accumulate-into form).
SmallVector<OpOperand *> getReadOperands(linalg::GenericOp op);

/// Replaces every linalg.generic in `root` that computes a small static
/// tensor from constants alone (torch.arange: linalg.index in the body; the
/// masks of triu/tril built from it) with an arith.constant holding its
/// value, computed by the body ops' own folders. Such ops have no inputs but
/// constants (seen through tensor reshapes), parallel iterators, identity
/// output maps and at most `maxElements` elements, and use linalg.index or
/// read a constant that is not a splat (fills and splat arithmetic stay for
/// the groups to make immediates of), and whose results only linalg ops
/// read (a returned constant would have no kernel writing the result);
/// anything a folder cannot
/// evaluate leaves the op as it was. `remark(op, msg)` reports each
/// evaluated op before it is replaced. Returns how many were replaced.
/// Evaluates the scalar ops of `body` (without its terminator) by their own
/// folders, extending `value` (the block arguments' and anything else
/// already known, e.g. linalg.index per point; constants defined outside
/// are looked up): truncf rounds to nearest even (its folder keeps only
/// exact truncations), select follows a constant condition and math.rsqrt
/// (no folder upstream) is 1 / sqrt rounded from f64. Fails on an
/// op that does not fold to an integer or float attribute.
LogicalResult foldScalarBody(Block &body, DenseMap<Value, Attribute> &value);

/// The largest tensor the fusion passes evaluate at compile time: 64 Ki
/// elements (a 256x256 mask), a constant buffer of at most 256 KiB.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 16;

unsigned
foldConstantGenerics(Operation *root, int64_t maxElements,
                     function_ref<void(Operation *, const Twine &)> remark);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_ELEMENTWISEUTILS_H
