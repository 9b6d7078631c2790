//===- OnlineSoftmax.cpp - a softmax's max and sum in one pass ------------===//
//
// See the pass description: the max of a row and the sum of exp(x - max)
// become one reduction with two results, so a softmax, log_softmax or
// logsumexp reads its input twice (statistics, then the output) instead of
// three times.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERONLINESOFTMAXPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether `init` is a linalg.fill of the f32 constant `pred` accepts.
bool isFillOf(Value init, function_ref<bool(const APFloat &)> pred) {
  std::optional<APFloat> v = getFillConstant(init);
  return v && getElementTypeOrSelf(init.getType()).isF32() && pred(*v);
}

/// The input of `op` (one result) whose block argument `op`'s body folds
/// into the accumulator with a `Combiner` (the body is that op alone), or
/// null.
template <typename Combiner>
OpOperand *plainReductionInput(linalg::GenericOp op) {
  if (op->getNumResults() != 1 || op.getNumReductionLoops() == 0)
    return nullptr;
  Block &body = op.getRegion().front();
  auto combiner = body.getTerminator()->getOperand(0).getDefiningOp<Combiner>();
  if (!combiner || &body.front() != combiner.getOperation())
    return nullptr;
  BlockArgument acc = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  Value other = combiner.getLhs() == acc   ? combiner.getRhs()
                : combiner.getRhs() == acc ? combiner.getLhs()
                                           : Value();
  auto arg = dyn_cast_or_null<BlockArgument>(other);
  if (!arg || arg.getOwner() != &body || arg == acc)
    return nullptr;
  return op.getMatchingOpOperand(arg);
}

/// A sum of exp(x - m) found with the max reduction that computes m.
/// `shifted`: m is torch.logsumexp's shift of the maximum, 0 where the
/// maximum is infinite, else the maximum.
struct SoftmaxStatistics {
  linalg::GenericOp max, sum;
  bool shifted = false;
};

/// `v` without the tensor reshapes that add or drop unit dimensions.
Value peelReshapes(Value v) {
  while (true) {
    if (auto expand = v.getDefiningOp<tensor::ExpandShapeOp>())
      v = expand.getSrc();
    else if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>())
      v = collapse.getSrc();
    else
      return v;
  }
}

/// The element of `v` at any point where the tensor `root` holds `x`, for
/// an elementwise chain of linalg.generics from `root` (through reshapes)
/// and splat constants; null where something else is on the way.
Attribute elementOfChain(Value v, Value root, FloatAttr x, int depth = 0) {
  v = peelReshapes(v);
  if (v == root)
    return x;
  DenseElementsAttr splat;
  if (matchPattern(v, m_Constant(&splat)) && splat.isSplat())
    return splat.getSplatValue<Attribute>();
  auto op = v.getDefiningOp<linalg::GenericOp>();
  if (!op || depth > 8 || op->getNumResults() != 1 ||
      op.getNumReductionLoops() != 0)
    return {};
  Block &body = op.getRegion().front();
  DenseMap<Value, Attribute> value;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!map.isIdentity() && map.getNumResults() != 0)
      return {};
    Attribute a = elementOfChain(in->get(), root, x, depth + 1);
    if (!a)
      return {};
    value[op.getMatchingBlockArgument(in)] = a;
  }
  if (failed(foldScalarBody(body, value)))
    return {};
  return value.lookup(body.getTerminator()->getOperand(0));
}

/// The max reduction whose result `v` is, or torch.logsumexp's shift of
/// (`shifted`): where(|m| == inf, 0, m) of such a result m, recognised by
/// evaluating its elementwise chain at finite and infinite points.
linalg::GenericOp maxOrShiftedMax(Value v, bool &shifted) {
  v = peelReshapes(v);
  auto isMax = [](linalg::GenericOp op) {
    return op && plainReductionInput<arith::MaximumFOp>(op);
  };
  shifted = false;
  if (auto max = v.getDefiningOp<linalg::GenericOp>(); isMax(max))
    return max;
  // The chain's one max reduction.
  linalg::GenericOp max;
  SmallVector<Value> work{v};
  for (int steps = 0; !work.empty() && steps < 16; ++steps) {
    auto op = peelReshapes(work.pop_back_val()).getDefiningOp<linalg::GenericOp>();
    if (!op)
      continue;
    if (isMax(op)) {
      if (max && max != op)
        return {};
      max = op;
      continue;
    }
    for (OpOperand *in : op.getDpsInputOperands())
      work.push_back(in->get());
  }
  if (!max)
    return {};
  Value root = max.getResult(0);
  MLIRContext *ctx = v.getContext();
  auto at = [&](double x) {
    return dyn_cast_or_null<FloatAttr>(
        elementOfChain(v, root, FloatAttr::get(Float32Type::get(ctx), x)));
  };
  float largest = std::numeric_limits<float>::max();
  for (float x : {-2.5f, 0.0f, 3.0f, 1e30f, -1e30f, largest, -largest}) {
    FloatAttr y = at(x);
    if (!y || y.getValueAsDouble() != double(x))
      return {};
  }
  double inf = std::numeric_limits<double>::infinity();
  for (double x : {inf, -inf}) {
    FloatAttr y = at(x);
    if (!y || y.getValueAsDouble() != 0.0)
      return {};
  }
  FloatAttr nan = at(std::numeric_limits<double>::quiet_NaN());
  if (!nan || !std::isnan(nan.getValueAsDouble()))
    return {};
  shifted = true;
  return max;
}

