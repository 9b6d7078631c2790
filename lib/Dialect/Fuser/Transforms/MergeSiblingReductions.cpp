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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERMERGESIBLINGREDUCTIONSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether `op` is a reduction a sibling may join: tensors, parallel and
/// reduction loops, its results folded by one combiner each, or a
/// softmax's online statistics (no value-and-index, no other discardable
/// attribute).
bool isMergeable(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0)
    return false;
  for (NamedAttribute attr : op->getDiscardableAttrs())
    if (attr.getName() != kOnlineSoftmaxAttrName)
      return false;
  std::string why;
  FailureOr<ReductionShape> shape = analyzeReduction(op, why);
  return succeeded(shape) && !shape->arg;
}

bool isOnline(linalg::GenericOp op) {
  return op->hasAttr(kOnlineSoftmaxAttrName);
}

/// Whether `v` exists before `a` (in `a`'s block or above it), or comes
/// from ops that can move before it (an init's tensor.empty, constant and
/// linalg.fill, added to `moves`).
bool availableBefore(Value v, Operation *a, SetVector<Operation *> &moves) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return v.getParentRegion()->isAncestor(a->getParentRegion());
  if (def->getBlock() != a->getBlock())
    return def->getParentRegion()->isProperAncestor(a->getParentRegion());
  if (def->isBeforeInBlock(a) || moves.contains(def))
    return true;
  if (!isa<tensor::EmptyOp, arith::ConstantOp, linalg::FillOp>(def) ||
      !llvm::all_of(def->getOperands(), [&](Value operand) {
        return availableBefore(operand, a, moves);
      }))
    return false;
  moves.insert(def);
  return true;
}

/// Whether every operand of `b`, and every value its body reads from
/// above (a constant), exists before `a` or can move there (`moves`), so
/// that their merge may stand at `a`'s place.
bool operandsBefore(linalg::GenericOp b, linalg::GenericOp a,
                    SetVector<Operation *> &moves) {
  SetVector<Value> used(b->getOperands().begin(), b->getOperands().end());
  getUsedValuesDefinedAbove(b->getRegions(), used);
  return llvm::all_of(
      used, [&](Value v) { return availableBefore(v, a, moves); });
}

bool usersAfter(linalg::GenericOp a, linalg::GenericOp b) {
  return llvm::all_of(a->getUsers(), [&](Operation *user) {
    return user->getBlock() == b->getBlock() && b->isBeforeInBlock(user);
  });
}

/// Whether `a` and `b` read a common input through the same map.
bool sharesInput(linalg::GenericOp a, linalg::GenericOp b) {
  return llvm::any_of(a.getDpsInputOperands(), [&](OpOperand *x) {
    return llvm::any_of(b.getDpsInputOperands(), [&](OpOperand *y) {
      return x->get() == y->get() &&
             a.getMatchingIndexingMap(x) == b.getMatchingIndexingMap(y);
    });
  });
}

/// Whether `a` (before `b` in the block) and `b` can be one reduction: the
/// same loops, output maps and extents, a common input read the same way
/// (or both totals of vectors),
/// `b` reading nothing `a` computes, at most one of them a softmax's
/// online statistics, and a place for it: `b`'s when every user of `a`
/// comes after `b`, else `a`'s when `b`'s operands exist by then.
bool areSiblings(linalg::GenericOp a, linalg::GenericOp b) {
  if (a.getIteratorTypesArray() != b.getIteratorTypesArray() ||
      a.getStaticLoopRanges() != b.getStaticLoopRanges() ||
      a.getIndexingMapsArray().back() != b.getIndexingMapsArray().back() ||
      a.getNumResults() + b.getNumResults() > kMaxSiblingReductions)
    return false;
  bool shares = sharesInput(a, b);
  // Totals of vectors (a loss's sum and its count of targets kept) merge
  // without a common input: one launch instead of two, each still read
  // once.
  bool totals = a.getNumLoops() == 1 && a.getNumParallelLoops() == 0;
  if (!shares && !totals)
    return false;
  for (Value v : b->getOperands())
    if (v.getDefiningOp() == a.getOperation())
      return false;
  // Dynamic extents: the same tensor dimensions give them.
  if (llvm::any_of(a.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  if (isOnline(a) && isOnline(b))
    return false;
  SetVector<Operation *> moves;
  return usersAfter(a, b) || operandsBefore(b, a, moves);
}

/// One reduction computing `a`'s results then `b`'s (the online
/// statistics' first: their kernel reads them as results 0 and 1), at `b`'s
/// place, or at `a`'s where something reads `a` before `b`.
linalg::GenericOp merge(RewriterBase &rewriter, linalg::GenericOp a,
                        linalg::GenericOp b) {
  Operation *place = b;
  if (!usersAfter(a, b)) {
    place = a;
    // b's init fills move up with it.
    SetVector<Operation *> moves;
    operandsBefore(b, a, moves);
    SmallVector<Operation *> ordered(moves.begin(), moves.end());
    llvm::sort(ordered,
               [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    for (Operation *op : ordered)
      rewriter.moveOpBefore(op, a);
  }
  bool online = isOnline(a) || isOnline(b);
  if (isOnline(b))
    std::swap(a, b);
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
  rewriter.setInsertionPoint(place);
  auto merged = linalg::GenericOp::create(
      rewriter, place->getLoc(), types, inputs, inits, maps,
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
  if (online)
    merged->setAttr(kOnlineSoftmaxAttrName, rewriter.getUnitAttr());
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
        if (isMergeable(op))
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
          bool shared = sharesInput(a, b);
          merge(rewriter, a, b);
          if (report)
            emitRemark(loc) << (shared ? "merged with a sibling reduction that "
                                         "reads the same input: one kernel, "
                                         "one read"
                                       : "merged with a sibling total over "
                                         "the same loop: one kernel");
          changed = true;
        }
    }
  }
};

} // namespace
