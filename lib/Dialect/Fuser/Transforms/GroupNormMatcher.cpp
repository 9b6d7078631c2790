//===- GroupNormMatcher.cpp - normalization statistics matching -*- C++ -*-===//

#include "GroupNormMatcher.h"

#include "EpilogueUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::fuser;

bool fuser::isTraceableElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getRegion().hasOneBlock())
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return false;
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            inner.getDialect()) ||
        inner.getNumRegions() != 0)
      return false;
  return true;
}

/// `v` without arith.extf / arith.truncf.
static Value stripPrecisionChanges(Value v) {
  while (isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

Term fuser::traceScalar(Value v, AffineMap ctx, Value stopAt,
                        bool passThroughOnly) {
  while (true) {
    // Precision changes are transparent: the kernels pick their own.
    if (auto ext = v.getDefiningOp<arith::ExtFOp>()) {
      v = ext.getIn();
      continue;
    }
    if (auto trunc = v.getDefiningOp<arith::TruncFOp>()) {
      v = trunc.getIn();
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || !ctx)
      return {v, ctx, Value(), AffineMap()};
    auto op = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp());
    if (!op || arg.getOwner() != op.getBlock())
      return {v, ctx, Value(), AffineMap()};
    OpOperand *operand = op.getMatchingOpOperand(arg);
    if (!operand || (op.isDpsInit(operand) && op.getNumReductionLoops() != 0))
      return {v, ctx, Value(), AffineMap()}; // an accumulator
    Value t = operand->get();
    if (!isa<ShapedType>(t.getType())) { // a scalar operand
      v = t;
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(operand).compose(ctx);
    // Copies (fills, broadcasts, transposes) read their source.
    while (isa<RankedTensorType>(t.getType()))
      if (std::optional<MappedValue> copy = matchCopy(t)) {
        t = copy->source;
        map = copy->map.compose(map);
      } else {
        break;
      }
    if (!isa<ShapedType>(t.getType())) { // a filled scalar
      v = t;
      continue;
    }
    auto producer = t.getDefiningOp<linalg::GenericOp>();
    if (!producer || !isTraceableElementwise(producer) || t == stopAt)
      return {arg, ctx, t, map};
    v = producer.getBlock()->getTerminator()->getOperand(
        cast<OpResult>(t).getResultNumber());
    if (passThroughOnly && !isa<BlockArgument>(stripPrecisionChanges(v)))
      return {arg, ctx, t, map};
    ctx = map;
  }
}

std::optional<double> fuser::constantValue(const Term &t) {
  FloatAttr attr;
  if (matchPattern(t.value, m_Constant(&attr)))
    return attr.getValueAsDouble();
  DenseElementsAttr dense;
  if (t.tensor && matchPattern(t.tensor, m_Constant(&dense)) && dense.isSplat())
    if (auto f = dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>()))
      return f.getValueAsDouble();
  return std::nullopt;
}

double fuser::shortestRoundTrip(double v) {
  float f = static_cast<float>(v);
  for (int digits = 1; digits <= 9; ++digits) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
    double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == f)
      return d;
  }
  return v;
}

/// `v` as the f32 it rounds to, shortest: "5" for 1 / 0.2f.
static std::string formatF32(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", shortestRoundTrip(v));
  return buf;
}

GroupNormMatcher::GroupNormMatcher(Value data)
    : data(data), shape(cast<RankedTensorType>(data.getType()).getShape()) {}

/// `m` (from the iteration space of a tensor of shape `shape`) with every
/// dimension of extent 1 replaced by 0, so (d0, d1, 0, d3) and
/// (d0, d1, 0, 0) on (N, G, K, 1) compare equal. Null if `m` has another
/// domain.
static AffineMap canonicalOn(AffineMap m, ArrayRef<int64_t> shape) {
  if (!m || m.getNumDims() != shape.size() || m.getNumSymbols() != 0)
    return AffineMap();
  MLIRContext *ctx = m.getContext();
  SmallVector<AffineExpr> dims;
  for (auto [i, extent] : llvm::enumerate(shape))
    dims.push_back(extent == 1 ? getAffineConstantExpr(0, ctx)
                               : getAffineDimExpr(i, ctx));
  return simplifyAffineMap(
      m.replaceDimsAndSymbols(dims, {}, m.getNumDims(), 0));
}

