//===- SplitShiftedSums.cpp - sum(x - g) as sum(x) - n g ------------------===//
//
// See the pass description: the row sum of a log_softmax (a label-smoothed
// cross-entropy's) reads the logits a second time; split, its sum of the
// logits joins the softmax statistics' reduction and the logits are read
// once.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERSPLITSHIFTEDSUMSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// A term of the summed value: +-leaf.
struct Term {
  Value leaf;
  bool negated;
};

/// The terms of `v`'s tree of addf, subf and negf (each read once, by the
/// tree), in order.
void collectTerms(Value v, bool negated, SmallVectorImpl<Term> &terms) {
  Operation *def = v.getDefiningOp();
  if (def && v.hasOneUse()) {
    if (auto add = dyn_cast<arith::AddFOp>(def)) {
      collectTerms(add.getLhs(), negated, terms);
      collectTerms(add.getRhs(), negated, terms);
      return;
    }
    if (auto sub = dyn_cast<arith::SubFOp>(def)) {
      collectTerms(sub.getLhs(), negated, terms);
      collectTerms(sub.getRhs(), !negated, terms);
      return;
    }
    if (auto neg = dyn_cast<arith::NegFOp>(def)) {
      collectTerms(neg.getOperand(), !negated, terms);
      return;
    }
  }
  terms.push_back({v, negated});
}

/// The sum of `terms`, term k's value `valueOf(k)`, each added or
/// subtracted as its sign says, in order.
Value signedSum(OpBuilder &b, Location loc, ArrayRef<Term> terms,
                function_ref<Value(unsigned)> valueOf) {
  Value total;
  for (auto [k, t] : llvm::enumerate(terms)) {
    Value v = valueOf(k);
    if (!total)
      total = t.negated ? arith::NegFOp::create(b, loc, v).getResult() : v;
    else
      total = t.negated ? arith::SubFOp::create(b, loc, total, v).getResult()
                        : arith::AddFOp::create(b, loc, total, v).getResult();
  }
  return total;
}

/// `v` through the reshapes that add or drop its unit dimensions.
Value throughReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def))
      v = expand.getSrc();
    else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
      v = collapse.getSrc();
    else
      break;
  }
  return v;
}

/// The online softmax statistics whose result `k` is `v` (through
/// reshapes), if they reduce `x` over `sum`'s loops: iterators, static
/// extents, output map and x's map alike, with room for one more result
/// (fuser-merge-sibling-reductions then joins the two).
linalg::GenericOp statisticsOf(Value v, unsigned k, linalg::GenericOp sum,
                               OpOperand *x) {
  auto result = dyn_cast<OpResult>(throughReshapes(v));
  auto stats =
      result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
  if (!stats || result.getResultNumber() != k ||
      !stats->hasAttr(kOnlineSoftmaxAttrName) ||
      stats->getNumResults() + 1 > kMaxSiblingReductions ||
      stats.getIteratorTypesArray() != sum.getIteratorTypesArray() ||
      stats.getStaticLoopRanges() != sum.getStaticLoopRanges() ||
      stats.getIndexingMapsArray().back() != sum.getIndexingMapsArray().back())
    return nullptr;
  bool readsX = llvm::any_of(stats.getDpsInputOperands(), [&](OpOperand *in) {
    return in->get() == x->get() &&
           stats.getMatchingIndexingMap(in) == sum.getMatchingIndexingMap(x);
  });
  return readsX ? stats : nullptr;
}

/// `v` as log(s) of an elementwise linalg.generic whose body is one
/// math.log of its one input: that input, else null.
Value logOf(Value v) {
  auto log = throughReshapes(v).getDefiningOp<linalg::GenericOp>();
  if (!log || log.getNumReductionLoops() != 0 || log.getNumDpsInputs() != 1 ||
      log->getNumResults() != 1)
    return Value();
  Block &body = log.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto op = yield.getValues()[0].getDefiningOp<math::LogOp>();
  if (!op || &body.front() != op.getOperation() ||
      op.getOperand() != body.getArgument(0) ||
      !log.getMatchingIndexingMap(log.getDpsInputOperand(0)).isIdentity())
    return Value();
  return log.getDpsInputOperand(0)->get();
}

