//===- EraseUnusedResults.cpp - drop results nobody reads -----------------===//
//
// torch-mlir lowers softmax, log_softmax and max(dim) through a reduction
// with two results, the maximum and its index, and most models read only
// the maximum. No reduction kernel takes two results, so the pair went to
// the generic fallback; without the index it is a plain max reduction. A
// linalg.generic result is dropped when nothing reads it and the results
// that stay do not depend on its running value (upstream's
// EraseUnusedOperandsAndResults keeps any output whose block argument the
// body reads, as the index's select does). An all-parallel generic's output
// that it writes whole and whose initial value its body never reads starts
// from tensor.empty: a fill there (torch-mlir's gathers write into zeros)
// was a kernel of its own.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERERASEUNUSEDRESULTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether result `r` of `op` can go: nothing reads it, and neither the
/// other yielded values nor the ops computing them read its block argument.
bool isErasable(linalg::GenericOp op, unsigned r) {
  if (!op->getResult(r).use_empty())
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  BlockArgument running =
      op.getMatchingBlockArgument(op.getDpsInitOperand(r));
  SetVector<Operation *> forward;
  getForwardSlice(running, &forward);
  for (auto [j, value] : llvm::enumerate(yield.getValues())) {
    if (j == r)
      continue;
    if (value == running)
      return false;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body)
      continue;
    SetVector<Operation *> backward;
    BackwardSliceOptions options;
    options.inclusive = true;
    options.filter = [&](Operation *o) { return o->getBlock() == &body; };
    (void)getBackwardSlice(def, &backward, options);
    for (Operation *o : backward)
      if (forward.contains(o))
        return false;
  }
  return true;
}

/// `op` without result `r` (isErasable): a new generic with the other
/// outputs and the body ops the other yielded values need.
void eraseResult(RewriterBase &rewriter, linalg::GenericOp op, unsigned r) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  SmallVector<Value> inits, kept;
  SmallVector<Type> types;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(in));
  for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    if (k == r)
      continue;
    inits.push_back(init.get());
    types.push_back(op->getResult(k).getType());
    maps.push_back(op.getMatchingIndexingMap(&init));
    kept.push_back(yield.getValues()[k]);
  }
  // The body ops the kept values need, in body order.
  SetVector<Operation *> needed;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.filter = [&](Operation *o) { return o->getBlock() == &body; };
  for (Value value : kept)
    if (Operation *def = value.getDefiningOp();
        def && def->getBlock() == &body)
      (void)getBackwardSlice(def, &needed, options);
  unsigned running =
      op.getMatchingBlockArgument(op.getDpsInitOperand(r)).getArgNumber();
  rewriter.setInsertionPoint(op);
  auto replacement = linalg::GenericOp::create(
      rewriter, op.getLoc(), types, op.getDpsInputs(), inits, maps,
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping map;
        unsigned next = 0;
        for (BlockArgument arg : body.getArguments())
          if (arg.getArgNumber() != running)
            map.map(arg, args[next++]);
        for (Operation &o : body.without_terminator())
          if (needed.contains(&o))
            b.clone(o, map);
        SmallVector<Value> values;
        for (Value value : kept)
          values.push_back(map.lookupOrDefault(value));
        linalg::YieldOp::create(b, loc, values);
      });
  replacement->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  SmallVector<Value> results;
  unsigned next = 0;
  for (unsigned k = 0; k < op->getNumResults(); ++k)
    results.push_back(k == r ? Value() : replacement->getResult(next++));
  rewriter.replaceOp(op, results);
}

struct EraseUnusedResultsPattern : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() < 2 || !op.hasPureTensorSemantics())
      return failure();
    for (unsigned r = 0; r < op->getNumResults(); ++r)
      if (isErasable(op, r)) {
        eraseResult(rewriter, op, r);
        return success();
      }
    return failure();
  }
};

/// An all-parallel generic's outputs that it writes whole (through a
/// permutation) and whose values the body never reads start from
/// tensor.empty rather than what they were (a fill).
struct UnreadInitsToEmptyPattern : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        op.getNumLoops() != op.getNumParallelLoops())
      return failure();
    bool changed = false;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (init.get().getDefiningOp<tensor::EmptyOp>() ||
          op.payloadUsesValueFromOperand(&init) ||
          !op.getMatchingIndexingMap(&init).isPermutation())
        continue;
      // What a fill filled, where that is empty; else a new empty tensor
      // sized as the init.
      auto fill = init.get().getDefiningOp<linalg::FillOp>();
      Value empty =
          fill ? fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() : Value();
      if (!empty) {
        rewriter.setInsertionPoint(op);
        auto type = cast<RankedTensorType>(init.get().getType());
        empty = tensor::EmptyOp::create(
            rewriter, op.getLoc(),
            destinationSizes(rewriter, op.getLoc(), init.get()),
            type.getElementType());
      }
      rewriter.modifyOpInPlace(op, [&] { init.set(empty); });
      changed = true;
    }
    return success(changed);
  }
};

class EraseUnusedResultsPass
    : public fuser::impl::FuserEraseUnusedResultsPassBase<
          EraseUnusedResultsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<EraseUnusedResultsPattern, UnreadInitsToEmptyPattern>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
