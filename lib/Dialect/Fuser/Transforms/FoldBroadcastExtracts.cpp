//===- FoldBroadcastExtracts.cpp - torch-mlir's broadcasts as maps --------===//
//
// See the pass description: a generic's tensor.extract at loop indices,
// constants, or torch-mlir's run-time broadcast select becomes an input
// read through an indexing map, which fusion can take.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFOLDBROADCASTEXTRACTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// The loop `linalg.index` `v` reads, if it is one.
static std::optional<unsigned> loopIndexOf(Value v) {
  if (auto index = v.getDefiningOp<linalg::IndexOp>())
    return index.getDim();
  return std::nullopt;
}

/// Whether `size` is the extent of loop `loop` of `op`: the size of an
/// operand's dimension that the loop indexes directly, as the same value
/// (a tensor.empty's size operand), a `tensor.dim` of that operand and
/// dimension, or the same constant.
static bool isLoopExtent(linalg::GenericOp op, unsigned loop, Value size) {
  APInt constant;
  bool isConstant = matchPattern(size, m_ConstantInt(&constant));
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(expr);
      if (!d || d.getPosition() != loop)
        continue;
      if (!type.isDynamicDim(dim)) {
        if (isConstant && constant.getSExtValue() == type.getDimSize(dim))
          return true;
        continue;
      }
      if (auto empty = operand.get().getDefiningOp<tensor::EmptyOp>())
        if (empty.getDynamicSize(dim) == size)
          return true;
      if (auto dimOp = size.getDefiningOp<tensor::DimOp>())
        if (dimOp.getSource() == operand.get() &&
            dimOp.getConstantIndex() == static_cast<int64_t>(dim))
          return true;
    }
  }
  return false;
}

/// The map expression of one extract index, if the index is a loop index,
/// a constant, or `select(S == 1, 0, index k)` with S loop k's extent.
static std::optional<AffineExpr> indexExpr(linalg::GenericOp op, Value index) {
  MLIRContext *ctx = op.getContext();
  if (std::optional<unsigned> loop = loopIndexOf(index))
    return getAffineDimExpr(*loop, ctx);
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant)))
    return getAffineConstantExpr(constant.getSExtValue(), ctx);
  auto select = index.getDefiningOp<arith::SelectOp>();
  if (!select || !matchPattern(select.getTrueValue(), m_Zero()))
    return std::nullopt;
  std::optional<unsigned> loop = loopIndexOf(select.getFalseValue());
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!loop || !cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value size = cmp.getLhs();
  if (!matchPattern(cmp.getRhs(), m_One())) {
    if (!matchPattern(cmp.getLhs(), m_One()))
      return std::nullopt;
    size = cmp.getRhs();
  }
  // The size must come from outside the body, where the extent lives.
  if (op->isAncestor(size.getParentRegion()->getParentOp()) ||
      !isLoopExtent(op, *loop, size))
    return std::nullopt;
  return getAffineDimExpr(*loop, ctx);
}

struct FoldBroadcastExtracts : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Block &body = op.getRegion().front();
    SmallVector<tensor::ExtractOp> extracts;
    SmallVector<AffineMap> maps;
    for (auto extract : body.getOps<tensor::ExtractOp>()) {
      if (op->isAncestor(extract.getTensor().getParentRegion()->getParentOp()))
        continue;
      SmallVector<AffineExpr> exprs;
      for (Value index : extract.getIndices()) {
        std::optional<AffineExpr> e = indexExpr(op, index);
        if (!e)
          break;
        exprs.push_back(*e);
      }
      if (exprs.size() != extract.getIndices().size())
        continue;
      extracts.push_back(extract);
      maps.push_back(AffineMap::get(op.getNumLoops(), 0, exprs, getContext()));
    }
    if (extracts.empty())
      return rewriter.notifyMatchFailure(op, "no extract reads through a map");

    SmallVector<Value> inputs = op.getDpsInputs();
    SmallVector<AffineMap> indexingMaps;
    for (OpOperand *in : op.getDpsInputOperands())
      indexingMaps.push_back(op.getMatchingIndexingMap(in));
    for (auto [extract, map] : llvm::zip(extracts, maps)) {
      inputs.push_back(extract.getTensor());
      indexingMaps.push_back(map);
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      indexingMaps.push_back(op.getMatchingIndexingMap(&init));
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
        indexingMaps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                                generic.getRegion().end());
    // The new inputs' arguments go after the old inputs', before the
    // outputs'.
    Block &moved = generic.getRegion().front();
    unsigned position = op.getNumDpsInputs();
    for (tensor::ExtractOp extract : extracts) {
      BlockArgument arg =
          moved.insertArgument(position++, extract.getType(), extract.getLoc());
      rewriter.replaceOp(extract, arg);
    }
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

struct FuserFoldBroadcastExtractsPass
    : fuser::impl::FuserFoldBroadcastExtractsPassBase<
          FuserFoldBroadcastExtractsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBroadcastExtracts>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