/// Splits `sum` when it folds x - g (terms along the reduced loops, and
/// terms constant along them that come from softmax statistics of the
/// same x) into sum(x) + n * (-g), n the reduced extent. Returns whether
/// it did.
bool split(RewriterBase &rewriter, linalg::GenericOp sum) {
  if (!sum.hasPureTensorSemantics() || sum->getNumResults() != 1 ||
      sum.getNumReductionLoops() == 0 ||
      !sum->getDiscardableAttrDictionary().empty() ||
      llvm::any_of(sum.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  std::string why;
  FailureOr<ReductionShape> shape = analyzeReduction(sum, why);
  if (failed(shape) || shape->arg || !isa<arith::AddFOp>(shape->combiner) ||
      !shape->combiner->getResult(0).getType().isF32())
    return false;
  Block &body = sum.getRegion().front();
  Value value = shape->combiner->getOperand(1 - shape->accumulatorOperand);
  SmallVector<Term> terms;
  collectTerms(value, /*negated=*/false, terms);
  // Constant along the reduced loops: an input's block argument whose map
  // reads none of them.
  auto invariantInput = [&](Value leaf) -> OpOperand * {
    auto arg = dyn_cast<BlockArgument>(leaf);
    if (!arg || arg.getOwner() != &body ||
        arg.getArgNumber() >= sum.getNumDpsInputs())
      return nullptr;
    OpOperand *in = sum.getDpsInputOperand(arg.getArgNumber());
    AffineMap map = sum.getMatchingIndexingMap(in);
    for (unsigned d = 0; d < sum.getNumLoops(); ++d)
      if (sum.getIteratorTypesArray()[d] == utils::IteratorType::reduction &&
          map.isFunctionOfDim(d))
        return nullptr;
    return in;
  };
  SmallVector<Term> along, constant;
  for (const Term &t : terms)
    (invariantInput(t.leaf) ? constant : along).push_back(t);
  if (along.empty() || constant.empty())
    return false;
  // The terms along the loops read no invariant input (the new sum reads
  // only what varies); the constant ones come from the statistics of an
  // input the sum reads along the loops.
  SetVector<Operation *> slice;
  SmallVector<Value> work;
  for (const Term &t : along)
    work.push_back(t.leaf);
  DenseSet<unsigned> alongInputs;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &body || arg.getArgNumber() >= sum.getNumDpsInputs())
        return false;
      if (invariantInput(arg))
        return false;
      alongInputs.insert(arg.getArgNumber());
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != &body)
      continue; // a constant from above
    if (!slice.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  if (alongInputs.empty())
    return false;
  // log_softmax's shift: -m - log(s), m and s the online statistics of an
  // input the sum reads along the loops (the error bound the pass
  // description gives holds for it alone).
  if (constant.size() != 2 ||
      !llvm::all_of(constant, [](const Term &t) { return t.negated; }))
    return false;
  bool shift = false;
  for (unsigned i : alongInputs)
    for (auto [mi, li] : {std::pair{0, 1}, std::pair{1, 0}}) {
      OpOperand *x = sum.getDpsInputOperand(i);
      Value m = invariantInput(constant[mi].leaf)->get();
      Value s = logOf(invariantInput(constant[li].leaf)->get());
      linalg::GenericOp stats = statisticsOf(m, 0, sum, x);
      shift |= stats && s && statisticsOf(s, 1, sum, x) == stats;
    }
  if (!shift)
    return false;

  // sum(x): the terms along the loops, into the same init.
  Location loc = sum.getLoc();
  rewriter.setInsertionPoint(sum);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> kept(alongInputs.begin(), alongInputs.end());
  llvm::sort(kept);
  for (unsigned i : kept) {
    inputs.push_back(sum.getDpsInputOperand(i)->get());
    maps.push_back(sum.getMatchingIndexingMap(sum.getDpsInputOperand(i)));
  }
  OpOperand *init = sum.getDpsInitOperand(0);
  AffineMap outMap = sum.getMatchingIndexingMap(init);
  maps.push_back(outMap);
  auto alongSum = linalg::GenericOp::create(
      rewriter, loc, sum->getResultTypes(), inputs, ValueRange{init->get()},
      maps, sum.getIteratorTypesArray(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping mapping;
        for (auto [k, i] : llvm::enumerate(kept))
          mapping.map(body.getArgument(i), args[k]);
        for (Operation &inner : body.without_terminator())
          if (slice.contains(&inner))
            b.clone(inner, mapping);
        Value total = signedSum(b, l, along, [&](unsigned k) {
          return mapping.lookupOrDefault(along[k].leaf);
        });
        Value acc = args.back();
        linalg::YieldOp::create(
            b, l,
            ValueRange{arith::AddFOp::create(b, l, total, acc).getResult()});
      });

  // The result: sum(x) + n * (+-g ...), elementwise over the outputs.
  int64_t n = 1;
  for (auto [d, it] : llvm::enumerate(sum.getIteratorTypesArray()))
    if (it == utils::IteratorType::reduction)
      n *= sum.getStaticLoopRanges()[d];
  auto resultType = cast<RankedTensorType>(sum->getResult(0).getType());
  unsigned rank = resultType.getRank();
  // Loop d of the sum is the output's dimension p where the output map
  // reads it.
  SmallVector<AffineExpr> loopToOutput(
      sum.getNumLoops(), getAffineConstantExpr(0, rewriter.getContext()));
  for (auto [p, e] : llvm::enumerate(outMap.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      loopToOutput[dim.getPosition()] =
          getAffineDimExpr(p, rewriter.getContext());
  SmallVector<Value> gInputs{alongSum->getResult(0)};
  SmallVector<AffineMap> gMaps{rewriter.getMultiDimIdentityMap(rank)};
  for (const Term &t : constant) {
    OpOperand *in = invariantInput(t.leaf);
    gInputs.push_back(in->get());
    gMaps.push_back(sum.getMatchingIndexingMap(in).replaceDimsAndSymbols(
        loopToOutput, {}, rank, 0));
  }
  gMaps.push_back(rewriter.getMultiDimIdentityMap(rank));
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, alongSum->getResult(0)),
      resultType.getElementType());
  auto shifted = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, gInputs, ValueRange{empty}, gMaps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value g = signedSum(b, l, constant,
                            [&](unsigned k) { return args[k + 1]; });
        Value count = arith::ConstantOp::create(
            b, l, b.getF32FloatAttr(static_cast<float>(n)));
        Value scaled = arith::MulFOp::create(b, l, g, count);
        linalg::YieldOp::create(
            b, l,
            ValueRange{arith::AddFOp::create(b, l, args[0], scaled).getResult()});
      });
  rewriter.replaceOp(sum, shifted->getResults());
  return true;
}

struct FuserSplitShiftedSumsPass
    : fuser::impl::FuserSplitShiftedSumsPassBase<FuserSplitShiftedSumsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() != 0)
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates) {
      Location loc = op.getLoc();
      if (split(rewriter, op) && report)
        emitRemark(loc)
            << "sum of values shifted by their softmax statistics split: the "
               "sum of the values joins the statistics' reduction, the shift "
               "is applied once per output";
    }
  }
};

} // namespace