AffineMap GroupNormMatcher::canonical(AffineMap m) const {
  return canonicalOn(m, shape);
}

bool fuser::isElementOf(const Term &t, Value data) {
  if (!t.tensor || t.tensor != data)
    return false;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(data.getType()).getShape();
  AffineMap m = canonicalOn(t.map, shape);
  return m && m == canonicalOn(AffineMap::getMultiDimIdentityMap(
                                   shape.size(), data.getContext()),
                               shape);
}

std::string GroupNormMatcher::matchNormalize(linalg::GenericOp op) {
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(shape.size(), op.getContext());
  Term root =
      traceScalar(op.getBlock()->getTerminator()->getOperand(0), id, data);
  auto centered = [&](Value v, const Term &at) -> std::optional<Term> {
    Term c = trace(v, at);
    auto sub = c.value.getDefiningOp<arith::SubFOp>();
    if (!sub || !isDataElement(trace(sub.getLhs(), c)))
      return std::nullopt;
    return trace(sub.getRhs(), c);
  };
  if (auto mul = root.value.getDefiningOp<arith::MulFOp>()) {
    for (auto [x, r] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (std::optional<Term> mean = centered(x, root)) {
        std::string why = matchMean(*mean);
        return why.empty() ? matchRstd(trace(r, root)) : why;
      }
  } else if (auto div = root.value.getDefiningOp<arith::DivFOp>()) {
    if (std::optional<Term> mean = centered(div.getLhs(), root)) {
      std::string why = matchMean(*mean);
      if (!why.empty())
        return why;
      Term sd = trace(div.getRhs(), root);
      auto sqrt = sd.value.getDefiningOp<math::SqrtOp>();
      if (!sqrt)
        return "the normalization does not divide by sqrt(var + eps)";
      return matchVarPlusEps(trace(sqrt.getOperand(), sd));
    }
  }
  return kNotNormalizeMessage;
}

std::string GroupNormMatcher::matchGroupSum(const Term &sum, StringRef what,
                                            Summand summand) {
  auto red = sum.tensor ? sum.tensor.getDefiningOp<linalg::LinalgOp>()
                        : linalg::LinalgOp();
  if (!red || red.getNumDpsInits() != 1 || red->getNumResults() != 1 ||
      !red.hasPureTensorSemantics() || red.getNumReductionLoops() == 0)
    return ("the " + what + " is not computed from a sum reduction").str();
  if (red.getStaticLoopRanges() != ArrayRef<int64_t>(shape))
    return ("the " + what + " does not reduce the grouped view").str();

  // 1. The layout: one sum per index of the leading dimensions (written
  //    through a keepdim map), over the trailing ones. Unit dimensions
  //    (torch-mlir's trailing 1 of (N, G, K, 1)) do not count.
  OpOperand *init = red.getDpsInitOperand(0);
  AffineMap out = canonical(red.getMatchingIndexingMap(init));
  std::string wrongAxes =
      ("the " + what +
       " does not reduce over the elements of each group (trailing "
       "dimensions of the grouped view, keeping the leading ones)")
          .str();
  if (!out)
    return wrongAxes;
  SmallVector<bool> kept(shape.size(), false);
  for (AffineExpr e : out.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      kept[d.getPosition()] = true;
    else if (auto c = dyn_cast<AffineConstantExpr>(e); !c || c.getValue())
      return wrongAxes;
  }
  SmallVector<utils::IteratorType> iters = red.getIteratorTypesArray();
  bool reducing = false;
  int64_t groupElems = 1;
  for (auto [d, extent] : llvm::enumerate(shape)) {
    if (extent == 1)
      continue;
    bool parallel = iters[d] == utils::IteratorType::parallel;
    if (parallel != kept[d] || (parallel && reducing))
      return wrongAxes;
    if (parallel)
      continue;
    if (ShapedType::isDynamic(extent))
      return ("the " + what +
              " reduces a dynamic dimension, so the group "
              "size is unknown")
          .str();
    reducing = true;
    groupElems *= extent;
  }
  if (!reducing)
    return wrongAxes;
  if (statMap && *statMap != out)
    return ("the " + what + " is reduced over other dimensions than the mean")
        .str();
  if (!statMap) {
    statMap = out;
    groupSize = groupElems;
  }
  if (canonical(sum.map) != out)
    return ("the " + what + " is not read per (sample, group)").str();
  std::optional<MappedValue> fill = matchCopy(init->get());
  if (!matchPattern(init->get(), m_AnyZeroFloat()) &&
      !(fill && matchPattern(fill->source, m_AnyZeroFloat())))
    return ("the " + what + "'s sum does not start from 0.0").str();

  // 2. The body: yield(acc + summand).
  Block *body = red.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getNumOperands() == 1
                 ? yield.getOperand(0).getDefiningOp<arith::AddFOp>()
                 : arith::AddFOp();
  BlockArgument acc = red.getMatchingBlockArgument(init);
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return ("the " + what + "'s reduction is not a sum").str();
  Term term = traceScalar(
      add.getLhs() == acc ? add.getRhs() : add.getLhs(),
      AffineMap::getMultiDimIdentityMap(shape.size(), red.getContext()), data);
  switch (summand) {
  case Summand::X:
    if (isDataElement(term))
      return "";
    break;
  case Summand::XSquared:
    if (auto sq = term.value.getDefiningOp<arith::MulFOp>();
        sq && isDataElement(trace(sq.getLhs(), term)) &&
        isDataElement(trace(sq.getRhs(), term)))
      return "";
    break;
  case Summand::CenteredSquared:
    if (auto sq = term.value.getDefiningOp<arith::MulFOp>()) {
      Term d = trace(sq.getLhs(), term);
      auto sub = d.value.getDefiningOp<arith::SubFOp>();
      if (sub && d == trace(sq.getRhs(), term) &&
          isDataElement(trace(sub.getLhs(), d)))
        return matchMean(trace(sub.getRhs(), d));
    }
    break;
  }
  return ("the " + what + "'s reduction does not sum the expected terms").str();
}

/// `v` = sum * c or sum / c, with c = 1 / K or K.
std::string GroupNormMatcher::matchScaledSum(const Term &v, StringRef what,
                                             Summand summand) {
  std::optional<Term> sum;
  std::optional<double> factor;
  if (auto mul = v.value.getDefiningOp<arith::MulFOp>()) {
    for (auto [s, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if ((factor = constantValue(trace(c, v)))) {
        sum = trace(s, v);
        break;
      }
  } else if (auto div = v.value.getDefiningOp<arith::DivFOp>()) {
    if (std::optional<double> c = constantValue(trace(div.getRhs(), v))) {
      sum = trace(div.getLhs(), v);
      factor = 1.0 / *c;
    }
  }
  if (!factor)
    return ("the " + what + " is not a group sum scaled by a constant").str();
  std::string why = matchGroupSum(*sum, what, summand);
  if (!why.empty())
    return why;
  // 1/K rounded to f32 is what front ends write.
  double expected = 1.0 / static_cast<double>(groupSize);
  if (std::abs(*factor - expected) > 1e-6 * expected)
    return llvm::formatv("the {0} divides the group sum by {1}, not by the "
                         "group size {2}",
                         what, formatF32(1.0 / *factor), groupSize)
        .str();
  return "";
}

std::string GroupNormMatcher::matchMean(const Term &v) {
  return matchScaledSum(v, "mean", Summand::X);
}

/// var = sum((x - mean)^2) / K, or sum(x^2) / K - mean * mean.
std::string GroupNormMatcher::matchVariance(const Term &v) {
  if (auto sub = v.value.getDefiningOp<arith::SubFOp>()) {
    Term meanSq = trace(sub.getRhs(), v);
    auto sq = meanSq.value.getDefiningOp<arith::MulFOp>();
    if (!sq)
      return "the variance is not E[x^2] - mean^2 nor a centered sum";
    std::string why =
        matchScaledSum(trace(sub.getLhs(), v), "variance", Summand::XSquared);
    if (why.empty())
      why = matchMean(trace(sq.getLhs(), meanSq));
    if (why.empty())
      why = matchMean(trace(sq.getRhs(), meanSq));
    return why;
  }
  return matchScaledSum(v, "variance", Summand::CenteredSquared);
}

/// var + eps, eps a positive constant.
std::string GroupNormMatcher::matchVarPlusEps(const Term &v) {
  if (auto add = v.value.getDefiningOp<arith::AddFOp>()) {
    for (auto [var, eps] : {std::pair(add.getLhs(), add.getRhs()),
                            std::pair(add.getRhs(), add.getLhs())})
      if (std::optional<double> c = constantValue(trace(eps, v));
          c && *c > 0.0) {
        epsilon = shortestRoundTrip(*c);
        return matchVariance(trace(var, v));
      }
  }
  return "no positive constant epsilon is added to the variance before "
         "rsqrt";
}

/// rstd = rsqrt(var + eps) or 1 / sqrt(var + eps).
std::string GroupNormMatcher::matchRstd(const Term &v) {
  if (auto r = v.value.getDefiningOp<math::RsqrtOp>())
    return matchVarPlusEps(trace(r.getOperand(), v));
  if (auto div = v.value.getDefiningOp<arith::DivFOp>()) {
    Term s = trace(div.getRhs(), v);
    auto sqrt = s.value.getDefiningOp<math::SqrtOp>();
    if (sqrt && constantValue(trace(div.getLhs(), v)) == 1.0)
      return matchVarPlusEps(trace(sqrt.getOperand(), s));
  }
  return "the normalization does not multiply by rsqrt(var + eps)";
}

/// The tensor `v` is a chain of tensor.expand_shape / collapse_shape of (or
/// `v`). Reshapes keep the row-major order of the elements.
Value fuser::reshapeRoot(Value v) {
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

/// If `red` sums a tensor element by element over its whole shape, returns
/// that tensor (seen through elementwise producers such as an arith.extf).
Value fuser::summedTensor(linalg::LinalgOp red) {
  if (red.getNumDpsInits() != 1 || red->getNumResults() != 1 ||
      !red.hasPureTensorSemantics() || red.getNumReductionLoops() == 0)
    return Value();
  auto yield = dyn_cast<linalg::YieldOp>(red.getBlock()->getTerminator());
  auto add = yield && yield.getNumOperands() == 1
                 ? yield.getOperand(0).getDefiningOp<arith::AddFOp>()
                 : arith::AddFOp();
  BlockArgument acc = red.getMatchingBlockArgument(red.getDpsInitOperand(0));
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return Value();
  Value summand = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(red.getNumLoops(), red.getContext());
  Term t = traceScalar(summand, id);
  if (!t.tensor) {
    // The data may itself be computed elementwise (nn.Linear's bias add
    // before a LayerNorm, with no reshape between): stop at the first
    // producer that computes. The data is read again to center it, so it
    // has other users; a sum of computed terms (the variance's squares)
    // has not, and is not a candidate.
    t = traceScalar(summand, id, Value(), /*passThroughOnly=*/true);
    if (t.tensor) {
      SmallPtrSet<Operation *, 4> users(t.tensor.getUsers().begin(),
                                        t.tensor.getUsers().end());
      if (users.size() < 2)
        t.tensor = Value();
    }
  }
  auto ty = t.tensor ? dyn_cast<RankedTensorType>(t.tensor.getType())
                     : RankedTensorType();
  if (!ty || ty.getRank() < 2 ||
      red.getStaticLoopRanges() != ArrayRef<int64_t>(ty.getShape()) ||
      !isElementOf(t, t.tensor))
    return Value();
  return t.tensor;
}
