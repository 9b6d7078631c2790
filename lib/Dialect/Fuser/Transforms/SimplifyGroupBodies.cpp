//===- SimplifyGroupBodies.cpp - immediates, exact algebra ------*- C++ -*-===//
//
// 1. Group inputs that hold one constant value everywhere (a scalar
//    arith.constant, a splat tensor constant of any shape, 0-d included:
//    torch-mlir's slopes and bounds) become arith.constant immediates in
//    every body that receives them and are dropped from the group's inputs,
//    so no host buffer exists for them. This is the one place that does it,
//    for every group kind, whichever pass formed the group.
// 2. Constant scalings become explicit in the bodies (x + x is x * 2.0;
//    two scalings by constants become one when that is exact) so that code
//    generation can fold a leading scaling of the matmul accumulator.
// 3. torch-mlir's leaky_relu (max(0, x) + min(0, x) * s) becomes one
//    select in pointwise groups, as the hand-written form is.
// Every rewrite here must keep results bit-identical; see the pass
// description for the one documented caveat.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
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

/// The value every element of `v` holds, if `v` is a constant that holds
/// one: a scalar constant, or a splat tensor constant of any shape (0-d
/// ones included; torch-mlir prints those as dense<...>). Null otherwise:
/// other constants (dense_resource weights, say) are data and stay inputs.
static TypedAttr getUniformConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return nullptr;
  if (!isa<ShapedType>(v.getType()))
    return dyn_cast<TypedAttr>(attr);
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    return dyn_cast<TypedAttr>(splat.getSplatValue<Attribute>());
  return nullptr;
}

/// True if tensor input `i` (of `inputs`, read through `maps`) is the only
/// one that reads some dynamic dimension of `resultTy`: it gives that size.
static bool suppliesDynamicSize(unsigned i, ValueRange inputs,
                                ArrayRef<Attribute> maps,
                                RankedTensorType resultTy) {
  auto reads = [&](unsigned k, int64_t d) {
    return isa<RankedTensorType>(inputs[k].getType()) &&
           cast<AffineMapAttr>(maps[k])
               .getValue()
               .getResultPosition(getAffineDimExpr(d, resultTy.getContext()))
               .has_value();
  };
  for (int64_t d = 0; d < resultTy.getRank(); ++d) {
    if (!resultTy.isDynamicDim(d) || !reads(i, d))
      continue;
    if (llvm::none_of(llvm::seq<unsigned>(0, inputs.size()),
                      [&](unsigned k) { return k != i && reads(k, d); }))
      return true;
  }
  return false;
}

/// Folds the uniform constants among `inputs` (read through `maps`) into the
/// `bodies` that receive input i as block argument `firstArg + i`: each
/// becomes an arith.constant at the start of the body and leaves `inputs`
/// and `maps`; the constant op outside goes once nothing else reads it.
/// With `resultTy` (a pointwise group's), an input that alone gives a dynamic
/// result size stays. Returns the new maps, or null if nothing was folded.
static ArrayAttr foldConstantInputs(MutableOperandRange inputs, ArrayAttr maps,
                                    ArrayRef<Region *> bodies,
                                    unsigned firstArg,
                                    RankedTensorType resultTy = nullptr) {
  SmallVector<Attribute> newMaps(maps.getValue());
  bool folded = false;
  // Highest index first, so the indices still to visit stay valid.
  for (int i = static_cast<int>(inputs.size()) - 1; i >= 0; --i) {
    Value input = inputs[i].get();
    TypedAttr value = getUniformConstant(input);
    if (!value || llvm::any_of(bodies, [&](Region *body) {
          return body->front().getArgument(firstArg + i).getType() !=
                 value.getType();
        }))
      continue;
    if (resultTy &&
        suppliesDynamicSize(i, inputs.getAsOperandRange(), newMaps, resultTy))
      continue;
    for (Region *body : bodies) {
      Block &block = body->front();
      BlockArgument arg = block.getArgument(firstArg + i);
      if (!arg.use_empty()) {
        auto builder = OpBuilder::atBlockBegin(&block);
        Value immediate =
            arith::ConstantOp::create(builder, input.getLoc(), value);
        arg.replaceAllUsesWith(immediate);
      }
      block.eraseArgument(firstArg + i);
    }
    inputs.erase(i);
    newMaps.erase(newMaps.begin() + i);
    folded = true;
    // A constant no one else reads goes now, before bufferization could
    // make it a host global.
    if (Operation *def = input.getDefiningOp(); def && isOpTriviallyDead(def))
      def->erase();
  }
  return folded ? ArrayAttr::get(maps.getContext(), newMaps) : nullptr;
}

