//===- MergeSiblingReductions.cpp - reductions that share a read ----------===//
//
// See the pass description: independent reductions over the same loops
// that read a common input become one reduction with several results, so
// the shared input is read once (a triplet loss's two distances to the
// anchor; a mean and a mean of squares).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERMERGESIBLINGREDUCTIONSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether `op` is a plain reduction a sibling may join: tensors, parallel
/// and reduction loops, its result folded by one combiner (no
/// value-and-index, no online softmax, no discardable attributes).
bool isPlainReduction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 ||
      !op->getDiscardableAttrDictionary().empty())
    return false;
  std::string why;
  FailureOr<ReductionShape> shape = analyzeReduction(op, why);
  return succeeded(shape) && !shape->arg && !shape->online;
}

/// Whether `a` (before `b` in the block) and `b` can be one reduction at
/// `b`'s place: the same loops, output maps and extents, a common input
/// read the same way, `b` reading nothing `a` computes, every user of `a`
/// after `b`.
bool areSiblings(linalg::GenericOp a, linalg::GenericOp b) {
  if (a.getIteratorTypesArray() != b.getIteratorTypesArray() ||
      a.getStaticLoopRanges() != b.getStaticLoopRanges() ||
      a.getIndexingMapsArray().back() != b.getIndexingMapsArray().back() ||
      a.getNumResults() + b.getNumResults() > kMaxSiblingReductions)
    return false;
  bool shares = llvm::any_of(a.getDpsInputOperands(), [&](OpOperand *x) {
    return llvm::any_of(b.getDpsInputOperands(), [&](OpOperand *y) {
      return x->get() == y->get() &&
             a.getMatchingIndexingMap(x) == b.getMatchingIndexingMap(y);
    });
  });
  if (!shares)
    return false;
  for (Value v : b->getOperands())
    if (v.getDefiningOp() == a.getOperation())
      return false;
  // Dynamic extents: the same tensor dimensions give them.
  if (llvm::any_of(a.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  for (Operation *user : a->getUsers())
    if (user->getBlock() != b->getBlock() || !b->isBeforeInBlock(user))
      return false;
  return true;
}

/// One reduction computing `a`'s results then `b`'s, at `b`'s place.
linalg::GenericOp merge(RewriterBase &rewriter, linalg::GenericOp a,
                        linalg::GenericOp b) {
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  IRMapping mapping;
  auto addInput = [&](linalg::GenericOp op, OpOperand *in,
                      SmallVectorImpl<std::pair<BlockArgument, unsigned>> &at) {
    AffineMap map = op.getMatchingIndexingMap(in);
    for (auto [k, v] : llvm::enumerate(inputs))
      if (v == in->get() && maps[k] == map) {
        at.push_back({op.getMatchingBlockArgument(in), k});
        return;
      }
    at.push_back({op.getMatchingBlockArgument(in), unsigned(inputs.size())});
    inputs.push_back(in->get());
    maps.push_back(map);
  };
  SmallVector<std::pair<BlockArgument, unsigned>> inputArgs;
  for (linalg::GenericOp op : {a, b})
    for (OpOperand *in : op.getDpsInputOperands())
      addInput(op, in, inputArgs);
  SmallVector<BlockArgument> initArgs;
  for (linalg::GenericOp op : {a, b})
    for (OpOperand &init : op.getDpsInitsMutable()) {
      inits.push_back(init.get());
      maps.push_back(op.getMatchingIndexingMap(&init));
      initArgs.push_back(op.getMatchingBlockArgument(&init));
    }
  SmallVector<Type> types(a->getResultTypes());
  llvm::append_range(types, b->getResultTypes());
  rewriter.setInsertionPoint(b);
  auto merged = linalg::GenericOp::create(
      rewriter, b.getLoc(), types, inputs, inits, maps,
      a.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        for (auto [arg, k] : inputArgs)
          mapping.map(arg, args[k]);
        for (auto [k, arg] : llvm::enumerate(initArgs))
          mapping.map(arg, args[inputs.size() + k]);
        SmallVector<Value> yields;
        for (linalg::GenericOp op : {a, b}) {
          Block &src = op.getRegion().front();
          for (Operation &inner : src.without_terminator())
            nb.clone(inner, mapping);
          for (Value v : src.getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(v));
        }
        linalg::YieldOp::create(nb, loc, yields);
      });
  unsigned fromA = a->getNumResults(); // read before `a` is erased
  rewriter.replaceOp(a, merged->getResults().take_front(fromA));
  rewriter.replaceOp(b, merged->getResults().drop_front(fromA));
  return merged;
}

struct FuserMergeSiblingReductionsPass
    : fuser::impl::FuserMergeSiblingReductionsPassBase<
          FuserMergeSiblingReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<linalg::GenericOp> reductions;
      getOperation().walk([&](linalg::GenericOp op) {
        if (isPlainReduction(op))
          reductions.push_back(op);
      });
      for (size_t i = 0; i < reductions.size() && !changed; ++i)
        for (size_t j = i + 1; j < reductions.size() && !changed; ++j) {
          linalg::GenericOp a = reductions[i], b = reductions[j];
          if (a->getBlock() != b->getBlock())
            continue;
          if (b->isBeforeInBlock(a))
            std::swap(a, b);
          if (!areSiblings(a, b))
            continue;
          Location loc = b.getLoc();
          merge(rewriter, a, b);
          if (report)
            emitRemark(loc) << "merged with a sibling reduction that reads "
                               "the same input: one kernel, one read";
          changed = true;
        }
    }
  }
};

} // namespace
