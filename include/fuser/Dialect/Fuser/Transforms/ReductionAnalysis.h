//===- ReductionAnalysis.h - reductions fuser gives a kernel ----*- C++ -*-===//
//
// A linalg.generic reduction that no fusion group took (a sum over a
// GroupNorm group, a column sum for a bias gradient, ...) gets its own
// reduction kernel when it has the form below; anything else falls to the
// generic fallback. fuser-configure-kernels decides with this analysis and
// fuser-reduction-to-gpu builds the kernel from it, so the rule is written
// once.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_REDUCTIONANALYSIS_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_REDUCTIONANALYSIS_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlir::fuser {

/// The discardable attribute holding a reduction's #fuser.config.
inline constexpr llvm::StringLiteral kReductionConfigAttrName = "fuser.config";

/// The most slices (P) a two-stage reduction's kernel 2 takes: one thread
/// per partial in one block.
inline constexpr int64_t kReductionMaxSlices = 1024;
/// Elements each thread loads before it folds them: one load in flight per
/// thread covers about half of an H100's memory latency at 2048 threads
/// per SM; four cover it.
inline constexpr int64_t kReductionUnroll = 4;

/// The config of a two-stage reduction's kernel 2, which combines each
/// output's `slices` partials: one thread per partial, consecutive
/// (ConfigureReductions.cpp).
KernelConfigAttr reductionCombineConfig(MLIRContext *ctx, int64_t slices);

/// The index half of a value-and-index reduction (torch.max(dim),
/// argmax, argmin as torch-mlir lowers them): the body keeps the best value
/// (maximumf / minimumf, maxsi / minsi) in `valueResult` and, in
/// `indexResult`, the index of reduction loop `loop` (the only one) where
/// it was strictly better (cmp + select). The kernel follows PyTorch: the
/// first index of the best value, and a NaN beats every number (its first
/// index wins). That departs from the IR's own sequential meaning only where
/// a NaN is met (there `cmpf ogt` keeps the index from before the NaN),
/// which no parallel combine could reproduce.
struct ArgReduction {
  unsigned valueResult = 0;
  unsigned indexResult = 1;
  unsigned loop = 0;
  bool seeksMax = true;
};

/// The discardable attribute fuser-online-softmax puts on the reductions
/// it builds: their body is the online update below, which the kernel's
/// partial results merge by the matching rule.
inline constexpr llvm::StringLiteral kOnlineSoftmaxAttrName =
    "fuser.online_softmax";

/// A softmax's statistics in one pass (fuser-online-softmax): result
/// `maxResult` keeps the running maximum m of the values, `sumResult` the
/// running sum of exp(value - m), rescaled whenever m grows. The body
/// folds one value x into (m, s) as the merge of (m, s) with (x, w), w =
/// exp(x - x): 1, NaN for x = +inf (PyTorch's sum is NaN there). Two
/// partial results (m1, s1), (m2, s2) merge as m = max(m1, m2) (NaN
/// wins) and s = s1 * exp(m1 - m) + s2 * exp(m2 - m), computed with one
/// exp(-|m1 - m2|), which counts 0 where that difference is NaN (both
/// -inf). Both results are f32, the identity (-inf, 0).
struct OnlineSoftmax {
  unsigned maxResult = 0;
  unsigned sumResult = 1;
};

/// How one reduction reads and combines. The kernel linearizes the output
/// (parallel) loops and the reduction loops separately, each in the order
/// the primary input (the widest one) lays them out in memory, outermost
/// first, so the fastest-varying index walks that input's innermost
/// dimension.
struct ReductionShape {
  SmallVector<unsigned> parallelLoops;
  SmallVector<unsigned> reductionLoops;
  /// The primary input's innermost dimension is a reduction loop: the
  /// threads that share an output read consecutive elements. Otherwise
  /// neighbouring outputs are neighbours in memory.
  bool innermostReduces = false;
  /// The body op that folds a new value into the accumulator (the block's
  /// output argument, its only use) and that operand's position.
  Operation *combiner = nullptr;
  unsigned accumulatorOperand = 0;
  /// The combiner's identity: the start of every thread's partial result.
  TypedAttr identity;
  /// Set for a value-and-index reduction; `combiner` is then the value's.
  std::optional<ArgReduction> arg;
  /// Set for a softmax's online statistics; `combiner` is then the
  /// maximum's.
  std::optional<OnlineSoftmax> online;
  /// Results 1, 2, ... (2, 3, ... after an online softmax's two) of
  /// independent reductions over one read (fuser-merge-sibling-reductions):
  /// each folds its own value into its own accumulator, as `combiner` does
  /// for result 0.
  struct Fold {
    Operation *combiner = nullptr;
    unsigned accumulatorOperand = 0;
    TypedAttr identity;
  };
  SmallVector<Fold> siblings;
  /// The body ops that read a running result (the combiner; an arg
  /// reduction's comparison and select too): the kernel combines with its
  /// own code instead of cloning them.
  SmallVector<Operation *> accumulating;