/// Step 1 on one group op (fuser.pointwise, fuser.matmul with its `then`
/// region, fuser.group_norm, fuser.group_norm_grad).
static void foldConstantInputs(Operation *op) {
  if (auto pointwise = dyn_cast<PointwiseOp>(op)) {
    if (ArrayAttr maps = foldConstantInputs(
            pointwise.getInputsMutable(), pointwise.getIndexingMaps(),
            {&pointwise.getBody()}, /*firstArg=*/0,
            pointwise.getResultTensorType()))
      pointwise.setIndexingMapsAttr(maps);
    return;
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    SmallVector<Region *> bodies{&matmul.getEpilogue()};
    if (!matmul.getNormEpilogue().empty())
      bodies.push_back(&matmul.getNormEpilogue());
    // The accumulator (normalized value) comes first.
    if (ArrayAttr maps = foldConstantInputs(matmul.getEpilogueInputsMutable(),
                                            matmul.getEpilogueMaps(), bodies,
                                            /*firstArg=*/1))
      matmul.setEpilogueMapsAttr(maps);
    return;
  }
  if (auto norm = dyn_cast<GroupNormOp>(op)) {
    if (ArrayAttr maps =
            foldConstantInputs(norm.getEpilogueInputsMutable(),
                               norm.getEpilogueMaps(), {&norm.getEpilogue()},
                               /*firstArg=*/1))
      norm.setEpilogueMapsAttr(maps);
    return;
  }
  if (auto grad = dyn_cast<GroupNormGradOp>(op))
    if (ArrayAttr maps =
            foldConstantInputs(grad.getPrologueInputsMutable(),
                               grad.getPrologueMaps(), {&grad.getPrologue()},
                               /*firstArg=*/0))
      grad.setPrologueMapsAttr(maps);
}

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

/// The value of a scalar float constant, looking through the truncf/extf of
/// one (torch-mlir's f64 slopes arrive as truncf of an f64 constant); a
/// truncf with its own rounding mode is not folded here.
static std::optional<APFloat> getScalarConstant(Value v) {
  auto type = dyn_cast<FloatType>(v.getType());
  Operation *conversion = v.getDefiningOp();
  if (auto trunc = dyn_cast_if_present<arith::TruncFOp>(conversion);
      trunc && trunc.getRoundingmodeAttr())
    return std::nullopt;
  if (conversion && isa<arith::TruncFOp, arith::ExtFOp>(conversion))
    v = conversion->getOperand(0);
  FloatAttr attr;
  if (!type || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  APFloat value = attr.getValue();
  bool lost = false;
  value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
  return value;
}

/// Matches `select(cmpf(pred, zero, x), zero', x)` with zero' +0.0 and zero
/// +-0.0: max(0, x) for ogt, min(0, x) for olt, as torch-mlir writes them
/// (NaN x gives x). Binds x.
static bool matchZeroClamp(Value v, arith::CmpFPredicate pred, Value &x) {
  auto select = v.getDefiningOp<arith::SelectOp>();
  if (!select)
    return false;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != pred ||
      cmp.getRhs() != select.getFalseValue() ||
      !matchPattern(cmp.getLhs(), m_AnyZeroFloat()) ||
      !matchPattern(select.getTrueValue(), m_PosZeroFloat()))
    return false;
  x = select.getFalseValue();
  return true;
}

/// torch-mlir's leaky_relu, `max(0, x) + min(0, x) * s` (two compares, two
/// selects, a multiply and an add), becomes `select(x < 0, x * s + 0.0, x)`
/// for a finite constant s >= 0. Same bits for every x: x > 0 gives
/// x + (+0) = x; +-0 gives itself in both; x < 0 gives +0 + x * s, which the
/// + 0.0 keeps where x * s underflows to -0; NaN stays NaN (its payload
/// aside). In fuser.pointwise bodies only: in the torch-mlir W3 epilogue it
/// made ptxas spill (56 bytes, none before) and the kernel 8% slower (H100,
/// 2026-11-24, bench/experiments/ab_kernels.py), while W1 went from 0.993x to 1.000x of
/// the hand-written kernel.
struct LeakyReluToSelect : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type || !isa<PointwiseOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "not in a pointwise body");
    for (unsigned side = 0; side < 2; ++side) {
      Value x, xNeg;
      if (!matchZeroClamp(op->getOperand(side), arith::CmpFPredicate::OGT, x))
        continue;
      auto mul = op->getOperand(1 - side).getDefiningOp<arith::MulFOp>();
      if (!mul)
        continue;
      for (unsigned m = 0; m < 2; ++m) {
        Value slope = mul->getOperand(1 - m);
        std::optional<APFloat> s = getScalarConstant(slope);
        if (!matchZeroClamp(mul->getOperand(m), arith::CmpFPredicate::OLT,
                            xNeg) ||
            xNeg != x || !s || !s->isFinite() || s->isNegative())
          continue;
        Location loc = op.getLoc();
        Value zero = arith::ConstantOp::create(
            rewriter, loc, rewriter.getFloatAttr(type, 0.0));
        Value negative = arith::CmpFOp::create(
            rewriter, loc, arith::CmpFPredicate::OLT, x, zero);
        Value scaled = arith::MulFOp::create(rewriter, loc, x, slope);
        Value kept = arith::AddFOp::create(rewriter, loc, scaled, zero);
        rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, kept, x);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "not max(0, x) + min(0, x) * s");
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
    patterns.add<AddSelfToMulTwo, LeakyReluToSelect>(&getContext());
    if (foldScales) // opt-in: not exact under intermediate overflow
      patterns.add<FoldPowerOfTwoScale>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Only the rewrites above: folders could constant-fold math functions
    // on the host, which need not match the device's results.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);

    SmallVector<Operation *> groups;
    getOperation().walk([&](Operation *op) {
      if (isa<PointwiseOp, MatmulOp, GroupNormOp, GroupNormGradOp>(op))
        groups.push_back(op);
    });
    SmallVector<Region *> bodies;
    for (Operation *op : groups) {
      // 1. Constant inputs first, so step 2 sees them as immediates.
      foldConstantInputs(op);
      for (Region &r : op->getRegions())
        if (!r.empty())
          bodies.push_back(&r);
    }
    for (Region *body : bodies)
      if (failed(applyPatternsGreedily(*body, frozen, config)))
        return signalPassFailure();
  }
};

} // namespace