/// Matches `sum`: sum over the loops of `max` of exp(x - m), x read as
/// `max` reads it and m the max's result at the same output point (the
/// result itself, or a reshape that adds or drops unit dimensions); the max
/// into -inf, the sum into +0.0.
std::optional<SoftmaxStatistics> matchStatistics(linalg::GenericOp sum) {
  if (sum->getNumResults() != 1 || sum.getNumDpsInputs() != 2 ||
      !isFillOf(sum.getDpsInitOperand(0)->get(),
                [](const APFloat &v) { return v.isPosZero(); }))
    return std::nullopt;
  Block &body = sum.getRegion().front();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  BlockArgument acc = sum.getMatchingBlockArgument(sum.getDpsInitOperand(0));
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return std::nullopt;
  auto exp = (add.getLhs() == acc ? add.getRhs() : add.getLhs())
                 .getDefiningOp<math::ExpOp>();
  auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  if (!sub || body.getOperations().size() != 4)
    return std::nullopt;
  auto x = dyn_cast<BlockArgument>(sub.getLhs());
  auto m = dyn_cast<BlockArgument>(sub.getRhs());
  if (!x || !m || x == m || x.getOwner() != &body || m.getOwner() != &body ||
      x.getArgNumber() >= 2 || m.getArgNumber() >= 2)
    return std::nullopt;
  OpOperand *xIn = sum.getMatchingOpOperand(x);
  OpOperand *mIn = sum.getMatchingOpOperand(m);
  // m is read at the output's point: through the output's map, but for
  // unit dimensions (keepdim's (d0, 0) against (d0)).
  auto withoutUnits = [](AffineMap map) {
    SmallVector<AffineExpr> kept;
    for (AffineExpr e : map.getResults())
      if (!isa<AffineConstantExpr>(e))
        kept.push_back(e);
    return AffineMap::get(map.getNumDims(), 0, kept, map.getContext());
  };
  auto mTy = cast<RankedTensorType>(mIn->get().getType());
  auto outTy = cast<RankedTensorType>(sum.getResult(0).getType());
  if (withoutUnits(sum.getMatchingIndexingMap(mIn)) !=
          withoutUnits(sum.getMatchingIndexingMap(sum.getDpsInitOperand(0))) ||
      (mTy != outTy && !getReassociationIndicesForReshape(mTy, outTy)))
    return std::nullopt;
  bool shifted = false;
  linalg::GenericOp max = maxOrShiftedMax(mIn->get(), shifted);
  if (!max)
    return std::nullopt;
  OpOperand *maxIn = plainReductionInput<arith::MaximumFOp>(max);
  if (!maxIn || maxIn->get() != xIn->get() ||
      max.getMatchingIndexingMap(maxIn) != sum.getMatchingIndexingMap(xIn) ||
      max.getIteratorTypesArray() != sum.getIteratorTypesArray() ||
      !isFillOf(max.getDpsInitOperand(0)->get(), [](const APFloat &v) {
        return v.isInfinity() && v.isNegative();
      }))
    return std::nullopt;
  // Without unit dimensions, the max's output and the sum's index the same
  // points.
  auto maxTy = cast<RankedTensorType>(max.getResult(0).getType());
  auto sumTy = cast<RankedTensorType>(sum.getResult(0).getType());
  if (maxTy != sumTy && !getReassociationIndicesForReshape(maxTy, sumTy))
    return std::nullopt;
  return SoftmaxStatistics{max, sum, shifted};
}

