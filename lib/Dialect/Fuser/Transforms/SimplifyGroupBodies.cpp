//===- SimplifyGroupBodies.cpp - exact algebra in fusion bodies -*- C++ -*-===//
//
// Makes constant scalings explicit in fusion group bodies (x + x is x * 2.0;
// two scalings by constants become one when that is exact) so that code
// generation can fold a leading scaling of the matmul accumulator. Every
// rewrite here must keep results bit-identical; see the pass description
// for the one documented caveat.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <climits>

#define DEBUG_TYPE "fuser-simplify-group-bodies"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERSIMPLIFYGROUPBODIESPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// `addf(%v, %v)` -> `mulf(%v, 2.0)`. Both round the exact value 2v once.
struct AddSelfToMulTwo : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type || op.getLhs() != op.getRhs())
      return rewriter.notifyMatchFailure(op, "not a scalar x + x");
    Value two = arith::ConstantOp::create(rewriter, op.getLoc(),
                                          rewriter.getFloatAttr(type, 2.0));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), two,
                                               op.getFastmath());
    return success();
  }
};

/// Matches `mulf(x, c)` or `mulf(c, x)` with a constant scalar c; binds x
/// and c.
static bool matchScale(Value v, Value &x, APFloat &c) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  if (matchPattern(mul.getRhs(), m_ConstantFloat(&c))) {
    x = mul.getLhs();
    return true;
  }
  if (matchPattern(mul.getLhs(), m_ConstantFloat(&c))) {
    x = mul.getRhs();
    return true;
  }
  return false;
}

/// `mulf(mulf(x, c1), c2)` -> `mulf(x, c1 * c2)` when c1 or c2 is a power of
/// two up to sign, c1 * c2 is exact and the inner product has no other user.
/// Scaling by 2^e does not round, so both sides round the same exact product
/// (barring overflow or subnormal intermediates, documented in the pass
/// description).
struct FoldPowerOfTwoScale : OpRewritePattern<arith::MulFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::MulFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "not a scalar multiply");
    Value x, inner;
    APFloat c1(0.0), c2(0.0);
    if (!matchScale(op.getResult(), inner, c2) || !matchScale(inner, x, c1))
      return rewriter.notifyMatchFailure(op, "not a scaling of a scaling");
    // With other users the inner multiply stays: nothing would be saved.
    if (!inner.hasOneUse())
      return rewriter.notifyMatchFailure(op, "the inner scaling has other "
                                             "users");
    if (c1.getExactLog2Abs() == INT_MIN && c2.getExactLog2Abs() == INT_MIN)
      return rewriter.notifyMatchFailure(op, "no power-of-two factor");
    APFloat product = c1;
    if (product.multiply(c2, APFloat::rmNearestTiesToEven) != APFloat::opOK)
      return rewriter.notifyMatchFailure(op, "c1 * c2 is not exact");
    auto innerMul = inner.getDefiningOp<arith::MulFOp>();
    Value c = arith::ConstantOp::create(rewriter, op.getLoc(),
                                        rewriter.getFloatAttr(type, product));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(
        op, x, c, op.getFastmath() & innerMul.getFastmath());
    return success();
  }
};

class SimplifyGroupBodiesPass
    : public fuser::impl::FuserSimplifyGroupBodiesPassBase<
          SimplifyGroupBodiesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddSelfToMulTwo>(&getContext());
    if (foldScales) // opt-in: not exact under intermediate overflow
      patterns.add<FoldPowerOfTwoScale>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Only the rewrites above: folders could constant-fold math functions
    // on the host, which need not match the device's results.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);

    SmallVector<Region *> bodies;
    getOperation().walk([&](Operation *op) {
      if (isa<PointwiseOp, MatmulOp, GroupNormOp>(op))
        for (Region &r : op->getRegions())
          bodies.push_back(&r);
    });
    for (Region *body : bodies)
      if (failed(applyPatternsGreedily(*body, frozen, config)))
        return signalPassFailure();
  }
};

} // namespace
