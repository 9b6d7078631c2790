//===- ConstantPowers.cpp - x^c as PyTorch's pow kernel computes it -------===//
//
// See the pass description: powf by 2, 3, 0.5, -1 or -2 becomes the
// products, square root or reciprocal PyTorch's own kernels compute.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERCONSTANTPOWERSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

struct ConstantPower : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<APFloat> exponent = fuser::getFloatConstant(op.getRhs());
    if (!exponent)
      return rewriter.notifyMatchFailure(op, "the exponent is no constant");
    double e = exponent->convertToDouble();
    if (!llvm::is_contained({2.0, 3.0, 0.5, -1.0, -2.0}, e))
      return rewriter.notifyMatchFailure(op, "an exponent PyTorch does not "
                                             "special-case");
    Location loc = op.getLoc();
    Value x = op.getLhs();
    arith::FastMathFlagsAttr fm = op.getFastmathAttr();
    auto mul = [&](Value a, Value b) {
      return arith::MulFOp::create(rewriter, loc, a, b, fm).getResult();
    };
    auto reciprocal = [&](Value v) {
      TypedAttr one = rewriter.getFloatAttr(getElementTypeOrSelf(v), 1.0);
      if (auto shaped = dyn_cast<ShapedType>(v.getType()))
        one = SplatElementsAttr::get(shaped, one);
      Value c = arith::ConstantOp::create(rewriter, loc, one);
      return arith::DivFOp::create(rewriter, loc, c, v, fm).getResult();
    };
    Value result;
    if (e == 2.0)
      result = mul(x, x);
    else if (e == 3.0)
      result = mul(mul(x, x), x);
    else if (e == 0.5)
      result = math::SqrtOp::create(rewriter, loc, x, fm);
    else if (e == -1.0)
      result = reciprocal(x);
    else
      result = reciprocal(mul(x, x));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct FuserConstantPowersPass
    : fuser::impl::FuserConstantPowersPassBase<FuserConstantPowersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConstantPower>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
