//===- DivideByReciprocal.cpp - x / c as x * (1 / c), as PyTorch does ----===//
//
// See the pass description: PyTorch's kernels multiply by the reciprocal of
// a scalar divisor; fuser's do the same for f32 and f64.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERDIVIDEBYRECIPROCALPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

struct DivideByReciprocal : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type elem = getElementTypeOrSelf(type);
    if (!elem.isF32() && !elem.isF64())
      return rewriter.notifyMatchFailure(op, "PyTorch's math type differs");
    std::optional<APFloat> divisor = fuser::getFloatConstant(op.getRhs());
    if (!divisor || !divisor->isFiniteNonZero())
      return rewriter.notifyMatchFailure(op, "not a finite nonzero constant");
    APFloat reciprocal(divisor->getSemantics(), 1);
    reciprocal.divide(*divisor, APFloat::rmNearestTiesToEven);
    if (!reciprocal.isFiniteNonZero() || reciprocal.isDenormal())
      return rewriter.notifyMatchFailure(op, "the reciprocal is not normal");
    TypedAttr value = FloatAttr::get(elem, reciprocal);
    if (auto shaped = dyn_cast<ShapedType>(type))
      value = SplatElementsAttr::get(shaped, value);
    Value factor = arith::ConstantOp::create(rewriter, op.getLoc(), value);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), factor,
                                               op.getFastmathAttr());
    return success();
  }
};

struct FuserDivideByReciprocalPass
    : fuser::impl::FuserDivideByReciprocalPassBase<
          FuserDivideByReciprocalPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DivideByReciprocal>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