/// The online body on (x, m, s): the merge of (m, s) with x's own state
/// (x, w), as the kernel merges two partial results (ReductionAnalysis.h);
/// w = exp(x - x) is 1, or NaN for x = +inf, as in PyTorch's sum.
void buildOnlineBody(OpBuilder &b, Location loc, Block *body) {
  Value x = body->getArgument(0), m = body->getArgument(1),
        s = body->getArgument(2);
  Type f32 = x.getType();
  Value d = arith::SubFOp::create(b, loc, x, m);
  Value magnitude = math::AbsFOp::create(b, loc, d);
  Value e =
      math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, magnitude));
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, 0.0));
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, 1.0));
  e = arith::SelectOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, d, d),
      zero, e);
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(f32, APFloat::getInf(APFloat::IEEEsingle())));
  Value nan = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(f32, APFloat::getQNaN(APFloat::IEEEsingle())));
  Value w = arith::SelectOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, inf),
      nan, one);
  Value grows = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, m);
  // One statement each: the order of the ops is the order written.
  Value up = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, s, e).getResult(), w);
  Value keep = arith::AddFOp::create(
      b, loc, s, arith::MulFOp::create(b, loc, w, e).getResult());
  Value sum = arith::SelectOp::create(b, loc, grows, up, keep);
  Value max = arith::MaximumFOp::create(b, loc, m, x);
  // A NaN maximum makes the sum NaN, as a NaN element makes PyTorch's.
  sum = arith::SelectOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, max, max), nan,
      sum);
  linalg::YieldOp::create(b, loc, ValueRange{max, sum});
}

/// Replaces the pair by one two-result reduction at the max's place.
void fuse(RewriterBase &rewriter, const SoftmaxStatistics &st) {
  linalg::GenericOp max = st.max, sum = st.sum;
  Location loc = max.getLoc();
  rewriter.setInsertionPoint(max);
  OpOperand *maxIn = plainReductionInput<arith::MaximumFOp>(max);
  Value maxInit = max.getDpsInitOperand(0)->get();
  auto type = cast<RankedTensorType>(maxInit.getType());
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, destinationSizes(rewriter, loc, maxInit),
      type.getElementType());
  Value sumInit =
      linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  AffineMap outMap = max.getMatchingIndexingMap(max.getDpsInitOperand(0));
  auto online = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type, type}, ValueRange{maxIn->get()},
      ValueRange{maxInit, sumInit},
      ArrayRef<AffineMap>{max.getMatchingIndexingMap(maxIn), outMap, outMap},
      max.getIteratorTypesArray(), [&](OpBuilder &b, Location l, ValueRange) {
        buildOnlineBody(b, l, b.getInsertionBlock());
      });
  online->setAttr(kOnlineSoftmaxAttrName, rewriter.getUnitAttr());
  rewriter.replaceAllUsesWith(max.getResult(0), online.getResult(0));
  Value sumResult = online.getResult(1);
  if (st.shifted) {
    // Against logsumexp's shift: the same sum where the maximum is finite
    // or -inf (every exp is 0 then), +inf where it is +inf (exp(x - 0)
    // sums to +inf; the online sum is NaN there, as softmax's is).
    unsigned rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    auto fix = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{online.getResult(0), online.getResult(1)},
        ValueRange{tensor::EmptyOp::create(
            rewriter, loc, destinationSizes(rewriter, loc, maxInit),
            type.getElementType())},
        ArrayRef<AffineMap>{id, id, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value inf = arith::ConstantOp::create(
              b, l, b.getF32FloatAttr(std::numeric_limits<float>::infinity()));
          Value isInf = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OEQ, args[0], inf);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, isInf, inf, args[1])});
        });
    sumResult = fix.getResult(0);
  }
  auto sumTy = cast<RankedTensorType>(sum.getResult(0).getType());
  if (sumTy != type) {
    rewriter.setInsertionPoint(sum);
    SmallVector<ReassociationIndices> re =
        *getReassociationIndicesForReshape(type, sumTy);
    sumResult =
        sumTy.getRank() > type.getRank()
            ? tensor::ExpandShapeOp::create(rewriter, loc, sumTy, sumResult, re)
                  .getResult()
            : tensor::CollapseShapeOp::create(rewriter, loc, sumTy, sumResult,
                                              re)
                  .getResult();
  }
  rewriter.replaceOp(sum, sumResult);
  rewriter.eraseOp(max);
}

struct FuserOnlineSoftmaxPass
    : fuser::impl::FuserOnlineSoftmaxPassBase<FuserOnlineSoftmaxPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> sums;
    getOperation().walk([&](linalg::GenericOp op) { sums.push_back(op); });
    for (linalg::GenericOp sum : sums) {
      std::optional<SoftmaxStatistics> st = matchStatistics(sum);
      if (!st)
        continue;
      Location loc = st->max.getLoc();
      fuse(rewriter, *st);
      if (report)
        emitRemark(loc) << "softmax statistics in one pass: the maximum and "
                           "the sum of exp(x - maximum) in one reduction"
                        << (st->shifted ? " (logsumexp's shift: 0 where the "
                                          "maximum is infinite)"
                                        : "");
    }
  }
};

} // namespace
