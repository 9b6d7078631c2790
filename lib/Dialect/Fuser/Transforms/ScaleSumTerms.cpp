//===- ScaleSumTerms.cpp - c * sum(x) as sum(c * x) -----------------------===//
//
// See the pass description: a mean, an average pool or a loss's mean is a
// sum then a scale; scaling each term instead makes it one reduction
// kernel, with no kernel (and no pass over the outputs) for the scale.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERSCALESUMTERMSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The scale `c` when `op` computes `r * c` elementwise from one tensor `r`
/// (identity map), `c` a float constant: its body is one arith.mulf of the
/// block argument by a constant, yielded.
std::optional<Value> scaleOf(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumResults() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity() ||
      op.getInputs()[0].getType() != op.getResult(0).getType())
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul || &body.front() != mul.getOperation() ||
      mul->getNextNode() != yield.getOperation())
    return std::nullopt;
  Value arg = body.getArgument(0);
  Value other = mul.getLhs() == arg   ? mul.getRhs()
                : mul.getRhs() == arg ? mul.getLhs()
                                      : Value();
  if (!other || other == arg || !getFloatConstant(other))
    return std::nullopt;
  return other;
}

/// Whether `init` is filled with +0.0, the identity of a float sum that a
/// scale leaves alone.
bool isZeroFill(Value init) {
  std::optional<APFloat> v = getFillConstant(init);
  return v && v->isPosZero();
}

/// Rewrites `scale = sum * c` as the sum of `x * c`; returns true if done.
bool scaleTerms(RewriterBase &rewriter, linalg::GenericOp scale) {
  std::optional<Value> c = scaleOf(scale);
  if (!c)
    return false;
  auto sum = scale.getInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!sum || !sum->hasOneUse() || sum->getNumResults() != 1 ||
      sum.getNumReductionLoops() == 0 ||
      !isZeroFill(sum.getDpsInitOperand(0)->get()))
    return false;
  std::string why;
  FailureOr<ReductionShape> shape = analyzeReduction(sum, why);
  if (failed(shape) || shape->arg || !isa<arith::AddFOp>(shape->combiner))
    return false;
  Operation *combiner = shape->combiner;
  OpOperand &term = combiner->getOpOperand(1 - shape->accumulatorOperand);
  rewriter.setInsertionPoint(combiner);
  Operation *constant = c->getDefiningOp();
  Value factor = rewriter.clone(*constant)->getResult(0);
  Value scaled =
      arith::MulFOp::create(rewriter, combiner->getLoc(), term.get(), factor);
  rewriter.modifyOpInPlace(combiner, [&] { term.set(scaled); });
  rewriter.replaceOp(scale, sum->getResults());
  return true;
}

struct FuserScaleSumTermsPass
    : fuser::impl::FuserScaleSumTermsPassBase<FuserScaleSumTermsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (scaleOf(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates) {
      Location loc = op.getLoc();
      if (scaleTerms(rewriter, op) && report)
        emitRemark(loc) << "scale folded into the terms of the sum it "
                           "scales: one reduction kernel";
    }
  }
};

} // namespace