  /// The results, in order: one (and its siblings'), an arg reduction's
  /// value and index, or an online softmax's maximum and sum (and its
  /// siblings').
  unsigned numResults() const {
    return arg ? 2 : (online ? 2 : 1) + siblings.size();
  }
  /// The first sibling's result.
  unsigned firstSibling() const { return online ? 2 : 1; }
  /// Result k's fold: `combiner` for 0, a sibling's from firstSibling().
  Fold fold(unsigned k) const {
    return k < firstSibling() ? Fold{combiner, accumulatorOperand, identity}
                              : siblings[k - firstSibling()];
  }
};

/// The loops of a window read's index expression with their coefficients:
/// `stride * i + dilation * k` gives {(i, stride), (k, dilation)}; a plain
/// loop `i` gives {(i, 1)}. Empty for any other expression.
SmallVector<std::pair<unsigned, int64_t>> windowTerms(AffineExpr e);

/// The most results of sibling reductions merged into one kernel.
inline constexpr unsigned kMaxSiblingReductions = 4;

/// The shape of `op`'s reduction, or failure with `why` set: the generic
/// has one tensor result (two: ArgReduction, OnlineSoftmax; up to
/// kMaxSiblingReductions independent ones), tensor inputs read through
/// window maps (pooling: each result a sum of positive multiples of loops
/// no other result reads, on a static shape) or projected
/// permutations, an output indexed by exactly its parallel loops, and a
/// body yielding `combiner(f(inputs, indices), acc)` for an associative,
/// commutative combiner with an identity (add, mul, min, max, and, or,
/// xor).
FailureOr<ReductionShape> analyzeReduction(linalg::GenericOp op,
                                           std::string &why);

/// An input that is a tensor.pad of a static tensor by a constant, with
/// static padding (torch-mlir pads pooling inputs so): the kernel reads the
/// unpadded tensor, and the padding value where a window reaches outside it,
/// so the padded copy never exists.
struct PaddedRead {
  Value source;
  SmallVector<int64_t> low;
  Value padding; // a constant
};
std::optional<PaddedRead> paddedRead(Value input);

/// The most elements (a power of two, 16 bytes at most) the kernel may load
/// at once from each input of `op`: consecutive elements of the innermost
/// reduction loop, so that loop must be the innermost (contiguous)
/// dimension of every input that reads it, with a static extent that the
/// width divides (each row then starts aligned). 1 where it is not.
int64_t reductionVectorWidth(linalg::GenericOp op, const ReductionShape &shape);

/// The output loop along which neighbouring outputs' windows overlap in
/// rows of an input (a pooling's output rows). It is the parallel loop next
/// to the innermost one, or the innermost one where the window has a single
/// row (a 1-D window's columns); it must be static, every reduction loop
/// static, and a read input's index expression must add a reduction loop
/// to it such that the next output's window starts on one of this one's
/// rows (the stride a multiple of the dilation, within the window). A
/// thread that computes several consecutive outputs along it loads the
/// rows they share once. None when there is no such loop.
std::optional<unsigned> windowRowLoop(linalg::GenericOp op,
                                      const ReductionShape &shape);

/// The window's column loop, beside windowRowLoop's rows (a 2-D or 3-D
/// pooling): the innermost output loop, where each read input is static,
/// unpadded, of `width`-element 16-byte vectors (32-bit elements, `width`
/// 4), its rows a multiple of `width` long, and reads its innermost
/// dimension as that loop plus one reduction loop (stride and dilation 1)
/// and no other dimension through either; the outputs store that loop as
/// their innermost dimension. A thread computing `width` neighbouring
/// outputs along it loads the columns their windows share as vectors. None
/// when there is no such loop.
std::optional<unsigned> windowColumnLoop(linalg::GenericOp op,
                                         const ReductionShape &shape,
                                         int64_t width);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_REDUCTIONANALYSIS_H
